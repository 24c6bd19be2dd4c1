import ScopeAnalysis
import ScopeCore

/// `att.small-writes` — guidance 10: transfers larger than one ATT payload should use a
/// negotiated MTU and appropriately sized writes.
///
/// Per handle: violated when 20 or more writes (Write Request or Write Command) of at most 20
/// bytes each reach it, each within 1 s of the previous one, while no MTU exchange had happened or
/// one had raised the ATT_MTU above 23 (judged at the first of them). Findings say `remote` when
/// the peer is the GATT client.
///
/// Usual cause: chunking a firmware image into 20-byte pieces, the ATT_MTU 23 default, instead of
/// using `maximumWriteValueLength(for:)` (iOS negotiates the MTU itself); Android:
/// `requestMtu(517)` then chunks of `mtu - 3`; BlueZ: `AcquireWrite` gives the MTU.
public struct ATTSmallWrites: Rule {
    public static let id = "att.small-writes"
    public static let guidance = 10
    public static let defaultSeverity = Severity.warning
    public static let summary = "Many small writes where a larger ATT_MTU would carry the data in fewer PDUs"
    public static let scope = RuleScope.connection
    public static let defaultThresholds: [String: ThresholdValue] = [
        "min_writes": .number(20), "max_write_bytes": .number(20), "max_gap_s": .number(1),
    ]
    public init() {}

    public func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration) -> RuleVerdict {
        func counts(_ e: ATTEvent) -> Bool { e.opcode == ATTOp.writeRequest || e.opcode == ATTOp.writeCommand }
        let hasWrites = analysis.connections.contains { $0.att.contains(where: counts) }
        guard hasWrites else {
            if let r = analysis.attIncompleteReason { return notEvaluated(r) }
            return notEvaluated("no ATT Write Request / Write Command in this capture")
        }
        let minWrites = Int(number("min_writes", config))
        let maxBytes = Int(number("max_write_bytes", config))
        let maxGap = micros("max_gap_s", config)
        var findings = FindingList()
        var longest = 0
        for c in analysis.connections {
            // The writes per client side and handle, in the order of their "side/handle" texts.
            // (Consecutive writes usually share a target: the last group is tried first.)
            var groups: [(target: WriteTarget, writes: [ATTEvent])] = []
            var groupOf: [WriteTarget: Int] = [:]
            var last = -1
            for e in c.att where counts(e) {
                guard let handle = e.handle else { continue }
                let target = WriteTarget(side: e.clientSide, handle: handle)
                if last < 0 || groups[last].target != target {
                    if let g = groupOf[target] {
                        last = g
                    } else {
                        last = groups.count
                        groupOf[target] = last
                        groups.append((target, []))
                    }
                }
                groups[last].writes.append(e)
            }
            for (_, ws) in groups.map({ (text: $0.target.text, writes: $0.writes) }).sorted(by: { $0.text < $1.text }) {
                // Runs of consecutive small writes (ranges of `ws`), each within maxGap of the previous.
                var runs: [Range<Int>] = []
                var start: Int?
                for i in ws.indices {
                    if ws[i].valueLength > maxBytes {
                        if let s = start { runs.append(s..<i) }
                        start = nil
                    } else if let s = start {
                        if ws[i].at.time.microseconds - ws[i - 1].at.time.microseconds > maxGap {
                            runs.append(s..<i)
                            start = i
                        }
                    } else {
                        start = i
                    }
                }
                if let s = start { runs.append(s..<ws.count) }
                for range in runs {
                    let r = ws[range]
                    longest = max(longest, r.count)
                    guard r.count >= minWrites, let first = r.first, let last = r.last, let handle = first.handle else { continue }
                    let exchanged = c.mtuExchanges.contains { $0.frame < first.at.frame }
                    guard !exchanged || first.mtu > 23 else { continue }
                    let commands = r.filter { $0.opcode == ATTOp.writeCommand }.count
                    let requests = r.count - commands
                    let gaps = zip(r.dropFirst(), r).map { $0.at.time.microseconds - $1.at.time.microseconds }
                    let kindsText = [commands > 0 ? "\(commands) Write Command" : nil, requests > 0 ? "\(requests) Write Request" : nil]
                        .compactMap { $0 }.joined(separator: ", ")
                    let mtuText = exchanged
                        ? "although an MTU exchange had raised the ATT_MTU to \(first.mtu) (payload up to \(first.mtu - 3) bytes)"
                        : "while no MTU exchange had happened (ATT_MTU \(first.mtu))"
                    findings.append(
                        finding(
                            subject: "\(c.label) handle \(Text.hex4(handle))",
                            shows:
                                "\(r.count) writes of at most \(maxBytes) bytes to handle \(Text.hex4(handle)) by the \(Text.side(first.clientSide)) client (frames \(first.at.frame)-\(last.at.frame), \(kindsText), largest \(r.map(\.valueLength).max() ?? 0) bytes, longest gap \(Text.millis(gaps.max() ?? 0))) \(mtuText)",
                            cause:
                                "Usually data chunked into 20-byte pieces (the default ATT_MTU 23) instead of maximumWriteValueLength(for:) (Android: requestMtu(517) and chunks of mtu - 3; BlueZ: AcquireWrite's MTU)",
                            evidence: [first.at.frame, last.at.frame],
                            fix: "Negotiate a larger ATT_MTU (and data length) and write chunks of ATT_MTU - 3 bytes."))
                }
            }
        }
        return verdict(
            findings,
            passReason:
                "no handle received \(minWrites) or more writes of at most \(maxBytes) bytes each within \(Text.seconds(maxGap)) of the previous one (longest such run: \(longest))"
        )
    }
}

/// The writer and target of a write (grouping without building a text key per write).
private struct WriteTarget: Hashable {
    var side: Side
    var handle: UInt16
    var text: String { "\(side.rawValue)/\(handle)" }
}
