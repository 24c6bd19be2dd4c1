import ScopeRules

/// `--format junit`: one `<testsuite>` per capture, one `<testcase>` per rule. Violated rules are
/// failures (one line per finding with its evidence frames), not-evaluated rules are skipped.
package enum JUnitReporter {
    package static func render(_ reports: [Report]) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let tests = reports.reduce(0) { $0 + $1.rules.count }
        let failures = reports.reduce(0) { $0 + $1.count(.violated) }
        let skipped = reports.reduce(0) { $0 + $1.count(.notEvaluated) }
        out += "<testsuites name=\"hciscope\" tests=\"\(tests)\" failures=\"\(failures)\" skipped=\"\(skipped)\" errors=\"0\">\n"
        for r in reports { suite(r, into: &out) }
        out += "</testsuites>\n"
        return out
    }

    package static func render(_ report: Report) -> String { render([report]) }

    static func suite(_ r: Report, into out: inout String) {
        let x = Escaping.xml
        let file = r.capture.file
        out += "  <testsuite name=\"\(x(file))\" tests=\"\(r.rules.count)\" failures=\"\(r.count(.violated))\" "
        out += "skipped=\"\(r.count(.notEvaluated))\" errors=\"0\">\n"
        out += "    <properties>\n"
        out += "      <property name=\"schema_version\" value=\"\(Report.schemaVersion)\"/>\n"
        out += "      <property name=\"tool_version\" value=\"\(x(r.tool.version))\"/>\n"
        out += "      <property name=\"frames\" value=\"\(r.capture.frames)\"/>\n"
        if let p = r.config.profile { out += "      <property name=\"profile\" value=\"\(x(p))\"/>\n" }
        out += "    </properties>\n"
        for v in r.rules {
            out += "    <testcase classname=\"hciscope.\(x(file))\" name=\"\(x(v.rule))\""
            switch r.judgedStatus(v) {
            case .passed:
                out += "/>\n"
            case .notEvaluated:
                out += ">\n      <skipped message=\"\(x(v.reason))\"/>\n    </testcase>\n"
            case .violated:
                let shown = r.judge == .all ? v.findings : v.findings.filter(\.actor.judgedAsApp)
                let worst = (shown.map(\.severity) + Array(v.omitted.keys)).max() ?? .warning
                out += ">\n      <failure type=\"\(worst.rawValue)\" message=\"\(x(v.reason))\">"
                let lines = shown.map { f in
                    "[\(f.severity.rawValue)] \(f.subject): \(f.message)"
                        + (f.evidence.isEmpty ? "" : " (frames \(FrameList.string(f.evidence)))")
                }
                let omitted = v.omitted.values.reduce(0, +)
                out += x((lines + (omitted > 0 ? ["… and \(omitted) more finding(s) not listed"] : [])).joined(separator: "\n"))
                out += "</failure>\n    </testcase>\n"
            }
        }
        out += "  </testsuite>\n"
    }
}
