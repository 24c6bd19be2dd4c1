import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeRules

/// Scripts with a connection to `peerA`: LE Create Connection, then its LE Connection Complete
/// (handle `handle`), the local host central.
private func connect(_ s: inout SessionScript, at ms: Double, handle: UInt16 = 1, peer: BDAddr = peerA) -> (request: FrameNumber, complete: FrameNumber) {
    s.at(ms - 50)
    let request = s.createConnection(peer)
    s.at(ms)
    return (request.command, s.connectionComplete(peer, handle: handle))
}

@Suite struct ScanRuleTests {
    @Test func leftRunningFiresWithoutConnectionRequest() {
        var s = SessionScript()
        s.at(50)
        s.scanParameters()
        s.at(100)
        let scan = s.scanEnable(true)
        s.at(40_000)
        let last = s.advertisingReport(peerB)
        let v = verdict(ScanLeftRunning.self, s.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [scan.command, last])
        #expect(v.findings.first?.message.contains("stopScan()") == true)
    }

    @Test func leftRunningFiresWhenScanOutlivesConnectionRequest() {
        var s = SessionScript()
        s.at(100)
        let scan = s.scanEnable(true)
        s.at(200)
        let found = s.advertisingReport(peerA)
        let c = connect(&s, at: 400)
        s.at(20_000)
        let last = s.advertisingReport(peerB)
        let v = verdict(ScanLeftRunning.self, s.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [scan.command, found, c.request, last])
    }

    @Test func leftRunningPassesAndNotEvaluated() {
        var s = SessionScript()
        #expect(verdict(ScanLeftRunning.self, s.analysis()).status == .notEvaluated)
        s.at(100)
        let scan = s.scanEnable(true)
        s.at(1100)
        s.scanEnable(false)
        let v = verdict(ScanLeftRunning.self, s.analysis())
        #expect(v.status == .passed)
        #expect(v.reason.contains("frame \(scan.command)"))
    }

    /// A 20 s scan with the duplicate filter off (or on) where `devices` advertisers report
    /// `repeats` times each.
    private func duplicateScan(filter: Bool, devices: Int, repeats: Int) -> (SessionScript, scan: FrameNumber, firstDuplicate: FrameNumber?, stop: FrameNumber) {
        var s = SessionScript()
        s.at(0)
        let scan = s.scanEnable(true, filterDuplicates: filter)
        var firstDuplicate: FrameNumber?
        var ms = 10.0
        for round in 0..<repeats {
            for d in 0..<devices {
                s.at(ms)
                let f = s.advertisingReport(BDAddr(value: 0xC0_0000_0000 + UInt64(d)))
                if round > 0, firstDuplicate == nil { firstDuplicate = f }
                ms += 10
            }
        }
        s.at(20_000)
        let stop = s.scanEnable(false)
        return (s, scan.command, firstDuplicate, stop.command)
    }

    @Test func duplicatesGradedBySessionRatio() {
        #expect(verdict(ScanDuplicatesAllowed.self, SessionScript().analysis()).status == .notEvaluated)
        let heavy = duplicateScan(filter: false, devices: 10, repeats: 68)
        var v = verdict(ScanDuplicatesAllowed.self, heavy.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.severity == .warning)
        #expect(v.findings.first?.evidence == [heavy.scan, heavy.firstDuplicate, heavy.stop].compactMap { $0 })
        let light = duplicateScan(filter: false, devices: 10, repeats: 2)
        v = verdict(ScanDuplicatesAllowed.self, light.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.severity == .info)
        let filtered = duplicateScan(filter: true, devices: 10, repeats: 2)
        #expect(verdict(ScanDuplicatesAllowed.self, filtered.0.analysis()).status == .passed)
        // The filter off and no report delivered: "0 of 0 reports are duplicates" is no finding.
        let silent = duplicateScan(filter: false, devices: 0, repeats: 0)
        v = verdict(ScanDuplicatesAllowed.self, silent.0.analysis())
        #expect(v.status == .passed)
        #expect(v.reason.contains("1 of 1 scan session(s) had the duplicate filter off and delivered no report"))
    }
}

