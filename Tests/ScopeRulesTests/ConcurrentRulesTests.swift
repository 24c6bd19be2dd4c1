import Foundation
import ScopeAnalysis
import ScopeCore
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

/// `Text.seconds`, `Text.millis` and `Text.percent` write with integers what
/// `String(format: "%.3f …")` and `String(format: "%.1f %%")` write.
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
            // Past 10 s, a duration for people (ReadableDuration): "12.3 s", "5 min 58 s".
            if v.magnitude >= 10_000_000 {
                #expect(Text.seconds(v) == ReadableDuration.text(v), "\(v)")
                #expect(Text.millis(v) == ReadableDuration.text(v), "\(v)")
                continue
            }
            #expect(Text.seconds(v) == String(format: "%.3f s", (Double(v) / 1000).rounded() / 1000), "\(v)")
            #expect(Text.millis(v) == String(format: "%.3f ms", Double(v) / 1000), "\(v)")
        }
    }

    @Test func percentMatchesPrintfFormatting() {
        // Duplicate ratios as the rules see them (duplicates / reports), values on both sides of
        // every rounding step, the ends of the integer path, and what falls back to Foundation.
        var ratios: [Double] = [0, -0.0, 1, -1, 0.5, 0.0005, 0.00049999, 0.0004999999999, 0.0005000000001, 0x1p-10 / 100,
                                0x1p-11, 1e-300, 5e-324, 0.999, 0.9995, 0.99949999999, 9.99e12, 1e13 - 0.001, 1e13, 1e300,
                                .infinity, -.infinity, .nan, .ulpOfOne, .greatestFiniteMagnitude]
        for reports in 1...400 {
            for duplicates in 0...reports { ratios.append(Double(duplicates) / Double(reports)) }
        }
        for tenth in 0...10_000 {
            let p = (Double(tenth) + 0.5) / 1000
            ratios += [p, p.nextUp, p.nextDown, -p, (Double(tenth) + 0.5) / 10 / 100]
        }
        var x: UInt64 = 1
        for _ in 0..<20_000 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            ratios.append(Double(x >> 11) / Double(1 << 53))
            ratios.append(Double(bitPattern: x))
            ratios.append(Double(Int64(bitPattern: x) % 100_000_000) / 997)
        }
        for r in ratios {
            #expect(Text.percent(r) == String(format: "%.1f %%", r * 100), "\(r)")
        }
    }
}
