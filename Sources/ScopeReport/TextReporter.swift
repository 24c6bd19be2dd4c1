import ScopeAnalysis
import ScopeCore
import ScopeRules

/// The readable report: capture summary and health, headline figures explained, findings grouped
/// by severity with evidence frames, rule verdicts. ANSI colour only when asked (a terminal).
public struct TextReporter: Sendable {
    public var color: Bool
    /// Every headline item and finding, one by one (`analyze --all`); otherwise items of the same
    /// kind beyond `few` are summarised: figures as distributions, findings once per rule.
    public var all: Bool
    /// Up to this many items of one kind (findings of a rule at one severity, discovery costs,
    /// connection timings) the short report lists them as the full one does; beyond it, it
    /// summarises them.
    public var few: Int
    public init(color: Bool, all: Bool = false, few: Int = TextReporter.few) {
        self.color = color
        self.all = all
        self.few = few
    }

    /// Discovery costs and connection timings printed (the JSON report lists more).
    static let listed = 50
    /// The default of `few`.
    public static let few = 3
    /// Findings printed in full for a rule that fired more than `few` times.
    static let examples = 1
    /// Frames of the findings not printed that the short report names.
    static let moreFrames = 8

    /// The names of the headline figures as both reports print them (the short report's
    /// distributions reuse the wording of the full report's lines).
    public enum FigureName {
        public static let discoveryCost = "Discovery cost"
        public static let scanToRequest = "from the scan start"
        public static let reportsUntilRequest = "advertising report(s) processed"
        public static let radioOn = "scan radio-on time"
        public static let firstReportToRequest = "from its first report"
        public static let direct = "connected without a preceding scan"
        public static let duplicates = "Duplicate-scan overhead"
        public static let connectionTiming = "Connection timing"
        public static let setup = "setup"
        public static let firstATT = "first ATT"
        public static let gattDiscovery = "GATT discovery done"
        public static let firstData = "first data"
        public static let lifetime = "lifetime"
        public static let idleTail = "idle tail"
        public static let setupNotCaptured = "setup not captured"

        public static let all = [
            discoveryCost, scanToRequest, reportsUntilRequest, radioOn, firstReportToRequest, direct, duplicates,
            connectionTiming, setup, firstATT, gattDiscovery, firstData, lifetime, idleTail, setupNotCaptured,
        ]
    }

    private enum Tone: String { case bold = "1", dim = "2", red = "31", yellow = "33", green = "32", cyan = "36", blue = "34" }

    private func paint(_ s: String, _ tone: Tone) -> String { color ? "\u{1B}[\(tone.rawValue)m\(s)\u{1B}[0m" : s }
    private func esc(_ s: String) -> String { Escaping.terminal(s) }

    public func render(_ r: Report) -> String {
        var out = ""
        func line(_ s: String = "") { out += s + "\n" }
        let c = r.capture
        line(paint("hciscope \(r.tool.version) — \(esc(c.file))", .bold))
        line("  \(esc(c.format)), \(c.frames) frames, \(Millis.string(c.durationMicros)) ms"
             + (ReadableSpan.text(c.durationMicros).map { " (\($0))" } ?? "")
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
        } else if all || t.discovery <= few {
            discoveryList(r, line)
        } else {
            discoverySummary(r, line)
        }
        let dup = h.duplicates
        if dup.sessions > 0 {
            let pct = Millis.ratio(dup.ratio * 100, places: 3)
            line("  \(FigureName.duplicates): \(dup.duplicates) of \(dup.reports) report(s) were duplicates (\(pct) %)"
                 + (dup.perSecond.map { ", \(Millis.ratio($0)) per second" } ?? "")
                 + ", \(dup.eventBytes) HCI event bytes; \(dup.sessionsWithFilterOff) of \(dup.sessions) session(s) with duplicate filtering off")
        } else {
            line("  \(FigureName.duplicates): no scanning in this capture.")
        }
        if all || t.connectionTiming <= few {
            timingList(r, line)
        } else {
            timingSummary(r, line)
        }
        line("  (times after \"+\" count from the connection complete; estimated figures follow the radio-time model in RULES.md)")
        line()

        line(paint("Findings", .bold))
        if r.findings.isEmpty { line("  none") }
        if all { findingList(r, line) } else { findingSummary(r, line) }
        line()

        if let b = r.baseline {
            line(paint("Compared with the baseline", .bold))
            for l in b.lines() { line("  " + (l.regression ? paint(l.text, .red) : l.text)) }
            changedFindings("new", b.newFindings.map { ($0.rule, $0.subject) }, line)
            changedFindings("resolved", b.resolvedFindings.map { ($0.rule, $0.subject) }, line)
            if b.newFindings.isEmpty && b.resolvedFindings.isEmpty { line("  findings unchanged") }
            line()
        }
        line(paint("Rules", .bold) + " (\(r.count(.violated)) violated, \(r.count(.passed)) passed, \(r.count(.notEvaluated)) not evaluated"
             + (all ? ")" : "; `analyze --all` gives every rule's reason)"))
        if all { ruleTable(r, line) } else { ruleSummary(r, line) }
        return out
    }

