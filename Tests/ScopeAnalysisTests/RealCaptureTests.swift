import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

@Suite struct RealCaptureTests {
    /// Android snoop of a smart lock: scan, three LE connection attempts (tshark's "3 LE
    /// connections" are three LE Enhanced Connection Complete events: frames 442 and 579
    /// succeed, frame 690 is status 0x02 after the host cancelled in frame 688), GATT, disconnects.
    @Test func yeelockHasThreeLEConnectionAttempts() throws {
        guard let url = Fixtures.corpus("real/cnrd__yeelock__btsnoop_hci.log") else { return }
        let r = try AnalysisBuilder.analyze(path: url.path)
        #expect(r.capture.frames == 690)
        #expect(r.attempts.map(\.request.frame) == [432, 577, 686])
        #expect(r.attempts.map(\.outcome) == [.connected, .connected, .cancelled])
        #expect(r.attempts.last?.cancel?.frame == 688)
        #expect(r.attempts.last?.complete?.frame == 690)
        let le = r.connections.filter { $0.isLE && $0.setupObserved }
        #expect(le.map(\.complete?.frame) == [442, 579])
        #expect(le.map(\.disconnect?.frame) == [522, 685])
        #expect(le.map(\.disconnectInitiator) == [.remote, .remote])
        // Every connection that completed was asked for by the host (central role).
        #expect(le.allSatisfy { $0.role == .central && $0.request != nil })
        // tshark counts 104 ATT PDUs; all of them belong to these connections.
        #expect(r.connections.reduce(0) { $0 + $1.att.count } == 104)
        #expect(r.devices.count > 0)
        #expect(r.capture.health.handlesWithoutSetup.isEmpty)
        #expect(le.allSatisfy { $0.gatt.services.count > 0 || $0.att.isEmpty })
    }

    /// The connection timing figures are the local GATT client's (RULES.md: time to the end of
    /// GATT discovery, to the first useful data). A peripheral whose ATT traffic only answers the
    /// peer's client has neither: in the shipped adv.without-need-passes, the peer discovers the
    /// local server (frames 39–52) and reads from it, answered in frame 55 (tshark).
    @Test func timingFiguresOfAServerOnlyLinkAreAbsent() throws {
        let url = Fixtures.project("scenarios/adv.without-need-passes.btsnoop")
        let r = try AnalysisBuilder.analyze(path: url.path)
        let c = try #require(r.connections.first)
        #expect(c.remoteIsGATTClient && !c.localIsGATTClient)
        #expect(c.firstATT?.frame == 39)
        #expect(c.discoveryEnd == nil)
        #expect(c.firstData == nil)
    }

    /// An iPhone reconnecting smart glasses (PacketLogger; connection complete frame 236, handle
    /// 0x004B): both sides are GATT clients. The glasses discover the phone's server (frames
    /// 294–415); the phone discovers nothing (its Read By Type of the Device Name, frame 357, is a
    /// read), and its own server indicates Service Changed (frame 260). The first value the
    /// phone receives is the notification of frame 437 (tshark).
    @Test func peerDiscoveryAndLocalServerDataAreNotTheLocalClientsTiming() throws {
        guard let url = Fixtures.corpus("real/havvk__even-g2-smart-classroom__bt3.pklg") else { return }
        let r = try AnalysisBuilder.analyze(path: url.path)
        let c = try #require(r.connections.first { $0.id.handle == 0x004B })
        #expect(c.complete?.frame == 236)
        #expect(c.localIsGATTClient && c.remoteIsGATTClient)
        #expect(c.discoveryEnd == nil)
        #expect(c.firstData?.frame == 437)
    }

    /// A phone as peripheral of an insulin pump (connection complete frame 31, role peripheral):
    /// the pump discovers the phone's server for 20 s; the phone's own discovery, a Find By Type
    /// Value (frame 90), ends with the Error Response of frame 102, and the first value it
    /// receives is the Read Response of frame 119 (tshark).
    @Test func localDiscoveryEndsWhereTheLocalClientsDoes() throws {
        guard let url = Fixtures.corpus("real/palmarci__OpenGuardian__780g_pairing_with_mobile.pcapng") else { return }
        let r = try AnalysisBuilder.analyze(path: url.path)
        let c = try #require(r.connections.first { $0.id.handle == 0x0004 })
        #expect(c.complete?.frame == 31)
        #expect(c.discoveryEnd?.frame == 102)
        #expect(c.firstData?.frame == 119)
    }

