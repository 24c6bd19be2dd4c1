import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeRules

/// A script with the host central on connection handle 1, connected at 100 ms.
private func connected() -> SessionScript {
    var s = SessionScript()
    s.at(50)
    s.createConnection(peerA)
    s.at(100)
    s.connectionComplete(peerA, handle: 1)
    return s
}

@Suite struct GATTRuleTests {
    /// Five services discovered over the full range (or 180D found by its UUID, or none
    /// discovered); characteristics discovered in 180D (0x0010, notify) and 180F (0x0015,
    /// read); only 180D used (CCCD write), and 180F's characteristic read when `read180F`.
    struct Discovered {
        var script = connected()
        var serviceRequests: [FrameNumber] = []
        var characteristicRequests: [FrameNumber] = []
    }

    func discovered(services: Bool = true, byUUID: Bool = false, characteristics: Bool = true, read180F: Bool = false) -> Discovered {
        var d = Discovered()
        d.script.at(200)
        if byUUID {
            d.serviceRequests.append(d.script.discoverPrimaryService(1, uuid: 0x180D))
            // ATT_FIND_BY_TYPE_VALUE_RSP (Vol 3 Part F §3.4.3.4, 0x07): Found Attribute Handle, Group End Handle.
            d.script.att(1, .received, [0x07, 0x0A, 0x00, 0x12, 0x00])
        } else if services {
            d.serviceRequests.append(d.script.discoverPrimaryServices(1, from: 0x0001))
            d.script.primaryServices(1, [(0x0001, 0x0005, 0x1800), (0x0006, 0x0009, 0x1801), (0x000A, 0x0012, 0x180D)])
            d.serviceRequests.append(d.script.discoverPrimaryServices(1, from: 0x0013))
            d.script.primaryServices(1, [(0x0013, 0x0016, 0x180F), (0x0017, 0x0020, 0x180A)])
        }
        if characteristics {
            d.script.at(250)
            d.characteristicRequests.append(d.script.discoverCharacteristics(1, from: 0x000A, to: 0x0012))
            d.script.characteristics(1, [(valueHandle: 0x0010, properties: 0x10, uuid: 0x2A37)])
            d.script.findInformation(1, from: 0x0011, to: 0x0012, [(handle: 0x0011, uuid: 0x2902)])
        }
        d.script.at(300)
        d.script.write(1, attribute: 0x0011, [0x01, 0x00])
        d.script.writeResponse(1)
        if characteristics {
            d.script.at(350)
            d.characteristicRequests.append(d.script.discoverCharacteristics(1, from: 0x0013, to: 0x0016))
            d.script.characteristics(1, [(valueHandle: 0x0015, properties: 0x02, uuid: 0x2A19)])
        }
        if read180F {
            d.script.at(400)
            d.script.read(1, attribute: 0x0015)
            d.script.readResponse(1, [0x64])
        }
        // The capture goes on past the rules' observation window with the link up: what came
        // after the discovery is in it.
        d.script.at(20_000)
        _ = d.script.note("end")
        return d
    }

    @Test func discoverAllServices() {
        let all = discovered()
        let v = verdict(GATTDiscoverAllServices.self, all.script.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == all.serviceRequests)
        #expect(v.reason.contains("1 with a characteristic used afterwards"))
        #expect(verdict(GATTDiscoverAllServices.self, discovered(byUUID: true).script.analysis()).status == .passed)
        #expect(verdict(GATTDiscoverAllServices.self, discovered(services: false).script.analysis()).status == .notEvaluated)
    }

    @Test func discoverAllCharacteristics() {
        let all = discovered()
        let v = verdict(GATTDiscoverAllCharacteristics.self, all.script.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.map(\.evidence) == [[all.characteristicRequests[1]]])
        #expect(v.findings.first?.subject.contains("180F") == true)
        #expect(verdict(GATTDiscoverAllCharacteristics.self, discovered(read180F: true).script.analysis()).status == .passed)
        #expect(verdict(GATTDiscoverAllCharacteristics.self, discovered(characteristics: false).script.analysis()).status == .notEvaluated)
    }