    // MARK: Headline

    /// Each discovery cost on its own lines (the first `listed`).
    private func discoveryList(_ r: Report, _ line: (String) -> Void) {
        for d in r.headline.discovery.prefix(Self.listed) {
            line("  \(FigureName.discoveryCost) of \(esc(d.device)) (connection request at frame \(d.requestFrame)):")
            if let scan = d.scanStartFrame, let t = d.scanToRequestMicros {
                line("    \(Millis.string(t)) ms \(FigureName.scanToRequest) (frame \(scan)) to the connection request")
                if let n = d.reportsUntilRequest { line("    \(n) \(FigureName.reportsUntilRequest) until then") }
                if let radio = d.radioOnMicros, let duty = d.dutyCycle {
                    line("    \(Millis.string(radio)) ms \(FigureName.radioOn) (estimated: duration × duty cycle \(Millis.ratio(duty)))")
                }
            } else {
                line("    \(FigureName.direct) (direct connection)")
            }
            if let f = d.firstReportToRequestMicros, let frame = d.firstReportFrame {
                line("    \(Millis.string(f)) ms \(FigureName.firstReportToRequest) (frame \(frame)) to the request")
            }
        }
        let total = r.totals.discovery
        if total > Self.listed {
            line("  … and \(total - Self.listed) more discovery costs (--format json lists \(min(total, Report.listLimit)); the figures below count all)")
        }
    }

    /// The discovery costs as distributions over every request of the capture; direct connections
    /// counted per device (of the requests listed).
    private func discoverySummary(_ r: Report, _ line: (String) -> Void) {
        let list = r.headline.discovery
        let total = r.totals.discovery
        let scanned = r.headline.discoveryScanned
        let direct = list.filter { $0.scanStartFrame == nil }
        var counts = "\(scanned) after a scan"
        if total > scanned { counts += ", \(total - scanned) direct" }
        line("  \(FigureName.discoveryCost) of \(total) connection request(s) that connected (\(counts)):")
        func worst(_ x: Headline.Spread) -> String { "\(esc(x.worstDevice ?? "")), request at frame \(x.worst.frame)" }
        let spreads = r.headline.spreads
        if let x = spreads[.scanToRequest] {
            line("    \(FigureName.scanToRequest) to the connection request " + msFigures(x, of: total) + " — \(worst(x))")
        }
        if let x = spreads[.reportsUntilRequest] {
            line("    \(FigureName.reportsUntilRequest) until then " + countFigures(x, of: total) + " — \(worst(x))")
        }
        if let x = spreads[.radioOn] {
            line("    \(FigureName.radioOn), estimated " + msFigures(x, of: total) + " — \(worst(x))")
        }
        if let x = spreads[.firstReportToRequest] {
            line("    \(FigureName.firstReportToRequest) to the request " + msFigures(x, of: total) + " — \(worst(x))")
        }
        if !direct.isEmpty {
            // Items of one shape counted, per device, in the order first seen.
            var devices: [(device: String, count: Int, first: FrameNumber)] = []
            for d in direct {
                if let i = devices.firstIndex(where: { $0.device == d.device }) { devices[i].count += 1 } else {
                    devices.append((d.device, 1, d.requestFrame))
                }
            }
            let named = devices.prefix(few).map { d in
                "\(esc(d.device)) " + (d.count == 1 ? "at frame \(d.first)" : "×\(d.count) from frame \(d.first)")
            }
            line("    \(total - scanned) \(FigureName.direct) (direct connection): " + named.joined(separator: ", ")
                 + (devices.count > few ? ", … \(devices.count - few) more device(s)" : ""))
        }
    }

