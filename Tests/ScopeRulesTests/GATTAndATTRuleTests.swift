import ScopeAnalysis
import ScopeCore
import Testing

@testable import ScopeRules

private func service(_ start: UInt16, _ end: UInt16, _ uuid: String) -> GATTDatabase.Service {
    GATTDatabase.Service(start: start, end: end, uuid: uuid, name: nil, isPrimary: true, learned: rt(41, 100))
}

private func characteristic(_ value: UInt16, props: UInt8, frame: FrameNumber = 49) -> GATTDatabase.Characteristic {
    GATTDatabase.Characteristic(
        declarationHandle: value - 1, valueHandle: value, properties: props, uuid: "2a37", name: nil, serviceStart: nil,
        learned: rt(frame, 200))
}

private func procedure(_ kind: GATTDatabase.DiscoveryProcedure.Kind, _ frame: FrameNumber, _ start: UInt16, _ end: UInt16)
    -> GATTDatabase.DiscoveryProcedure
{
    GATTDatabase.DiscoveryProcedure(kind: kind, request: rt(frame, Double(frame)), startHandle: start, endHandle: end, client: .local)
}

@Suite struct GATTRuleTests {
    /// Three services discovered over the full range; only 180D used (CCCD write).
    func discoveredAll() -> AnalysisResult {
        var r = rtResult()
        var c = rtConnection()
        c.localIsGATTClient = true
        c.gatt.services = [
            service(1, 5, "1800"), service(6, 9, "1801"), service(0x0a, 0x12, "180d"), service(0x13, 0x16, "180f"),
            service(0x17, 0x20, "180a"),
        ]
        c.gatt.discoveryProcedures = [
            procedure(.allPrimaryServices, 40, 1, 0xFFFF), procedure(.allPrimaryServices, 43, 0x13, 0xFFFF),
            procedure(.characteristics, 49, 0x0a, 0x12), procedure(.characteristics, 70, 0x13, 0x16),
        ]
        c.gatt.characteristics = [characteristic(0x10, props: 0x10), characteristic(0x15, props: 0x02, frame: 71)]
        c.att = [rtATT(58, 300, .sent, 0x12, handle: 0x11, length: 2)]
        c.cccdWrites = [CCCDWrite(at: rt(58, 300), direction: .sent, handle: 0x11, characteristicValueHandle: 0x10, value: 1)]
        r.connections = [c]
        return r
    }

    @Test func discoverAllServices() {
        var r = discoveredAll()
        let v = rtVerdict(GATTDiscoverAllServices.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [40, 43])
        #expect(v.reason.contains("1 with a characteristic used afterwards"))
        r.connections[0].gatt.discoveryProcedures = [procedure(.primaryServiceByUUID, 40, 1, 0xFFFF)]
        #expect(rtVerdict(GATTDiscoverAllServices.self, r).status == .passed)
        r.connections[0].gatt.discoveryProcedures = []
        #expect(rtVerdict(GATTDiscoverAllServices.self, r).status == .notEvaluated)
    }

    @Test func discoverAllCharacteristics() {
        var r = discoveredAll()
        let v = rtVerdict(GATTDiscoverAllCharacteristics.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.map(\.evidence) == [[70]])
        #expect(v.findings.first?.subject.contains("180F") == true)
        r.connections[0].att.append(rtATT(80, 400, .sent, 0x0A, handle: 0x15))
        #expect(rtVerdict(GATTDiscoverAllCharacteristics.self, r).status == .passed)
        r.connections[0].gatt.discoveryProcedures.removeAll { $0.kind == .characteristics }
        #expect(rtVerdict(GATTDiscoverAllCharacteristics.self, r).status == .notEvaluated)
    }

    @Test func sweepReadsAreNotUses() {
        var r = rtResult()
        var c = rtConnection()
        c.gatt.services = [service(0x0e, 0x14, "0000fff0-0000-1000-8000-00805f9b34fb")]
        c.gatt.discoveryProcedures = [procedure(.characteristics, 47, 0x0e, 0x14)]
        c.gatt.characteristics = [characteristic(0x10, props: 0x02, frame: 48), characteristic(0x12, props: 0x0A, frame: 50)]
        c.att = [
            rtATT(47, 100, .sent, 0x08, handle: 0x0e), rtATT(56, 200, .sent, 0x0A, handle: 0x10),
            rtATT(58, 300, .sent, 0x0A, handle: 0x12),
        ]
        r.connections = [c]
        let v = rtVerdict(GATTDiscoverAllCharacteristics.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.message.contains("just-in-case sweep") == true)
    }

    @Test func polling() {
        var r = rtResult()
        var c = rtConnection()
        c.att = (0..<6).map { rtATT(56 + $0 * 2, Double(1000 + $0 * 200), .sent, 0x0A, handle: 0x10) }
        r.connections = [c]
        var v = rtVerdict(GATTPolling.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.severity == .info)  // properties unknown
        r.connections[0].gatt.characteristics = [characteristic(0x10, props: 0x12)]
        v = rtVerdict(GATTPolling.self, r)
        #expect(v.findings.first?.severity == .warning)
        #expect(v.findings.first?.evidence == [49, 56, 66])
        r.connections[0].gatt.characteristics = [characteristic(0x10, props: 0x02)]
        #expect(rtVerdict(GATTPolling.self, r).status == .passed)
        r.connections[0].att = []
        #expect(rtVerdict(GATTPolling.self, r).status == .notEvaluated)
    }

    @Test func attRulesNotEvaluatedWhenACLTruncated() {
        var r = rtResult()
        r.capture.health.truncatedACL = 12
        r.connections = [rtConnection()]
        let v = rtVerdict(ATTSmallWrites.self, r)
        #expect(v.status == .notEvaluated)
        #expect(v.reason.contains("truncated"))
    }
}

@Suite struct ATTRuleTests {
    @Test func smallWrites() {
        var r = rtResult()
        #expect(rtVerdict(ATTSmallWrites.self, r).status == .notEvaluated)
        var c = rtConnection()
        c.att = (0..<25).map { rtATT(67 + $0, Double(1000 + $0 * 20), .sent, 0x52, handle: 0x13, length: 20) }
        r.connections = [c]
        let v = rtVerdict(ATTSmallWrites.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [67, 91])
        // An MTU exchange that left ATT_MTU at 23: the peer can't take more, no finding.
        r.connections[0].mtuExchanges = [rt(60, 500)]
        #expect(rtVerdict(ATTSmallWrites.self, r).status == .passed)
        // Raised above 23 and still 20-byte writes: finding.
        r.connections[0].att = r.connections[0].att.map { var e = $0; e.mtu = 247; return e }
        #expect(rtVerdict(ATTSmallWrites.self, r).status == .violated)
    }

    @Test func acknowledgedBulk() {
        var r = rtResult()
        #expect(rtVerdict(ATTAcknowledgedBulk.self, r).status == .notEvaluated)
        var c = rtConnection()
        c.att = (0..<21).map { rtATT(67 + $0 * 3, Double(1000 + $0 * 50), .sent, 0x12, handle: 0x13, length: 244, mtu: 247) }
        c.gatt.characteristics = [characteristic(0x13, props: 0x0C, frame: 60)]
        r.connections = [c]
        let v = rtVerdict(ATTAcknowledgedBulk.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [60, 67, 127])
        r.connections[0].gatt.characteristics = [characteristic(0x13, props: 0x08, frame: 60)]  // write only
        #expect(rtVerdict(ATTAcknowledgedBulk.self, r).status == .passed)
    }
}
