import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeRules

/// Walks every scenario truth file — the project's own (captures/scenarios, made by
/// Scripts/gen-scenarios.py) and the corpus's (`HCISCOPE_CORPUS/scenarios`): each rule's status
/// must equal `expected_rules[rule].status`; when violated, the most severe finding's severity
/// must equal `severity` and every `evidence_frames` frame must be cited by a finding.
/// `expected_rules_by_profile.ios` is checked the same way with the iOS profile.
@Suite struct TruthTests {

    struct Expected {
        var status: String
        var severity: String?
        var evidence: [Int]
        var why: String
    }

    static func expectations(_ object: Any?) -> [String: Expected] {
        guard let rules = object as? [String: Any] else { return [:] }
        var out: [String: Expected] = [:]
        for (id, value) in rules {
            guard let v = value as? [String: Any], let status = v["status"] as? String else { continue }
            out[id] = Expected(
                status: status, severity: v["severity"] as? String, evidence: (v["evidence_frames"] as? [Int]) ?? [],
                why: (v["why"] as? String) ?? "")
        }
        return out
    }

    /// Mismatches between verdicts and expectations, one line each.
    static func compare(_ verdicts: [RuleVerdict], _ expected: [String: Expected], only: Set<String>? = nil) -> [String] {
        var problems: [String] = []
        for v in verdicts where only?.contains(v.rule) ?? true {
            guard let e = expected[v.rule] else {
                problems.append("\(v.rule): no expectation in the truth file")
                continue
            }
            if v.status.rawValue != e.status {
                problems.append("\(v.rule): status \(v.status.rawValue), expected \(e.status)\n    got: \(v.reason)\n    truth: \(e.why)")
                continue
            }
            guard v.status == .violated else { continue }
            let worst = v.findings.map(\.severity).max()
            if let s = e.severity, worst?.rawValue != s {
                problems.append("\(v.rule): severity \(worst?.rawValue ?? "none"), expected \(s)")
            }
            let cited = Set(v.findings.flatMap(\.evidence))
            let missing = e.evidence.filter { !cited.contains($0) }
            if !missing.isEmpty {
                problems.append("\(v.rule): evidence frames \(missing) not cited (cited \(cited.sorted()))\n    truth: \(e.why)")
            }
        }
        return problems
    }

    @Test(arguments: ScenarioTruth.all)
    func scenarioAgreesWithTruth(_ file: ScenarioTruth) throws {
        let truth = try file.load()
        guard let analysis = try truthAnalyze(path: try file.captureURL().path) else {
            print("⚠️  \(file): AnalysisBuilder not available in this branch (see AnalyzeShim.swift): SKIPPED")
            return
        }
        let problems = Self.compare(RuleEngine.evaluate(analysis), Self.expectations(truth["expected_rules"]))
        for p in problems { Issue.record("\(file): \(p)") }

        if let byProfile = truth["expected_rules_by_profile"] as? [String: Any], byProfile["ios"] != nil {
            let expected = Self.expectations(byProfile["ios"])
            let verdicts = RuleEngine.evaluate(analysis, config: RuleConfiguration(profile: .ios))
            for p in Self.compare(verdicts, expected, only: Set(expected.keys)) {
                Issue.record("\(file) [ios profile]: \(p)")
            }
        }
    }

    /// Every truth file, every rule: counts agreeing verdicts, the project's own and the corpus's
    /// apart (printed, so a run shows the totals).
    @Test func agreementCount() throws {
        for (label, files) in [("own", ScenarioTruth.own), ("corpus", ScenarioTruth.external)] {
            var agreed = 0
            var compared = 0
            for file in files {
                let truth = try file.load()
                guard let analysis = try truthAnalyze(path: try file.captureURL().path) else { return }
                let expected = Self.expectations(truth["expected_rules"])
                for v in RuleEngine.evaluate(analysis) {
                    compared += 1
                    if Self.compare([v], expected).isEmpty { agreed += 1 }
                }
            }
            print("truth agreement (\(label)): \(agreed)/\(compared) rule verdicts over \(files.count) scenarios")
            #expect(compared == files.count * RuleRegistry.all.count)
            #expect(agreed == compared)
        }
        #expect(ScenarioTruth.own.count >= 26)
    }

    @Test(arguments: [ScenarioTruth.own.first, ScenarioTruth.external.first].compactMap { $0 })
    func truthConfigMatchesDefaults(_ file: ScenarioTruth) throws {
        let truth = try file.load()
        let config = try #require(truth["expected_rules_config"] as? [String: Any])
        let thresholds = try #require(config["thresholds"] as? [String: [String: Any]])
        let defaults = RuleConfiguration()
        for (rule, values) in thresholds {
            for (key, value) in values {
                let ours = defaults.threshold(rule: rule, key: key)
                switch ours {
                case .bool(let b): #expect((value as? Bool) == b, "\(rule).\(key)")
                case .number(let n): #expect((value as? Double) == n, "\(rule).\(key)")
                case .text(let t): #expect((value as? String) == t, "\(rule).\(key)")
                case nil: Issue.record("\(rule).\(key): no such threshold in RuleConfiguration")
                }
            }
        }
    }
}

/// Every capture of the corpus (real and scenarios) goes through every rule without a trap, and
/// every rule returns exactly one verdict with a reason.
@Test func rulesRunOverWholeCorpus() throws {
    for url in Fixtures.corpusFiles() {
        guard let analysis = try? truthAnalyze(path: url.path) else { continue }
        let verdicts = RuleEngine.evaluate(analysis)
        #expect(verdicts.count == RuleRegistry.all.count)
        #expect(verdicts.allSatisfy { !$0.reason.isEmpty }, "\(url.lastPathComponent)")
        #expect(verdicts.allSatisfy { $0.status != .violated || $0.findings.allSatisfy { !$0.evidence.isEmpty } })
    }
}
