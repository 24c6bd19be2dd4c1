import ScopeAnalysis
import ScopeCore
import ScopeRules

/// The readable report: capture summary and health, headline figures explained, findings grouped
/// by severity with evidence frames, rule verdicts. ANSI colour only when asked (a terminal).
public struct TextReporter: Sendable {
    public var color: Bool
    public init(color: Bool) { self.color = color }

    /// Discovery costs and connection timings printed (the JSON report lists more).
    static let listed = 50

    private enum Tone: String { case bold = "1", dim = "2", red = "31", yellow = "33", green = "32", cyan = "36", blue = "34" }

    private func paint(_ s: String, _ tone: Tone) -> String { color ? "\u{1B}[\(tone.rawValue)m\(s)\u{1B}[0m" : s }
    private func esc(_ s: String) -> String { Escaping.terminal(s) }

    public func render(_ r: Report) -> String {
        var out = ""
        func line(_ s: String = "") { out += s + "\n" }
        let c = r.capture
        line(paint("hciscope \(r.tool.version) — \(esc(c.file))", .bold))
        line("  \(esc(c.format)), \(c.frames) frames, \(Millis.string(c.durationMicros)) ms"
             + (c.firstTimestamp.map { ", from \($0) UTC" } ?? ""))
        for s in c.sourceLines { line("  \(esc(s))") }
        line("  platform: \(esc(c.platform.description))")
        if let p = r.config.profile { line("  profile: \(esc(p))") }
        if let s = r.config.source { line("  config: \(esc(s))") }
        if c.healthy {
            line("  health: " + paint("ok", .green))
        } else {
            line("  health: " + paint("problems", .yellow))
            for p in c.healthProblems { line("    - \(esc(p))") }
        }
        let t = r.totals
        line("  \(t.scans) scan session(s), \(t.devices) device(s), \(t.connections) connection(s), "
             + "\(t.pairings) pairing(s)" + (r.advertising == nil ? "" : ", advertising"))
        line()

        line(paint("Headline figures", .bold))
        let h = r.headline
        if h.discovery.isEmpty {
            line("  Discovery cost: no connection was made to a scanned device.")
        }
        for d in h.discovery.prefix(Self.listed) {
            line("  Discovery cost of \(esc(d.device)) (connection request at frame \(d.requestFrame)):")
            if let scan = d.scanStartFrame, let t = d.scanToRequestMicros {
                line("    \(Millis.string(t)) ms from the scan start (frame \(scan)) to the connection request")
                if let n = d.reportsUntilRequest { line("    \(n) advertising report(s) processed until then") }
                if let radio = d.radioOnMicros, let duty = d.dutyCycle {
                    line("    \(Millis.string(radio)) ms scan radio-on time (estimated: duration × duty cycle \(Millis.ratio(duty)))")
                }
            } else {
                line("    connected without a preceding scan (direct connection)")
            }
            if let f = d.firstReportToRequestMicros, let frame = d.firstReportFrame {
                line("    \(Millis.string(f)) ms from its first report (frame \(frame)) to the request")
            }
        }
        if t.discovery > Self.listed {
            line("  … and \(t.discovery - Self.listed) more discovery costs (--format json lists \(min(t.discovery, Report.listLimit)); the figures below count all)")
        }
        let dup = h.duplicates
        if dup.sessions > 0 {
            let pct = Millis.ratio(dup.ratio * 100, places: 3)
            line("  Duplicate-scan overhead: \(dup.duplicates) of \(dup.reports) report(s) were duplicates (\(pct) %)"
                 + (dup.perSecond.map { ", \(Millis.ratio($0)) per second" } ?? "")
                 + ", \(dup.eventBytes) HCI event bytes; \(dup.sessionsWithFilterOff) of \(dup.sessions) session(s) with duplicate filtering off")
        } else {
            line("  Duplicate-scan overhead: no scanning in this capture.")
        }
        for t in h.connectionTiming.prefix(Self.listed) {
            var parts: [String] = []
            if let v = t.setupMicros { parts.append("setup \(Millis.string(v)) ms") }
            if let v = t.firstATTMicros { parts.append("first ATT +\(Millis.string(v)) ms") }
            if let v = t.discoveryMicros { parts.append("GATT discovery done +\(Millis.string(v)) ms") }
            if let v = t.firstDataMicros { parts.append("first data +\(Millis.string(v)) ms") }
            if let v = t.lifetimeMicros { parts.append("lifetime \(Millis.string(v)) ms") }
            if let v = t.idleTailMicros { parts.append("idle tail \(Millis.string(v)) ms") }
            line("  Connection timing, \(esc(t.connection))" + (t.peer.map { " (\($0))" } ?? "") + ": "
                 + (parts.isEmpty ? "setup not captured" : parts.joined(separator: ", ")))
        }
        if r.totals.connectionTiming > Self.listed {
            line("  … and \(r.totals.connectionTiming - Self.listed) more connection timings (--format json lists \(min(r.totals.connectionTiming, Report.listLimit)); the figures count all)")
        }
        line("  (times after \"+\" count from the connection complete; estimated figures follow the radio-time model in RULES.md)")
        line()

        line(paint("Findings", .bold))
        if r.findings.isEmpty { line("  none") }
        for sev in Severity.allCases.reversed() {
            let group = r.findings.filter { $0.severity == sev }
            let total = r.findingCount(sev)
            guard total > 0 else { continue }
            let tone: Tone = sev == .error ? .red : sev == .warning ? .yellow : .cyan
            line("  " + paint("\(sev.rawValue.uppercased()) (\(total))", tone))
            for f in group {
                line("    [\(f.rule)] \(esc(f.subject))")
                line("      \(esc(f.message))")
                if !f.evidence.isEmpty { line("      evidence: frames " + FrameList.string(f.evidence)) }
                if let rec = f.recommendation { line("      fix: \(esc(rec))") }
            }
            if total > group.count {
                line("    … and \(total - group.count) more not listed (the first \(FindingList.limit) per rule are; --format json counts them per rule)")
            }
        }
        line()

        if let b = r.baseline {
            line(paint("Compared with the baseline", .bold))
            for l in b.lines() { line("  " + (l.contains("REGRESSION") ? paint(l, .red) : l)) }
            for f in b.newFindings { line("  new: [\(f.rule)] \(esc(f.subject))") }
            for f in b.resolvedFindings { line("  resolved: [\(f.rule)] \(esc(f.subject))") }
            if b.newFindings.isEmpty && b.resolvedFindings.isEmpty { line("  findings unchanged") }
            line()
        }
        line(paint("Rules", .bold) + " (\(r.count(.violated)) violated, \(r.count(.passed)) passed, \(r.count(.notEvaluated)) not evaluated)")
        let width = r.rules.map(\.rule.count).max() ?? 0
        for v in r.rules {
            let status: String
            switch v.status {
            case .violated: status = paint("violated     ", .red)
            case .passed: status = paint("passed       ", .green)
            case .notEvaluated: status = paint("not evaluated", .dim)
            }
            let pad = String(repeating: " ", count: max(0, width - v.rule.count))
            line("  \(v.rule)\(pad)  \(status)  \(esc(v.reason))")
        }
        return out
    }
}

/// "12, 14-17, 30": ascending frame numbers with runs collapsed.
public enum FrameList {
    public static func string(_ frames: [FrameNumber]) -> String {
        let sorted = Array(Set(frames)).sorted()
        var parts: [String] = []
        var i = 0
        while i < sorted.count {
            var j = i
            while j + 1 < sorted.count && sorted[j + 1] == sorted[j] + 1 { j += 1 }
            parts.append(j - i >= 2 ? "\(sorted[i])-\(sorted[j])" : (i...j).map { String(sorted[$0]) }.joined(separator: ", "))
            i = j + 1
        }
        return parts.joined(separator: ", ")
    }
}
