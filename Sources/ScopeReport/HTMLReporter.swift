import ScopeRules
import ScopeCore

/// `--format html`: one self-contained file (inline CSS and SVG, no script, no network): the
/// headline figures, capture health, a timeline per scanner/device/connection, findings with their
/// evidence frames, and the tables behind the figures.
package enum HTMLReporter {
    package static func render(_ reports: [Report], title: String? = nil) -> String {
        var out = RenderBuffer(capacity: 1 << 16)
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        out.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
        out.appendXMLEscaped(title ?? "hciscope: " + reports.map(\.capture.file).joined(separator: ", "))
        out.append("</title>\n<style>\n")
        out.append(css)
        out.append("</style>\n</head>\n<body>\n")
        for r in reports { section(r, into: &out) }
        out.append("<footer>hciscope ")
        out.appendXMLEscaped(reports.first?.tool.version ?? "")
        out.append(" · report schema ")
        out.appendDecimal(Report.schemaVersion)
        out.append(" · estimated figures follow the radio-time model of RULES.md</footer>\n</body>\n</html>\n")
        return out.string
    }

    package static func render(_ report: Report) -> String { render([report]) }

    static func section(_ r: Report, into out: inout RenderBuffer) {
        let c = r.capture
        out.append("<section class=\"capture\">\n<h1>")
        out.appendXMLEscaped(c.file)
        out.append("</h1>\n<p class=\"meta\">")
        out.appendXMLEscaped(c.format)
        out.append(" · ")
        out.appendDecimal(c.frames)
        out.append(" frames · ")
        // Durations as the text report gives them, with the HCI traffic when it reads differently.
        let span = ReadableDuration.text(c.durationMicros)
        out.appendXMLEscaped(span)
        if let t = c.trafficToShow {
            out.append(" · HCI traffic ")
            out.appendXMLEscaped(ReadableDuration.text(t.micros))
            out.append(" (frames ")
            out.appendDecimal(Int(t.first))
            out.append("–")
            out.appendDecimal(Int(t.last))
            out.append(UInt8(ascii: ")"))
        }
        if let t = c.firstTimestamp {
            out.append(" · from ")
            out.appendXMLEscaped(t.description)
            out.append(" UTC")
        }
        if let p = r.config.profile {
            out.append(" · profile ")
            out.appendXMLEscaped(p)
        }
        out.append("</p>\n")
        if !c.sourceLines.isEmpty {
            out.append("<ul class=\"source\">")
            for line in c.sourceLines {
                out.append("<li>")
                out.appendXMLEscaped(line.trimmingCharacters(in: .whitespaces))
                out.append("</li>")
            }
            out.append("</ul>\n")
        }
        func pill(_ n: Int, _ kind: StaticString, into out: inout RenderBuffer) {
            out.append("<span class=\"pill")
            if n > 0 {
                out.append(UInt8(ascii: " "))
                out.append(kind)
            }
            out.append("\">")
            out.appendDecimal(n)
            out.append(UInt8(ascii: " "))
            out.append(kind)
            out.append("</span>")
        }
        out.append("<div class=\"verdict\">")
        pill(r.findingCount(.error), "error", into: &out)
        pill(r.findingCount(.warning), "warning", into: &out)
        pill(r.findingCount(.info), "info", into: &out)
        out.append("<span class=\"pill\">")
        out.appendDecimal(r.count(.violated))
        out.append(" violated · ")
        out.appendDecimal(r.count(.passed))
        out.append(" passed · ")
        out.appendDecimal(r.count(.notEvaluated))
        out.append(" not evaluated</span></div>\n")
        if c.healthy {
            out.append("<p class=\"health ok\">Capture health: ok</p>\n")
        } else {
            out.append("<div class=\"health bad\"><b>Capture health</b><ul>")
            for p in c.healthProblems {
                out.append("<li>")
                out.appendXMLEscaped(p)
                out.append("</li>")
            }
            out.append("</ul></div>\n")
        }

        out.append("<h2>Headline figures</h2>\n<div class=\"cards\">\n")
        for f in r.headline.figures {
            guard let v = f.rendered else { continue }
            out.append("<div class=\"card\"><div class=\"k\">")
            out.appendXMLEscaped(f.key)
            out.append("</div><div class=\"v\">")
            out.appendXMLEscaped(v)
            switch f.unit {
            case .ms: out.append(" ms")
            case .bytes: out.append(" B")
            default: break
            }
            out.append("</div><div class=\"x\">")
            out.appendXMLEscaped(f.explanation)
            if f.estimated { out.append(" <i>(estimated)</i>") }
            out.append("</div></div>\n")
        }
        out.append("</div>\n")
        if !r.headline.discovery.isEmpty {
            out.append("<table><tr><th>device</th><th>request frame</th><th>scan start frame</th><th>scan → request</th>")
            out.append("<th>reports until then</th><th>scan radio-on (estimated)</th><th>first report → request</th></tr>\n")
            for d in r.headline.discovery {
                out.append("<tr>")
                out.cell(d.device)
                out.numberCell(d.requestFrame)
                out.append("<td>")
                if let frame = d.scanStartFrame { out.appendDecimal(frame) } else if let frame = d.systemScanStartFrame {
                    out.append("the system's scan, frame ")
                    out.appendDecimal(frame)
                } else { out.append("direct") }
                out.append("</td>")
                out.msCell(d.scanToRequestMicros)
                out.numberCell(d.reportsUntilRequest)
                out.append("<td>")
                out.appendMs(d.radioOnMicros)
                if let duty = d.dutyCycle {
                    out.append(" (duty ")
                    out.appendUTF8(Millis.ratio(duty))
                    out.append(UInt8(ascii: ")"))
                }
                out.append("</td><td>")
                out.appendMs(d.firstReportToRequestMicros)
                out.append("</td></tr>\n")
            }
            out.append("</table>\n")
        }

        out.append("<h2>Timeline</h2>\n")
        TimelineSVG.render(r.timeline, into: &out)

        out.append("<h2>Findings</h2>\n")
        if r.shownFindings.isEmpty { out.append("<p>No findings.</p>\n") }
        for f in r.shownFindings {
            out.append("<div class=\"finding ")
            out.appendUTF8(f.severity.rawValue)
            out.append("\"><div><span class=\"sev\">")
            out.appendUTF8(f.severity.rawValue)
            out.append("</span> <code>")
            out.appendXMLEscaped(f.rule)
            out.append("</code> <b>")
            out.appendXMLEscaped(f.subject)
            out.append("</b></div><p>")
            out.appendXMLEscaped(f.message)
            out.append("</p>")
            if !f.evidence.isEmpty {
                out.append("<p class=\"ev\">evidence: frames ")
                out.appendXMLEscaped(FrameList.string(f.evidence))
                out.append("</p>")
            }
            if let rec = f.recommendation {
                out.append("<p class=\"fix\">")
                out.appendXMLEscaped(rec)
                out.append("</p>")
            }
            if f.actor != .app {
                out.append("<p class=\"ev\">who: ")
                out.appendXMLEscaped(f.actor.label + (f.attribution.map { " — " + $0.description } ?? ""))
                out.append("</p>")
            }
            out.append("</div>\n")
        }
        if !r.activity.isEmpty {
            out.append("<h2>The system's and the peer's activity</h2>\n<ul>\n")
            for l in r.activity.lines {
                out.append("<li>")
                out.appendXMLEscaped((l.actor == .os ? "the system: " : "the peer: ") + Activity.text(l))
                out.append("</li>\n")
            }
            if !r.activity.notJudged.isEmpty, r.judge == .app {
                out.append("<li>")
                out.appendXMLEscaped(
                    "their findings, not the app's: "
                        + r.activity.notJudged.map { "\($0.rule) ×\($0.count) (\($0.actor == .os ? "system" : "peer"))" }.joined(separator: ", "))
                out.append("</li>\n")
            }
            out.append("</ul>\n")
        }
        if r.omittedFindings > 0 {
            out.append("<p>… and ")
            out.appendDecimal(r.omittedFindings)
            out.append(" more finding(s) not listed (the first ")
            out.appendDecimal(FindingList.limit)
            out.append(" per rule and severity are).</p>\n")
        }

        if !r.connections.isEmpty {
            out.append("<h2>Connections</h2>\n<table><tr><th>connection</th><th>role</th><th>peer</th><th>setup</th><th>interval</th>")
            out.append("<th>latency</th><th>timeout</th><th>MTU</th><th>encrypted</th><th>first ATT</th><th>discovery</th>")
            out.append("<th>first data</th><th>lifetime</th><th>idle tail</th><th>disconnect</th><th>ATT PDUs</th></tr>\n")
            for k in r.connections {
                out.append("<tr>")
                out.cell(k.id)
                out.cell(k.role)
                out.cell(k.peer ?? "?")
                out.msCell(k.setupMicros)
                out.msCell(k.intervalMicros)
                out.numberCell(k.latency)
                out.msCell(k.supervisionTimeoutMicros)
                out.numberCell(k.mtu)
                out.append(k.encrypted ? "<td>yes</td>" : "<td>no</td>")
                out.msCell(k.firstATTMicros)
                out.msCell(k.discoveryMicros)
                out.msCell(k.firstDataMicros)
                out.msCell(k.lifetimeMicros)
                out.msCell(k.idleTailMicros)
                out.append("<td>")
                if let loss = k.lostWithController {
                    out.appendXMLEscaped(loss.label)
                } else if let reason = k.disconnectReason {
                    out.appendXMLEscaped(reason)
                    out.append(" (")
                    out.appendXMLEscaped(k.disconnectInitiator)
                    out.append(UInt8(ascii: ")"))
                } else {
                    out.append("–")
                }
                out.append("</td><td title=\"")
                for (i, op) in k.attByOpcode.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: "\n")) }
                    out.appendXMLEscaped(op.name)
                    out.append(": ")
                    out.appendDecimal(op.count)
                }
                out.append("\">")
                out.appendDecimal(k.attPDUs)
                out.append("</td></tr>\n")
            }
            out.append("</table>\n")
        }
        if !r.scans.isEmpty {
            out.append("<h2>Scan sessions</h2>\n<table><tr><th>start frame</th><th>start</th><th>duration</th><th>type</th>")
            out.append("<th>duty cycle</th><th>filter duplicates</th><th>reports</th><th>duplicates</th><th>devices</th>")
            out.append("<th>radio-on (estimated)</th></tr>\n")
            for s in r.scans {
                out.append("<tr>")
                out.numberCell(s.startFrame)
                out.msCell(s.startMicros)
                out.append("<td>")
                out.appendMs(s.durationMicros)
                if s.stillRunningAtEnd { out.append(" (still running)") }
                out.append(s.active ? "</td><td>active</td><td>" : "</td><td>passive</td><td>")
                for (i, p) in s.phys.enumerated() {
                    if i > 0 { out.append(", ") }
                    out.appendXMLEscaped(p.phy)
                    out.append(UInt8(ascii: " "))
                    out.appendMillis(p.windowMicros)
                    out.append(UInt8(ascii: "/"))
                    out.appendMillis(p.intervalMicros)
                    out.append(" ms")
                }
                out.append(s.filterDuplicates == 0 ? "</td><td>off</td>" : "</td><td>on</td>")
                out.numberCell(s.reports)
                out.append("<td>")
                out.appendDecimal(s.duplicates)
                out.append(" (")
                out.appendUTF8(Millis.ratio(s.duplicateRatio * 100, places: 1))
                out.append(" %)</td>")
                out.numberCell(s.devicesSeen)
                out.msCell(s.radioOnMicros)
                out.append("</tr>\n")
            }
            out.append("</table>\n")
        }
        if !r.pairings.isEmpty {
            out.append("<h2>Pairing</h2>\n<table><tr><th>connection</th><th>request frame</th><th>method</th><th>Secure Connections</th>")
            out.append("<th>bonding</th><th>MITM</th><th>result</th><th>duration</th></tr>\n")
            for p in r.pairings {
                out.append("<tr>")
                out.cell(p.connection)
                out.numberCell(p.requestFrame)
                out.cell(p.method)
                out.append(p.secureConnections ? "<td>yes</td><td>" : "<td>no</td><td>")
                out.appendYesNo(p.bonding)
                out.append("</td><td>")
                out.appendYesNo(p.mitm)
                out.append("</td>")
                out.cell(p.result)
                out.msCell(p.durationMicros)
                out.append("</tr>\n")
            }
            out.append("</table>\n")
        }
        if !r.devices.isEmpty {
            out.append("<h2>Devices</h2>\n<table><tr><th>address</th><th>name</th><th>reports</th><th>first frame</th>")
            out.append("<th>distinct payloads</th><th>RSSI</th><th>connectable</th></tr>\n")
            for d in r.devices {
                out.append("<tr>")
                out.cell(d.address)
                out.cell(d.name ?? "")
                out.numberCell(d.reports)
                out.numberCell(d.firstFrame)
                out.numberCell(d.distinctPayloads)
                out.append("<td>")
                // Digits, signs and units: nothing to escape.
                if let lo = d.rssiMin {
                    out.appendDecimal(Int(lo))
                    out.append(" … ")
                    if let hi = d.rssiMax { out.appendDecimal(Int(hi)) } else { out.append(UInt8(ascii: "?")) }
                    out.append(" dBm")
                } else {
                    out.append("–")
                }
                out.append(d.connectable ? "</td><td>yes</td></tr>\n" : "</td><td>no</td></tr>\n")
            }
            out.append("</table>\n")
        }
        out.append("<h2>Rules</h2>\n<table><tr><th>rule</th><th>status</th><th>reason</th></tr>\n")
        for v in r.rules {
            out.append("<tr class=\"")
            out.appendUTF8(v.status.rawValue)
            out.append("\"><td><code>")
            out.appendXMLEscaped(v.rule)
            out.append("</code></td><td>")
            if v.status == .notEvaluated { out.append("not evaluated") } else { out.appendUTF8(v.status.rawValue) }
            out.append("</td>")
            out.cell(v.reason)
            out.append("</tr>\n")
        }
        out.append("</table>\n</section>\n")
    }

    static let css: StaticString = """
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1d2330;background:#fff}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #e3e6ee;padding-bottom:4px}
        .meta{color:#5b6475;margin:0 0 10px}
        .pill{display:inline-block;border-radius:10px;padding:1px 9px;margin-right:6px;background:#eef0f5;font-size:12px}
        .pill.error{background:#fde2e1;color:#a4161a}.pill.warning{background:#fff1d6;color:#8a5300}.pill.info{background:#e1efff;color:#0b4f9c}
        .health{margin:10px 0;padding:6px 10px;border-radius:6px}.health.ok{background:#e6f6ea}.health.bad{background:#fff4e0}
        .health ul{margin:4px 0 0 18px;padding:0}
        .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:8px}
        .card{border:1px solid #e3e6ee;border-radius:8px;padding:8px 10px}
        .card .k{font:12px ui-monospace,Menlo,monospace;color:#5b6475}.card .v{font-size:20px;font-weight:600}
        .card .x{font-size:12px;color:#5b6475}
        table{border-collapse:collapse;margin:8px 0;font-size:13px;width:100%}
        th,td{border-bottom:1px solid #eceff4;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f6f7fa}
        tr.violated td:nth-child(2){color:#a4161a;font-weight:600}tr.passed td:nth-child(2){color:#1a7f37}
        tr.not_evaluated td:nth-child(2){color:#7a8294}
        .finding{border-left:4px solid #999;padding:6px 10px;margin:8px 0;background:#fafbfc}
        .finding.error{border-color:#d62828}.finding.warning{border-color:#f4a100}.finding.info{border-color:#3a86ff}
        .finding p{margin:4px 0}.finding .ev{font:12px ui-monospace,Menlo,monospace;color:#5b6475}.finding .fix{color:#1a7f37}
        .sev{text-transform:uppercase;font-size:11px;font-weight:700;letter-spacing:.05em}
        svg.timeline{width:100%;height:auto;border:1px solid #e3e6ee;border-radius:6px;background:#fcfcfd}
        svg text{font:11px system-ui,sans-serif;fill:#1d2330}svg .axis{fill:#7a8294}
        .legend span{display:inline-block;margin-right:12px;font-size:12px}.legend i{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:-1px}
        footer{margin-top:30px;color:#7a8294;font-size:12px}

        """
}

