import ScopeRules

/// `--format html`: one self-contained file (inline CSS and SVG, no script, no network): the
/// headline figures, capture health, a timeline per scanner/device/connection, findings with their
/// evidence frames, and the tables behind the figures.
public enum HTMLReporter {
    public static func render(_ reports: [Report], title: String? = nil) -> String {
        let h = Escaping.html
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>\(h(title ?? "hciscope: " + reports.map(\.capture.file).joined(separator: ", ")))</title>\n"
        out += "<style>\n\(css)</style>\n</head>\n<body>\n"
        for r in reports { section(r, into: &out) }
        out += "<footer>hciscope \(h(reports.first?.tool.version ?? "")) · report schema \(Report.schemaVersion) · "
        out += "estimated figures follow the radio-time model of RULES.md</footer>\n</body>\n</html>\n"
        return out
    }

    public static func render(_ report: Report) -> String { render([report]) }

    static func section(_ r: Report, into out: inout String) {
        let h = Escaping.html
        let c = r.capture
        out += "<section class=\"capture\">\n<h1>\(h(c.file))</h1>\n"
        out += "<p class=\"meta\">\(h(c.format)) · \(c.frames) frames · \(Millis.string(c.durationMicros)) ms"
        if let t = c.firstTimestamp { out += " · from \(h(t.description)) UTC" }
        if let p = r.config.profile { out += " · profile \(h(p))" }
        out += "</p>\n"
        if !c.sourceLines.isEmpty {
            out += "<ul class=\"source\">" + c.sourceLines.map { "<li>\(h($0.trimmingCharacters(in: .whitespaces)))</li>" }.joined() + "</ul>\n"
        }
        let errors = r.findingCount(.error)
        let warnings = r.findingCount(.warning)
        let infos = r.findingCount(.info)
        func pill(_ n: Int, _ kind: String) -> String {
            "<span class=\"pill\(n > 0 ? " " + kind : "")\">\(n) \(kind)</span>"
        }
        out += "<div class=\"verdict\">" + pill(errors, "error") + pill(warnings, "warning") + pill(infos, "info")
        out += "<span class=\"pill\">\(r.count(.violated)) violated · \(r.count(.passed)) passed · \(r.count(.notEvaluated)) not evaluated</span></div>\n"
        if c.healthy {
            out += "<p class=\"health ok\">Capture health: ok</p>\n"
        } else {
            out += "<div class=\"health bad\"><b>Capture health</b><ul>"
            for p in c.healthProblems { out += "<li>\(h(p))</li>" }
            out += "</ul></div>\n"
        }

        out += "<h2>Headline figures</h2>\n<div class=\"cards\">\n"
        for f in r.headline.figures {
            guard let v = f.rendered else { continue }
            let unit = f.unit == .ms ? " ms" : f.unit == .bytes ? " B" : ""
            out += "<div class=\"card\"><div class=\"k\">\(h(f.key))</div><div class=\"v\">\(h(v))\(unit)</div>"
            out += "<div class=\"x\">\(h(f.explanation))\(f.estimated ? " <i>(estimated)</i>" : "")</div></div>\n"
        }
        out += "</div>\n"
        if !r.headline.discovery.isEmpty {
            out += "<table><tr><th>device</th><th>request frame</th><th>scan start frame</th><th>scan → request</th>"
            out += "<th>reports until then</th><th>scan radio-on (estimated)</th><th>first report → request</th></tr>\n"
            for d in r.headline.discovery {
                out += "<tr><td>\(h(d.device))</td><td>\(d.requestFrame)</td><td>\(d.scanStartFrame.map(String.init) ?? "direct")</td>"
                out += "<td>\(ms(d.scanToRequestMicros))</td><td>\(d.reportsUntilRequest.map(String.init) ?? "–")</td>"
                out += "<td>\(ms(d.radioOnMicros))\(d.dutyCycle.map { " (duty \(Millis.ratio($0)))" } ?? "")</td>"
                out += "<td>\(ms(d.firstReportToRequestMicros))</td></tr>\n"
            }
            out += "</table>\n"
        }

        out += "<h2>Timeline</h2>\n"
        out += TimelineSVG.render(r.timeline)

        out += "<h2>Findings</h2>\n"
        if r.findings.isEmpty { out += "<p>No findings.</p>\n" }
        for f in r.findings {
            out += "<div class=\"finding \(f.severity.rawValue)\"><div><span class=\"sev\">\(f.severity.rawValue)</span> "
            out += "<code>\(h(f.rule))</code> <b>\(h(f.subject))</b></div><p>\(h(f.message))</p>"
            if !f.evidence.isEmpty { out += "<p class=\"ev\">evidence: frames \(h(FrameList.string(f.evidence)))</p>" }
            if let rec = f.recommendation { out += "<p class=\"fix\">\(h(rec))</p>" }
            out += "</div>\n"
        }
        if r.omittedFindings > 0 {
            out += "<p>… and \(r.omittedFindings) more finding(s) not listed (the first \(FindingList.limit) per rule and severity are).</p>\n"
        }

        if !r.connections.isEmpty {
            out += "<h2>Connections</h2>\n<table><tr><th>connection</th><th>role</th><th>peer</th><th>setup</th><th>interval</th>"
            out += "<th>latency</th><th>timeout</th><th>MTU</th><th>encrypted</th><th>first ATT</th><th>discovery</th>"
            out += "<th>first data</th><th>lifetime</th><th>idle tail</th><th>disconnect</th><th>ATT PDUs</th></tr>\n"
            for k in r.connections {
                out += "<tr><td>\(h(k.id))</td><td>\(h(k.role))</td><td>\(h(k.peer ?? "?"))</td><td>\(ms(k.setupMicros))</td>"
                out += "<td>\(ms(k.intervalMicros))</td><td>\(k.latency.map(String.init) ?? "–")</td>"
                out += "<td>\(ms(k.supervisionTimeoutMicros))</td><td>\(k.mtu)</td><td>\(k.encrypted ? "yes" : "no")</td>"
                out += "<td>\(ms(k.firstATTMicros))</td><td>\(ms(k.discoveryMicros))</td><td>\(ms(k.firstDataMicros))</td>"
                out += "<td>\(ms(k.lifetimeMicros))</td><td>\(ms(k.idleTailMicros))</td>"
                if let loss = k.lostWithController {
                    out += "<td>\(h(loss.label))</td>"
                } else {
                    out += "<td>\(h(k.disconnectReason ?? "–"))\(k.disconnectReason == nil ? "" : " (" + h(k.disconnectInitiator) + ")")</td>"
                }
                out += "<td title=\"\(h(k.attByOpcode.map { "\($0.name): \($0.count)" }.joined(separator: "\n")))\">\(k.attPDUs)</td></tr>\n"
            }
            out += "</table>\n"
        }
        if !r.scans.isEmpty {
            out += "<h2>Scan sessions</h2>\n<table><tr><th>start frame</th><th>start</th><th>duration</th><th>type</th>"
            out += "<th>duty cycle</th><th>filter duplicates</th><th>reports</th><th>duplicates</th><th>devices</th>"
            out += "<th>radio-on (estimated)</th></tr>\n"
            for s in r.scans {
                let duty = s.phys.map { "\($0.phy) \(Millis.string($0.windowMicros))/\(Millis.string($0.intervalMicros)) ms" }
                out += "<tr><td>\(s.startFrame)</td><td>\(ms(s.startMicros))</td><td>\(ms(s.durationMicros))"
                out += "\(s.stillRunningAtEnd ? " (still running)" : "")</td><td>\(s.active ? "active" : "passive")</td>"
                out += "<td>\(h(duty.joined(separator: ", ")))</td><td>\(s.filterDuplicates == 0 ? "off" : "on")</td>"
                out += "<td>\(s.reports)</td><td>\(s.duplicates) (\(Millis.ratio(s.duplicateRatio * 100, places: 1)) %)</td>"
                out += "<td>\(s.devicesSeen)</td><td>\(ms(s.radioOnMicros))</td></tr>\n"
            }
            out += "</table>\n"
        }
        if !r.pairings.isEmpty {
            out += "<h2>Pairing</h2>\n<table><tr><th>connection</th><th>request frame</th><th>method</th><th>Secure Connections</th>"
            out += "<th>bonding</th><th>MITM</th><th>result</th><th>duration</th></tr>\n"
            for p in r.pairings {
                out += "<tr><td>\(h(p.connection))</td><td>\(p.requestFrame)</td><td>\(h(p.method))</td>"
                out += "<td>\(p.secureConnections ? "yes" : "no")</td><td>\(yesNo(p.bonding))</td><td>\(yesNo(p.mitm))</td>"
                out += "<td>\(h(p.result))</td><td>\(ms(p.durationMicros))</td></tr>\n"
            }
            out += "</table>\n"
        }
        if !r.devices.isEmpty {
            out += "<h2>Devices</h2>\n<table><tr><th>address</th><th>name</th><th>reports</th><th>first frame</th>"
            out += "<th>distinct payloads</th><th>RSSI</th><th>connectable</th></tr>\n"
            for d in r.devices {
                let rssi = d.rssiMin.map { lo in "\(lo) … \(d.rssiMax.map(String.init) ?? "?") dBm" } ?? "–"
                out += "<tr><td>\(h(d.address))</td><td>\(h(d.name ?? ""))</td><td>\(d.reports)</td><td>\(d.firstFrame)</td>"
                out += "<td>\(d.distinctPayloads)</td><td>\(h(rssi))</td><td>\(d.connectable ? "yes" : "no")</td></tr>\n"
            }
            out += "</table>\n"
        }
        out += "<h2>Rules</h2>\n<table><tr><th>rule</th><th>status</th><th>reason</th></tr>\n"
        for v in r.rules {
            out += "<tr class=\"\(v.status.rawValue)\"><td><code>\(h(v.rule))</code></td><td>\(v.status == .notEvaluated ? "not evaluated" : v.status.rawValue)</td>"
            out += "<td>\(h(v.reason))</td></tr>\n"
        }
        out += "</table>\n</section>\n"
    }

