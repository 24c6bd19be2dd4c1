import ScopeAnalysis
import ScopeCore
import ScopeDecode
import Testing

/// Duplicates and distinct payloads of one advertiser whose reports cycle through more data than
/// the scan analysis keeps per advertiser: each decision is the one the session's and the
/// device's tables make, whatever the data's length (payloads that differ in their last byte only).
@Suite struct ScanDuplicateTests {
    @Test func repeatedDataIsADuplicateOnlyInItsSessionAndForItsEventType() {
        var dissector = Dissector()
        var builder = AnalysisBuilder(file: "synthetic", format: "btsnoop-2001")
        let t0: Int64 = 1_700_000_000_000_000
        var frame: FrameNumber = 0
        var records: [CaptureRecord] = []
        func add(_ kind: RecordKind, _ direction: Direction, _ payload: [UInt8]) {
            frame += 1
            records.append(
                CaptureRecord(
                    frame: frame, timestamp: Timestamp(microseconds: t0 + Int64(frame) * 1000), adapter: 0, direction: direction,
                    kind: kind, payload: payload))
        }
        let complete: [UInt8] = [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]
        func scan(_ enable: UInt8) {
            add(.command, .sent, [0x0C, 0x20, 0x02, enable, 0x00])
            add(.event, .received, complete)
        }
        // LE Advertising Report: 1 report of `eventType`, public address 0xA1, `data`, RSSI -59.
        func report(_ eventType: UInt8, _ data: [UInt8]) {
            add(
                .event, .received,
                [0x3E, UInt8(12 + data.count), 0x02, 0x01, eventType, 0x00] + BDAddr(value: 0xA1).littleEndianBytes
                    + [UInt8(data.count)] + data + [0xC5])
        }
        // `count` bytes 0x11, the last one `last`.
        func data(_ count: Int, last: UInt8) -> [UInt8] { count == 0 ? [] : Array(repeating: 0x11, count: count - 1) + [last] }
        let cycle = [
            data(31, last: 1), data(31, last: 2), data(9, last: 1), data(9, last: 2), data(1, last: 1), data(8, last: 1),
            data(8, last: 2), data(0, last: 0),
        ]
        scan(1)
        for d in cycle + cycle { report(0x00, d) }
        // The same data as a scan response: not a duplicate of the advertising report, then one.
        report(0x04, cycle[0])
        report(0x04, cycle[0])
        scan(0)
        scan(1)
        report(0x00, cycle[0])
        report(0x00, cycle[0])
        scan(0)
        for r in records { builder.consume(dissector.decode(r)) }
        let result = builder.finish()
        #expect(result.scans.map(\.reports) == [18, 2])
        #expect(result.scans.map(\.duplicates) == [9, 1])
        #expect(result.scans.map(\.devicesSeen) == [1, 1])
        #expect(result.devices.count == 1)
        #expect(result.devices.first?.reports == 20)
        #expect(result.devices.first?.distinctPayloads == 8)
    }
}