    @Test func sweepReadsAreNotUses() {
        var s = connected()
        s.at(150)
        s.discoverPrimaryService(1, uuid: 0xFFF0)
        s.att(1, .received, [0x07, 0x0E, 0x00, 0x14, 0x00])
        s.at(200)
        s.discoverCharacteristics(1, from: 0x000E, to: 0x0014)
        s.characteristics(1, [(valueHandle: 0x0010, properties: 0x02, uuid: 0xFFF1), (valueHandle: 0x0012, properties: 0x0A, uuid: 0xFFF2)])
        s.at(300)
        s.read(1, attribute: 0x0010)
        s.readResponse(1, [0x01])
        s.at(400)
        s.read(1, attribute: 0x0012)
        s.readResponse(1, [0x02])
        s.at(20_000)
        _ = s.note("end")
        let v = verdict(GATTDiscoverAllCharacteristics.self, s.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.message.contains("just-in-case sweep") == true)
    }

    /// A capture that ends less than 10 s after the discovery, the link still up: what the app did
    /// next is not in it, so the discovery rules do not judge that connection.
    @Test func discoveryJustBeforeTheEndIsNotJudged() {
        let v = verdict(GATTDiscoverAllServices.self, discoveredShort().analysis())
        #expect(v.status == .notEvaluated)
        #expect(v.reason.contains("capture ends less than"))
    }

    /// `discovered()` without the capture going on afterwards.
    func discoveredShort() -> SessionScript {
        var d = Discovered()
        d.script.at(200)
        d.script.discoverPrimaryServices(1, from: 0x0001)
        d.script.primaryServices(1, [(0x0001, 0x0005, 0x1800), (0x000A, 0x0012, 0x180D), (0x0013, 0x0016, 0x180F)])
        return d.script
    }

    /// Six reads of 0x0010, 200 ms apart, after its discovery with `properties` (none: not discovered).
    func polled(properties: UInt8?, reads: Int = 6) -> (SessionScript, learned: FrameNumber?, reads: [FrameNumber]) {
        var s = connected()
        var learned: FrameNumber?
        if let properties {
            s.at(500)
            s.discoverCharacteristics(1, from: 0x000E, to: 0x0012)
            learned = s.characteristics(1, [(valueHandle: 0x0010, properties: properties, uuid: 0x2A37)])
        }
        var frames: [FrameNumber] = []
        for i in 0..<reads {
            s.at(1000 + Double(i) * 200)
            frames.append(s.read(1, attribute: 0x0010))
            s.readResponse(1, [0x00, UInt8(truncatingIfNeeded: i)])
        }
        return (s, learned, frames)
    }

    @Test func polling() {
        var v = verdict(GATTPolling.self, polled(properties: nil).0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.severity == .info)  // properties unknown
        let notifiable = polled(properties: 0x12)
        v = verdict(GATTPolling.self, notifiable.0.analysis())
        #expect(v.findings.first?.severity == .warning)
        #expect(v.findings.first?.evidence == [notifiable.learned, notifiable.reads.first, notifiable.reads.last].compactMap { $0 })
        #expect(verdict(GATTPolling.self, polled(properties: 0x02).0.analysis()).status == .passed)
        #expect(verdict(GATTPolling.self, polled(properties: nil, reads: 0).0.analysis()).status == .notEvaluated)
    }

    /// A handle polled past `StreamingQuantiles.exactLimit` reads: the median gap is estimated
    /// (and said to be), within 0.05 %, from a histogram that does not grow with the reads.
    @Test func pollingForLongEstimatesTheMedianGap() {
        let reads = StreamingQuantiles.exactLimit + 600
        let s = polled(properties: nil, reads: reads).0
        let v = verdict(GATTPolling.self, s.analysis())
        #expect(v.status == .violated)
        // 200 ms between reads (the script's timestamps are whole microseconds).
        let message = v.findings.first?.message ?? ""
        #expect(message.contains("read \(reads) times"))
        #expect(message.contains("median gap about 200.0"))
    }

