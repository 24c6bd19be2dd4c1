import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeRules
import ScopeTestSupport
import Testing

/// Flat memory on long captures: closed connections are judged in batches and keep only their
/// counts (`AnalysisBuilder.handOverSettled()`, `RuleAccumulator`). Handing over at every
/// disconnection must give the verdicts of judging everything at the end, on every corpus capture.
@Suite("Connection hand-over")
struct HandOverTests {
    static let everyClose = AnalysisBuilder.HandOverPolicy(attPDUs: 0, connections: 1)

    /// Batches absorbed by hand (not through `RuleEngine.analyze`) before the platform window was
    /// read wait for it; `RuleEngine.evaluate` judges them by the analysis's `platformAtStart`, so
    /// no handed over connection goes unjudged.
    @Test func waitingBatchesAreJudgedByEvaluate() throws {
        let path = Fixtures.project("scenarios/conn.subscriptions-left-on-bonded-fires.btsnoop").path
        var handedOver = RuleAccumulator()
        let analysis = try AnalysisBuilder.analyze(path: path, handOverPolicy: Self.everyClose) { handedOver.absorb($0) }
        #expect(analysis.connections.contains { $0.att.isEmpty && $0.attCount > 0 }, "the scenario's connections handOver")
        #expect(analysis.capture.frames < AnalysisBuilder.platformWindow, "every batch waits")
        let verdicts = RuleEngine.evaluate(analysis, config: RuleConfiguration(), handedOver: handedOver)
        let expected = try RuleEngine.analyze(path: path, handOverPolicy: Self.everyClose).verdicts
        let whole = RuleEngine.evaluate(try AnalysisBuilder.analyze(path: path))
        #expect(verdicts == expected)
        #expect(verdicts.map(\.status) == whole.map(\.status))
        #expect(verdicts.first { $0.rule == "conn.subscriptions-left-on" }?.status == .violated)
    }

    @Test func handingOverEveryConnectionKeepsEveryVerdictOverTheCorpus() throws {
        let files = Fixtures.corpusFiles()
        guard !files.isEmpty else { return }
        var compared = 0, handedOverConnections = 0
        for url in files {
            guard let whole = try? AnalysisBuilder.analyze(path: url.path) else { continue }
            let expected = RuleEngine.evaluate(whole)
            let (analysis, verdicts) = try RuleEngine.analyze(path: url.path, handOverPolicy: Self.everyClose)
            _ = try AnalysisBuilder.analyze(path: url.path, handOverPolicy: Self.everyClose) { handedOverConnections += $0.partial.connections.count }
            let name = url.lastPathComponent
            #expect(verdicts.map(\.rule) == expected.map(\.rule))
            for (v, e) in zip(verdicts, expected) {
                #expect(v.status == e.status, "\(name) \(v.rule): \(v.status) \(v.reason) / expected \(e.status) \(e.reason)")
                #expect(Set(v.findings.map(\.subject)) == Set(e.findings.map(\.subject)), "\(name) \(v.rule)")
                #expect(Set(v.findings.map(\.evidence)) == Set(e.findings.map(\.evidence)), "\(name) \(v.rule)")
            }
            // The counts reports need survive.
            #expect(analysis.connections.map(\.attCount) == whole.connections.map(\.att.count), "\(name)")
            #expect(
                analysis.connections.map(\.gatt.counts.services) == whole.connections.map(\.gatt.services.count), "\(name)")
            #expect(
                analysis.connections.map(\.gatt.counts.characteristics) == whole.connections.map(\.gatt.characteristics.count),
                "\(name)")
            compared += 1
        }
        print("handOverPolicy: \(compared) corpus captures compared, \(handedOverConnections) connections handedOver")
        // The real corpus has many connections; the project's own captures a few.
        if Fixtures.corpusRoot != nil { #expect(compared > 50 && handedOverConnections > 100) } else { #expect(compared > 5 && handedOverConnections > 0) }
    }

    @Test func handedOverConnectionKeepsItsCountsAndDropsItsDetail() throws {
        guard let url = Fixtures.corpus("scenarios/good_central.pcap") else { return }
        let (analysis, _) = try RuleEngine.analyze(path: url.path, handOverPolicy: Self.everyClose)
        let closed = analysis.connections.filter { $0.disconnect != nil }
        #expect(!closed.isEmpty)
        let whole = try AnalysisBuilder.analyze(path: url.path)
        for c in closed {
            #expect(c.att.isEmpty && c.cccdWrites.isEmpty && c.gatt.services.isEmpty && c.gatt.discoveryProcedures.isEmpty)
            #expect(c.attCount == c.attByOpcode.values.reduce(0, +))
            let held = try #require(whole.connections.first { $0.id == c.id })
            #expect(c.attCount == held.att.count && c.gatt.counts.services == held.gatt.services.count)
        }
    }

    @Test func smallCapturesHandOverNothingByDefault() throws {
        guard let url = Fixtures.corpus("scenarios/good_central.pcap") else { return }
        let (analysis, _) = try RuleEngine.analyze(path: url.path)
        #expect(analysis.connections.allSatisfy { $0.att.count == $0.attCount })
    }

    /// A merged verdict: findings of every batch (bounded), passed when any batch passed.
    @Test func findingListKeepsTheFirstPerSeverityAndCountsTheRest() {
        var list = FindingList()
        for i in 0..<(FindingList.limit + 7) {
            list.append(Finding(rule: "r", severity: .warning, subject: "s\(i)", message: "m", evidence: [i + 1]))
        }
        list.append(Finding(rule: "r", severity: .error, subject: "e", message: "m", evidence: [1]))
        #expect(list.kept.count == FindingList.limit + 1)
        #expect(list.omitted == [.warning: 7])
        #expect(list.total == FindingList.limit + 8)
        #expect(list.kept.first?.subject == "s0")
    }
}