    private func timingParts(_ t: Headline.ConnectionTiming) -> [String] {
        var parts: [String] = []
        if let v = t.setupMicros { parts.append("\(FigureName.setup) \(Millis.string(v)) ms") }
        if let v = t.firstATTMicros { parts.append("\(FigureName.firstATT) +\(Millis.string(v)) ms") }
        if let v = t.discoveryMicros { parts.append("\(FigureName.gattDiscovery) +\(Millis.string(v)) ms") }
        if let v = t.firstDataMicros { parts.append("\(FigureName.firstData) +\(Millis.string(v)) ms") }
        if let v = t.lifetimeMicros { parts.append("\(FigureName.lifetime) \(Millis.string(v)) ms") }
        if let v = t.idleTailMicros { parts.append("\(FigureName.idleTail) \(Millis.string(v)) ms") }
        return parts
    }

    private func timingList(_ r: Report, _ line: (String) -> Void) {
        for t in r.headline.connectionTiming.prefix(Self.listed) {
            let parts = timingParts(t)
            line("  \(FigureName.connectionTiming), \(esc(t.connection))" + (t.peer.map { " (\($0))" } ?? "") + ": "
                 + (parts.isEmpty ? FigureName.setupNotCaptured : parts.joined(separator: ", ")))
        }
        let total = r.totals.connectionTiming
        if total > Self.listed {
            line("  … and \(total - Self.listed) more connection timings (--format json lists \(min(total, Report.listLimit)); the figures count all)")
        }
    }

    /// Connection timings as one distribution per phase, over every connection of the capture.
    private func timingSummary(_ r: Report, _ line: (String) -> Void) {
        let total = r.totals.connectionTiming
        let blank = r.headline.connectionTimingBlank
        line("  \(FigureName.connectionTiming) of \(total) connection(s)"
             + (blank > 0 ? " (\(blank) with \(FigureName.setupNotCaptured) and no other figure)" : "") + ":")
        func worst(_ x: Headline.Spread) -> String {
            esc(x.worst.connection?.description ?? "") + (x.worst.peer.map { " (\($0))" } ?? "")
        }
        let phases: [(String, String, Headline.SpreadFigure)] = [
            (FigureName.setup, "", .setup), (FigureName.firstATT, "+", .firstATT),
            (FigureName.gattDiscovery, "+", .gattDiscovery), (FigureName.firstData, "+", .firstData),
            (FigureName.lifetime, "", .lifetime), (FigureName.idleTail, "", .idleTail),
        ]
        for (name, sign, figure) in phases {
            guard let x = r.headline.spreads[figure] else { continue }
            line("    \(name) " + msFigures(x, of: total, sign: sign) + " — \(worst(x))")
        }
    }

    /// "(12 of 13): median 94.774 ms, p90 561.458 ms, max 834.214 ms" ("about" before estimates).
    private func msFigures(_ x: Headline.Spread, of total: Int, sign: String = "") -> String {
        let about = x.exact ? "" : "about "
        return "(\(x.count) of \(total)): median \(about)\(sign)\(Millis.string(x.median)) ms, p90 \(about)\(sign)\(Millis.string(x.p90)) ms, "
            + "max \(sign)\(Millis.string(x.max)) ms"
    }

    private func countFigures(_ x: Headline.Spread, of total: Int) -> String {
        let about = x.exact ? "" : "about "
        return "(\(x.count) of \(total)): median \(about)\(x.median), p90 \(about)\(x.p90), max \(x.max)"
    }

    // MARK: Findings

    private func tone(_ sev: Severity) -> Tone { sev == .error ? .red : sev == .warning ? .yellow : .cyan }

    private func finding(_ f: Finding, fix: Bool = true, _ line: (String) -> Void) {
        line("    [\(f.rule)] \(esc(f.subject))")
        line("      \(esc(f.message))")
        if !f.evidence.isEmpty { line("      evidence: frames " + FrameList.string(f.evidence)) }
        if fix, let rec = f.recommendation { line("      fix: \(esc(rec))") }
    }

    /// Every finding kept, by severity.
    private func findingList(_ r: Report, _ line: (String) -> Void) {
        for sev in Severity.allCases.reversed() {
            let group = r.findings.filter { $0.severity == sev }
            let total = r.findingCount(sev)
            guard total > 0 else { continue }
            line("  " + paint("\(sev.rawValue.uppercased()) (\(total))", tone(sev)))
            for f in group { finding(f, line) }
            if total > group.count {
                line("    … and \(total - group.count) more not listed (the first \(FindingList.limit) per rule are; --format json counts them per rule)")
            }
        }
    }