/// The inline SVG timeline (no script): lanes of spans and binned tick densities.
enum TimelineSVG {
    static let width = 1100
    static let labelWidth = 250
    static let laneHeight = 30
    static let bins = 170

    static func color(_ kind: Timeline.SpanKind) -> StaticString {
        switch kind {
        case .scan: "#b7d3ff"
        case .connection: "#bfe8c8"
        case .discovery: "#6cc080"
        case .pairing: "#c9a7f5"
        case .advertising: "#ffd59a"
        }
    }

    static func color(_ kind: Timeline.TickKind) -> StaticString {
        switch kind {
        case .report: "#3a86ff"
        case .duplicate: "#f4a100"
        case .att: "#1a7f37"
        case .request: "#d62828"
        case .disconnect: "#1d2330"
        case .marker: "#8338ec"
        }
    }

    /// The order tick kinds are drawn in, each above the ones before.
    static let tickOrder: [Timeline.TickKind] = [.report, .duplicate, .att, .marker, .request, .disconnect]

    /// `kind`'s place in ``tickOrder``.
    static func tickPlace(_ kind: Timeline.TickKind) -> Int {
        switch kind {
        case .report: 0
        case .duplicate: 1
        case .att: 2
        case .marker: 3
        case .request: 4
        case .disconnect: 5
        }
    }

