import ScopeRules

/// `--format github`: findings where GitHub shows them. Standard output gets workflow commands
/// (`::error file=PATH,title=RULE::MESSAGE`, `::warning`, `::notice`), which GitHub turns into
/// annotations on the run and the pull request; a job summary in Markdown goes to the file named by
/// `$GITHUB_STEP_SUMMARY` (written by the command, appended).
package enum GitHubReporter {
    /// Annotations printed; the rest are counted on one line. GitHub itself keeps at most 10
    /// error and 10 warning annotations per step.
    package static let annotationLimit = 10
    /// GitHub's limit for one step's summary (1 MiB); larger summaries are rejected.
    package static let summaryLimit = 1 << 20
    /// Findings listed per capture in the summary before the list is folded in `<details>`.
    package static let foldFindingsOver = 10

    /// One annotation: level (`error`, `warning`, `notice`), file, title and message.
    package struct Annotation: Sendable, Hashable {
        package var level: String
        package var file: String
        package var title: String
        package var message: String

        package init(level: String, file: String, title: String, message: String) {
            self.level = level
            self.file = file
            self.title = title
            self.message = message
        }

        /// The workflow command line.
        package var command: String {
            "::\(level) file=\(Escaping.githubProperty(file)),title=\(Escaping.githubProperty(title))::\(Escaping.githubData(message))"
        }
    }

    package static func level(_ s: Severity) -> String {
        switch s {
        case .error: return "error"
        case .warning: return "warning"
        case .info: return "notice"
        }
    }

    /// Every annotation, most severe first: captures that could not be analysed, then the findings
    /// listed in each report (errors, warnings, notices; within a level in input order).
    package static func annotations(_ m: MultiReport) -> [Annotation] {
        var out = m.failures.map { Annotation(level: "error", file: $0.file, title: "hciscope", message: "could not analyse: \($0.message)") }
        for s in Severity.allCases.sorted(by: >) {
            for r in m.reports {
                for f in r.shownFindings where f.severity == s {
                    var text = "\(f.subject): \(f.message)"
                    if !f.evidence.isEmpty { text += " (frames \(FrameList.string(f.evidence)))" }
                    out.append(Annotation(level: level(s), file: r.capture.file, title: f.rule, message: text))
                }
            }
        }
        return out
    }

    /// Standard output of `--format github`: at most `limit` workflow commands, one line counting
    /// the findings not annotated (listed beyond the limit, or counted but not listed), and a
    /// closing line with the totals.
    package static func render(_ m: MultiReport, limit: Int = annotationLimit) -> String {
        let all = annotations(m)
        var out = ""
        for a in all.prefix(limit) { out += a.command + "\n" }
        let rest = max(0, all.count - limit) + m.reports.reduce(0) { $0 + $1.omittedFindings }
        if rest > 0 {
            out += "hciscope: \(rest) more finding(s) not annotated (at most \(limit) are); the job summary and the other report formats list them\n"
        }
        let captures = m.reports.count + m.failures.count
        out += "hciscope: \(captures) capture(s), \(m.failures.count) could not be analysed; findings: "
        out += "\(m.findingCount(.error)) error, \(m.findingCount(.warning)) warning, \(m.findingCount(.info)) info\n"
        return out
    }

    /// The job summary: the table of captures (when there are several), then each capture's
    /// Markdown report with long finding lists folded, cut to `budget` bytes (UTF-8) with a note.
    package static func summary(_ m: MultiReport, budget: Int = summaryLimit) -> String {
        var text = ""
        if m.reports.count + m.failures.count > 1 || !m.failures.isEmpty {
            text += "## hciscope: \(m.reports.count + m.failures.count) capture(s)\n\n" + m.markdownTotal() + "\n"
        }
        text += m.reports.map { MarkdownReporter.render($0, foldFindingsOver: foldFindingsOver) }.joined(separator: "\n")
        return truncated(text, budget: budget)
    }

    /// `markdown` whole when it fits in `budget` bytes; else its first lines, any `<details>` left
    /// open closed, and a note saying how much was cut. Never more than `budget` bytes.
    package static func truncated(_ markdown: String, budget: Int) -> String {
        let total = markdown.utf8.count
        guard total > budget else { return markdown }
        func note(_ omitted: Int) -> String {
            "\n> **Summary truncated**: \(omitted) of \(total) bytes are not shown (a step summary holds at most 1 MiB). "
                + "The full report: `hciscope analyze --format markdown` or `--format html`.\n"
        }
        // The note's length with the largest number it can hold.
        let reserve = note(total).utf8.count + "\n</details>\n".utf8.count * 8
        guard budget > reserve else { return "" }
        var out = ""
        var used = 0
        var open = 0
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let size = line.utf8.count + 1
            if used + size + reserve > budget { break }
            out += line + "\n"
            used += size
            if line.hasPrefix("<details") { open += 1 }
            if line.hasPrefix("</details>") { open = max(0, open - 1) }
        }
        // Closed innermost first; a table cut short ends at the blank line before the note.
        for _ in 0..<min(open, 8) { out += "\n</details>\n" }
        return out + note(total - used)
    }
}