@Suite struct ConnectionRuleTests {
    /// A connection whose last ATT exchange is at `lastDataMs`, then a local Disconnect at 77 s.
    private func idleScript(lastDataMs: Double, reason: UInt8 = 0x16, localDisconnect: Bool = true)
        -> (SessionScript, lastData: FrameNumber, disconnect: FrameNumber?, complete: FrameNumber)
    {
        var s = SessionScript()
        connect(&s, at: 1000)
        s.at(lastDataMs)
        let data = s.read(1, attribute: 0x0010)
        s.at(77_000)
        let d = localDisconnect ? s.disconnect(1, reason: 0x13).command : nil
        let complete = s.disconnectionComplete(1, reason: reason)
        return (s, data, d, complete)
    }

    @Test func idleBeforeDisconnect() {
        #expect(verdict(ConnIdleBeforeDisconnect.self, SessionScript().analysis()).status == .notEvaluated)
        let idle = idleScript(lastDataMs: 2000)
        let v = verdict(ConnIdleBeforeDisconnect.self, idle.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [idle.lastData, idle.disconnect, idle.complete].compactMap { $0 })
        #expect(verdict(ConnIdleBeforeDisconnect.self, idleScript(lastDataMs: 76_000).0.analysis()).status == .passed)
        // The peer ended the idle link: the peer's finding.
        let remote = idleScript(lastDataMs: 2000, reason: 0x13, localDisconnect: false)
        let r = verdict(ConnIdleBeforeDisconnect.self, remote.0.analysis())
        #expect(r.status == .violated)
        #expect(r.findings.first?.actor == .peer)
        // Supervision timeout: no one chose to end it; conn.link-lost's, not this rule's.
        let lost = idleScript(lastDataMs: 2000, reason: 0x08, localDisconnect: false)
        let l = verdict(ConnIdleBeforeDisconnect.self, lost.0.analysis())
        #expect(l.status == .notEvaluated)
        #expect(l.reason.contains("link lost"))
        let linkLost = verdict(ConnLinkLost.self, lost.0.analysis())
        #expect(linkLost.status == .violated)
        #expect(linkLost.findings.first?.evidence.contains(lost.complete) == true)
        #expect(verdict(ConnLinkLost.self, idle.0.analysis()).status == .passed)
    }

    @Test func idleNotEvaluatedWithoutSetupOrData() {
        var s = SessionScript()
        s.at(5000)
        s.disconnectionComplete(1, reason: 0x13)
        let v = verdict(ConnIdleBeforeDisconnect.self, s.analysis())
        #expect(v.status == .notEvaluated)
        #expect(v.reason.contains("setup not captured") || v.reason.contains("no ACL data"))
    }

    /// A link still up at the end: conn.left-open's when it was idle more than 30 s, passed when it
    /// carried data within its last 30 s; never conn.idle-before-disconnect's.
    @Test func leftOpen() {
        func script(lastDataMs: Double) -> (SessionScript, complete: FrameNumber) {
            var s = SessionScript()
            let c = connect(&s, at: 1000)
            s.at(lastDataMs)
            s.read(1, attribute: 0x0010)
            s.at(60_000)
            _ = s.note("end")
            return (s, c.complete)
        }
        let idle = script(lastDataMs: 2000)
        let v = verdict(ConnLeftOpen.self, idle.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence.contains(idle.complete) == true)
        #expect(verdict(ConnIdleBeforeDisconnect.self, idle.0.analysis()).status == .notEvaluated)
        #expect(verdict(ConnLeftOpen.self, script(lastDataMs: 40_000).0.analysis()).status == .passed)
    }

    /// The host, GATT client, discovers the CCCD 0x0011 of characteristic 0x0010 and enables
    /// notifications at 2 s (then `disable` writes 0 at 3 s); the connection ends at 5 s. With
    /// `bonded`, the link is encrypted with stored keys (no pairing on it) at 1.2 s.
    private func subscribed(localDisconnect: Bool, disable: Bool, bonded: Bool = false) -> (SessionScript, enable: FrameNumber, disconnect: FrameNumber?, complete: FrameNumber) {
        var s = SessionScript()
        connect(&s, at: 1000)
        if bonded {
            s.at(1200)
            s.encryptionChange(1)
        }
        s.at(1500)
        s.discoverCharacteristics(1, from: 0x000E, to: 0x0012)
        s.characteristics(1, [(valueHandle: 0x0010, properties: 0x10, uuid: 0x2A37)])
        s.findInformation(1, from: 0x0011, to: 0x0011, [(handle: 0x0011, uuid: 0x2902)])
        s.at(2000)
        let enable = s.write(1, attribute: 0x0011, [0x01, 0x00])
        s.writeResponse(1)
        if disable {
            s.at(3000)
            s.write(1, attribute: 0x0011, [0x00, 0x00])
            s.writeResponse(1)
        }
        s.at(4900)
        let d = localDisconnect ? s.disconnect(1).command : nil
        s.at(5000)
        let complete = s.disconnectionComplete(1, reason: localDisconnect ? 0x16 : 0x13)
        return (s, enable, d, complete)
    }

