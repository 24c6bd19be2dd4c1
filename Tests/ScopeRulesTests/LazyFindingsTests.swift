import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
@testable import ScopeRules
import Testing

/// Rules that may judge every session build a finding only when `FindingList` keeps it (the first
/// `FindingList.limit` per severity), and a rule's fold builds only those its tally will still
/// keep. The verdicts, kept findings, counts and reasons must be those
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
            lazy.append(s, actor: .unknown) {
                built += 1
                return Self.finding(i, s)
            }
        }
        #expect(lazy == eager)
        #expect(built == eager.kept.count)
        #expect(built < severities.count)
    }

    /// A rule's fold, once a finding list holds `FindingList.limit` findings of earlier items,
    /// builds no more of them: a later batch's findings are only counted.
    @Test func fullTallyBuildsNoMore() {
        var t = FindingsAndReasons()
        var built = 0
        for i in 0..<(FindingList.limit + 10) {
            t.finding(ItemKey(phase: 0, frame: i, index: i), .warning, actor: .unknown) {
                built += 1
                return Self.finding(i, .warning)
            }
        }
        #expect(built == FindingList.limit)
        let list = t.findingList
        #expect(list.kept.count == FindingList.limit)
        #expect(list.omitted == [.warning: 10])
        #expect(list.omittedJudged == [.warning: 10])
    }

    /// The system's findings have room of their own: a rule whose first findings are all the
    /// system's still keeps the app's that come after them.
    @Test func systemFindingsDoNotCrowdOutTheApps() {
        var list = FindingList()
        for i in 0..<(FindingList.limit + 20) {
            var f = Self.finding(i, .warning)
            f.actor = .os
            list.append(f)
        }
        for i in 0..<5 {
            var f = Self.finding(1000 + i, .warning)
            f.actor = .app
            list.append(f)
        }
        #expect(list.kept.filter { $0.actor == .app }.count == 5)
        #expect(list.kept.filter { $0.actor == .os }.count == FindingList.limit)
        #expect(list.omitted == [.warning: 20])
        #expect(list.omittedJudged.isEmpty)
    }

    /// Many sessions, every one a finding of one severity or the other, judged whole and in
    /// batches handed over as the analysis goes (`RuleAccumulator`): the same merged verdict.
    @Test(arguments: [1, 7, 64, 300])
    func batchesGiveTheVerdictsOfTheWholeCapture(batchSize: Int) throws {
        var s = SessionScript()
        for i in 0..<450 {
            let startMs = Double(i) * 100_000
            s.at(startMs)
            s.scanEnable(true, filterDuplicates: false)
            // Every fifth session one advertiser ten times (9 duplicates), the others 8 advertisers
            // of which two report twice (2 duplicates).
            for r in 0..<10 {
                s.at(startMs + 10 + Double(r))
                let device = i % 5 == 0 ? 0 : (r < 8 ? r : r - 8)
                s.advertisingReport(BDAddr(value: 0xC0_0000_0000 + UInt64(device)))
            }
            // Every third session short (ScanLeftRunning passes it), the others 40 s long.
            s.at(startMs + (i % 3 == 0 ? 5_000 : 40_000))
            s.scanEnable(false)
        }
        let handOverPolicy = AnalysisBuilder.HandOverPolicy(scans: batchSize, keptScans: 0)
        for type in [ScanDuplicatesAllowed.self, ScanLeftRunning.self] as [any Rule.Type] {
            func judged<R: Rule>(_ rule: R.Type) throws -> (whole: RuleVerdict, batched: RuleVerdict, handedOverScans: Int) {
                let j = try judgedWholeAndInBatches(s, rule, handOverPolicy: handOverPolicy)
                return (j.whole, j.batched, j.handedOverScans)
            }
            let (expected, merged, handedOver) = try judged(type)
            #expect(handedOver >= 450 - batchSize)
            #expect(expected.status == .violated)
            #expect(expected.totalFindings > FindingList.limit)
            #expect(merged.findings == expected.findings, "\(type.id)")
            #expect(merged.omitted == expected.omitted, "\(type.id)")
            #expect(merged.reason == expected.reason, "\(type.id)")
        }
    }
}
