import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
import Testing

/// Duplicates and distinct payloads of one advertiser whose reports cycle through more data than
/// the scan analysis keeps per advertiser: each decision is the one the session's and the
/// device's tables make, whatever the data's length (payloads that differ in their last byte only).
@Suite struct ScanDuplicateTests {
    @Test func repeatedDataIsADuplicateOnlyInItsSessionAndForItsEventType() {
        var s = SessionScript()
        let peer = BDAddr(value: 0xA1)
        var clock = 0.0
        func next() -> Double {
            clock += 1
            return clock
        }
        // `count` bytes 0x11, the last one `last`.
        func data(_ count: Int, last: UInt8) -> [UInt8] { count == 0 ? [] : Array(repeating: 0x11, count: count - 1) + [last] }
        let cycle = [
            data(31, last: 1), data(31, last: 2), data(9, last: 1), data(9, last: 2), data(1, last: 1), data(8, last: 1),
            data(8, last: 2), data(0, last: 0),
        ]
        func report(_ eventType: UInt8, _ data: [UInt8]) {
            s.at(next())
            s.advertisingReport(peer, eventType: eventType, data: data, rssi: -59)
        }
        func scan(_ enable: Bool) {
            s.at(next())
            s.scanEnable(enable, filterDuplicates: false)
        }
        scan(true)
        for d in cycle + cycle { report(0x00, d) }
        // The same data as a scan response: not a duplicate of the advertising report, then one.
        report(0x04, cycle[0])
        report(0x04, cycle[0])
        scan(false)
        scan(true)
        report(0x00, cycle[0])
        report(0x00, cycle[0])
        scan(false)
        let result = s.analysis()
        #expect(result.scans.map(\.reports) == [18, 2])
        #expect(result.scans.map(\.duplicates) == [9, 1])
        #expect(result.scans.map(\.devicesSeen) == [1, 1])
        #expect(result.devices.count == 1)
        #expect(result.devices.first?.reports == 20)
        #expect(result.devices.first?.distinctPayloads == 8)
    }
}