    /// As `subscribed`, on a bonded link.
    private func subscribedBonded(localDisconnect: Bool, disable: Bool) -> (SessionScript, enable: FrameNumber, disconnect: FrameNumber?, complete: FrameNumber) {
        subscribed(localDisconnect: localDisconnect, disable: disable, bonded: true)
    }

    @Test func subscriptionsLeftOn() {
        #expect(verdict(ConnSubscriptionsLeftOn.self, subscribedBonded(localDisconnect: false, disable: false).0.analysis()).status == .notEvaluated)  // remote disconnect
        // Not bonded: the server resets the CCCDs at the next connection, nothing to judge.
        let unbonded = verdict(ConnSubscriptionsLeftOn.self, subscribed(localDisconnect: true, disable: false).0.analysis())
        #expect(unbonded.status == .notEvaluated)
        #expect(unbonded.reason.contains("not bonded"))
        let left = subscribedBonded(localDisconnect: true, disable: false)
        let v = verdict(ConnSubscriptionsLeftOn.self, left.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [left.enable, left.disconnect, left.complete].compactMap { $0 })
        #expect(verdict(ConnSubscriptionsLeftOn.self, subscribedBonded(localDisconnect: true, disable: true).0.analysis()).status == .passed)
    }

    /// A connection to `peerA` that ends at 5 s, then a new request to it at 9 s, with a scan
    /// that finds it in between when `scan`.
    private func reconnection(scan: Bool) -> (SessionScript, ended: FrameNumber, scan: FrameNumber?, found: FrameNumber?, request: FrameNumber) {
        var s = SessionScript()
        connect(&s, at: 1000)
        s.at(5000)
        let ended = s.disconnectionComplete(1, reason: 0x13)
        var start: FrameNumber?, found: FrameNumber?
        if scan {
            s.at(6000)
            start = s.scanEnable(true).command
            s.at(7000)
            found = s.advertisingReport(peerA)
            s.at(8000)
            s.scanEnable(false)
        }
        let again = connect(&s, at: 9100, handle: 2)
        return (s, ended, start, found, again.request)
    }

    @Test func reconnectByScan() {
        #expect(verdict(ConnReconnectByScan.self, SessionScript().analysis()).status == .notEvaluated)
        #expect(verdict(ConnReconnectByScan.self, reconnection(scan: false).0.analysis()).status == .passed)
        let r = reconnection(scan: true)
        let v = verdict(ConnReconnectByScan.self, r.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [r.ended, r.scan, r.found, r.request].compactMap { $0 })
    }

    @Test func attemptUnbounded() {
        #expect(verdict(ConnAttemptUnbounded.self, SessionScript().analysis()).status == .notEvaluated)
        func cancelled(atMs: Double) -> (SessionScript, request: FrameNumber, cancel: FrameNumber, complete: FrameNumber) {
            var s = SessionScript()
            s.at(1000)
            let request = s.createConnection(peerA).command
            s.at(atMs)
            let cancel = s.createConnectionCancel().command
            s.at(atMs + 10)
            let complete = s.connectionComplete(BDAddr(value: 0), handle: 0, status: 0x02)
            s.at(40_000)
            s.scanEnable(false, status: 0x0C)
            return (s, request, cancel, complete)
        }
        let late = cancelled(atMs: 31_000)
        let v = verdict(ConnAttemptUnbounded.self, late.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [late.request, late.cancel, late.complete])
        #expect(verdict(ConnAttemptUnbounded.self, cancelled(atMs: 2000).0.analysis()).status == .passed)
        // Pending to the last frame.
        var s = SessionScript()
        s.at(1000)
        s.createConnection(peerA)
        s.at(40_000)
        s.scanEnable(false, status: 0x0C)
        #expect(verdict(ConnAttemptUnbounded.self, s.analysis()).status == .violated)
    }
}
