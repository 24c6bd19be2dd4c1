import Foundation
import ScopeCommands
import ScopeTestSupport
import Testing

/// Runs `hciscope analyze ARGS` in-process with `environment`.
func analyzeCommand(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
    let command = try Analyze.parse(arguments)
    let captured = CapturedConsole()
    let status = command.execute(console: captured.console, isTerminal: false, environment: environment)
    return (status, captured.out, captured.err)
}

/// What a scenario's truth file (an independent Python reading of the capture) says each rule
/// concludes: status, and the severity of a violation.
struct ScenarioVerdicts {
    var capture: String
    var format: String
    var frames: Int
    var rules: [String: (status: String, severity: String?)]
    /// The violated rules with a finding of the app's or of an unknown actor: those CI formats
    /// show (`--judge app`, the default); a rule violated only by the system or the peer is not.
    var shown: [String: (status: String, severity: String?)]

    init(_ truth: ScenarioTruth) throws {
        let t = try truth.load()
        capture = try truth.captureURL().path
        let info = t["capture_info"] as? [String: Any] ?? [:]
        format = info["format"] as? String ?? ""
        frames = info["packets"] as? Int ?? -1
        var rules: [String: (status: String, severity: String?)] = [:]
        var shown: [String: (status: String, severity: String?)] = [:]
        for (rule, v) in t["expected_rules"] as? [String: [String: Any]] ?? [:] {
            rules[rule] = (v["status"] as? String ?? "", v["severity"] as? String)
            let actors = v["actors"] as? [String] ?? ["unknown"]
            if rules[rule]?.status == "violated", actors.contains(where: { $0 == "app" || $0 == "unknown" }) {
                shown[rule] = rules[rule]
            }
        }
        self.rules = rules
        self.shown = shown
    }

    /// Every scenario with a truth file: the project's own, and the corpus's when present.
    static func all() throws -> [ScenarioVerdicts] { try ScenarioTruth.all.map(ScenarioVerdicts.init) }
}

