import ScopeAnalysis
import ScopeCore
import ScopeReport
import ScopeTestSupport
import Testing

/// A connection and a connection request ended by an HCI Reset (Vol 4 Part E §7.3.2: OGF 0x03,
/// OCF 0x0003, answered by Command Complete) say so in the report: `lost_with_controller`.
@Suite struct ControllerLossReportTests {
    static func report(resetStatus: UInt8) -> Report {
        var s = SessionScript()
        let peer = BDAddr("C0:1D:90:F3:37:D3") ?? BDAddr(value: 1)
        s.at(100)
        s.createConnection(peer)
        s.at(200)
        s.connectionComplete(peer, handle: 1)
        s.at(300)
        s.createConnection(BDAddr(value: 2))
        s.at(60_000)
        s.completed(0x0C03, returning: [resetStatus])
        return Report(analysis: s.analysis(), verdicts: [], tool: ToolInfo(version: "test"), config: ConfigSummary())
    }

    @Test func resetIsNamedOnTheConnectionAndTheRequest() {
        let report = Self.report(resetStatus: 0x00)
        #expect(report.connections.first?.lostWithController == .reset)
        #expect(report.attempts.map(\.lostWithController) == [nil, .reset])
        let json = JSONReporter.value(report).rendered()
        #expect(json.contains("\"lost_with_controller\": \"reset\""))
    }

    @Test func refusedResetNamesNothing() {
        let report = Self.report(resetStatus: 0x0C)
        #expect(report.connections.first?.lostWithController == nil)
        #expect(report.attempts.allSatisfy { $0.lostWithController == nil })
        #expect(!JSONReporter.value(report).rendered().contains("\"lost_with_controller\": \"reset\""))
    }
}
