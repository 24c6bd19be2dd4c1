import Foundation
import ScopeCapture
import ScopeAnalysis
import ScopeCore
import ScopeRules
import ScopeTestSupport
import Testing
import Yams

/// The expected verdicts on real captures (captures/verdicts/NAME.yaml, written by reading the
/// frames with tshark, never from hciscope's output; captures/verdicts/README.md): `analyze` on
/// each capture present in the corpus must give every finding a file says must appear, no finding
/// it says must not, and the judged status it states. A mismatch names the capture, the frames
/// and the expectation's why.
@Suite struct VerdictFileTests {
    struct Expectation {
        var rule: String
        var present: Bool?
        var status: String?
        var actor: String?
        var frames: [Int]
        var why: String
    }

    struct VerdictFile: CustomStringConvertible, Sendable {
        var name: String
        var url: URL
        var description: String { name }
    }

    static let directory = Fixtures.project("verdicts")

    static var files: [VerdictFile] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map {
            VerdictFile(name: String($0.dropLast(5)), url: directory.appendingPathComponent($0))
        }
    }

    static func load(_ file: VerdictFile) throws -> (capture: String, expectations: [Expectation]) {
        let text = try String(contentsOf: file.url, encoding: .utf8)
        guard let root = try Yams.load(yaml: text) as? [String: Any] else {
            throw VerdictError("\(file.name).yaml: not a mapping")
        }
        let capture = root["capture"] as? String ?? file.name
        var out: [Expectation] = []
        for (i, item) in ((root["expect"] as? [Any]) ?? []).enumerated() {
            guard let e = item as? [String: Any], let rule = e["rule"] as? String else {
                throw VerdictError("\(file.name).yaml: expectation \(i + 1) has no rule")
            }
            let frames = (e["frames"] as? [Any] ?? []).compactMap { ($0 as? Int) ?? ($0 as? String).flatMap { Int($0) } }
            out.append(
                Expectation(
                    rule: rule, present: e["present"] as? Bool, status: e["status"] as? String, actor: e["actor"] as? String,
                    frames: frames, why: e["why"] as? String ?? ""))
        }
        return (capture, out)
    }

    struct VerdictError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    static func actorMatches(_ want: String?, _ actor: Actor) -> Bool {
        guard let want else { return true }
        if want == "judged" { return actor.judgedAsApp }
        return actor.rawValue == want
    }

    /// The verdict as the report judges it by default (`Report.judgedStatus`): a rule whose
    /// findings are all the system's or the peer's passes for the app.
    static func judgedStatus(_ v: RuleVerdict) -> RuleStatus {
        v.status == .violated && v.totalJudged == 0 ? .passed : v.status
    }

    /// Mismatches between the analysis of a capture and its expectations, one line each.
    static func problems(_ verdicts: [RuleVerdict], _ expectations: [Expectation], capture: String) -> [String] {
        var out: [String] = []
        for e in expectations {
            guard let v = verdicts.first(where: { $0.rule == e.rule }) else {
                out.append("\(capture): no rule \(e.rule)")
                continue
            }
            let frameText = e.frames.isEmpty ? "" : " at frames \(e.frames.prefix(12).map(String.init).joined(separator: ", "))"
            if let status = e.status, judgedStatus(v).rawValue != status {
                out.append("\(capture): \(e.rule) is \(judgedStatus(v).rawValue), expected \(status)\(frameText)\n    why: \(e.why)\n    got: \(v.reason.prefix(300))")
            }
            guard let present = e.present else { continue }
            let wanted = Set(e.frames)
            let matching = v.findings.filter { f in
                actorMatches(e.actor, f.actor) && (wanted.isEmpty || !wanted.isDisjoint(with: f.evidence))
            }
            if present, matching.isEmpty {
                let others = v.findings.filter { wanted.isEmpty || !wanted.isDisjoint(with: $0.evidence) }
                    .map { "\($0.actor.rawValue): \($0.message.prefix(160))" }
                out.append(
                    "\(capture): expected a \(e.rule) finding" + (e.actor.map { " by \($0)" } ?? "") + frameText
                        + "\n    why: \(e.why)" + (others.isEmpty ? "" : "\n    found instead: " + others.prefix(3).joined(separator: " | ")))
            } else if !present, let f = matching.first {
                out.append(
                    "\(capture): unexpected \(e.rule) finding by \(f.actor.rawValue)\(frameText) (cites \(f.evidence.prefix(8)))\n    why not: \(e.why)\n    got: \(f.message.prefix(240))")
            }
        }
        return out
    }

    @Test(arguments: VerdictFileTests.files)
    func captureAgreesWithItsVerdictFile(_ file: VerdictFile) throws {
        let (capture, expectations) = try Self.load(file)
        #expect(!expectations.isEmpty, "\(file.name).yaml has no expectation")
        for e in expectations {
            #expect(!e.why.isEmpty, "\(file.name).yaml: \(e.rule) has no why")
            #expect((e.present == nil) != (e.status == nil), "\(file.name).yaml: \(e.rule) needs exactly one of present and status")
        }
        guard let url = Fixtures.corpus("real/" + capture) else {
            print("⚠️  \(capture): not in the corpus here (captures/corpus.tsv pins it; Scripts/fetch-corpus.sh fetches it): SKIPPED")
            return
        }
        let verdicts: [RuleVerdict]
        do {
            verdicts = try RuleEngine.analyze(path: url.path).verdicts
        } catch let error as CaptureError {
            // A link-layer sniffer capture is refused, naming its link type: nothing in it is
            // judged, which its verdict file must say.
            guard case .notHCI = error.kind else { throw error }
            for e in expectations where e.status != "not_evaluated" {
                Issue.record("\(capture): refused (\(error.message)) but \(file.name).yaml expects \(e.rule) \(e.status ?? "present/absent")")
            }
            return
        }
        for p in Self.problems(verdicts, expectations, capture: capture) { Issue.record(Comment(rawValue: p)) }
    }

    /// Every capture of the corpus has a verdict file.
    @Test func everyCorpusCaptureHasAVerdictFile() throws {
        let rows = try String(contentsOf: Fixtures.project("corpus.tsv"), encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.hasPrefix("file\t") }.compactMap { $0.split(separator: "\t").first.map(String.init) }
        let have = Set(Self.files.map(\.name))
        let missing = rows.filter { !have.contains($0) }
        #expect(missing.isEmpty, "captures without a verdict file: \(missing)")
    }
}
