import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeAnalysis

/// Flat memory on a scan that hears ever new advertisers (`ScanTracker.forgetQuietDevices`): the
/// devices after the first kept ones leave once quiet for longer than a private address lives,
/// and only their count stays. Phones whose private addresses rotate are the case it is for:
/// every figure but the held list comes out as if every device had stayed.
@Suite("Quiet devices leave")
struct QuietDeviceTests {
    /// Four devices stay for the report; the others are looked at every 8 new ones and leave after
    /// five quiet minutes.
    static let policy = AnalysisBuilder.HandOverPolicy(kept: 4, devices: 8, deviceQuietMicros: 5 * 60_000_000)

    /// Six phones, each with a new resolvable private address every minute for 40 minutes, each
    /// address reported three times with the same data (two duplicates), in one scan.
    static func rotatingPhones(thenRequest: Bool = false, staticDevice: Bool = false) -> SessionScript {
        var s = SessionScript()
        s.at(0)
        s.scanParameters()
        s.scanEnable(true, filterDuplicates: false)
        let fixed = BDAddr(value: 0x00_1B_DC_00_00_01)
        if staticDevice {
            s.at(100)
            s.advertisingReport(fixed, data: [0x02, 0x01, 0x06])
        }
        for minute in 0..<40 {
            for phone in 0..<6 {
                let address = rpa(phone: phone, minute: minute)
                for k in 0..<3 {
                    s.at(Double(minute * 60_000 + phone * 1_000 + k * 10_000 + 1_000))
                    s.advertisingReport(address, addressType: 0x01, data: [0x02, 0x01, 0x1A, 0x03, 0x03, 0x0F, 0x18])
                }
            }
        }
        if staticDevice {
            // Heard again 40 minutes later, with the data it sent then.
            s.at(40 * 60_000 + 500)
            s.advertisingReport(fixed, data: [0x02, 0x01, 0x06])
        }
        if thenRequest {
            s.at(40 * 60_000 + 1_000)
            s.createConnection(rpa(phone: 2, minute: 39), addressType: 0x01)
        }
        return s
    }

    static func rpa(phone: Int, minute: Int) -> BDAddr {
        BDAddr(value: 0x4000_0000_0000 | UInt64(phone) << 16 | UInt64(minute))
    }

    @Test func rotatingAddressesLeaveAndEveryFigureStays() {
        let script = Self.rotatingPhones()
        let whole = script.analysis()
        var mostHeld = 0
        let a = script.analysis(handOverPolicy: Self.policy) { mostHeld = max(mostHeld, $0.held.devices) }

        #expect(whole.devices.count == 240)
        #expect(a.handedOver.devices > 150)
        #expect(a.devices.count + a.handedOver.devices == whole.devices.count)
        // Held: the four kept, the addresses of the last five minutes (30) and those heard since
        // the last look.
        #expect(mostHeld <= 4 + 30 + 8 + 6, "held at most \(mostHeld)")
        // The scan's figures: every report, duplicate and device counted as before.
        #expect(a.scanTotals == whole.scanTotals)
        #expect(a.scans.map(\.devicesSeen) == whole.scans.map(\.devicesSeen))
        #expect(a.scans.map(\.duplicates) == [480])
        // The first devices stay, and those held are listed in the order heard.
        let key = { (d: Device) in "\(d.address) \(d.first.frame) \(d.last.frame) \(d.reports)" }
        #expect(a.devices.prefix(4).map(key) == whole.devices.prefix(4).map(key))
        let wholeKeys = whole.devices.map(key)
        var rest = wholeKeys[...]
        for k in a.devices.map(key) {
            guard let i = rest.firstIndex(of: k) else {
                Issue.record("\(k) not in the whole analysis's order")
                break
            }
            rest = rest[(i + 1)...]
        }
        // The last addresses are held with their first device.
        for phone in 0..<6 {
            let address = Self.rpa(phone: phone, minute: 39)
            #expect(a.firstDeviceOfAddress[address].map { a.devices[$0].address } == address)
            #expect(a.deviceFirst(address) == whole.deviceFirst(address))
        }
        #expect(a.firstDeviceOfAddress[Self.rpa(phone: 0, minute: 20)] == nil)
    }

    /// A request to a device still held learns where the scan found it, as without a hand-over.
    @Test func aRequestToAHeldDeviceKnowsWhereItWasFound() {
        let script = Self.rotatingPhones(thenRequest: true)
        let whole = script.analysis()
        let a = script.analysis(handOverPolicy: Self.policy)
        #expect(a.handedOver.devices > 150)
        let found = a.attempts.last?.peerDiscovery
        #expect(found != nil)
        #expect(found == whole.attempts.last?.peerDiscovery)
    }

    /// The price, documented: a static address silent for longer than the quiet time counts as
    /// a new device when heard again, and its report is not a duplicate.
    @Test func aStaticAddressHeardAgainAfterItsQuietTimeCountsAgain() {
        let script = Self.rotatingPhones(staticDevice: true)
        let whole = script.analysis()
        let a = script.analysis(handOverPolicy: AnalysisBuilder.HandOverPolicy(kept: 0, devices: 8, deviceQuietMicros: 5 * 60_000_000))
        #expect(whole.devices.count == 241)
        #expect(a.devices.count + a.handedOver.devices == 242)
        #expect(a.scans.map(\.duplicates) == whole.scans.map { $0.duplicates - 1 })
        #expect(a.scans.map(\.devicesSeen) == whole.scans.map { $0.devicesSeen + 1 })
    }

    /// A device whose name changes with every payload (a counter in it) holds its last name, and
    /// the tracker does not keep every name it sent: the names, service UUIDs and companies held
    /// follow the devices held.
    @Test func aDeviceThatRenamesItselfKeepsOneName() {
        var s = SessionScript()
        s.at(0)
        s.scanParameters()
        s.scanEnable(true, filterDuplicates: false)
        let sensor = BDAddr(value: 0x00_1B_DC_00_00_02)
        let other = BDAddr(value: 0x00_1B_DC_00_00_03)
        for n in 0..<2_000 {
            s.at(Double(n * 100 + 10))
            let name = Array("T\(n)".utf8)
            s.advertisingReport(sensor, data: [UInt8(name.count + 1), 0x09] + name + [0x03, 0x03, 0x0F, 0x18])
            s.at(Double(n * 100 + 20))
            s.advertisingReport(other, data: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0F, 0x18])
        }
        var mostTraits = 0
        let a = s.analysis(handOverPolicy: AnalysisBuilder.HandOverPolicy()) { mostTraits = max(mostTraits, $0.scans.advertisers.traitsKept) }
        #expect(mostTraits <= AdvertiserTable.fewTraits, "traits held at most \(mostTraits)")
        #expect(a.devices.map(\.name) == ["T1999", nil])
        #expect(a.devices.map(\.serviceUUIDs) == [["180f"], ["180f"]])
        #expect(a.devices.map(\.distinctPayloads) == [2_000, 1])
    }
}
