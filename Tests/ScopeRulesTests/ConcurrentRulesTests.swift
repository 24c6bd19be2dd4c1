import Foundation
import ScopeAnalysis
@testable import ScopeRules
import ScopeTestSupport
import Testing

/// `RuleEngine.evaluate` runs the rules on two threads when it has the CPUs for it, sharing the
/// per-connection facts (`RuleFacts`) between them: the verdicts must be those of the one-thread
/// loop, in the same order, on every corpus capture, with and without handed over connections.
@Suite("Concurrent rule evaluation")
struct ConcurrentRulesTests {
    @Test func concurrentVerdictsEqualSerialOverTheCorpus() throws {
        let files = Fixtures.corpusFiles()
        guard !files.isEmpty else { return }
        var compared = 0
        for url in files {
            guard let whole = try? AnalysisBuilder.analyze(path: url.path) else { continue }
            let name = url.lastPathComponent
            let serial = RuleEngine.evaluate(whole, config: RuleConfiguration(), handedOver: nil, concurrent: false)
            let concurrent = RuleEngine.evaluate(whole, config: RuleConfiguration(), handedOver: nil, concurrent: true)
            #expect(concurrent == serial, "\(name)")
            #expect(serial.map(\.rule) == RuleRegistry.ids, "\(name)")

            // Connections handed over on the way: the connection rules see the rest, merged.
            var handedOver = RuleAccumulator()
            let analysis = try AnalysisBuilder.analyze(
                path: url.path, handOverPolicy: AnalysisBuilder.HandOverPolicy(attPDUs: 0, connections: 1)
            ) { handedOver.absorb($0) }
            let serialHandedOver = RuleEngine.evaluate(analysis, config: RuleConfiguration(), handedOver: handedOver, concurrent: false)
            let concurrentHandedOver = RuleEngine.evaluate(analysis, config: RuleConfiguration(), handedOver: handedOver, concurrent: true)
            #expect(concurrentHandedOver == serialHandedOver, "\(name) (handedOver)")
            compared += 1
        }
        #expect(compared > (Fixtures.corpusRoot != nil ? 50 : 5))
    }

    /// The GATT rules asked through shared facts judge as they do alone.
    @Test func sharedFactsGiveTheVerdictsOfFreshOnes() throws {
        let files = Fixtures.corpusFiles()
        guard !files.isEmpty else { return }
        for url in files {
            guard let analysis = try? AnalysisBuilder.analyze(path: url.path) else { continue }
            let facts = RuleFacts()
            let config = RuleConfiguration()
            #expect(
                GATTDiscoverAllServices().evaluate(analysis, config: config, facts: facts)
                    == GATTDiscoverAllServices().evaluate(analysis, config: config), "\(url.lastPathComponent)")
            #expect(
                GATTDiscoverAllCharacteristics().evaluate(analysis, config: config, facts: facts)
                    == GATTDiscoverAllCharacteristics().evaluate(analysis, config: config), "\(url.lastPathComponent)")
        }
    }
}

/// `Text.seconds` and `Text.millis` write with integers what `String(format: "%.3f …")` wrote.
@Suite struct RuleTextTests {
    @Test func secondsAndMillisMatchPrintfFormatting() {
        var values: [Int64] = [0, 1, -1, 499, 500, 501, -499, -500, -501, 999, 1000, 1499, 1500, -1500, 2500, 30_000_000,
                               123_456_789, -123_456_789, 86_400_000_000, Int64(1) << 52, -(Int64(1) << 52), .max, .min]
        var x: Int64 = 1
        for _ in 0..<2000 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            values.append(x % 10_000_000_000)
            values.append((x >> 20) % 100_000)
            values.append(x)
        }
        for v in values {
            #expect(Text.seconds(v) == String(format: "%.3f s", (Double(v) / 1000).rounded() / 1000), "\(v)")
            #expect(Text.millis(v) == String(format: "%.3f ms", Double(v) / 1000), "\(v)")
        }
    }
}
