import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeRules
import ScopeTestSupport
import Testing

/// The connection rules fold each connection's ATT PDUs one at a time (`ConnectionFolds`):
/// while the analysis applies them (`ConnectionFollower`, so an open connection holds none of
/// its PDUs) or over the PDUs a finished connection holds. Both must give every verdict, word
/// for word, on every capture.
@Suite("Connections followed, not held")
struct FollowedConnectionTests {
    /// Open connections drop their PDUs at the first one (`heldATTBudget` 0); no hand-over.
    static let holdNothing = AnalysisBuilder.HandOverPolicy(attPDUs: 0)

    @Test func followedFoldsGiveTheVerdictsOfHeldPDUs() throws {
        let files = Fixtures.corpusFiles()
        var compared = 0, followedPDUs = 0
        for url in files {
            guard let held = try? AnalysisBuilder.analyze(path: url.path) else { continue }
            let expected = RuleEngine.evaluate(held)
            let accumulator = RuleAccumulator()
            let followed = try AnalysisBuilder.analyze(path: url.path, handOverPolicy: Self.holdNothing, follower: accumulator.follower)
            let name = url.lastPathComponent
            // Nothing held: the rules can only have read the follower's folds.
            #expect(followed.connections.allSatisfy { $0.att.isEmpty }, "\(name)")
            #expect(followed.connections.map(\.attCount) == held.connections.map(\.att.count), "\(name)")
            #expect(followed.connections.map(\.attAirBytes) == held.connections.map(\.attAirBytes), "\(name)")
            followedPDUs += followed.connections.map(\.attCount).reduce(0, +)
            let verdicts = RuleEngine.evaluate(followed, config: RuleConfiguration(), handedOver: accumulator)
            #expect(verdicts.count == expected.count)
            for (v, e) in zip(verdicts, expected) where v != e {
                Issue.record("\(name) \(v.rule): followed \(v.status) \(v.reason) / held \(e.status) \(e.reason)")
            }
            compared += 1
        }
        print("followed connections: \(compared) captures, \(followedPDUs) ATT PDUs followed, none held")
        #expect(compared > (Fixtures.corpusRoot != nil ? 50 : 5) && followedPDUs > 0)
    }
}