/// `--format github` and `--format codeclimate` on the project's scenario captures (each violates
/// the rules its truth file says) and, when the corpus is present, on the real captures.
@Suite struct CIFormatTests {
    /// Parses `::level file=F,title=T::M` lines (properties percent-decoded).
    static func annotations(_ out: String) -> [(level: String, file: String, title: String, message: String)] {
        out.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("::"), let end = line.range(of: "::", range: line.index(line.startIndex, offsetBy: 2)..<line.endIndex) else {
                return nil
            }
            let head = line[line.index(line.startIndex, offsetBy: 2)..<end.lowerBound]
            let level = String(head.prefix { $0 != " " })
            var props: [String: String] = [:]
            for p in head.dropFirst(level.count + 1).split(separator: ",") {
                let kv = p.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { props[String(kv[0])] = String(kv[1]).removingPercentEncoding }
            }
            return (level, props["file"] ?? "", props["title"] ?? "", String(line[end.upperBound...]))
        }
    }

    static let levels = ["error": "error", "warning": "warning", "info": "notice"]

    /// Per capture alone: annotations for exactly the rules the truth says are violated (fewer
    /// than 10 findings each), at the level of the truth's severity, on that file; and a job summary appended to $GITHUB_STEP_SUMMARY naming the capture.
    @Test func githubAnnotatesWhatTheTruthSaysIsViolated() throws {
        let summary = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-summary-\(UUID().uuidString).md")
        defer { try? FileManager.default.removeItem(at: summary) }
        try "earlier step\n".write(to: summary, atomically: true, encoding: .utf8)
        var previous = "earlier step\n"
        for truth in try ScenarioVerdicts.all() {
            let result = try analyzeCommand([truth.capture, "--format", "github", "--fail-on", "info"],
                                            environment: ["GITHUB_STEP_SUMMARY": summary.path])
            let violated = truth.shown
            #expect(result.status == (violated.isEmpty ? 0 : 1), "\(truth.capture)")
            let found = Self.annotations(result.out)
            #expect(Set(found.map(\.title)) == Set(violated.keys), "\(truth.capture)")
            for a in found {
                #expect(a.file == truth.capture)
                #expect(a.level == Self.levels[violated[a.title]?.severity ?? ""], "\(truth.capture) \(a.title)")
            }
            #expect(result.out.hasSuffix("capture(s), 0 could not be analysed; findings: "
                + "\(found.filter { $0.level == "error" }.count) error, \(found.filter { $0.level == "warning" }.count) warning, "
                + "\(found.filter { $0.level == "notice" }.count) info\n"))
            let now = try String(contentsOf: summary, encoding: .utf8)
            #expect(now.hasPrefix(previous), "the summary is appended")
            #expect(now.dropFirst(previous.count).contains("hciscope: \(truth.capture.replacingOccurrences(of: "_", with: "\\_"))"))
            previous = now
        }
    }

    /// All scenario captures at once: the 10 most severe findings annotated (errors first), then
    /// one line counting the rest; the total is what the truth files' violations add up to.
    @Test func githubAnnotatesAtMostTenAndCountsTheRest() throws {
        let truths = try ScenarioTruth.own.map(ScenarioVerdicts.init)
        let result = try analyzeCommand(["--format", "github"] + truths.map(\.capture))
        let found = Self.annotations(result.out)
        let violations = truths.flatMap { t in t.shown.values }
        #expect(violations.count > 10)
        #expect(found.count == 10)
        let ranks = found.map { ["error": 2, "warning": 1, "notice": 0][$0.level] ?? -1 }
        #expect(ranks == ranks.sorted(by: >))
        #expect(found.filter { $0.level == "error" }.count == violations.filter { $0.severity == "error" }.count)
        // A violated rule has at least one finding (gatt.discover-all-fires has two of one rule):
        // the closing line's total, less the 10 annotated, is the count of the rest.
        let closing = try #require(result.out.split(separator: "\n").last)
        let counts = closing.split(separator: " ").compactMap { Int($0) }
        let total = counts.suffix(3).reduce(0, +)
        #expect(total >= violations.count)
        #expect(result.out.contains("\nhciscope: \(total - 10) more finding(s) not annotated"))
    }

    /// Code Quality: an issue per violated rule of each scenario (its severity mapped), pointing
    /// at the capture; fingerprints stable between runs.
    @Test func codeclimateListsTheTruthsViolations() throws {
        let truths = try ScenarioVerdicts.all()
        let run = { try analyzeCommand(["--format", "codeclimate"] + truths.map(\.capture)) }
        let result = try run()
        #expect(result.status == 1)
        let issues = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [[String: Any]])
        let severity = ["error": "major", "warning": "minor", "info": "info"]
        for t in truths {
            let mine = issues.filter { ($0["location"] as? [String: Any])?["path"] as? String == t.capture }
            let violated = t.shown
            #expect(Set(mine.compactMap { $0["check_name"] as? String }) == Set(violated.keys), "\(t.capture)")
            for issue in mine {
                let rule = issue["check_name"] as? String ?? ""
                #expect(issue["severity"] as? String == severity[violated[rule]?.severity ?? ""])
                #expect(((issue["location"] as? [String: Any])?["lines"] as? [String: Any])?["begin"] as? Int == 1)
                #expect((issue["description"] as? String ?? "").isEmpty == false)
            }
        }
        let fingerprints = issues.compactMap { $0["fingerprint"] as? String }
        #expect(Set(fingerprints).count == issues.count)
        #expect(try run().out == result.out)
    }

    /// The corpus's real captures (a folder, searched): every issue names a capture of the folder
    /// and a known rule or the unreadable check; annotations name files of the folder.
    @Test func realCapturesFolder() throws {
        guard let real = Fixtures.corpus("real") else {
            print("note: CIFormatTests.realCapturesFolder SKIPPED: needs HCISCOPE_CORPUS")
            return
        }
        let result = try analyzeCommand([real.path, "--format", "codeclimate"])
        let issues = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [[String: Any]])
        #expect(!issues.isEmpty)
        let rules = Set((try ScenarioVerdicts.all().first?.rules.keys).map(Array.init) ?? []).union(["hciscope.unreadable"])
        #expect(rules.count == 22)
        for issue in issues {
            let path = (issue["location"] as? [String: Any])?["path"] as? String ?? ""
            #expect(path.hasPrefix(real.path + "/") && FileManager.default.fileExists(atPath: path))
            #expect(rules.contains(issue["check_name"] as? String ?? ""))
        }
        if FileManager.default.fileExists(atPath: real.appendingPathComponent("MANIFEST.tsv").path) {
            #expect(result.err.contains("skipped (not captures)"), "MANIFEST.tsv is not a capture")
        }
        let github = try analyzeCommand([real.path, "--format", "github"])
        let found = Self.annotations(github.out)
        #expect(found.count == min(10, issues.count))
        #expect(found.allSatisfy { $0.file.hasPrefix(real.path + "/") })
    }
}
