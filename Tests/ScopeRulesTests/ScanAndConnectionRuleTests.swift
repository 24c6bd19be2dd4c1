import ScopeAnalysis
import ScopeCore
import Testing

@testable import ScopeRules

@Suite struct ScanRuleTests {
    @Test func leftRunningFiresWithoutConnectionRequest() {
        var r = rtResult(frames: 53, lastMs: 40_000)
        r.scans = [rtScan(start: rt(31, 100), stop: nil, end: rt(53, 40_000))]
        let v = rtVerdict(ScanLeftRunning.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [31, 53])
        #expect(v.findings.first?.message.contains("stopScan()") == true)
    }

    @Test func leftRunningFiresWhenScanOutlivesConnectionRequest() {
        var r = rtResult(frames: 85, lastMs: 20_000)
        r.scans = [rtScan(start: rt(31, 100), stop: nil, end: rt(85, 20_000)).with { $0.firstReportByDevice = [rtPeer: rt(33, 200)] }]
        var a = ConnectionAttempt(adapter: 0, request: rt(35, 300), api: .legacy, peer: rtPeer, peerAddressType: 0, filterPolicy: 0)
        a.complete = rt(37, 400)
        r.attempts = [a]
        let v = rtVerdict(ScanLeftRunning.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [31, 33, 35, 85])
    }

    @Test func leftRunningPassesAndNotEvaluated() {
        var r = rtResult()
        #expect(rtVerdict(ScanLeftRunning.self, r).status == .notEvaluated)
        r.scans = [rtScan(start: rt(31, 100), stop: rt(40, 1100), end: rt(40, 1100))]
        let v = rtVerdict(ScanLeftRunning.self, r)
        #expect(v.status == .passed)
        #expect(v.reason.contains("frame 31"))
    }

    @Test func duplicatesGradedBySessionRatio() {
        var r = rtResult()
        #expect(rtVerdict(ScanDuplicatesAllowed.self, r).status == .notEvaluated)
        var s = rtScan(start: rt(31, 0), stop: rt(712, 20_000), end: rt(712, 20_000), filter: 0)
        s.reports = 679
        s.duplicates = 669
        s.firstDuplicate = rt(39, 100)
        r.scans = [s]
        var v = rtVerdict(ScanDuplicatesAllowed.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.severity == .warning)
        #expect(v.findings.first?.evidence == [31, 39, 712])
        r.scans[0].duplicates = 100
        v = rtVerdict(ScanDuplicatesAllowed.self, r)
        #expect(v.findings.first?.severity == .info)
        r.scans[0].filterDuplicates = 1
        #expect(rtVerdict(ScanDuplicatesAllowed.self, r).status == .passed)
    }
}

@Suite struct ConnectionRuleTests {
    @Test func idleBeforeDisconnect() {
        var r = rtResult()
        #expect(rtVerdict(ConnIdleBeforeDisconnect.self, r).status == .notEvaluated)
        var c = rtConnection()
        c.lastPayload = rt(63, 2000)
        c.disconnectCommand = rt(64, 77_000)
        c.disconnect = rt(66, 77_000)
        c.disconnectReason = 0x16
        r.connections = [c]
        let v = rtVerdict(ConnIdleBeforeDisconnect.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [63, 64, 66])
        r.connections[0].lastPayload = rt(63, 76_000)
        #expect(rtVerdict(ConnIdleBeforeDisconnect.self, r).status == .passed)
        r.connections[0].disconnectReason = 0x08
        #expect(rtVerdict(ConnIdleBeforeDisconnect.self, r).status == .violated)
    }

    @Test func idleNotEvaluatedWithoutSetupOrData() {
        var r = rtResult()
        r.connections = [rtConnection(complete: nil)]
        let v = rtVerdict(ConnIdleBeforeDisconnect.self, r)
        #expect(v.status == .notEvaluated)
        #expect(v.reason.contains("setup not captured"))
    }

    @Test func subscriptionsLeftOn() {
        var r = rtResult()
        var c = rtConnection()
        c.localIsGATTClient = true
        c.disconnect = rt(66, 5000)
        c.disconnectReason = 0x13
        r.connections = [c]
        #expect(rtVerdict(ConnSubscriptionsLeftOn.self, r).status == .notEvaluated)  // remote disconnect
        r.connections[0].disconnectCommand = rt(64, 4900)
        r.connections[0].cccdWrites = [CCCDWrite(at: rt(58, 2000), direction: .sent, handle: 0x11, characteristicValueHandle: 0x10, value: 1)]
        let v = rtVerdict(ConnSubscriptionsLeftOn.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [58, 64, 66])
        r.connections[0].cccdWrites.append(CCCDWrite(at: rt(60, 3000), direction: .sent, handle: 0x11, characteristicValueHandle: 0x10, value: 0))
        #expect(rtVerdict(ConnSubscriptionsLeftOn.self, r).status == .passed)
    }

    @Test func reconnectByScan() {
        var r = rtResult()
        #expect(rtVerdict(ConnReconnectByScan.self, r).status == .notEvaluated)
        var c = rtConnection()
        c.disconnect = rt(63, 5000)
        r.connections = [c]
        var a = ConnectionAttempt(adapter: 0, request: rt(77, 9000), api: .legacy, peer: rtPeer, peerAddressType: 0, filterPolicy: 0)
        a.outcome = .connected
        a.complete = rt(79, 9100)
        r.attempts = [a]
        #expect(rtVerdict(ConnReconnectByScan.self, r).status == .passed)
        r.scans = [rtScan(start: rt(66, 6000), stop: rt(75, 8000), end: rt(75, 8000)).with { $0.firstReportByDevice = [rtPeer: rt(73, 7000)] }]
        let v = rtVerdict(ConnReconnectByScan.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [63, 66, 73, 77])
    }

    @Test func attemptUnbounded() {
        var r = rtResult(frames: 50, lastMs: 40_000)
        #expect(rtVerdict(ConnAttemptUnbounded.self, r).status == .notEvaluated)
        var a = ConnectionAttempt(adapter: 0, request: rt(37, 1000), api: .legacy, peer: rtPeer, peerAddressType: 0, filterPolicy: 0)
        a.cancel = rt(39, 31_000)
        a.complete = rt(41, 31_010)
        a.status = 0x02
        a.outcome = .cancelled
        r.attempts = [a]
        let v = rtVerdict(ConnAttemptUnbounded.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [37, 39, 41])
        r.attempts[0].cancel = rt(39, 2000)
        #expect(rtVerdict(ConnAttemptUnbounded.self, r).status == .passed)
        r.attempts[0].cancel = nil
        r.attempts[0].complete = nil
        #expect(rtVerdict(ConnAttemptUnbounded.self, r).status == .violated)  // pending to the last frame
    }
}