    static func render(_ t: Timeline, into out: inout RenderBuffer) {
        let plot = width - labelWidth - 20
        let height = 30 + t.lanes.count * laneHeight + 8
        func x(_ micros: Int64) -> Double {
            Double(labelWidth) + Double(plot) * Double(min(max(micros, 0), t.durationMicros)) / Double(t.durationMicros)
        }
        out.append("<svg class=\"timeline\" viewBox=\"0 0 ")
        out.appendDecimal(width)
        out.append(UInt8(ascii: " "))
        out.appendDecimal(height)
        out.append("\" role=\"img\" aria-label=\"timeline\">\n")
        // Axis: about 8 ticks at a round step.
        let step = niceStep(t.durationMicros / 8)
        var tick: Int64 = 0
        while tick <= t.durationMicros {
            let px = x(tick)
            out.append("<line x1=\"")
            out.appendTenths(px)
            out.append("\" y1=\"20\" x2=\"")
            out.appendTenths(px)
            out.append("\" y2=\"")
            out.appendDecimal(height - 4)
            out.append("\" stroke=\"#eceff4\"/><text class=\"axis\" x=\"")
            out.appendTenths(px)
            out.append("\" y=\"14\" text-anchor=\"middle\">")
            out.appendXMLEscaped(axisLabel(tick))
            out.append("</text>\n")
            // A clock that jumps to the end of time makes the axis end near Int64.max.
            let (next, overflow) = tick.addingReportingOverflow(step)
            if overflow { break }
            tick = next
        }
        for (i, lane) in t.lanes.enumerated() {
            let top = 24 + i * laneHeight
            out.append("<text x=\"6\" y=\"")
            out.appendDecimal(top + 18)
            out.append("\"><title>")
            out.appendXMLEscaped(lane.label)
            out.append("</title>")
            out.appendXMLEscaped(lane.label.count > 38 ? String(lane.label.prefix(37)) + "…" : lane.label)
            out.append("</text>\n<line x1=\"")
            out.appendDecimal(labelWidth)
            out.append("\" y1=\"")
            out.appendDecimal(top + laneHeight - 2)
            out.append("\" x2=\"")
            out.appendDecimal(width - 20)
            out.append("\" y2=\"")
            out.appendDecimal(top + laneHeight - 2)
            out.append("\" stroke=\"#eceff4\"/>\n")
            for s in lane.spans {
                let inner = s.kind == .discovery || s.kind == .pairing
                let x0 = x(s.start), x1 = max(x(s.end), x0 + 2)
                out.append("<rect x=\"")
                out.appendTenths(x0)
                out.append("\" y=\"")
                out.appendDecimal(top + (inner ? 9 : 3))
                out.append("\" width=\"")
                out.appendTenths(x1 - x0)
                out.append("\" height=\"")
                out.appendDecimal(inner ? 10 : laneHeight - 7)
                out.append("\" rx=\"3\" fill=\"")
                out.append(color(s.kind))
                out.append(inner ? "\" opacity=\"0.9\"><title>" : "\" opacity=\"0.75\"><title>")
                out.appendXMLEscaped(s.label)
                out.append(" (frame ")
                out.appendDecimal(s.frame)
                out.append(", ")
                out.appendMillis(s.start)
                out.append("–")
                out.appendMillis(s.end)
                out.append(" ms)</title></rect>\n")
            }
            // Ticks binned so a capture with 50,000 reports stays a small file: one bar per bin and
            // kind. Counted per kind's place in `tickOrder` (empty: no tick of that kind), not in
            // a dictionary keyed by the kind (which hashes its name for every tick).
            var counts = [[Int]](repeating: [], count: tickOrder.count)
            var firstFrame = [[Int]](repeating: [], count: tickOrder.count)
            for tk in lane.ticks {
                let b = min(bins - 1, Int(Double(bins) * Double(min(max(tk.at, 0), t.durationMicros)) / Double(t.durationMicros)))
                let k = tickPlace(tk.kind)
                if counts[k].isEmpty {
                    counts[k] = Array(repeating: 0, count: bins)
                    firstFrame[k] = Array(repeating: 0, count: bins)
                }
                counts[k][b] += 1
                if firstFrame[k][b] == 0 { firstFrame[k][b] = tk.frame }
            }
            let binWidth = Double(plot) / Double(bins)
            for (k, kind) in tickOrder.enumerated() {
                let c = counts[k]
                guard !c.isEmpty else { continue }
                let peak = max(1, c.max() ?? 1)
                for (b, n) in c.enumerated() where n > 0 {
                    let bx = Double(labelWidth) + Double(b) * binWidth
                    let big = kind == .request || kind == .disconnect || kind == .marker
                    let hgt = big ? Double(laneHeight - 4) : max(3, Double(laneHeight - 8) * Double(n) / Double(peak))
                    let y = Double(top + laneHeight - 3) - hgt
                    let w = big ? 2.5 : max(1.5, binWidth - 1)
                    out.append("<rect x=\"")
                    out.appendTenths(bx)
                    out.append("\" y=\"")
                    out.appendTenths(y)
                    out.append("\" width=\"")
                    out.appendTenths(w)
                    out.append("\" height=\"")
                    out.appendTenths(hgt)
                    out.append("\" fill=\"")
                    out.append(color(kind))
                    out.append("\"><title>")
                    out.appendDecimal(n)
                    out.append(UInt8(ascii: " "))
                    out.appendUTF8(kind.rawValue)
                    if n != 1 { out.append(UInt8(ascii: "s")) }
                    out.append(" from frame ")
                    out.appendDecimal(firstFrame[k][b])
                    out.append("</title></rect>")
                }
                out.append(UInt8(ascii: "\n"))
            }
        }
        out.append("</svg>\n<div class=\"legend\">")
        let legend: [(name: StaticString, color: StaticString)] = [
            ("scan window", "#b7d3ff"), ("connection", "#bfe8c8"), ("GATT discovery", "#6cc080"),
            ("pairing", "#c9a7f5"), ("advertising", "#ffd59a"), ("reports", "#3a86ff"),
            ("duplicate reports", "#f4a100"), ("ATT PDUs", "#1a7f37"), ("connection request", "#d62828"),
            ("disconnect", "#1d2330"),
        ]
        for (name, color) in legend {
            out.append("<span><i style=\"background:")
            out.append(color)
            out.append("\"></i>")
            out.append(name)
            out.append("</span>")
        }
        out.append("</div>\n")
    }

