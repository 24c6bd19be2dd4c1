import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ScopeAnalysis
import ScopeCore
import ScopeReport
import ScopeRules


/// `hciscope analyze FILE...`: radio-usage metrics and best-practice rules, reported for people
/// (text, Markdown, HTML) or for CI (JSON, JUnit), with exit status set by `--fail-on`.
public struct Analyze: ParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Judge captures against the radio-usage rules (`hciscope rules`) and report the figures.",
        discussion: """
            Formats: text (colour on a terminal), json (schema in docs/REPORT-SCHEMA.md), junit, markdown \
            (fits a CI job summary), html (one self-contained file with a timeline).
            Exit status: 0 no finding at or above --fail-on, 1 findings at or above it or a headline figure \
            regressed beyond its --max-regression budget, 2 a capture could not be analysed (or bad options).
            --annotate OUT.pcapng writes the capture again as pcapng, frame for frame (the numbering of the \
            report), with every finding listed in the report as a packet comment on each of its evidence frames \
            (Wireshark: packet tree and Expert Info; filter frame.comment contains "scan."). It reads the capture \
            a second time, so it takes one file and not standard input.
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

    @Option(
        name: .customLong("annotate"),
        help: ArgumentHelp(
            "Also write the capture as pcapng with each finding as a packet comment on its evidence frames (Wireshark: frame.comment).",
            valueName: "OUT.pcapng"))
    var annotate: String?

    @Flag(name: .customLong("no-resolve-addresses"), help: "Do not resolve resolvable private addresses with the IRKs the capture distributes (SMP Identity Information).")
    var noResolveAddresses = false

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
        if let annotate, let refusal = AnnotatedCapture.refusal(files: files, output: annotate) {
            console.err("hciscope analyze: \(refusal)")
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

        let version = BuildInfo.version
        let ruleConfig = rules
        let oldReports = baselines
        let maxGrowth = budgets
        let format = self.format
        let resolve = !noResolveAddresses
        // Files are analysed concurrently (one per core); reports and messages keep the input order.
        let outcomes = Self.concurrentMap(files) { file -> FileOutcome in
            var outcome = FileOutcome()
            let analysis: AnalysisResult
            let verdicts: [RuleVerdict]
            do {
                (analysis, verdicts) = try RuleEngine.analyze(path: file, config: ruleConfig, resolvePrivateAddresses: resolve)
            } catch {
                outcome.messages.append("hciscope analyze: \(file): \(error)")
                outcome.failure = .init(file: file, message: String(describing: error))
                return outcome
            }
            var report = Report(
                analysis: analysis, verdicts: verdicts, tool: ToolInfo(version: version), config: summary, timeline: format == .html)
            if !oldReports.isEmpty {
                if let old = Baseline.match(oldReports, file: file) {
                    report.compare(with: old, budgets: maxGrowth)
                } else {
                    outcome.messages.append("hciscope analyze: \(file): no matching report in the baseline")
                }
            }
            outcome.report = report
            return outcome
        }
        var reports: [Report] = []
        var failures: [MultiReport.Failure] = []
        for outcome in outcomes {
            for m in outcome.messages { console.err(m) }
            if let r = outcome.report { reports.append(r) }
            if let f = outcome.failure { failures.append(f) }
        }

        let multi = MultiReport(reports: reports, failures: failures)
        let color = format == .text && output == nil && !noColor && isTerminal
            && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        if let output {
            do { try Self.write(multi, format: format, toFile: output) } catch {
                console.err("hciscope analyze: cannot write \(output): \(error.localizedDescription)")
                return 2
            }
        } else {
            multi.render(format, color: color) { console.out($0) }
        }
        if let annotate {
            guard let report = reports.first, let input = files.first else {
                console.err("hciscope analyze: \(annotate) not written: the capture could not be analysed")
                return 2
            }
            do {
                let s = try AnnotatedCapture.write(
                    input: input, output: annotate, annotations: CaptureAnnotations(report),
                    expectedRecords: report.capture.frames, application: "hciscope \(version)")
                var line = "hciscope analyze: \(annotate): \(s.packets) frames (pcapng, LINKTYPE \(s.linkType)), findings on \(s.annotatedFrames)"
                if s.placeholders > 0 {
                    line += "; \(s.placeholders) frame(s) written as a pseudo-header only (not readable, or no place in the link type)"
                }
                console.err(line)
            } catch {
                console.err("hciscope analyze: --annotate: \(error)")
                return 2
            }
        }
        return ExitPolicy.status(multi, failOn: failOn)
    }
}

extension Analyze {
    /// Writes the report to a temporary file beside `path`, in pieces, then renames it: a reader
    /// never sees half a report, and a long one is never one string in memory.
    static func write(_ multi: MultiReport, format: ReportFormat, toFile path: String) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            let folder = url.deletingLastPathComponent().path
            throw CocoaError(
                FileManager.default.fileExists(atPath: folder) ? .fileWriteNoPermission : .fileNoSuchFile,
                userInfo: [NSFilePathErrorKey: folder])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            var failure: Error?
            multi.render(format, color: false) { piece in
                guard failure == nil else { return }
                do { try handle.write(contentsOf: Data(piece.utf8)) } catch { failure = error }
            }
            try handle.close()
            if let failure { throw failure }
            // rename(2) replaces an existing file atomically.
            guard rename(temporary.path, path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}

extension ReportFormat: ExpressibleByArgument {}
extension Severity: ExpressibleByArgument {}

extension Analyze {
    /// What analysing one file produced.
    struct FileOutcome: Sendable {
        var report: Report?
        var failure: MultiReport.Failure?
        var messages: [String] = []
    }

    /// `transform` applied to every element on all cores (each file is analysed by one thread,
    /// start to end); results in input order. One element runs on the calling thread.
    static func concurrentMap<T: Sendable>(_ items: [String], _ transform: @Sendable (String) -> T) -> [T] {
        if items.count <= 1 { return items.map(transform) }
        let slots = Slots<T>(count: items.count)
        DispatchQueue.concurrentPerform(iterations: items.count) { i in
            slots.set(i, transform(items[i]))
        }
        return slots.values()
    }

    /// Result slots written by concurrent workers, each slot once.
    final class Slots<T: Sendable>: @unchecked Sendable {
        private var items: [T?]
        private let lock = NSLock()
        init(count: Int) { items = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ value: T) {
            lock.lock()
            items[i] = value
            lock.unlock()
        }
        func values() -> [T] {
            lock.lock()
            defer { lock.unlock() }
            return items.compactMap { $0 }
        }
    }
}
