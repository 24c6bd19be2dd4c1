import ScopeAnalysis
import ScopeCore

/// `att.acknowledged-bulk` — guidance 10: bulk transfers should not wait for a response per chunk.
///
/// Per handle: violated (info) when 20 or more consecutive Write Requests go to one handle, each
/// within 1 s of the previous one, carrying in total more than one ATT payload (ATT_MTU − 3), where
/// the characteristic allows Write Without Response (property 0x04) or its properties are unknown.
/// Each Write Request costs at least one connection event round trip for its Write Response.
///
/// Usual cause: `writeValue(_:for:type: .withResponse)` in a loop for a transfer (use
/// `.withoutResponse` paced by `canSendWriteWithoutResponse` /
/// `peripheralIsReady(toSendWriteWithoutResponse:)`); Android: `WRITE_TYPE_DEFAULT` instead of
/// `WRITE_TYPE_NO_RESPONSE`; BlueZ: `WriteValue` with type "request" instead of "command".
public struct ATTAcknowledgedBulk: Rule {
    public static let id = "att.acknowledged-bulk"
    public static let guidance = 10
    public static let defaultSeverity = Severity.info
    public static let summary = "A bulk transfer uses acknowledged Write Requests where Write Without Response is allowed"
    public static let scope = RuleScope.connection
    public static let defaultThresholds: [String: ThresholdValue] = [
        "min_run_write_requests": .number(20), "max_gap_s": .number(1),
    ]
    public init() {}

    public func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration) -> RuleVerdict {
        let hasRequests = analysis.connections.contains { $0.att.contains { $0.opcode == ATTOp.writeRequest } }
        guard hasRequests else {
            if let r = analysis.attIncompleteReason { return notEvaluated(r) }
            return notEvaluated("no ATT Write Request in this capture")
        }
        let minRun = Int(number("min_run_write_requests", config))
        let maxGap = micros("max_gap_s", config)
        var findings = FindingList()
        var longest = 0
        for c in analysis.connections {
            for side in [Side.local, .remote] {
                // Consecutive Write Requests of this client: a request to another handle ends a run.
                let requests = c.att.filter { $0.opcode == ATTOp.writeRequest && $0.clientSide == side }
                var runs: [[ATTEvent]] = []
                var run: [ATTEvent] = []
                for w in requests {
                    if let prev = run.last,
                        prev.handle != w.handle || w.at.time.microseconds - prev.at.time.microseconds > maxGap
                    {
                        runs.append(run)
                        run = []
                    }
                    run.append(w)
                }
                if !run.isEmpty { runs.append(run) }
                for r in runs {
                    longest = max(longest, r.count)
                    guard r.count >= minRun, let first = r.first, let last = r.last, let handle = first.handle else { continue }
                    let total = r.reduce(0) { $0 + $1.valueLength }
                    let payload = first.mtu - 3
                    guard total > payload else { continue }
                    let ch = c.characteristic(valueHandle: handle)
                    if let ch, ch.properties & 0x04 == 0 { continue }
                    let propsText = ch.map {
                        "the characteristic allows Write Without Response (properties \(Text.hex2($0.properties)), frame \($0.learned.frame))"
                    } ?? "the characteristic's properties are unknown (not discovered in this capture)"
                    let sizes = r.map(\.valueLength)
                    findings.append(
                        finding(
                            subject: "\(c.label) handle \(Text.hex4(handle))",
                            shows:
                                "\(r.count) consecutive Write Requests to handle \(Text.hex4(handle)) by the \(Text.side(side)) client (frames \(first.at.frame)-\(last.at.frame)), each within \(Text.seconds(maxGap)) of the previous one, \(total) bytes in total, \(sizes.min() ?? 0)-\(sizes.max() ?? 0) bytes each, more than one ATT payload (\(payload) bytes at ATT_MTU \(first.mtu)); \(propsText)",
                            cause:
                                "Usually writeValue(_:for:type: .withResponse) in a loop for a bulk transfer instead of .withoutResponse paced by canSendWriteWithoutResponse (Android: WRITE_TYPE_DEFAULT instead of WRITE_TYPE_NO_RESPONSE; BlueZ: WriteValue type \"request\")",
                            evidence: [ch?.learned.frame, first.at.frame, last.at.frame],
                            fix: "Send bulk data with Write Without Response, with an application-level acknowledgement if needed."))
                }
            }
        }
        return verdict(
            findings,
            passReason:
                "no run of \(minRun) or more consecutive Write Requests to one handle, each within \(Text.seconds(maxGap)) of the previous one, carrying more than one ATT payload (longest run: \(longest))"
        )
    }
}
