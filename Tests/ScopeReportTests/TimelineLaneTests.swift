import Foundation
import ScopeAnalysis
import ScopeReport
import ScopeRules
import ScopeTestSupport
import Testing

/// The timeline draws a tick per ATT PDU a connection holds; a connection that does not hold
/// them all (followed on a long capture, or judged and dropped) says how many it leaves out.
@Suite struct TimelineLaneTests {
    static func lanes(_ analysis: AnalysisResult) -> [Timeline.Lane] {
        Report(analysis: analysis, verdicts: [], tool: ToolInfo(version: "test"), config: ConfigSummary(), timeline: true)
            .timeline.lanes.filter { $0.label.hasPrefix("connection ") }
    }

    @Test func connectionLaneSaysWhatItDoesNotDraw() throws {
        let path = Fixtures.project("scenarios/gatt.polling-fires.btsnoop").path
        let held = try AnalysisBuilder.analyze(path: path)
        let followed = try AnalysisBuilder.analyze(
            path: path, handOverPolicy: AnalysisBuilder.HandOverPolicy(attPDUs: 0), follower: RuleAccumulator().follower)
        let pdus = followed.connections.map(\.attCount)
        #expect(pdus.contains { $0 > 0 })
        for lane in Self.lanes(held) { #expect(!lane.label.contains("not drawn"), "\(lane.label)") }
        let labels = Self.lanes(followed).map(\.label)
        for (label, n) in zip(labels, pdus) where n > 0 {
            #expect(label.hasSuffix(" (\(n) of \(n) ATT PDUs not drawn)"), "\(label)")
        }
    }
}