    static func niceStep(_ raw: Int64) -> Int64 {
        let candidates: [Int64] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000,
                                   100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 15_000_000,
                                   30_000_000, 60_000_000, 120_000_000, 300_000_000, 600_000_000, 1_800_000_000, 3_600_000_000]
        return candidates.first { $0 >= raw } ?? max(1, raw)
    }

    static func axisLabel(_ micros: Int64) -> String {
        if micros == 0 { return "0" }
        if micros % 1_000_000 == 0 { return "\(micros / 1_000_000) s" }
        if micros >= 1_000_000 { return Millis.string(micros / 1000) + " s" }
        return Millis.string(micros) + " ms"
    }
}

extension RenderBuffer {
    /// `<td>`, `text` escaped, `</td>`.
    fileprivate mutating func cell(_ text: String) {
        append("<td>")
        appendXMLEscaped(text)
        append("</td>")
    }

    /// `<td>`, the number (`–` when there is none), `</td>`.
    fileprivate mutating func numberCell(_ n: Int?) {
        append("<td>")
        if let n { appendDecimal(n) } else { append("–") }
        append("</td>")
    }

    /// Milliseconds with their unit, `–` when there is no value.
    fileprivate mutating func appendMs(_ micros: Int64?) {
        guard let micros else {
            append("–")
            return
        }
        appendMillis(micros)
        append(" ms")
    }

