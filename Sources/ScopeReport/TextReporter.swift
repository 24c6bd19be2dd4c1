import ScopeAnalysis
import ScopeCore
import ScopeRules

/// The readable report: capture summary and health, headline figures explained, findings grouped
/// by severity with evidence frames, rule verdicts. ANSI colour only when asked (a terminal).
package struct TextReporter: Sendable {
    package var color: Bool
    /// Every headline item and finding, one by one (`analyze --all`); otherwise items of the same
    /// kind beyond `few` are summarised: figures as distributions, findings once per rule.
    package var all: Bool
    /// Up to this many items of one kind (findings of a rule at one severity, discovery costs,
    /// connection timings) the short report lists them as the full one does; beyond it, it
    /// summarises them.
    package var few: Int
    package init(color: Bool, all: Bool = false, few: Int = TextReporter.few) {
        self.color = color
        self.all = all
        self.few = few
    }

    /// Discovery costs and connection timings printed (the JSON report lists more).
    static let listed = 50
    /// The default of `few`.
    package static let few = 3
    /// Findings printed in full for a rule that fired more than `few` times.
    static let examples = 1
    /// Frames of the findings not printed that the short report names.
    static let moreFrames = 8

    /// The names of the headline figures as both reports print them (the short report's
    /// distributions reuse the wording of the full report's lines).
    package enum FigureName {
        package static let discoveryCost = "Discovery cost"
        package static let scanToRequest = "from the scan start"
        package static let reportsUntilRequest = "advertising report(s) processed"
        package static let radioOn = "scan radio-on time"
        package static let firstReportToRequest = "from its first report"
        package static let direct = "connected without a preceding scan"
        package static let systemScan = "found only by the system's own scan"
        package static let duplicates = "Duplicate-scan overhead"
        package static let connectionTiming = "Connection timing"
        package static let setup = "setup"
        package static let acceptListWait = "waiting on the accept list"
        package static let firstATT = "first ATT"
        package static let gattDiscovery = "GATT discovery done"
        package static let firstData = "first data"
        package static let lifetime = "lifetime"
        package static let idleTail = "idle tail"
        package static let setupNotCaptured = "setup not captured"

        package static let all = [
            discoveryCost, scanToRequest, reportsUntilRequest, radioOn, firstReportToRequest, direct, systemScan, duplicates,
            connectionTiming, setup, acceptListWait, firstATT, gattDiscovery, firstData, lifetime, idleTail, setupNotCaptured,
        ]
    }

    private enum Tone: String { case bold = "1", dim = "2", red = "31", yellow = "33", green = "32", cyan = "36", blue = "34" }

    /// A duration for people: "523 ms", "1.25 s", "12 min 5 s" (ReadableDuration).
    private func dur(_ micros: Int64) -> String { ReadableDuration.text(micros) }

    private func paint(_ s: String, _ tone: Tone) -> String { color ? "\u{1B}[\(tone.rawValue)m\(s)\u{1B}[0m" : s }
    private func esc(_ s: String) -> String { Escaping.terminal(s) }

    package func render(_ r: Report) -> String {
        var out = ""
        func line(_ s: String = "") { out += s + "\n" }
        let c = r.capture
        line(paint("hciscope \(r.tool.version) — \(esc(c.file))", .bold))
        line("  \(esc(c.format)), \(c.frames) frames, \(dur(c.durationMicros))"
             + (c.firstTimestamp.map { ", from \($0) UTC" } ?? "")
             + (c.clockFromFileTime ? " (clock anchored to the file's modification time)" : ""))
        // (Also when it reads as the span, to name the gaps.)
        if let t = c.trafficToShow ?? (c.gaps.isEmpty ? nil : c.traffic) {
            line("  HCI traffic: \(dur(t.micros)) (frames \(t.first)–\(t.last))"
                 + (c.gaps.isEmpty ? "" : "; gaps: " + c.gaps.prefix(3).map { "\(dur($0.micros)) before frame \($0.frame)" }.joined(separator: ", ")
                    + (c.gaps.count > 3 ? ", … \(c.gaps.count - 3) more" : "")))
        }
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
                 + ", \(dup.eventBytes) HCI event bytes; \(dup.sessionsWithFilterOff) of \(dup.sessions) session(s) with duplicate filtering off")
            if let median = dup.rateMedian, let peak = dup.ratePeak {
                line("    per session: median \(Millis.ratio(median)) duplicates/s, peak \(Millis.ratio(peak))/s"
                     + (dup.ratePeakSessionFrame.map { " (scan at frame \($0))" } ?? "")
                     + " (\(dup.rateSessions) session(s) with reports)")
            }
            if dup.appFullDutyMicros > 0 {
                line("    the app's scans at 100 % duty (window = interval): \(dur(dup.appFullDutyMicros))")
            }
        } else if t.devices > 0 {
            // Reports with no scan enabled in the capture: the scan was running when it began.
            line("  \(FigureName.duplicates): no scan started in this capture; \(t.devices) device(s) were reported by a scan "
                 + "already running when it began (its parameters and duplicate filtering are not in the capture: not judged).")
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
        if !r.attempts.isEmpty { requestTable(r, line) }
        if !r.connections.isEmpty { connectionTable(r, line) }

        line(paint("Findings", .bold) + (r.judge == .app ? " (the app's, and what cannot be told apart from it)" : " (every actor)"))
        if r.shownFindings.isEmpty { line("  none") }
        if all { findingList(r, line) } else { findingSummary(r, line) }
        line()
        if !r.activity.isEmpty {
            activity(r, line)
            line()
        }

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
                line("    \(dur(t)) \(FigureName.scanToRequest) (frame \(scan)) to the connection request")
                if let n = d.reportsUntilRequest { line("    \(n) \(FigureName.reportsUntilRequest) until then") }
                if let radio = d.radioOnMicros {
                    let duty = d.phys.map { "\($0.phy) \(Int(($0.dutyCycle * 100).rounded())) %" }.joined(separator: ", ")
                    line("    \(dur(radio)) \(FigureName.radioOn) (estimated: duration × duty cycle" + (duty.isEmpty ? ")" : " per PHY: \(duty))"))
                }
            } else if let scan = d.systemScanStartFrame {
                line("    \(FigureName.systemScan) (its background scan, frame \(scan)): no scan cost of the app's")
            } else {
                line("    \(FigureName.direct) (direct connection)")
            }
            if let f = d.firstReportToRequestMicros, let frame = d.firstReportFrame {
                line("    \(dur(f)) \(FigureName.firstReportToRequest) (frame \(frame)) to the request")
            }
            if d.failedAttempts > 0 {
                line("    \(d.failedAttempts) earlier request(s) that did not connect, pending \(dur(d.failedAttemptsMicros)) in all"
                     + (d.firstRequestFrame.map { ", the first at frame \($0)" + (d.firstRequestMicrosBefore.map { ", \(dur($0)) before this one" } ?? "") } ?? ""))
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
        let system = r.headline.discoverySystemScanned
        let direct = list.filter { $0.scanStartFrame == nil && $0.systemScanStartFrame == nil }
        let directCount = total - scanned - system
        var counts = "\(scanned) after a scan"
        if directCount > 0 { counts += ", \(directCount) direct" }
        if system > 0 { counts += ", \(system) \(FigureName.systemScan)" }
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
            line("    \(directCount) \(FigureName.direct) (direct connection): " + named.joined(separator: ", ")
                 + (devices.count > few ? ", … \(devices.count - few) more device(s)" : ""))
        }
    }

    private func timingParts(_ t: Headline.ConnectionTiming) -> [String] {
        var parts: [String] = []
        if let v = t.setupMicros { parts.append("\(FigureName.setup) \(dur(v))") }
        if let v = t.acceptListWaitMicros { parts.append("\(FigureName.acceptListWait) \(dur(v))") }
        if let v = t.firstATTMicros { parts.append("\(FigureName.firstATT) +\(dur(v))") }
        if let v = t.discoveryMicros { parts.append("\(FigureName.gattDiscovery) +\(dur(v))") }
        if let v = t.firstDataMicros { parts.append("\(FigureName.firstData) +\(dur(v))") }
        if let v = t.lifetimeMicros { parts.append("\(FigureName.lifetime) \(dur(v))") }
        if let v = t.idleTailMicros { parts.append("\(FigureName.idleTail) \(dur(v))") }
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
            (FigureName.setup, "", .setup), (FigureName.acceptListWait, "", .acceptListWait), (FigureName.firstATT, "+", .firstATT),
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
        return "(\(x.count) of \(total)): median \(about)\(sign)\(dur(x.median)), p90 \(about)\(sign)\(dur(x.p90)), "
            + "max \(sign)\(dur(x.max))"
    }

    private func countFigures(_ x: Headline.Spread, of total: Int) -> String {
        let about = x.exact ? "" : "about "
        return "(\(x.count) of \(total)): median \(about)\(x.median), p90 \(about)\(x.p90), max \(x.max)"
    }

    // MARK: Connection requests and connections

    /// Items of a table the short report lists (the full one lists every one the report keeps).
    static let tableRows = 3

    private func actorTag(_ w: Attributed) -> String {
        switch w.actor {
        case .app: return "the app"
        case .unknown: return "app or system"
        case .os: return "the system"
        case .peer: return "the peer"
        }
    }

    /// One line per connection request: where it went, what became of it, whose it was.
    private func requestTable(_ r: Report, _ line: (String) -> Void) {
        let total = r.totals.attempts
        var outcomes = ""
        if r.attempts.count == total, total > Self.tableRows {
            var counts: [(String, Int)] = []
            for a in r.attempts {
                let o = a.outcome.replacingOccurrences(of: "_", with: " ")
                if let i = counts.firstIndex(where: { $0.0 == o }) { counts[i].1 += 1 } else { counts.append((o, 1)) }
            }
            outcomes = ": " + counts.sorted { $0.1 > $1.1 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
        }
        // The short report counts them by outcome and actor in one line; --all lists them.
        if !all, r.attempts.count == total, total > Self.tableRows {
            var actors: [(String, Int)] = []
            for a in r.attempts {
                let t = actorTag(a.who)
                if let i = actors.firstIndex(where: { $0.0 == t }) { actors[i].1 += 1 } else { actors.append((t, 1)) }
            }
            let by = actors.count == 1 ? "all \(actors[0].0 == "app or system" ? "app or system (not told apart)" : actors[0].0 + "'s")"
                : actors.sorted { $0.1 > $1.1 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
            line(paint("Connection requests", .bold) + " (\(total)\(outcomes)); \(by) (`analyze --all` lists them)")
            line("")
            return
        }
        line(paint("Connection requests", .bold) + " (\(total)\(outcomes))")
        let shown = all ? r.attempts : Array(r.attempts.prefix(Self.tableRows))
        for a in shown {
            var s = "  frame \(a.requestFrame): " + (a.peer.map { "to \($0)" } ?? "to the accept list") + " -> \(a.outcome.replacingOccurrences(of: "_", with: " "))"
            if let f = a.completeFrame ?? a.cancelFrame ?? a.supersededFrame { s += " at frame \(f)" }
            if let p = a.pendingMicros { s += " after \(dur(p))" }
            if let st = a.status, a.outcome != "connected" { s += " (\(st))" }
            if let c = a.connection { s += ", \(c)" }
            line(s + " [\(actorTag(a.who))]")
        }
        if total > shown.count { line("  … \(total - shown.count) more (`analyze --all` and --format json list them)") }
        line("")
    }

    /// One line per connection: role, peer, parameters and who asked for them, MTU, PHY, data
    /// length, encryption, lifetime and how it ended — what engineers otherwise read frame by frame.
    private func connectionTable(_ r: Report, _ line: (String) -> Void) {
        let total = r.totals.connections
        line(paint("Connections", .bold) + " (\(total))")
        let shown = all ? r.connections : Array(r.connections.prefix(Self.tableRows))
        for c in shown {
            var parts: [String] = [c.classic ? "BR/EDR" : c.transport == .unknown ? "\(c.role) role, LE or BR/EDR not shown" : c.role]
            parts.append(c.peer ?? "peer unknown")
            if !c.classic, let iv = c.intervalMicros {
                var p = "interval \(dur(iv)), latency \(c.latency ?? 0), timeout \(c.supervisionTimeoutMicros.map(dur) ?? "?")"
                if c.parameterUpdates > 0 {
                    let who = c.parametersSetBy.map { $0 == "local" ? "the local host" : $0 == "remote" ? "the peer" : "not captured" } ?? "not captured"
                    p += " (\(c.parameterUpdates) update\(c.parameterUpdates == 1 ? "" : "s"), the last asked for by \(who)"
                        + (c.parametersSetFrame.map { ", frame \($0)" } ?? "") + ")"
                }
                parts.append(p)
            }
            if !c.classic { parts.append("MTU \(c.mtu)") }
            if let phy = c.phy { parts.append(phy) }
            if let dl = c.dataLength { parts.append("data length \(dl.tx)/\(dl.rx)") }
            if c.encrypted { parts.append("encrypted") }
            if let l = c.lifetimeMicros { parts.append("up \(dur(l))") }
            var end = c.end
            if let reason = c.disconnectReason { end += " (\(reason))" }
            if let f = c.disconnectFrame { end += " at frame \(f)" }
            parts.append(end)
            line("  \(esc(c.id)): " + parts.map(esc).joined(separator: ", ") + " [\(actorTag(c.who))]")
        }
        if total > shown.count { line("  … \(total - shown.count) more (`analyze --all` and --format json list them)") }
        line("")
    }

    // MARK: Findings

    private func tone(_ sev: Severity) -> Tone { sev == .error ? .red : sev == .warning ? .yellow : .cyan }

    private func finding(_ f: Finding, fix: Bool = true, _ line: (String) -> Void) {
        line("    [\(f.rule)] \(esc(f.subject))")
        line("      \(esc(f.message))")
        if let who = whoText(f) { line("      who: \(esc(who))") }
        if !f.evidence.isEmpty { line("      evidence: frames " + FrameList.string(f.evidence)) }
        if fix, let rec = f.recommendation { line("      fix: \(esc(rec))") }
    }

    /// Who the finding is about, when it is not plainly the app: unknown (judged as the app's,
    /// and said so), the system's or the peer's (listed with `--judge all`).
    private func whoText(_ f: Finding) -> String? {
        let evidence = f.attribution.map { " — " + $0.description } ?? ""
        switch f.actor {
        case .app: return nil
        case .unknown: return "the app or the system: the capture cannot tell them apart, judged as the app's" + evidence
        case .os: return "the system" + evidence
        case .peer: return "the peer" + evidence
        }
    }

    /// The system's and the peer's activity in a few lines (docs/ATTRIBUTION.md), and how many of
    /// their findings the report leaves out.
    private func activity(_ r: Report, _ line: (String) -> Void) {
        let platform = r.capture.platform.kind.name
        line(paint("The system's and the peer's activity", .bold) + " (not judged as the app's)")
        for actor in [Actor.os, .peer] {
            let lines = r.activity.lines.filter { $0.actor == actor }
            guard !lines.isEmpty else { continue }
            line("  " + (actor == .os ? "the system (\(platform)):" : "the peer:"))
            for l in lines { line("    " + esc(Activity.text(l))) }
        }
        if r.activity.handedOverScans > 0 {
            line("  (\(r.activity.handedOverScans) of the scan sessions are counted by their sums: they were judged on the way and not kept)")
        }
        let notJudged = r.activity.notJudged
        if !notJudged.isEmpty, r.judge == .app {
            let parts = notJudged.map { "\($0.rule) ×\($0.count) (\($0.actor == .os ? "system" : "peer"))" }
            line("  their findings, not the app's: " + parts.joined(separator: ", ")
                 + " — `analyze --judge all` lists them; --format json always does")
        }
    }

    /// Every finding kept, by severity.
    private func findingList(_ r: Report, _ line: (String) -> Void) {
        for sev in Severity.allCases.reversed() {
            let group = r.shownFindings.filter { $0.severity == sev }
            let total = r.findingCount(sev)
            guard total > 0 else { continue }
            line("  " + paint("\(sev.rawValue.uppercased()) (\(total))", tone(sev)))
            for f in group { finding(f, line) }
            if total > group.count {
                line("    … and \(total - group.count) more not listed (a rule keeps the first \(FindingList.limit) per severity and side: the app's, and the system's or the peer's; --format json counts them per rule)")
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
                        if let who = whoText(f) { line("        who: \(esc(who))") }
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
            let judged = r.judgedStatus(v)
            let note = judged != v.status ? "only the system's or the peer's findings: " : ""
            line("  \(v.rule)\(pad)  \(status(judged))  \(note)\(esc(v.reason))")
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
        let judgedOnly = r.judge == .app
        for v in r.rules where r.judgedStatus(v) == .violated {
            let counts = Severity.allCases.reversed().compactMap { s in
                v.count(s, judgedOnly: judgedOnly) > 0 ? "\(v.count(s, judgedOnly: judgedOnly)) \(s.rawValue)" : nil
            }
            let others = judgedOnly ? v.totalFindings - v.totalJudged : 0
            row(v, counts.joined(separator: ", ") + " finding(s)" + (others > 0 ? " (+\(others) of the system's or the peer's)" : ""))
        }
        for v in r.rules where v.status == .notEvaluated { row(v, esc(v.reason)) }
        let passed = r.rules.filter { r.judgedStatus($0) == .passed }.map { v in
            v.status == .violated ? "\(v.rule) (for the app; \(v.totalFindings) of the system's or the peer's)" : v.rule
        }
        if !passed.isEmpty { line("  " + paint("passed", .green) + ": " + passed.joined(separator: ", ")) }
    }
}

/// "12, 14-17, 30": ascending frame numbers with runs collapsed.
package enum FrameList {
    package static func string(_ frames: [FrameNumber]) -> String {
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
