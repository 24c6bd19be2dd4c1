import ScopeRules
import ScopeCore

/// `--format markdown`: fits a CI job summary (GitHub `$GITHUB_STEP_SUMMARY`): a heading, a
/// figures table, findings with evidence and a collapsed table of rule verdicts.
package enum MarkdownReporter {
    /// - Parameter foldFindingsOver: when set, a findings list longer than this is folded in
    ///   `<details>` (the GitHub job summary), with its count in the summary line.
    package static func render(_ r: Report, headingLevel: Int = 2, foldFindingsOver: Int? = nil) -> String {
        let md = Escaping.markdown
        let hashes = String(repeating: "#", count: max(1, min(5, headingLevel)))
        var out = ""
        func line(_ s: String = "") { out += s + "\n" }
        let c = r.capture
        let icon = r.findings(atOrAbove: .error) > 0 ? "❌" : r.findings(atOrAbove: .warning) > 0 ? "⚠️" : "✅"
        line("\(hashes) \(icon) hciscope: \(md(c.file))")
        line()
        // Durations as the text report gives them (a capture's span in milliseconds, 761737008 ms
        // for a PacketLogger file whose notes predate its traffic by days, said nothing).
        let traffic = c.trafficToShow.map { t in "; HCI traffic \(ReadableDuration.text(t.micros)) (frames \(t.first)–\(t.last))" }
        line("\(md(c.format)), \(c.frames) frames, \(ReadableDuration.text(c.durationMicros))" + (traffic ?? "") + ". "
             + "\(r.count(.violated)) rule(s) violated, \(r.count(.passed)) passed, \(r.count(.notEvaluated)) not evaluated.")
        if !c.sourceLines.isEmpty {
            line()
            for s in c.sourceLines { line("- \(md(s.trimmingCharacters(in: .whitespaces)))") }
        }
        if !c.healthy {
            line()
            line("**Capture health:**")
            for p in c.healthProblems { line("- \(md(p))") }
        }
        line()
        line("\(hashes)# Headline figures")
        line()
        line("| figure | value | meaning |")
        line("|---|---:|---|")
        for f in r.headline.figures {
            guard let v = f.rendered else { continue }
            let unit = f.unit == .ms ? " ms" : f.unit == .bytes ? " B" : ""
            line("| `\(f.key)` | \(v)\(unit)\(f.estimated ? " (estimated)" : "") | \(md(f.explanation)) |")
        }
        line()
        line("\(hashes)# Findings")
        line()
        if r.shownFindings.isEmpty { line("No findings.") }
        let folded = foldFindingsOver.map { r.shownFindings.count > $0 } ?? false
        if folded {
            line("<details><summary>\(r.shownFindings.count) findings listed</summary>")
            line()
        }
        for f in r.shownFindings {
            let badge = f.severity == .error ? "🔴" : f.severity == .warning ? "🟠" : "🔵"
            var s = "- \(badge) **\(f.severity.rawValue)** `\(f.rule)` \(md(f.subject)): \(md(f.message))"
            if !f.evidence.isEmpty { s += " _(frames \(FrameList.string(f.evidence)))_" }
            line(s)
        }
        if r.omittedFindings > 0 {
            line("- … and \(r.omittedFindings) more finding(s) not listed (the first \(FindingList.limit) per rule, severity and side are)")
        }
        if !r.activity.isEmpty {
            line()
            line("The system's and the peer's activity (not judged as the app's):")
            line()
            for l in r.activity.lines { line("- " + (l.actor == .os ? "the system: " : "the peer: ") + md(Activity.text(l))) }
        }
        if folded {
            line()
            line("</details>")
        }
        line()
        if let b = r.baseline {
            line("\(hashes)# Compared with the baseline")
            line()
            for l in b.lines() { line("- " + md(l.text)) }
            for f in b.newFindings { line("- new: `\(f.rule)` \(md(f.subject))") }
            for f in b.resolvedFindings { line("- resolved: `\(f.rule)` \(md(f.subject))") }
            line()
        }
        line("<details><summary>Rule verdicts</summary>")
        line()
        line("| rule | status | reason |")
        line("|---|---|---|")
        for v in r.rules {
            let status = v.status == .violated ? "❌ violated" : v.status == .passed ? "✅ passed" : "➖ not evaluated"
            line("| `\(v.rule)` | \(status) | \(md(v.reason)) |")
        }
        line()
        line("</details>")
        return out
    }
}
