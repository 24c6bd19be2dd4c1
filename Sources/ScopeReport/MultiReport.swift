import ScopeRules

/// Several captures at once: one report per file, the files that could not be analysed, and a
/// total.
package struct MultiReport: Sendable {
    package struct Failure: Sendable {
        package var file: String
        package var message: String
        package init(file: String, message: String) {
            self.file = file
            self.message = message
        }
    }

    package var reports: [Report]
    package var failures: [Failure]

    package init(reports: [Report], failures: [Failure] = []) {
        self.reports = reports
        self.failures = failures
    }

    package var findings: [Finding] { reports.flatMap(\.findings) }

    /// Findings of `severity` over every capture, listed and omitted.
    package func findingCount(_ severity: Severity) -> Int { reports.reduce(0) { $0 + $1.findingCount(severity) } }

    /// Rules violated in at least one capture, with the number of captures.
    package var violatedRules: [(rule: String, captures: Int)] {
        var counts: [String: Int] = [:]
        for r in reports { for v in r.rules where v.status == .violated { counts[v.rule, default: 0] += 1 } }
        return counts.sorted { $0.key < $1.key }.map { (rule: $0.key, captures: $0.value) }
    }

    package var regressions: Int { reports.reduce(0) { $0 + ($1.baseline?.regressions.count ?? 0) } }

    package func json() -> JSONValue {
        if reports.count == 1 && failures.isEmpty { return JSONReporter.value(reports[0]) }
        var o = JSONObject()
        o.set("schema_version", Report.schemaVersion)
        o.set("reports", .array(reports.map(JSONReporter.value)))
        o.set("failures", .array(failures.map { f in
            var q = JSONObject()
            q.set("file", f.file)
            q.set("error", f.message)
            return q.value
        }))
        var t = JSONObject()
        t.set("captures", reports.count + failures.count)
        t.set("analysed", reports.count)
        t.set("frames", reports.reduce(0) { $0 + $1.capture.frames })
        for s in Severity.allCases.reversed() { t.set(s.rawValue + "s", findingCount(s)) }
        var v = JSONObject()
        for (rule, n) in violatedRules { v.set(rule, n) }
        t.set("violated_rules", v.value)
        t.set("regressions", regressions)
        o.set("total", t.value)
        return o.value
    }

    /// `all`: every headline item and finding listed (`analyze --all`), not summarised.
    package func text(color: Bool, all: Bool = false) -> String {
        let reporter = TextReporter(color: color, all: all)
        var out = reports.map(reporter.render).joined(separator: "\n")
        guard reports.count + failures.count > 1 || !failures.isEmpty else { return out }
        out += "\n" + (color ? "\u{1B}[1mTotal\u{1B}[0m" : "Total") + "\n"
        out += "  \(reports.count) of \(reports.count + failures.count) capture(s) analysed, "
        out += "\(reports.reduce(0) { $0 + $1.capture.frames }) frames\n"
        out += "  findings: \(findingCount(.error)) error, \(findingCount(.warning)) warning, \(findingCount(.info)) info\n"
        for (rule, n) in violatedRules { out += "  \(rule): violated in \(n) capture(s)\n" }
        for x in failures { out += "  could not analyse \(Escaping.terminal(x.file)): \(Escaping.terminal(x.message))\n" }
        return out
    }

    package func markdown() -> String {
        let out = reports.map { MarkdownReporter.render($0) }.joined(separator: "\n")
        guard reports.count + failures.count > 1 || !failures.isEmpty else { return out }
        return out + "\n## Total\n\n" + markdownTotal()
    }

    /// The table of captures: findings per severity and the rules violated, or why a capture
    /// could not be analysed.
    package func markdownTotal() -> String {
        let md = Escaping.markdown
        var out = "| capture | errors | warnings | infos | violated rules |\n|---|---:|---:|---:|---|\n"
        for r in reports {
            let v = r.rules.filter { $0.status == .violated }.map { "`\($0.rule)`" }.joined(separator: ", ")
            out += "| \(md(r.capture.file)) | \(r.findingCount(.error)) | "
            out += "\(r.findingCount(.warning)) | \(r.findingCount(.info)) | \(v) |\n"
        }
        for x in failures { out += "| \(md(x.file)) | – | – | – | could not analyse: \(md(x.message)) |\n" }
        return out
    }

    package func junit() -> String { JUnitReporter.render(reports) }
    package func github() -> String { GitHubReporter.render(self) }
    package func codeclimate() -> String { CodeClimateReporter.render(self) }
    /// One `hciscope.fleet/1` row per capture, analysed or not (docs/FLEET.md).
    package func jsonl() -> String {
        reports.map { FleetRow.value($0).compact() + "\n" }.joined() + failures.map { FleetRow.value($0).compact() + "\n" }.joined()
    }
    package func html() -> String { HTMLReporter.render(reports) }

    /// As `render(_:color:all:)`, handed to `sink` in pieces (JSON is written as it is rendered).
    package func render(_ format: ReportFormat, color: Bool, all: Bool = false, to sink: (String) -> Void) {
        if format == .json {
            if reports.count == 1 && failures.isEmpty {
                JSONReporter.write(reports[0], to: sink)
            } else {
                json().write(to: sink)
            }
        } else {
            sink(render(format, color: color, all: all))
        }
    }

    /// Renders in one of the formats of `--format`; `all` lists everything in the text report
    /// (the other formats always do).
    package func render(_ format: ReportFormat, color: Bool, all: Bool = false) -> String {
        switch format {
        case .text: return text(color: color, all: all)
        case .json: return json().rendered()
        case .junit: return junit()
        case .markdown: return markdown()
        case .html: return html()
        case .github: return github()
        case .codeclimate: return codeclimate()
        case .jsonl: return jsonl()
        }
    }
}

package enum ReportFormat: String, Sendable, CaseIterable {
    case text, json, junit, markdown, html, github, codeclimate, jsonl
}

/// `--fail-on`: 2 when a capture could not be analysed, 1 when a finding is at or above the
/// level or a figure regressed beyond its budget, else 0.
package enum ExitPolicy {
    package static func status(_ m: MultiReport, failOn: Severity) -> Int32 {
        if !m.failures.isEmpty { return 2 }
        if m.reports.contains(where: { $0.findings(atOrAbove: failOn) > 0 }) { return 1 }
        if m.regressions > 0 { return 1 }
        // Data damaged or not read to its end (CaptureHealth.damage): the report is of less
        // than the capture.
        if m.reports.contains(where: { $0.capture.health.damage > 0 }) { return 1 }
        return 0
    }
}