    /// Only ACL records, no HCI events: the connection is listed with its setup unknown.
    @Test func aclOnlyCaptureListsConnectionWithoutSetup() throws {
        guard let url = Fixtures.corpus("real/syssi__esphome-lumentree__btsnoop_hci.log") else { return }
        let r = try AnalysisBuilder.analyze(path: url.path)
        #expect(r.capture.frames == 1304)
        #expect(!r.connections.isEmpty)
        #expect(r.connections.allSatisfy { $0.complete == nil && !$0.setupObserved })
        #expect(!r.capture.health.handlesWithoutSetup.isEmpty)
        #expect(r.connections.reduce(0) { $0 + $1.att.count } == 1304)
        #expect(r.scans.isEmpty && r.attempts.isEmpty && r.pairings.isEmpty)
        #expect(r.capture.health.notes.contains(.setupNotCaptured(handles: r.capture.health.handlesWithoutSetup)))
    }

    /// Android "filtered" logs cut ACL to a few bytes: the analysis says ATT analysis is incomplete.
    @Test func truncatedACLIsReportedInPlainWords() {
        var dissector = Dissector()
        var builder = AnalysisBuilder(file: "synthetic", format: .btsnoopH4)
        let t0: Int64 = 1_700_000_000_000_000
        // LE Connection Complete, handle 0x0040, central, peer 11:22:33:44:55:66, 50 ms, 0, 5 s.
        let complete: [UInt8] = [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00]
        // ATT Read Response with 10 value bytes, cut to 7 bytes of the original 15.
        let acl: [UInt8] = [0x40, 0x20, 0x0B, 0x00, 0x07, 0x00, 0x04]
        let records = [
            CaptureRecord(frame: 1, timestamp: Timestamp(microseconds: t0), direction: .received, kind: .event, payload: complete),
            CaptureRecord(
                frame: 2, timestamp: Timestamp(microseconds: t0 + 1000), direction: .received, kind: .acl, originalLength: 15, payload: acl),
        ]
        for record in records { builder.consume(dissector.decode(record)) }
        let r = builder.finish()
        #expect(r.capture.frames == 2)
        #expect(r.capture.health.truncatedACL == 1)
        #expect(r.capture.health.attAnalysisIncomplete)
        #expect(r.capture.health.notes.contains(.truncatedACL(count: 1)))
        #expect(r.connections.count == 1)
        #expect(r.connections.first?.complete?.frame == 1)
        #expect(r.connections.first?.intervalMicros == 50_000)
        #expect(r.connections.first?.supervisionTimeoutMicros == 5_000_000)
        #expect(r.connections.first?.disconnect == nil)
    }

    /// The association model tables (Core v5.4 Vol 3 Part H §2.3.5.1).
    @Test func pairingMethodTables() throws {
        guard let url = Fixtures.corpus("scenarios/pairing_secure_connections.btsnoop") else { return }
        let r = try AnalysisBuilder.analyze(path: url.path)
        let p = try #require(r.pairings.first)
        #expect(p.method == .numericComparison && p.secureConnections && p.result == .success)
        #expect(r.connections.first?.encryptionChanges.first?.status == 0)
    }
}

/// Every capture of the corpus is analysed to the end without trapping; frame counts agree
/// with the reader's.
@Suite struct CorpusAnalysisTests {
    @Test("analysis runs over every corpus capture", arguments: Fixtures.corpusFiles().map(\.lastPathComponent))
    func analyses(_ name: String) throws {
        guard let url = Fixtures.corpusFiles().first(where: { $0.lastPathComponent == name }) else { return }
        // Files that are not HCI captures (link-layer sniffer formats) are refused by the reader.
        guard let r = try? AnalysisBuilder.analyze(path: url.path) else { return }
        #expect(r.connections.allSatisfy { c in
            guard let a = c.complete, let b = c.disconnect else { return true }; return a <= b })
        #expect(r.scans.allSatisfy { $0.reports >= $0.duplicates })
    }
}
