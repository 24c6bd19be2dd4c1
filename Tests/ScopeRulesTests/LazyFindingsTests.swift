import ScopeAnalysis
import ScopeCore
@testable import ScopeRules
import Testing

/// Rules that may judge every session build a finding only when `FindingList` keeps it (the first
/// `FindingList.limit` per severity), and a batch absorbed by `RuleAccumulator` builds only those
/// the merged list will still keep. The verdicts, kept findings, counts and reasons must be those
/// of building every finding.
@Suite("Lazily built findings")
struct LazyFindingsTests {
    static func finding(_ i: Int, _ severity: Severity) -> Finding {
        Finding(rule: "r", severity: severity, subject: "s\(i)", message: "m\(i)", evidence: [i + 1])
    }

    @Test func lazyAppendKeepsAndCountsAsEagerAppend() {
        let severities: [Severity] = (0..<(3 * FindingList.limit + 50)).map { [.warning, .info, .warning, .error][$0 % 4] }
        var eager = FindingList(), lazy = FindingList()
        var built = 0
        for (i, s) in severities.enumerated() {
            eager.append(Self.finding(i, s))
            lazy.append(s) {
                built += 1
                return Self.finding(i, s)
            }
        }
        #expect(lazy == eager)
        #expect(built == eager.kept.count)
        #expect(built < severities.count)
    }

    @Test func preFilledListKeepsOnlyTheRoomLeft() {
        var list = FindingList(alreadyKept: [FindingList.limit - 3, FindingList.limit, 0])
        for i in 0..<10 { list.append(Self.finding(i, .info)) }
        for i in 0..<10 { list.append(.warning) { Self.finding(i, .warning) } }
        #expect(list.kept.map(\.subject) == ["s0", "s1", "s2"])
        #expect(list.omitted == [.info: 7, .warning: 10])
    }

    @Test(arguments: [0, 5, 20, 21, 45])
    func boundedItemsJoinAsJoinedBounded(count: Int) {
        let all = (0..<count).map { "item \($0)" }
        var bounded = BoundedItems()
        for item in all { bounded.append(item) }
        #expect(bounded.joined(separator: ", ") == all.joinedBounded(separator: ", "))
        #expect(bounded.items.count <= [String].reasonItems)
    }

    /// Many sessions, every one a finding of one severity or the other, judged whole and in
    /// batches through `RuleAccumulator`: the same merged verdict.
    @Test(arguments: [1, 7, 64, 300])
    func batchesGiveTheVerdictsOfTheWholeCapture(batchSize: Int) {
        var whole = rtResult(frames: 1_000_000, lastMs: 100_000_000)
        // The analysis names the platform its batches are judged by once its first records are read.
        whole.capture.platformAtStart = whole.capture.platform
        for i in 0..<450 {
            let startMs = Double(i) * 100_000
            let start = rt(FrameNumber(i * 100 + 1), startMs)
            // Every third session short (ScanLeftRunning passes it), the others 40 s long.
            let stop = rt(FrameNumber(i * 100 + 50), startMs + (i % 3 == 0 ? 5_000 : 40_000))
            whole.scans.append(
                rtScan(start: start, stop: stop, end: stop, filter: 0).with {
                    $0.reports = 10
                    $0.duplicates = i % 5 == 0 ? 9 : 2
                    $0.firstDuplicate = rt(FrameNumber(i * 100 + 10), startMs + 1)
                })
        }
        let config = RuleConfiguration()
        let rules: [any Rule.Type] = [ScanDuplicatesAllowed.self, ScanLeftRunning.self]
        var accumulator = RuleAccumulator(config: config)
        var batchStart = 0
        while batchStart < whole.scans.count {
            var batch = AnalysisResult(capture: whole.capture)
            batch.scans = Array(whole.scans[batchStart..<min(batchStart + batchSize, whole.scans.count)])
            accumulator.absorb(batch)
            batchStart += batchSize
        }
        for type in rules {
            let expected = RuleEngine.evaluate(type, whole, config: config, facts: RuleFacts())
            #expect(expected.status == .violated)
            #expect(expected.totalFindings > FindingList.limit)
            let merged = accumulator.merged(RuleVerdict(rule: type.id, status: .passed, reason: "held: none"))
            #expect(merged.findings == expected.findings, "\(type.id)")
            #expect(merged.omitted == expected.omitted, "\(type.id)")
            #expect(merged.reason == expected.reason, "\(type.id)")
        }
    }
}
