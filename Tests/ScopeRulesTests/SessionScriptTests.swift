import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeRules
import ScopeTestSupport
import Testing

/// The rule tests' scripts are real captures: Wireshark decodes what `SessionScript` writes as the
/// packets it meant, and the analysis of the written file is that of the records in memory.
@Suite struct SessionScriptTests {
    /// One of each packet the rule tests write.
    static func everything() -> SessionScript {
        var s = SessionScript()
        s.at(10)
        s.readSupportedStates(0x3FF_FFFF_FFFF)
        s.readMaximumAdvertisingDataLength(251)
        s.scanParameters()
        s.at(100)
        s.scanEnable(true)
        s.advertisingReport(peerA)
        s.createConnection(peerA)
        s.at(200)
        s.connectionComplete(peerA, handle: 1)
        s.scanEnable(false)
        s.exchangeMTU(1, client: 247, server: 247)
        s.discoverPrimaryServices(1, from: 1)
        s.primaryServices(1, [(0x0001, 0x0005, 0x1800), (0x000A, 0x0012, 0x180D)])
        s.discoverPrimaryService(1, uuid: 0x180D)
        s.discoverCharacteristics(1, from: 0x000A, to: 0x0012)
        s.characteristics(1, [(valueHandle: 0x0010, properties: 0x12, uuid: 0xFFF1)])
        s.findInformation(1, from: 0x0011, to: 0x0012, [(handle: 0x0011, uuid: 0x2902)])
        s.write(1, attribute: 0x0011, [0x01, 0x00])
        s.writeResponse(1)
        s.read(1, attribute: 0x0010)
        s.readResponse(1, [0x00, 0x48])
        s.notification(1, attribute: 0x0010, [0x00, 0x49])
        s.writeCommand(1, attribute: 0x0010, [0x01])
        s.attError(1, request: 0x0A, attribute: 0x0012, error: 0x0F)
        s.pairingFeatures(1, response: false, io: 0x03, authReq: 0x09)
        s.pairingFeatures(1, response: true, io: 0x03, authReq: 0x09)
        s.pairingFailed(1, reason: 0x05)
        s.encryptionChange(1)
        s.at(300)
        s.disconnect(1)
        s.disconnectionComplete(1, reason: 0x16)
        s.createConnection(peerB)
        s.createConnectionCancel()
        s.connectionComplete(BDAddr(value: 0), handle: 0, status: 0x02)
        s.advertisingParameters()
        s.advertisingData([0x02, 0x01, 0x06])
        s.advertisingData([0x03, 0x09, 0x41, 0x42], scanResponse: true)
        s.extendedAdvertisingData([0x02, 0x01, 0x06])
        s.advertisingEnable(true)
        s.at(400)
        s.connectionComplete(peerB, addressType: 0x01, handle: 2, peripheral: true)
        s.disconnectionComplete(2, reason: 0x13)
        s.at(500)
        s.extendedScanParameters(active: false)
        s.extendedScanEnable(true, filterDuplicates: false)
        s.extendedAdvertisingReport(peerA, connectable: false)
        s.extendedAdvertisingReport(peerB, addressType: 0x01, legacy: false, data: [0x02, 0x01, 0x06] + [0x29, 0x09] + [UInt8](repeating: 0x41, count: 40))
        s.extendedScanEnable(false)
        return s
    }

    /// What each record is, read from its bytes: the command opcode, event code (and LE
    /// subevent), or the L2CAP channel and its first octet (ATT opcode, SMP code).
    static func identity(_ r: CaptureRecord) -> String {
        let p = r.payload
        switch r.kind {
        case .command: return "cmd 0x" + String(UInt16(p[0]) | UInt16(p[1]) << 8, radix: 16)
        case .event: return p[0] == 0x3E ? "le 0x" + String(p[2], radix: 16) : "evt 0x" + String(p[0], radix: 16)
        case .acl:
            let cid = UInt16(p[6]) | UInt16(p[7]) << 8
            return (cid == 4 ? "att 0x" : "smp 0x") + String(p[8], radix: 16)
        default: return "?"
        }
    }

    @Test func tsharkDecodesWhatTheScriptWrote() throws {
        guard Tshark.path != nil else { return }
        let script = Self.everything()
        let lines = try withCaptureFile(script) { path -> [String] in
            try Tshark.run([
                "-r", path, "-T", "fields", "-E", "occurrence=f", "-e", "frame.number", "-e", "bthci_cmd.opcode", "-e", "bthci_evt.code",
                "-e", "bthci_evt.le_meta_subevent", "-e", "btatt.opcode", "-e", "btsmp.opcode", "-e", "_ws.malformed", "-e", "_ws.expert.severity",
            ]).split(separator: "\n").map(String.init)
        }
        #expect(lines.count == script.records.count)
        for (line, record) in zip(lines, script.records) {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 8 else {
                Issue.record("frame \(record.frame): \(line)")
                continue
            }
            func hex(_ s: String) -> String { "0x" + String(Int(s.dropFirst(2), radix: 16) ?? -1, radix: 16) }
            let seen: String
            if !f[1].isEmpty {
                seen = "cmd " + hex(f[1])
            } else if !f[3].isEmpty {
                seen = "le " + hex(f[3])
            } else if !f[2].isEmpty {
                seen = "evt " + hex(f[2])
            } else if !f[4].isEmpty {
                seen = "att " + hex(f[4])
            } else {
                seen = "smp " + hex(f[5])
            }
            #expect(Int(f[0]) == record.frame)
            #expect(seen == Self.identity(record), "frame \(record.frame)")
            // Nothing malformed, no expert warning or error (Wireshark's severities: 0x00600000 warn, 0x00800000 error).
            #expect(f[6].isEmpty, "frame \(record.frame) malformed: \(line)")
            #expect(!["6291456", "8388608", "0x00600000", "0x00800000"].contains(f[7]), "frame \(record.frame): \(line)")
        }
    }

    @Test func fileAndMemoryGiveTheSameVerdicts() throws {
        let script = Self.everything()
        let fromFile = try withCaptureFile(script) { try AnalysisBuilder.analyze(path: $0) }
        #expect(RuleEngine.evaluate(fromFile) == RuleEngine.evaluate(script.analysis()))
        #expect(fromFile.capture.frames == script.records.count)
        #expect(fromFile.connections.count == 2 && fromFile.scans.count == 2 && fromFile.attempts.count == 2 && fromFile.pairings.count == 1)
    }
}

