import ScopeCore
import Testing

@testable import ScopeAnalysis

/// The per-report tables of the scan analysis: the payload fingerprint tells payloads apart at
/// every length the hashing treats differently, and the session's report table finds each report's
/// device and forgets a device's reports when it leaves.
@Suite struct ReportTablesTests {
    static func fingerprint(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { ScanTracker.Payload.fingerprint($0) }
    }

    @Test func everyByteOfEveryLengthChangesTheFingerprint() {
        var seen = Set<UInt64>()
        var fingerprints = 0
        for length in 0...70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
            #expect(seen.insert(Self.fingerprint(bytes)).inserted, "length \(length)")
            fingerprints += 1
            for i in 0..<length {
                for flip: UInt8 in [0x01, 0x80] {
                    var changed = bytes
                    changed[i] ^= flip
                    #expect(seen.insert(Self.fingerprint(changed)).inserted, "length \(length), byte \(i) ^ \(flip)")
                    fingerprints += 1
                }
            }
        }
        #expect(seen.count == fingerprints)
        // Zero bytes of different lengths differ too.
        #expect(Self.fingerprint([0, 0, 0]) != Self.fingerprint([0, 0, 0, 0]))
        #expect(Self.fingerprint(Array(repeating: 0, count: 16)) != Self.fingerprint(Array(repeating: 0, count: 17)))
    }

    @Test func sessionTableNamesTheDeviceOfADuplicateAndForgetsDevicesThatLeave() {
        var table = SessionReportTable()
        func payload(_ n: Int) -> ScanTracker.Payload {
            let bytes = [UInt8(n & 0xFF), UInt8(n >> 8), 0x02, 0x01, 0x06]
            return ScanTracker.Payload(fingerprint: Self.fingerprint(bytes))
        }
        // 200 devices (slot = index), each with three payloads under two event types.
        for device in 0..<200 {
            let advertiser = DeviceTable.key(address: BDAddr(value: UInt64(0xC0_00_00_00_00_00 + device)), type: 1)
            for eventType: UInt16 in [0x13, 0x1B] {
                for n in 0..<3 {
                    let found = table.find(advertiser: advertiser, eventType: eventType, payload: payload(n))
                    #expect(found.device == nil)
                    table.insert(advertiser: advertiser, eventType: eventType, payload: payload(n), device: device, at: found.slot)
                }
            }
        }
        #expect(table.count == 1_200)
        func device(_ d: Int, _ eventType: UInt16, _ n: Int) -> Int? {
            let advertiser = DeviceTable.key(address: BDAddr(value: UInt64(0xC0_00_00_00_00_00 + d)), type: 1)
            return table.find(advertiser: advertiser, eventType: eventType, payload: payload(n)).device
        }
        #expect(device(17, 0x13, 2) == 17)
        #expect(device(17, 0x10, 2) == nil)
        #expect(device(17, 0x13, 3) == nil)
        table.removeAll { $0 % 3 == 0 }
        #expect(table.count == 1_200 - 67 * 6)
        for d in 0..<200 {
            #expect(device(d, 0x1B, 1) == (d % 3 == 0 ? nil : d))
        }
    }
}

extension ReportTablesTests {
    /// Inserts, replacements and removals (with the probe runs they shorten) against a
    /// dictionary: every lookup answers the same, and so do the values held.
    @Test func discoveryTableAnswersAsADictionary() {
        var table = DiscoveryTable()
        var reference: [ScanTracker.AdapterAddress: ScanTracker.Discovery] = [:]
        var state: UInt64 = 0x1234_5678
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        // Few distinct keys, so that replacements and removals hit held keys and runs collide.
        func key() -> ScanTracker.AdapterAddress {
            ScanTracker.AdapterAddress(adapter: AdapterIndex(next() % 2), address: BDAddr(value: 0xD0_00_00_00_00_00 | next() % 300))
        }
        for step in 0..<20_000 {
            let k = key()
            switch next() % 3 {
            case 0:
                table.removeValue(forKey: k)
                reference[k] = nil
            default:
                let d = ScanTracker.Discovery(
                    scanStart: step, firstReport: FrameTime(frame: step, time: Timestamp(microseconds: Int64(step))))
                let old = table.updateValue(d, forKey: k)
                #expect(old?.scanStart == reference.updateValue(d, forKey: k)?.scanStart)
            }
            let probe = key()
            #expect(table[probe]?.scanStart == reference[probe]?.scanStart)
        }
        for (k, d) in reference { #expect(table[k]?.firstReport == d.firstReport) }
        #expect(table.values.map(\.scanStart).sorted() == reference.values.map(\.scanStart).sorted())
    }
}

extension ReportTablesTests {
    /// Advertisers of a few hundred addresses under several address types, added and removed in
    /// rounds (removals in place, with the probe runs they shorten) against a dictionary: every
    /// lookup answers the same, and every address finds all its advertisers.
    @Test func deviceTableFindsEveryAdvertiserOfAnAddressAfterRemovals() {
        var table = DeviceTable()
        var reference: [UInt64: Int] = [:]
        var state: UInt64 = 0x9ABC_DEF0
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let types: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0xFF, 0x07]
        var index = 0
        for round in 0..<12 {
            for _ in 0..<400 {
                let key = DeviceTable.key(address: BDAddr(value: 0xC0_00_00_00_00_00 | next() % 500), type: types[Int(next() % 6)])
                let (found, slot) = table.find(key)
                #expect(found == reference[key])
                if found == nil {
                    table.insert(key, index: index, at: slot)
                    reference[key] = index
                    index += 1
                }
            }
            let modulus = round % 3 + 2
            table.removeAll { $0 % modulus == 0 }
            reference = reference.filter { $0.value % modulus != 0 }
            for address in 0..<500 as Range<UInt64> {
                let value = 0xC0_00_00_00_00_00 | address
                var indices: [Int] = []
                table.forEachIndex(ofAddress: value) { indices.append($0) }
                #expect(indices.sorted() == reference.filter { $0.key & 0xFFFF_FFFF_FFFF == value }.map(\.value).sorted())
                for type in types {
                    let key = DeviceTable.key(address: BDAddr(value: value), type: type)
                    #expect(table.find(key).index == reference[key])
                }
            }
        }
    }

    /// Distinct payloads of owners that leave in rounds (removed in place, and the table made
    /// smaller when most of it is free): a pair is new exactly when the set did not hold it.
    @Test func payloadTableForgetsTheOwnersThatLeave() {
        var table = PayloadTable()
        var reference = Set<[UInt64]>()
        var state: UInt64 = 0x0F0F_0F0F
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for round in 0..<10 {
            let pairs = round < 5 ? 3_000 : 100
            for _ in 0..<pairs {
                let owner = next() % 2_000
                let n = next() % 4
                let bytes = [UInt8(n), 0x02, 0x01, 0x06]
                let payload = ScanTracker.Payload(fingerprint: Self.fingerprint(bytes))
                #expect(table.insert(owner, payload) == reference.insert([owner, n]).inserted)
            }
            let modulus = UInt64(round % 4 + 2)
            table.removeAll { $0 % modulus != 1 }
            reference = reference.filter { $0[0] % modulus == 1 }
            #expect(table.count == reference.count)
        }
    }
}
