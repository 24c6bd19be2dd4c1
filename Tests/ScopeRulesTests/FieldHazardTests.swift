import ScopeAnalysis
import ScopeCore
import ScopeDecode
import ScopeRules
import Testing

/// Known hazards from the field, through the whole pipeline (records → Dissector → analysis →
/// rules). Covered elsewhere, and not repeated here:
/// - timestamps going backwards: ScopeCaptureTests/TimestampCheckTests, FixtureTests
///   (bad/backwards-timestamp.*), CorpusTests.backwardTimestampsAreWarningsAndRecordsAreDelivered;
/// - ±378-day skew: FixtureTests (warning "timestamp jumps by +378 days"), CorpusTests (1969 file);
/// - handle 0x0EDC vendor debug: L2CAPCorpusTests.vendorDebugHandleIsNotL2CAP, ACLTests;
/// - handles reused after disconnect: GATTTrackerTests (a reused handle starts empty);
/// - L2CAP fragments interleaved across connections: L2CAPReassemblerTests.interleavingTwoConnections;
/// - Android filtered logs in the analysis: ScopeAnalysisTests/RealCaptureTests (truncated ACL →
///   attAnalysisIncomplete and a note).
/// - iOS PacketLogger files stamped in local time, and notes dated days before the session:
///   ScopeAnalysisTests/PacketLoggerClockTests (health says both; a file carries no zone, so
///   absolute times are shown as they are).
@Suite("Field hazards")
struct FieldHazardTests {
    static let t0: Int64 = 1_700_000_000_000_000

    static func record(_ frame: Int, _ kind: RecordKind, _ direction: Direction, _ payload: [UInt8], original: Int? = nil) -> CaptureRecord {
        CaptureRecord(
            frame: frame, timestamp: Timestamp(microseconds: t0 + Int64(frame) * 10_000), direction: direction, kind: kind,
            originalLength: original, payload: payload)
    }

    /// LE Connection Complete (success) for `handle`, peer 11:22:33:44:55:66.
    static func connectionComplete(_ handle: UInt16) -> [UInt8] {
        [0x3E, 0x13, 0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x00, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
         0x28, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00]
    }

    static func disconnectionComplete(_ handle: UInt16) -> [UInt8] {
        [0x05, 0x04, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x13]
    }

    /// ACL start fragment carrying a whole ATT PDU on CID 4.
    static func att(_ handle: UInt16, _ pdu: [UInt8]) -> [UInt8] {
        let l2 = pdu.count + 4
        return [UInt8(handle & 0xFF), UInt8(handle >> 8 | 0x20), UInt8(l2 & 0xFF), UInt8(l2 >> 8),
                UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), 0x04, 0x00] + pdu
    }

    static func run(_ records: [CaptureRecord]) -> (AnalysisResult, [RuleVerdict], [DecodedFrame]) {
        var dissector = Dissector()
        var builder = AnalysisBuilder(file: "hazard", format: .btsnoopH4)
        var frames: [DecodedFrame] = []
        for r in records {
            let f = dissector.decode(r)
            frames.append(f)
            builder.consume(f)
        }
        let result = builder.finish()
        return (result, RuleEngine.evaluate(result), frames)
    }

    /// Android "filtered" snoop logs keep only the first bytes of each ACL packet: ATT analysis is
    /// reported incomplete and the ATT/GATT rules are not evaluated rather than passed.
    @Test func filteredAndroidLogMakesATTRulesNotEvaluated() {
        var records = [Self.record(1, .event, .received, Self.connectionComplete(0x40))]
        for i in 0..<30 {
            // Write Request to handle 0x0010 with 20 bytes, cut to 4 bytes of ACL as Android's filter does.
            let full = Self.att(0x40, [0x12, 0x10, 0x00] + [UInt8](repeating: UInt8(i), count: 20))
            records.append(Self.record(2 + i, .acl, .sent, Array(full.prefix(4)), original: full.count))
        }
        let (result, verdicts, _) = Self.run(records)
        #expect(result.capture.health.attAnalysisIncomplete)
        for id in ["att.small-writes", "att.acknowledged-bulk", "gatt.polling"] {
            let v = verdicts.first { $0.rule == id }
            #expect(v?.status == .notEvaluated, "\(id): \(v.map { "\($0.status) \($0.reason)" } ?? "missing")")
        }
    }

    /// btmon stops reading at records over 1,490 bytes; hciscope decodes them (a 2,000-byte ATT
    /// notification in one ACL packet).
    @Test func recordsOverBtmonsLimitAreDecoded() {
        let value = [UInt8](repeating: 0xAB, count: 1_997)
        let acl = Self.att(0x40, [0x1B, 0x20, 0x00] + value)
        #expect(acl.count > 1_490)
        let (result, _, frames) = Self.run([
            Self.record(1, .event, .received, Self.connectionComplete(0x40)),
            Self.record(2, .acl, .received, acl),
        ])
        #expect(frames[1].allMalformations.isEmpty)
        guard case .att(let pdu, _)? = frames[1].pdus.first?.upper else {
            Issue.record("no ATT PDU")
            return
        }
        #expect(pdu.opcode.rawValue == 0x1B)
        #expect(result.capture.health.malformedFrames == 0)
    }

    /// Controller debug traffic on 0x0EDC and a handle reused after a disconnect, with a fragment
    /// left incomplete before the disconnect: the new connection starts clean.
    @Test func vendorDebugAndReusedHandleThroughThePipeline() {
        let debug = [0xDC, 0x2E, 0x06, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06] as [UInt8]
        // First fragment of a 30-byte PDU, never completed.
        let partial: [UInt8] = [0x40, 0x20, 0x08, 0x00, 0x1E, 0x00, 0x04, 0x00, 0x1B, 0x10, 0x00, 0x01]
        let records = [
            Self.record(1, .acl, .received, debug),
            Self.record(2, .event, .received, Self.connectionComplete(0x40)),
            Self.record(3, .acl, .received, partial),
            Self.record(4, .event, .received, Self.disconnectionComplete(0x40)),
            Self.record(5, .event, .received, Self.connectionComplete(0x40)),
            Self.record(6, .acl, .received, Self.att(0x40, [0x1B, 0x10, 0x00, 0x01])),
        ]
        let (result, verdicts, frames) = Self.run(records)
        if case .vendorDebugACL = frames[0].packet {} else { Issue.record("0x0EDC decoded as L2CAP") }
        #expect(frames[5].pdus.count == 1 && frames[5].allMalformations.isEmpty)
        #expect(result.connections.count == 2)
        #expect(verdicts.count == RuleRegistry.all.count)
    }
}
