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

/// A request the controller no longer holds: a second LE Create Connection accepted (Command
/// Status success) while the first had no answer means the first was no longer pending there
/// (a controller refuses a second request while one is, Vol 4 Part E §7.8.12); its end was not
/// captured. It settles at that acceptance, so a long capture does not hold it to the end.
@Suite struct SupersededRequestTests {
    static func script() -> (SessionScript, first: SessionScript.Exchange, second: SessionScript.Exchange) {
        var s = SessionScript()
        s.at(100)
        let first = s.createConnection(peerA)
        s.at(30_100)
        let second = s.createConnection(peerB)
        s.at(30_400)
        s.connectionComplete(peerB, handle: 1)
        s.at(3_600_000)
        s.disconnectionComplete(1, reason: 0x13)
        return (s, first, second)
    }

    @Test func anAcceptedLaterRequestEndsTheUnansweredOne() throws {
        let (s, first, second) = Self.script()
        let a = s.analysis()
        #expect(a.attempts.count == 2)
        #expect(a.attempts[0].request.frame == first.command)
        #expect(a.attempts[0].supersededAt?.frame == second.answer)
        #expect(a.attempts[0].outcome == .superseded)
        #expect(a.attempts[0].complete == nil)
        #expect(a.attempts[1].outcome == .connected)
        // It waited 30 s (more than the rule's 10 s), up to the acceptance, not the hour to the
        // last frame.
        let v = verdict(ConnAttemptUnbounded.self, a)
        #expect(v.status == .violated)
        let finding = try #require(v.findings.first)
        #expect(finding.message.contains("no longer pending when the controller accepted a later request (frame \(second.answer))"), "\(finding.message)")
        #expect(finding.message.contains("after 30 s"), "\(finding.message)")
        #expect(finding.evidence.contains(second.answer))
    }

    /// It settles then: handed over on the way, judged the same.
    @Test func itIsHandedOverOnTheWay() throws {
        let (s, _, _) = Self.script()
        let (whole, batched, handedOver, _) = try judgedWholeAndInBatches(s, ConnAttemptUnbounded.self)
        // The superseded request (and, once its link closed at the last frame, the one that
        // connected: a Disconnection Complete 0x3E might still have said it did not): the
        // analysis asks whether anything is due once a batch of frames, here after the last.
        #expect(handedOver.attempts == 2)
        #expect(batched.status == whole.status)
        #expect(batched.findings.map(\.message) == whole.findings.map(\.message))
    }
}
