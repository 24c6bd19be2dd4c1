import Foundation
import ScopeReport
import ScopeRules
import ScopeTestSupport
import Testing

/// The CI formats' building blocks: SHA-256 (Code Quality fingerprints) on the FIPS 180-2
/// examples, GitHub workflow-command escaping, and the job summary's folding and 1 MiB cut on
/// reports of the project's own scenario captures.
@Suite struct CIReporterTests {
    /// FIPS 180-2, Appendix B (one block, two blocks, a million "a") and the empty message.
    @Test func sha256MatchesTheStandardsExamples() {
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(String(repeating: "a", count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// `@actions/core` percent-encodes `%`, CR and LF in messages, and also `:` and `,` in
    /// properties; anything else (a device name's quotes, `::`) stays.
    @Test func workflowCommandEscaping() {
        #expect(Escaping.githubData("50% of 2\r\nlines :: kept, \"x\"") == "50%25 of 2%0D%0Alines :: kept, \"x\"")
        #expect(Escaping.githubProperty("dir/a:b,c%d\ne.btsnoop") == "dir/a%3Ab%2Cc%25d%0Ae.btsnoop")
        let a = GitHubReporter.Annotation(level: "warning", file: "x,y.btsnoop", title: "gatt.polling", message: "line1\nline2")
        #expect(a.command == "::warning file=x%2Cy.btsnoop,title=gatt.polling::line1%0Aline2")
    }

    static func scenarioReports() throws -> MultiReport {
        let reports = try ScenarioTruth.own.map { truth in
            let path = try truth.captureURL().path
            let (analysis, verdicts) = try RuleEngine.analyze(path: path)
            return Report(analysis: analysis, verdicts: verdicts, tool: ToolInfo(version: "test"), config: ConfigSummary(), timeline: false)
        }
        return MultiReport(reports: reports)
    }

    /// The summary fits the budget it is given: whole when it fits; else cut at a line, every
    /// `<details>` closed, with a note saying how many bytes were left out. At GitHub's own limit
    /// (1 MiB) with the scenario reports ten times over (about 1.3 MB).
    @Test func summaryIsCutToItsBudgetWithANoteAndBalancedDetails() throws {
        let multi = try Self.scenarioReports()
        let whole = GitHubReporter.summary(multi)
        #expect(whole.utf8.count < GitHubReporter.summaryLimit)
        #expect(!whole.contains("Summary truncated"))
        #expect(whole.hasPrefix("## hciscope: \(multi.reports.count) capture(s)\n"))
        for budget in [4_000, 20_000, whole.utf8.count - 1] {
            let cut = GitHubReporter.summary(multi, budget: budget)
            #expect(cut.utf8.count <= budget)
            #expect(cut.contains("**Summary truncated**"))
            #expect(cut.components(separatedBy: "<details>").count == cut.components(separatedBy: "</details>").count)
            #expect(cut.contains("of \(whole.utf8.count) bytes are not shown"))
        }
        let big = MultiReport(reports: Array(repeating: multi.reports, count: 10).flatMap { $0 })
        let summary = GitHubReporter.summary(big)
        #expect(summary.utf8.count <= GitHubReporter.summaryLimit)
        #expect(summary.utf8.count > GitHubReporter.summaryLimit - 4096)
        #expect(summary.contains("**Summary truncated**"))
        // Nothing at all when not even the note fits.
        #expect(GitHubReporter.summary(multi, budget: 100) == "")
    }

    /// A findings list longer than the fold limit goes into `<details>`; shorter ones stay open.
    @Test func longFindingListsAreFolded() throws {
        let multi = try Self.scenarioReports()
        guard let report = multi.reports.first(where: { $0.findings.count >= 2 }) else {
            Issue.record("a scenario capture with two findings")
            return
        }
        let folded = MarkdownReporter.render(report, foldFindingsOver: 1)
        #expect(folded.contains("<details><summary>\(report.findings.count) findings listed</summary>"))
        let open = MarkdownReporter.render(report, foldFindingsOver: report.findings.count)
        #expect(!open.contains("findings listed"))
        #expect(open == MarkdownReporter.render(report))
    }

    /// Code Quality issues: one per finding listed, the rule as check name, fingerprints distinct
    /// within a run and equal between runs, severities in GitLab's vocabulary.
    @Test func codeClimateIssuesHaveStableDistinctFingerprints() throws {
        let multi = try Self.scenarioReports()
        let first = CodeClimateReporter.value(multi)
        let again = CodeClimateReporter.value(try Self.scenarioReports())
        #expect(first == again)
        guard case .array(let issues) = first else {
            Issue.record("not an array")
            return
        }
        #expect(issues.count == multi.reports.reduce(0) { $0 + $1.shownFindings.count })
        var fingerprints = Set<String>()
        for (issue, finding) in zip(issues, multi.reports.flatMap { r in r.shownFindings.map { (r.capture.file, $0) } }) {
            #expect(issue["check_name"] == .string(finding.1.rule))
            #expect(issue["severity"] == .string(CodeClimateReporter.severity(finding.1.severity)))
            #expect(issue["location"]?["path"] == .string(finding.0))
            #expect(issue["location"]?["lines"]?["begin"] == .int(1))
            if case .string(let f)? = issue["fingerprint"] {
                #expect(f.count == 64)
                fingerprints.insert(f)
            }
        }
        #expect(fingerprints.count == issues.count)
        #expect(issues.allSatisfy { ["info", "minor", "major"].map(JSONValue.string).contains($0["severity"] ?? .null) })
    }
}
