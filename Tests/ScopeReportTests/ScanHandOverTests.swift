import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeReport
import ScopeRules
import ScopeTestSupport
import Testing

/// Flat memory on long captures: closed scan sessions after the first `keptScans` are judged in
/// batches by the scan rules and leave only their sums and start frames
/// (`AnalysisBuilder.handOverSettled()`, `AnalysisResult.handedOverScans`). Handing over every session at
/// its close must change no verdict and no headline figure on any corpus capture.
@Suite("Scan session hand-over")
struct ScanHandOverTests {
    static let everySession = AnalysisBuilder.HandOverPolicy(scans: 1, keptScans: 0)
    /// Two sessions stay at the head: the rules' findings then come from the head, the batches and
    /// the sessions held at the end, and must still be in capture order.
    static let afterTwo = AnalysisBuilder.HandOverPolicy(scans: 1, keptScans: 2)

    @Test(arguments: [everySession, afterTwo])
    func handingOverSessionsKeepsVerdictsAndHeadlineOverTheCorpus(handOverPolicy: AnalysisBuilder.HandOverPolicy) throws {
        let files = Fixtures.corpusFiles()
        guard !files.isEmpty else { return }
        var compared = 0, handedOver = 0
        for url in files {
            guard let whole = try? AnalysisBuilder.analyze(path: url.path) else { continue }
            let expected = RuleEngine.evaluate(whole)
            let (analysis, verdicts) = try RuleEngine.analyze(path: url.path, handOverPolicy: handOverPolicy)
            let name = url.lastPathComponent
            handedOver += analysis.handedOverScans.totals.sessions
            #expect(analysis.scans.dropFirst(handOverPolicy.keptScans).allSatisfy { $0.stop == nil }, "\(name): only running sessions stay")
            #expect(analysis.scanTotals == whole.scanTotals, "\(name)")
            for (v, e) in zip(verdicts, expected) {
                #expect(v.status == e.status, "\(name) \(v.rule): \(v.status) \(v.reason) / expected \(e.status) \(e.reason)")
                #expect(v.findings.map(\.subject) == e.findings.map(\.subject), "\(name) \(v.rule)")
                #expect(v.findings.map(\.evidence) == e.findings.map(\.evidence), "\(name) \(v.rule)")
                #expect(v.findings.map(\.message) == e.findings.map(\.message), "\(name) \(v.rule)")
            }
            // Headline figures, discovery costs and list totals come out the same.
            let tool = ToolInfo(version: "test")
            let config = ConfigSummary(profile: "ios")
            let a = JSONReporter.value(Report(analysis: analysis, verdicts: verdicts, tool: tool, config: config, timeline: false))
            let b = JSONReporter.value(Report(analysis: whole, verdicts: expected, tool: tool, config: config, timeline: false))
            #expect(a["headline"] == b["headline"], "\(name)")
            #expect(a["summary"] == b["summary"], "\(name)")
            compared += 1
        }
        print("scan handOverPolicy: \(compared) corpus captures compared, \(handedOver) scan sessions handedOver")
        if Fixtures.corpusRoot != nil { #expect(compared > 50 && handedOver > 100) } else { #expect(compared > 5) }  // few sessions: keeping 2 may hand over none
    }

    @Test func theFirstSessionsStayForTheReportLists() throws {
        guard let url = Fixtures.corpusFiles().max(by: { (try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) ?? 0 < (try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) ?? 0 }) else { return }
        let whole = try AnalysisBuilder.analyze(path: url.path)
        guard whole.scans.count > 3 else { return }
        let (analysis, _) = try RuleEngine.analyze(path: url.path, handOverPolicy: AnalysisBuilder.HandOverPolicy(scans: 1, keptScans: 2))
        #expect(analysis.scans.prefix(2).map(\.start) == whole.scans.prefix(2).map(\.start))
        #expect(analysis.scans.count + analysis.handedOverScans.totals.sessions == whole.scans.count)
        // What stays of the handed over ones: their sums and where the first started.
        #expect(analysis.handedOverScans.firstStart == whole.scans.dropFirst(2).first { $0.stop != nil }?.start.frame)
    }

    @Test func smallCapturesHandOverNoSessionByDefault() throws {
        for url in Fixtures.corpusFiles() {
            guard let (analysis, _) = try? RuleEngine.analyze(path: url.path) else { continue }
            #expect(analysis.handedOverScans.totals.sessions == 0, "\(url.lastPathComponent)")
        }
    }
}
