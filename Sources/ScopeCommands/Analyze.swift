import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ScopeAnalysis
import ScopeCapture
import ScopeCore
import ScopeReport
import ScopeRules


/// `hciscope analyze FILE...`: radio-usage metrics and best-practice rules, reported for people
/// (text, Markdown, HTML) or for CI (JSON, JUnit), with exit status set by `--fail-on`.
package struct Analyze: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Judge captures against the radio-usage rules (`hciscope rules`) and report the figures.",
        discussion: """
            Formats: text (colour on a terminal), json (schema in docs/REPORT-SCHEMA.md), junit, markdown \
            (fits a CI job summary), html (one self-contained file with a timeline), github (workflow-command \
            annotations, at most 10, and a job summary appended to $GITHUB_STEP_SUMMARY when it is set), \
            codeclimate (GitLab Code Quality), jsonl (one row per capture, schema hciscope.fleet/1 in docs/FLEET.md).
            Folders are searched recursively (names starting with "." are left out); their captures are \
            recognised by content and other files are skipped (counted on standard error); a folder that is an \
            unpacked sysdiagnose or bug report is one capture. Files are analysed on all cores.
            Exit status: 0 no finding at or above --fail-on, 1 findings at or above it or a headline figure \
            regressed beyond its --max-regression budget, 2 a capture could not be analysed, folders held no \
            capture (or bad options). Several captures: the worst of them.
            --annotate OUT.pcapng writes the capture again as pcapng, frame for frame (the numbering of the \
            report), with every finding listed in the report as a packet comment on each of its evidence frames \
            (Wireshark: packet tree and Expert Info; filter frame.comment contains "scan."). It reads the capture \
            a second time, so it takes one file and not standard input.
            Standard input ("-") holds one capture or container of any kind; --name gives it the name a job that \
            pipes files in knows it by (the report's file, the row's file, every message) and --modified its \
            modification time (the clock of raw btsnooz records), so its report is the one of the file itself.
            """)

    @Argument(help: "Captures (btsnoop, pcap, pcapng, pklg; compressed; Android bug report zips, btsnooz text, iOS sysdiagnose archives) or folders to search.")
    var files: [String]

    @Option(help: "Report format: text, json, junit, markdown, html, github, codeclimate or jsonl.")
    var format: ReportFormat = .text

    @Option(name: .shortAndLong, help: "Write the report to this file instead of standard output.")
    var output: String?

    @Option(help: "Rule configuration (YAML). Default: ./hciscope.yml when present.")
    var config: String?

    @Option(help: "Advertising budget profile: ios.")
    var profile: String?

    @Option(help: "Host stack that recorded the capture, instead of the one its evidence shows: ios, android, bluez or embedded. Advice speaks its API; what it does by itself is counted as its own.")
    var platform: String?

    @Option(name: .customLong("fail-on"), help: "Lowest severity that makes the run fail: error, warning or info (findings of the app, and of what cannot be told apart from it, unless --judge all).")
    var failOn: Severity = .error

    @Option(help: "Whose findings the report judges and --fail-on counts: app (the app's, and what cannot be told apart from it; the system's and the peer's activity is summed in a few lines) or all (every actor). JSON lists every finding with its actor either way.")
    var judge: JudgeScope = .app

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

    @Option(help: "Most threads to use; default: one per core, each analysing one capture on its own. A capture given two (one reads and decodes, one analyses) finishes a little sooner for a fifth to a half more CPU time.")
    var threads: Int?

    @Option(help: ArgumentHelp(
        "With - (standard input): the name its capture goes by in the report, its row and every message (default: -, and <stdin> in messages).",
        valueName: "NAME"))
    var name: String?

    @Option(help: ArgumentHelp(
        "With - (standard input): its modification time in Unix seconds, the clock raw btsnooz records count from (a file's own is used otherwise).",
        valueName: "SECONDS"))
    var modified: Int?

    @Flag(name: .customLong("skip-non-captures"), help: "Skip files named on the command line (and standard input) that are not captures, as a folder search does, instead of failing on them (no row, no report, exit 0 for them).")
    var skipNonCaptures = false

    @Flag(name: .customLong("no-resolve-addresses"), help: "Do not resolve resolvable private addresses with the IRKs the capture distributes (SMP Identity Information).")
    var noResolveAddresses = false

    @Flag(name: .customLong("no-color"), help: "Never colour the text report.")
    var noColor = false

    @Flag(name: [.customShort("v"), .customLong("all")],
          help: "Text report: list every finding and every discovery cost and connection timing (by default a rule that fired more than 3 times is shown once, with its count and first findings, and many figures as distributions).")
    var all = false

    package init() {}

    package func run() throws {
        let status = execute(console: .standard)
        if status != 0 { throw ExitCode(status) }
    }

    /// Runs against `console`; returns the exit status.
    /// `environment`: `NO_COLOR`, `GITHUB_STEP_SUMMARY` (the process's own by default).
    package func execute(
        console: Console, isTerminal: Bool = isatty(STDOUT_FILENO) == 1,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Int32 {
        var budgets: [RegressionBudget] = []
        for text in maxRegression {
            switch RegressionBudget.parse(text) {
            case .success(let b): budgets.append(b)
            case .failure(let e):
                console.err("hciscope analyze: --max-regression: \(e.message)")
                return 2
            }
        }
        if let threads, threads < 1 {
            console.err("hciscope analyze: --threads must be at least 1")
            return 2
        }
        if !budgets.isEmpty && baseline == nil {
            console.err("hciscope analyze: --max-regression needs --baseline")
            return 2
        }
        if let annotate, let refusal = AnnotatedCapture.refusal(files: files, output: annotate) {
            console.err("hciscope analyze: \(refusal)")
            return 2
        }
        if name != nil || modified != nil {
            guard files == ["-"] else {
                console.err("hciscope analyze: --name and --modified describe standard input: give - alone")
                return 2
            }
            StandardInput.name = name
            StandardInput.modified = modified
        }
        if let p = profile, p != "ios" {
            console.err("hciscope analyze: unknown profile '\(p)' (known: ios)")
            return 2
        }

        if let output, let input = files.first(where: { CaptureFiles.sameFile($0, output) }),
           let refusal = sameFileRefusal(input: input, output: output, command: "analyze -o")
        {
            console.err(refusal)
            return 2
        }
        // Rule configuration (and limits): --config, else ./hciscope.yml when present.
        var rules: RuleConfiguration
        let configPath: String?
        do {
            (rules, configPath) = try ConfigFile.load(config)
        } catch {
            console.err("hciscope analyze: \(error)")
            return 2
        }
        if profile == "ios" { rules.profile = .ios }
        if let p = platform {
            guard let chosen = Platform(rawValue: p) else {
                console.err("hciscope analyze: unknown platform '\(p)' (known: \(Platform.allCases.map(\.rawValue).joined(separator: ", ")))")
                return 2
            }
            rules.platform = chosen
        }
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
        let failOn = self.failOn
        let judge = self.judge

        // Folders are searched recursively; what they hold is recognised by content, and files
        // that are not captures are skipped (counted). Files named on the command line are always
        // analysed (a file that is not a capture is an error).
        var inputs: [Input] = []
        var walkFailures: [MultiReport.Failure] = []
        var folders: [String] = []
        for file in files {
            guard file != "-" && CaptureFiles.isDirectory(file) else {
                inputs.append(Input(path: file, found: skipNonCaptures, named: true))
                continue
            }
            folders.append(file)
            let walk = CaptureFiles.walk(file)
            inputs += walk.files.map { Input(path: $0, found: true, named: false) }
            for problem in walk.problems {
                console.err("hciscope analyze: \(problem)")
                walkFailures.append(.init(file: problem.file ?? file, message: problem.message))
            }
        }

        // Each file is analysed start to end by one worker of a pool as large as the machine has
        // cores (at most `threads`); results keep the input order. A worker's share of `threads`
        // decides whether its capture may take a second thread (not by default).
        let threads = self.threads
        let perCapture = threads.map { max(1, $0 / Self.workers(for: inputs.count, threads: $0)) } ?? 1
        let stdinName = name
        let analyse: @Sendable (Input) -> FileOutcome = { input in
            var outcome = FileOutcome()
            let path = input.path
            // As printed (a found file's name may hold control characters); standard input's
            // name is --name when given.
            let file = path == "-" ? (stdinName.map(SafeText.escaped) ?? "-") : SafeText.escaped(path)
            var analysis: AnalysisResult
            let verdicts: [RuleVerdict]
            do {
                (analysis, verdicts) = try RuleEngine.analyze(
                    path: path, config: ruleConfig, resolvePrivateAddresses: resolve, threads: perCapture)
                if path == "-" { analysis.capture.file = file }
            } catch {
                // A file a folder search found that no reader recognises is skipped, not failed.
                if input.found, let e = error as? CaptureError, case .notACapture = CaptureFiles.recognition(of: e, path: path) {
                    outcome.skipped = true
                    if input.named { outcome.messages.append("hciscope analyze: \(file): skipped (not a capture)") }
                    return outcome
                }
                // A capture error names its file (and offset) itself.
                outcome.messages.append("hciscope analyze: " + (error is CaptureError ? "\(error)" : "\(file): \(error)"))
                let failure = MultiReport.Failure(file: file, message: String(describing: error))
                outcome.failure = failure
                outcome.status = 2
                if format == .jsonl { outcome.row = FleetRow.value(failure, tool: version).compact() + "\n" }
                return outcome
            }
            if analysis.capture.frames == 0 {
                let c = analysis.capture
                let message = EmptyCapture.message(file: file, format: c.format, origin: c.origin, errors: c.health.readErrors)
                outcome.messages.append("hciscope analyze: " + message)
                let failure = MultiReport.Failure(file: file, message: message)
                outcome.failure = failure
                outcome.status = 2
                if format == .jsonl { outcome.row = FleetRow.value(failure, tool: version).compact() + "\n" }
                return outcome
            }
            var report = Report(
                analysis: analysis, verdicts: verdicts, tool: ToolInfo(version: version), config: summary, timeline: format == .html)
            report.judge = judge
            if !oldReports.isEmpty {
                if let old = Baseline.match(oldReports, file: file) {
                    report.compare(with: old, budgets: maxGrowth)
                } else {
                    outcome.messages.append("hciscope analyze: \(file): no matching report in the baseline")
                }
            }
            outcome.status = ExitPolicy.status(MultiReport(reports: [report]), failOn: failOn)
            if format == .jsonl {
                // A fleet keeps only its rows: the report goes once its row is written.
                outcome.row = FleetRow.value(report).compact() + "\n"
            } else {
                outcome.report = report
            }
            return outcome
        }

        if format == .jsonl {
            return fleet(inputs, walkFailures: walkFailures, folders: folders, version: version, console: console, analyse: analyse)
        }

        let outcomes = Self.concurrentMap(inputs, threads: threads, analyse)
        var reports: [Report] = []
        var failures = walkFailures
        var skipped = 0
        for outcome in outcomes {
            for m in outcome.messages { console.err(m) }
            if let r = outcome.report { reports.append(r) }
            if let f = outcome.failure { failures.append(f) }
            if outcome.skipped { skipped += 1 }
        }
        if let status = noteFolders(folders, skipped: skipped, captures: reports.count + failures.count, console: console) {
            return status
        }

        let multi = MultiReport(reports: reports, failures: failures)
        let color = format == .text && output == nil && !noColor && isTerminal
            && environment["NO_COLOR"] == nil
        if let output {
            do { try Self.write(toFile: output, { sink in multi.render(format, color: false, all: all, to: sink) }) } catch {
                console.err("hciscope analyze: cannot write \(output): \(error.localizedDescription)")
                return 2
            }
        } else {
            multi.render(format, color: color, all: all) { console.out($0) }
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
        var status = ExitPolicy.status(multi, failOn: failOn)
        if format == .github, let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty {
            do { try Self.appendSummary(multi, to: path) } catch {
                console.err("hciscope analyze: cannot write the job summary to \(path): \(error.localizedDescription)")
                status = 2
            }
        }
        return status
    }

    /// `--format jsonl`: rows written in input order as soon as each file (and every file before
    /// it) is done, so a fleet of any size holds only the rows still waiting for an earlier file.
    func fleet(
        _ inputs: [Input], walkFailures: [MultiReport.Failure], folders: [String], version: String, console: Console,
        analyse: @escaping @Sendable (Input) -> FileOutcome
    ) -> Int32 {
        let state = FleetState()
        let threads = self.threads
        let emit: @Sendable (@escaping @Sendable (String) -> Void) -> Void = { sink in
            for f in walkFailures { sink(FleetRow.value(f, tool: version).compact() + "\n") }
            Self.orderedPool(inputs, threads: threads, analyse) { _, outcome in
                for m in outcome.messages { console.err(m) }
                if let row = outcome.row { sink(row) }
                state.absorb(outcome)
            }
        }
        if let output {
            do {
                try Self.write(toFile: output) { sink in
                    // Rows reach the sink one at a time (delivery is serialised) and only until
                    // `emit` returns.
                    withoutActuallyEscaping(sink) { sink in
                        let box = SinkBox(sink)
                        emit { box.sink($0) }
                    }
                }
            } catch {
                console.err("hciscope analyze: cannot write \(output): \(error.localizedDescription)")
                return 2
            }
        } else {
            emit { console.out($0) }
        }
        let (status, skipped, captures) = state.result
        if let early = noteFolders(folders, skipped: skipped, captures: captures + walkFailures.count, console: console) {
            return early
        }
        return walkFailures.isEmpty ? status : 2
    }

    /// One line about the folders searched: how many files were not captures. A search that
    /// found no capture at all is an error (exit 2): a CI job pointed at the wrong folder should
    /// not pass. Returns that status, or nil.
    func noteFolders(_ folders: [String], skipped: Int, captures: Int, console: Console) -> Int32? {
        guard !folders.isEmpty else { return nil }
        let named = folders.count == 1 ? folders[0] : "\(folders.count) folders"
        if skipped > 0 {
            console.err("hciscope analyze: \(named): \(skipped) file(s) skipped (not captures)")
        }
        if captures == 0 && files.count == folders.count {
            console.err("hciscope analyze: \(named): no capture found")
            return 2
        }
        return nil
    }
}

extension Analyze {
    /// Writes what `render` hands its sink to a temporary file beside `path`, in pieces, then
    /// renames it: a reader never sees half a report, and a long one is never one string in memory.
    static func write(toFile path: String, _ render: ((String) -> Void) -> Void) throws {
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
            render { piece in
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

extension Analyze {
    /// Appends the GitHub job summary to `path` (`$GITHUB_STEP_SUMMARY`), within what is left
    /// of the 1 MiB a step's summary may hold.
    static func appendSummary(_ multi: MultiReport, to path: String) throws {
        let existing = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        let text = GitHubReporter.summary(multi, budget: GitHubReporter.summaryLimit - existing)
        guard !text.isEmpty else { return }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
            }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }
}

// What ArgumentParser derives for a `CaseIterable` `RawRepresentable` type, spelled out: its
// generic defaults get there through key paths and dynamic casts, which search the binary's
// conformance records at run time on every launch.
extension ReportFormat: ExpressibleByArgument {
    package static var allValueStrings: [String] { allCases.map { $0.rawValue } }
    package static var allValueDescriptions: [String: String] { [:] }
    package var defaultValueDescription: String { rawValue }
}
extension Severity: ExpressibleByArgument {
    package static var allValueStrings: [String] { allCases.map { $0.rawValue } }
    package static var allValueDescriptions: [String: String] { [:] }
    package var defaultValueDescription: String { rawValue }
}

extension Analyze {
    /// A file to analyse; `found` when a folder search found it or --skip-non-captures is given
    /// (then it is skipped when it is not a capture).
    struct Input: Sendable {
        var path: String
        var found: Bool
        /// Named on the command line (not found in a folder).
        var named: Bool
    }

    /// What analysing one file produced.
    struct FileOutcome: Sendable {
        var report: Report?
        var failure: MultiReport.Failure?
        var messages: [String] = []
        /// Found in a folder and not a capture.
        var skipped = false
        /// `--format jsonl`: the file's row (the report is not kept).
        var row: String?
        /// The exit status this file alone gives.
        var status: Int32 = 0
    }

    /// The workers of a pool for `items`: one per core, at most one per item and at most `threads`.
    static func workers(for items: Int, threads: Int?) -> Int {
        max(1, min(ProcessInfo.processInfo.activeProcessorCount, items, threads ?? .max))
    }

    /// `transform` applied to every element by a pool of ``workers(for:threads:)`` threads (each
    /// element by one thread, start to end); results in input order.
    static func concurrentMap<T: Sendable>(_ items: [Input], threads: Int?, _ transform: @escaping @Sendable (Input) -> T) -> [T] {
        let slots = Slots<T>(count: items.count)
        orderedPool(items, threads: threads, transform) { i, value in slots.set(i, value) }
        return slots.values()
    }

    /// Runs `transform` on every element with a pool of ``workers(for:threads:)`` threads pulling
    /// the next element as they finish one; `deliver` gets each result in input order, as soon as
    /// it and every earlier one are done (serialised: one call at a time). A single element runs
    /// on the calling thread.
    static func orderedPool<T: Sendable>(
        _ items: [Input], threads: Int?, _ transform: @escaping @Sendable (Input) -> T, deliver: @escaping @Sendable (Int, T) -> Void
    ) {
        if items.count <= 1 {
            for (i, item) in items.enumerated() { deliver(i, transform(item)) }
            return
        }
        let queue = OrderedQueue<T>(deliver: deliver)
        DispatchQueue.concurrentPerform(iterations: workers(for: items.count, threads: threads)) { _ in
            while let i = queue.take(below: items.count) {
                queue.finish(i, transform(items[i]))
            }
        }
    }

    /// The next index to work on, and results held until every earlier one is delivered.
    final class OrderedQueue<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var nextTaken = 0
        private var nextDelivered = 0
        private var waiting: [Int: T] = [:]
        private let deliver: @Sendable (Int, T) -> Void
        init(deliver: @escaping @Sendable (Int, T) -> Void) { self.deliver = deliver }

        func take(below count: Int) -> Int? {
            lock.withLock {
                guard nextTaken < count else { return nil }
                defer { nextTaken += 1 }
                return nextTaken
            }
        }

        func finish(_ i: Int, _ value: T) {
            lock.withLock {
                waiting[i] = value
                while let v = waiting.removeValue(forKey: nextDelivered) {
                    deliver(nextDelivered, v)
                    nextDelivered += 1
                }
            }
        }
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

    /// What a fleet run adds up as its rows are written: the worst exit status, files skipped,
    /// captures seen.
    final class FleetState: @unchecked Sendable {
        private let lock = NSLock()
        private var status: Int32 = 0
        private var skipped = 0
        private var captures = 0
        func absorb(_ o: FileOutcome) {
            lock.withLock {
                status = max(status, o.status)
                if o.skipped { skipped += 1 } else { captures += 1 }
            }
        }
        var result: (status: Int32, skipped: Int, captures: Int) { lock.withLock { (status, skipped, captures) } }
    }

    /// A sink handed to the pool's serialised delivery.
    final class SinkBox: @unchecked Sendable {
        let sink: (String) -> Void
        init(_ sink: @escaping (String) -> Void) { self.sink = sink }
    }
}

extension JudgeScope: ExpressibleByArgument {}