    static func ms(_ v: Int64?) -> String { v.map { Millis.string($0) + " ms" } ?? "–" }
    static func yesNo(_ v: Bool?) -> String { v.map { $0 ? "yes" : "no" } ?? "?" }

    static let css = """
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

    static let colors: [Timeline.SpanKind: String] = [
        .scan: "#b7d3ff", .connection: "#bfe8c8", .discovery: "#6cc080", .pairing: "#c9a7f5", .advertising: "#ffd59a",
    ]
    static let tickColors: [Timeline.TickKind: String] = [
        .report: "#3a86ff", .duplicate: "#f4a100", .att: "#1a7f37", .request: "#d62828", .disconnect: "#1d2330", .marker: "#8338ec",
    ]

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

    static func render(_ t: Timeline) -> String {
        let h = Escaping.html
        let plot = width - labelWidth - 20
        let height = 30 + t.lanes.count * laneHeight + 8
        func x(_ micros: Int64) -> Double {
            Double(labelWidth) + Double(plot) * Double(min(max(micros, 0), t.durationMicros)) / Double(t.durationMicros)
        }
        func f(_ v: Double) -> String {
            let r = (v * 10).rounded() / 10
            return r == r.rounded() ? String(Int(r)) : String(r)
        }
        var out = "<svg class=\"timeline\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"timeline\">\n"
        // Axis: about 8 ticks at a round step.
        let step = niceStep(t.durationMicros / 8)
        var tick: Int64 = 0
        while tick <= t.durationMicros {
            let px = f(x(tick))
            out += "<line x1=\"\(px)\" y1=\"20\" x2=\"\(px)\" y2=\"\(height - 4)\" stroke=\"#eceff4\"/>"
            out += "<text class=\"axis\" x=\"\(px)\" y=\"14\" text-anchor=\"middle\">\(h(axisLabel(tick)))</text>\n"
            // A clock that jumps to the end of time makes the axis end near Int64.max.
            let (next, overflow) = tick.addingReportingOverflow(step)
            if overflow { break }
            tick = next
        }
        for (i, lane) in t.lanes.enumerated() {
            let top = 24 + i * laneHeight
            let label = lane.label.count > 38 ? String(lane.label.prefix(37)) + "…" : lane.label
            out += "<text x=\"6\" y=\"\(top + 18)\"><title>\(h(lane.label))</title>\(h(label))</text>\n"
            out += "<line x1=\"\(labelWidth)\" y1=\"\(top + laneHeight - 2)\" x2=\"\(width - 20)\" y2=\"\(top + laneHeight - 2)\" stroke=\"#eceff4\"/>\n"
            for s in lane.spans {
                let inner = s.kind == .discovery || s.kind == .pairing
                let y = top + (inner ? 9 : 3)
                let hgt = inner ? 10 : laneHeight - 7
                let x0 = x(s.start), x1 = max(x(s.end), x0 + 2)
                out += "<rect x=\"\(f(x0))\" y=\"\(y)\" width=\"\(f(x1 - x0))\" height=\"\(hgt)\" rx=\"3\" fill=\"\(colors[s.kind] ?? "#ccc")\""
                out += " opacity=\"\(inner ? "0.9" : "0.75")\"><title>\(h(s.label)) (frame \(s.frame), \(Millis.string(s.start))–\(Millis.string(s.end)) ms)</title></rect>\n"
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
                    out += "<rect x=\"\(f(bx))\" y=\"\(f(y))\" width=\"\(f(w))\" height=\"\(f(hgt))\" fill=\"\(tickColors[kind] ?? "#333")\""
                    out += "><title>\(n) \(kind.rawValue)\(n == 1 ? "" : "s") from frame \(firstFrame[k][b])</title></rect>"
                }
                out += "\n"
            }
        }
        out += "</svg>\n<div class=\"legend\">"
        for (name, color) in [("scan window", "#b7d3ff"), ("connection", "#bfe8c8"), ("GATT discovery", "#6cc080"),
                              ("pairing", "#c9a7f5"), ("advertising", "#ffd59a"), ("reports", "#3a86ff"),
                              ("duplicate reports", "#f4a100"), ("ATT PDUs", "#1a7f37"), ("connection request", "#d62828"),
                              ("disconnect", "#1d2330")] {
            out += "<span><i style=\"background:\(color)\"></i>\(name)</span>"
        }
        out += "</div>\n"
        return out
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