    /// By severity, each rule once: up to `few` findings in full, else the rule's count, its first
    /// `examples` findings and the frames of the next ones.
    private func findingSummary(_ r: Report, _ line: (String) -> Void) {
        let groups = r.findingGroups
        var summarised = false
        for sev in Severity.allCases.reversed() {
            let total = r.findingCount(sev)
            guard total > 0 else { continue }
            line("  " + paint("\(sev.rawValue.uppercased()) (\(total))", tone(sev)))
            for g in groups where g.severity == sev {
                // One fix per rule when its findings share it (rules declare it with the rule).
                let fixes = Set(g.findings.compactMap(\.recommendation))
                let shared = fixes.count == 1 ? fixes.first : nil
                if g.total <= few {
                    for f in g.findings { finding(f, fix: shared == nil, line) }
                } else {
                    summarised = true
                    line("    [\(g.rule)] \(g.total) findings, the first:")
                    for f in g.findings.prefix(Self.examples) {
                        line("      \(esc(f.subject)): \(esc(f.message))")
                        if !f.evidence.isEmpty { line("        evidence: frames " + FrameList.string(f.evidence)) }
                    }
                    // Where the next ones are: their first evidence frames.
                    var frames: [FrameNumber] = []
                    for f in g.findings.dropFirst(Self.examples) {
                        guard frames.count < Self.moreFrames else { break }
                        if let first = f.evidence.first, !frames.contains(first) { frames.append(first) }
                    }
                    let more = g.total - Self.examples
                    line("      … \(more) more" + (frames.isEmpty ? "" : ", at frame\(frames.count == 1 ? "" : "s") " + frames.map(String.init).joined(separator: ", ")
                         + (more > frames.count ? ", …" : "")))
                }
                if let shared { line("      fix: \(esc(shared))") }
            }
        }
        if summarised {
            line("  (a rule that fired more than \(few) times shows its first finding: "
                 + "`analyze --all` lists every one, and so do --format json and --format html; "
                 + "--annotate OUT.pcapng puts each on its frames for Wireshark)")
        }
    }

    /// New or resolved findings against the baseline: one line each, or per rule when a rule has
    /// more than `few`.
    private func changedFindings(_ label: String, _ findings: [(rule: String, subject: String)], _ line: (String) -> Void) {
        var order: [String] = []
        var byRule: [String: [(rule: String, subject: String)]] = [:]
        for f in findings {
            if byRule[f.rule] == nil { order.append(f.rule) }
            byRule[f.rule, default: []].append(f)
        }
        for rule in order {
            let list = byRule[rule] ?? []
            if all || list.count <= few {
                for f in list { line("  \(label): [\(f.rule)] \(esc(f.subject))") }
            } else {
                line("  \(label): [\(rule)] \(list.count) findings, the first \(esc(list[0].subject))")
            }
        }
    }

    // MARK: Rules

    private func status(_ s: RuleStatus) -> String {
        switch s {
        case .violated: return paint("violated     ", .red)
        case .passed: return paint("passed       ", .green)
        case .notEvaluated: return paint("not evaluated", .dim)
        }
    }

    private func ruleTable(_ r: Report, _ line: (String) -> Void) {
        let width = r.rules.map(\.rule.count).max() ?? 0
        for v in r.rules {
            let pad = String(repeating: " ", count: max(0, width - v.rule.count))
            line("  \(v.rule)\(pad)  \(status(v.status))  \(esc(v.reason))")
        }
    }

    /// Violated rules with their counts (their findings are above), rules not evaluated with why,
    /// the rules passed by name.
    private func ruleSummary(_ r: Report, _ line: (String) -> Void) {
        let width = r.rules.map(\.rule.count).max() ?? 0
        func row(_ v: RuleVerdict, _ text: String) {
            let pad = String(repeating: " ", count: max(0, width - v.rule.count))
            line("  \(v.rule)\(pad)  \(status(v.status))  \(text)")
        }
        for v in r.rules where v.status == .violated {
            let counts = Severity.allCases.reversed().compactMap { s in v.count(s) > 0 ? "\(v.count(s)) \(s.rawValue)" : nil }
            row(v, counts.joined(separator: ", ") + " finding(s)")
        }
        for v in r.rules where v.status == .notEvaluated { row(v, esc(v.reason)) }
        let passed = r.rules.filter { $0.status == .passed }.map(\.rule)
        if !passed.isEmpty { line("  " + paint("passed", .green) + ": " + passed.joined(separator: ", ")) }
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