    @Test func attRulesNotEvaluatedWhenACLTruncated() {
        var s = connected()
        for i in 0..<12 {
            s.at(200 + Double(i) * 10)
            s.write(1, attribute: 0x0013, [UInt8](repeating: 0xAA, count: 100))
            s.truncateLast(keeping: 8)
        }
        let v = verdict(ATTSmallWrites.self, s.analysis())
        #expect(v.status == .notEvaluated)
        #expect(v.reason.contains("truncated"))
    }
}

@Suite struct ATTRuleTests {
    /// 25 Write Commands of `size` bytes, 20 ms apart, after an MTU exchange to `mtu` when given.
    func smallWrites(mtu: UInt16?, size: Int = 20) -> (SessionScript, [FrameNumber]) {
        var s = connected()
        if let mtu {
            s.at(500)
            s.exchangeMTU(1, client: mtu, server: mtu)
        }
        let writes = (0..<25).map { i -> FrameNumber in
            s.at(1000 + Double(i) * 20)
            return s.writeCommand(1, attribute: 0x0013, [UInt8](repeating: UInt8(i), count: size))
        }
        return (s, writes)
    }

    @Test func smallWrites() {
        #expect(verdict(ATTSmallWrites.self, SessionScript().analysis()).status == .notEvaluated)
        let (s, writes) = smallWrites(mtu: nil)
        let v = verdict(ATTSmallWrites.self, s.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [writes.first, writes.last].compactMap { $0 })
        // An MTU exchange that left ATT_MTU at 23: the peer can't take more, no finding.
        #expect(verdict(ATTSmallWrites.self, smallWrites(mtu: 23).0.analysis()).status == .passed)
        // Raised above 23 and still 20-byte writes: finding.
        #expect(verdict(ATTSmallWrites.self, smallWrites(mtu: 247).0.analysis()).status == .violated)
        // 14-byte writes, exchange or not: whole messages, not data cut into 20-byte pieces (as
        // phlash's 7-byte commands 8d0a…d8, frames 1026–1275, tshark), which a larger MTU would not
        // shorten.
        #expect(verdict(ATTSmallWrites.self, smallWrites(mtu: nil, size: 14).0.analysis()).status == .passed)
        #expect(verdict(ATTSmallWrites.self, smallWrites(mtu: 247, size: 14).0.analysis()).status == .passed)
    }

    /// 21 Write Requests of 244 bytes (ATT_MTU 247), 50 ms apart, each answered, to 0x0013
    /// discovered with `properties`.
    func bulk(properties: UInt8) -> (SessionScript, learned: FrameNumber, writes: [FrameNumber]) {
        var s = connected()
        s.at(300)
        s.exchangeMTU(1, client: 247, server: 247)
        s.at(500)
        s.discoverCharacteristics(1, from: 0x0012, to: 0x0014)
        let learned = s.characteristics(1, [(valueHandle: 0x0013, properties: properties, uuid: 0x2A3D)])
        let writes = (0..<21).map { i -> FrameNumber in
            s.at(1000 + Double(i) * 50)
            let f = s.write(1, attribute: 0x0013, [UInt8](repeating: UInt8(i), count: 244))
            s.at(1000 + Double(i) * 50 + 10)
            s.writeResponse(1)
            return f
        }
        return (s, learned, writes)
    }

    @Test func acknowledgedBulk() {
        #expect(verdict(ATTAcknowledgedBulk.self, SessionScript().analysis()).status == .notEvaluated)
        let b = bulk(properties: 0x0C)
        let v = verdict(ATTAcknowledgedBulk.self, b.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [b.learned, b.writes.first, b.writes.last].compactMap { $0 })
        #expect(verdict(ATTAcknowledgedBulk.self, bulk(properties: 0x08).0.analysis()).status == .passed)  // write only
    }
}
