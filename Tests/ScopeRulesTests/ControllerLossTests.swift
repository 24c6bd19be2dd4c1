import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeRules

/// A controller that is reset (HCI Reset, Vol 4 Part E §7.3.2: OGF 0x03, OCF 0x0003, answered
/// by Command Complete), closed or removed drops its links, its scan and its advertising without
/// an event for any of them: the analysis ends them there, so a day-long recording with power
/// cycles neither keeps them open to its end nor holds them in memory.
@Suite struct ControllerLossTests {
    /// Scanning and advertising, a connection with a little ATT, then `lose` at 60 s, then a
    /// last frame at 70 s. Returns the script and the frame that ended everything.
    static func session(_ lose: (inout SessionScript) -> FrameNumber) -> (SessionScript, FrameNumber) {
        var s = SessionScript()
        s.at(50)
        s.scanParameters()
        s.at(100)
        s.scanEnable(true)
        s.at(150)
        s.advertisingEnable(true)
        s.at(300)
        s.advertisingReport(peerA)
        s.at(350)
        s.createConnection(peerA)
        s.at(400)
        s.connectionComplete(peerA, handle: 1)
        s.at(500)
        s.att(1, .sent, [0x0A, 0x03, 0x00])  // Read Request, handle 0x0003
        s.at(550)
        s.att(1, .received, [0x0B, 0x64])  // Read Response
        s.at(60_000)
        let end = lose(&s)
        s.at(70_000)
        s.readSupportedStates(0)
        return (s, end)
    }

    @Test func resetEndsConnectionsScanAndAdvertising() {
        let (s, reset) = Self.session { $0.completed(0x0C03).answer }
        let a = s.analysis()
        #expect(a.connections.count == 1)
        let c = a.connections[0]
        #expect(c.disconnect?.frame == reset)
        #expect(c.lostWithController == .reset)
        #expect(c.disconnectReason == nil)
        #expect(c.disconnectInitiator == .local)
        #expect(a.scans.count == 1)
        #expect(a.scans[0].stop?.frame == reset)
        #expect(a.scans[0].stillRunningAtEnd == false)
        #expect(a.advertising?.spans.count == 1)
        #expect(a.advertising?.spans.first?.stop?.frame == reset)
        #expect(a.advertising?.spans.first?.stoppedBy == "HCI Reset")

        // Idle from the Read Response to the reset: the finding names what ended the link.
        let v = verdict(ConnIdleBeforeDisconnect.self, a)
        #expect(v.status == .violated)
        #expect(v.findings.first?.message.contains("before the HCI Reset that ended it (frame \(reset))") == true)

    }

    /// A connection request still unanswered at the reset ends there: nothing can answer it any more.
    @Test func resetEndsAnUnansweredRequest() {
        var s = SessionScript()
        s.at(100)
        let request = s.createConnection(peerA)
        s.at(60_000)
        let reset = s.completed(0x0C03).answer
        s.at(70_000)
        s.readSupportedStates(0)
        let a = s.analysis()
        #expect(a.attempts.first?.outcome == .failed)
        #expect(a.attempts.first?.complete?.frame == reset)
        #expect(a.attempts.first?.status == nil)
        #expect(a.attempts.first?.lostWithController == .reset)
        let v = verdict(ConnAttemptUnbounded.self, a)
        #expect(v.status == .violated)
        let message = v.findings.first?.message ?? ""
        #expect(message.contains("connection request at frame \(request.command) (peer \(peerA)) ended by the HCI Reset at frame \(reset) after 59.9 s"), "\(message)")
    }

    @Test func removedControllerEndsItsConnections() {
        let (s, removed) = Self.session { $0.record(.deleteIndex, .unknown, []) }
        let a = s.analysis()
        #expect(a.connections.first?.disconnect?.frame == removed)
        #expect(a.connections.first?.lostWithController == .removed)
        #expect(a.connections.first?.disconnectInitiator == .unknown)
        #expect(a.scans.first?.stop?.frame == removed)
        #expect(a.advertising?.spans.first?.stoppedBy == "controller removed")
    }

    @Test func closedControllerEndsItsConnections() {
        let (s, closed) = Self.session { $0.record(.closeIndex, .unknown, []) }
        let a = s.analysis()
        #expect(a.connections.first?.disconnect?.frame == closed)
        #expect(a.connections.first?.lostWithController == .closed)
    }

    /// The same on a real kernel: `captures/btvirt-reset-links-up.btsnoop`, recorded by
    /// `hciscope capture` from the monitor channel of Debian's 6.1 kernel (the kernel lab), two
    /// virtual controllers paired and encrypted, then `hciconfig hciN reset` (HCIDEVRESET) on each
    /// with the link up. The kernel closes the index (Close Index, frames 563 and 663), flushes
    /// the connection without an HCI Disconnect or a Disconnection Complete, reopens it and sends
    /// HCI_Reset: each side's connection ends at its Close Index, with no reason.
    @Test func kernelResetWithTheLinkUpEndsTheConnectionAtCloseIndex() throws {
        let a = try AnalysisBuilder.analyze(path: Fixtures.project("btvirt-reset-links-up.btsnoop").path)
        let ended = a.connections.map { ($0.id.adapter, $0.disconnect?.frame, $0.lostWithController, $0.disconnectReason) }
        #expect(ended.count == 2)
        #expect(ended.contains { $0 == (1, 563, .closed, nil) })
        #expect(ended.contains { $0 == (0, 663, .closed, nil) })
    }

    /// A reset the controller refused (Command Complete with an error) ends nothing, and a
    /// connection ended by its Disconnection Complete is not lost with its controller.
    @Test func failedResetEndsNothing() {
        let (s, _) = Self.session { $0.completed(0x0C03, returning: [0x0C]).answer }
        let a = s.analysis()
        #expect(a.connections.first?.disconnect == nil)
        #expect(a.connections.first?.lostWithController == nil)
        #expect(a.scans.first?.stillRunningAtEnd == true)
        #expect(a.advertising?.spans.first?.stop == nil)
    }
}
