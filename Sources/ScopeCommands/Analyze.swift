import ArgumentParser
import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeReport
import ScopeRules


/// `hciscope analyze FILE...`: radio-usage metrics and best-practice rules, reported for people
/// (text, Markdown, HTML) or for CI (JSON, JUnit), with exit status set by `--fail-on`.
public struct Analyze: ParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Judge captures against the radio-usage rules of docs/RULES.md and report the figures.",
        discussion: """
            Formats: text (colour on a terminal), json (schema in docs/REPORT-SCHEMA.md), junit, markdown \
            (fits a CI job summary), html (one self-contained file with a timeline).
            Exit status: 0 no finding at or above --fail-on, 1 findings at or above it or a headline figure \
            regressed beyond its --max-regression budget, 2 a capture could not be analysed (or bad options).
            """)

    @Argument(help: "Capture files (btsnoop, pcap, pcapng, pklg).")
    var files: [String]

    @Option(help: "Report format: text, json, junit, markdown or html.")
    var format: ReportFormat = .text

    @Option(name: .shortAndLong, help: "Write the report to this file instead of standard output.")
    var output: String?

    @Option(help: "Rule configuration (YAML). Default: ./hciscope.yml when present.")
    var config: String?

    @Option(help: "Advertising budget profile: ios.")
    var profile: String?

    @Option(name: .customLong("fail-on"), help: "Lowest severity that makes the run fail: error, warning or info.")
    var failOn: Severity = .error

    @Option(help: "An earlier JSON report to compare with.")
    var baseline: String?

    @Option(name: .customLong("max-regression"), help: "KEY=PCT: a headline figure may grow at most PCT % over the baseline (repeatable).")
    var maxRegression: [String] = []

    @Flag(name: .customLong("no-color"), help: "Never colour the text report.")
    var noColor = false

    public init() {}

    public func run() throws {
        let status = execute(console: .standard)
        if status != 0 { throw ExitCode(status) }
    }

    /// Runs against `console`; returns the exit status.
    public func execute(console: Console, isTerminal: Bool = isatty(STDOUT_FILENO) == 1) -> Int32 {
        var budgets: [RegressionBudget] = []
        for text in maxRegression {
            switch RegressionBudget.parse(text) {
            case .success(let b): budgets.append(b)
            case .failure(let e):
                console.err("hciscope analyze: --max-regression: \(e.message)")
                return 2
            }
        }
        if !budgets.isEmpty && baseline == nil {
            console.err("hciscope analyze: --max-regression needs --baseline")
            return 2
        }
        if let p = profile, p != "ios" {
            console.err("hciscope analyze: unknown profile '\(p)' (known: ios)")
            return 2
        }

        // Rule configuration: --config, else ./hciscope.yml when present.
        let configPath = config ?? (FileManager.default.fileExists(atPath: "hciscope.yml") ? "hciscope.yml" : nil)
        var rules: RuleConfiguration
        do {
            if let configPath {
                let text = try String(contentsOfFile: configPath, encoding: .utf8)
                rules = try RuleConfiguration.load(yaml: text, file: configPath)
            } else {
                rules = RuleConfiguration()
            }
        } catch {
            console.err("hciscope analyze: \(error)")
            return 2
        }
        if profile == "ios" { rules.profile = .ios }
        let summary = ConfigSummary(source: configPath, profile: profile, settings: [])

        var baselines: [Baseline] = []
        if let baseline {
            do { baselines = try Baseline.load(path: baseline) } catch {
                console.err("hciscope analyze: \(error)")
                return 2
            }
        }

        let version = RootCommand.configuration.version
        var reports: [Report] = []
        var failures: [MultiReport.Failure] = []
        for file in files {
            let analysis: AnalysisResult
            do {
                analysis = try AnalysisBuilder.analyze(path: file)
            } catch {
                console.err("hciscope analyze: \(file): \(error)")
                failures.append(.init(file: file, message: String(describing: error)))
                continue
            }
            let verdicts = RuleEngine.evaluate(analysis, config: rules)
            var report = Report(
                analysis: analysis, verdicts: verdicts, tool: ToolInfo(version: version), config: summary, timeline: format == .html)
            if !baselines.isEmpty {
                if let old = Baseline.match(baselines, file: file) {
                    report.compare(with: old, budgets: budgets)
                } else {
                    console.err("hciscope analyze: \(file): no matching report in the baseline")
                }
            }
            reports.append(report)
        }

        let multi = MultiReport(reports: reports, failures: failures)
        let color = format == .text && output == nil && !noColor && isTerminal
            && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        let text = multi.render(format, color: color)
        if let output {
            do { try text.write(toFile: output, atomically: true, encoding: .utf8) } catch {
                console.err("hciscope analyze: cannot write \(output): \(error.localizedDescription)")
                return 2
            }
        } else {
            console.out(text)
        }
        return ExitPolicy.status(multi, failOn: failOn)
    }
}

extension ReportFormat: ExpressibleByArgument {}
extension Severity: ExpressibleByArgument {}
