import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeRules

/// A controller refuses an LE Create Connection while another is pending (Command Status with
/// Command Disallowed, 0x0C: Vol 4 Part E §7.8.12): the first request is still the pending one,
/// and the connection complete that follows answers it.
@Suite struct RefusedRequestTests {
    @Test func refusedSecondRequestLeavesTheFirstPending() {
        var s = SessionScript()
        s.at(100)
        let first = s.createConnection(peerA)
        s.at(200)
        let second = s.createConnection(peerB, status: 0x0C)
        s.at(400)
        let complete = s.connectionComplete(peerA, handle: 1)
        let a = s.analysis()
        #expect(a.attempts.count == 2)
        #expect(a.attempts[0].request.frame == first.command)
        #expect(a.attempts[0].outcome == .connected)
        #expect(a.attempts[0].complete?.frame == complete)
        #expect(a.attempts[1].request.frame == second.command)
        #expect(a.attempts[1].outcome == .failed)
        #expect(a.attempts[1].status == 0x0C)
        #expect(a.connections.first?.request?.frame == first.command)
        // Answered: not a request left pending.
        #expect(verdict(ConnAttemptUnbounded.self, a).status != .violated)
    }
}