    /// ``appendMs(_:)`` in a `<td>`.
    fileprivate mutating func msCell(_ micros: Int64?) {
        append("<td>")
        appendMs(micros)
        append("</td>")
    }

    /// `yes`, `no`, or `?` when unknown.
    fileprivate mutating func appendYesNo(_ v: Bool?) {
        switch v {
        case true?: append("yes")
        case false?: append("no")
        case nil: append(UInt8(ascii: "?"))
        }
    }

    /// An SVG coordinate rounded to tenths, as `String(Int(r))` writes a whole `r` and
    /// `String(r)` any other: `k / 10` written as the digits of `k` with a point before the last
    /// (the shortest decimal that reads back as the double nearest `k / 10`). Magnitudes from
    /// 10^15 on, and NaN (a zero-length timeline), go through `String`.
    fileprivate mutating func appendTenths(_ v: Double) {
        let tenths = (v * 10).rounded()
        guard tenths.magnitude < 1e15 else {
            let r = tenths / 10
            appendUTF8(r == r.rounded() ? String(Int(r)) : String(r))
            return
        }
        let k = Int64(tenths)
        let digit = k % 10
        if digit == 0 {
            appendDecimal(k / 10)
            return
        }
        if k < 0 { append(UInt8(ascii: "-")) }
        appendDecimal(abs(k / 10))
        append(UInt8(ascii: "."), UInt8(ascii: "0") &+ UInt8(digit.magnitude))
    }
}
