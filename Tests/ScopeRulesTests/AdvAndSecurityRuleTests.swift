import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeRules

@Suite struct AdvertisingRuleTests {
    @Test func payloadBudgetLegacy() {
        #expect(verdict(AdvPayloadBudget.self, SessionScript().analysis()).status == .notEvaluated)
        var s = SessionScript()
        s.at(35)
        // 40 bytes claimed: Invalid HCI Command Parameters.
        let refused = s.advertisingData([UInt8](repeating: 0, count: 31), length: 40, status: 0x12)
        let v = verdict(AdvPayloadBudget.self, s.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.severity == .error)
        #expect(v.findings.first?.evidence == [refused.command, refused.answer])
        var ok = SessionScript()
        ok.advertisingData([UInt8](repeating: 0, count: 31))
        #expect(verdict(AdvPayloadBudget.self, ok.analysis()).status == .passed)
    }

    @Test func payloadBudgetIOSProfile() {
        var s = SessionScript()
        // Flags (3 bytes) + 26 bytes of other AD: 26 besides Flags, within 28.
        let flags: [UInt8] = [0x02, 0x01, 0x06]
        let name: [UInt8] = [25, 0x09] + [UInt8](repeating: 0x41, count: 24)
        s.advertisingData(flags + name)
        let response = s.advertisingData([20, 0x09] + [UInt8](repeating: 0x42, count: 19), scanResponse: true)
        let analysis = s.analysis()
        #expect(verdict(AdvPayloadBudget.self, analysis).status == .passed)
        let v = verdict(AdvPayloadBudget.self, analysis, config: RuleConfiguration(profile: .ios))
        #expect(v.status == .violated)
        #expect(v.findings.map(\.evidence) == [[response.command, response.answer]])
        #expect(v.findings.first?.severity == .info)
    }

    @Test func extendedDataNotJudgedAgainst31() {
        var s = SessionScript()
        s.extendedAdvertisingData([119, 0xFF] + [UInt8](repeating: 0x4C, count: 118))
        #expect(verdict(AdvPayloadBudget.self, s.analysis(), config: RuleConfiguration(profile: .ios)).status == .passed)
        s.readMaximumAdvertisingDataLength(100)
        #expect(verdict(AdvPayloadBudget.self, s.analysis()).status == .violated)
    }

    /// Fragmented extended data (§7.8.54: first 0x01, intermediate 0x00, last 0x02) is judged
    /// whole: 100 + 100 + 60 bytes after an earlier complete 20, against a 255-byte maximum.
    @Test func extendedFragmentsAssembled() {
        var s = SessionScript()
        s.readMaximumAdvertisingDataLength(255)
        s.extendedAdvertisingData([UInt8](repeating: 0x01, count: 20))
        s.extendedAdvertisingData([UInt8](repeating: 0x02, count: 100), operation: 0x01)
        s.extendedAdvertisingData([UInt8](repeating: 0x03, count: 100), operation: 0x00)
        let last = s.extendedAdvertisingData([UInt8](repeating: 0x04, count: 60), operation: 0x02)
        let analysis = s.analysis()
        #expect(analysis.advertising?.dataCommands.map(\.assembledLength) == [20, 100, 200, 260])
        let v = verdict(AdvPayloadBudget.self, analysis)
        #expect(v.status == .violated)
        #expect(v.findings.count == 1)
        #expect(v.findings.first?.evidence.contains(last.command) == true)
    }

    /// Advertising enabled at 1 s (connectable unless said), stopped at `stopMs` or left on,
    /// and a last frame at 80 s.
    private func advertising(stopMs: Double?, connectable: Bool = true) -> (SessionScript, enable: FrameNumber, last: FrameNumber) {
        var s = SessionScript()
        s.at(900)
        s.advertisingParameters(connectable: connectable)
        s.at(1000)
        let enable = s.advertisingEnable(true).command
        if let stopMs {
            s.at(stopMs)
            s.advertisingEnable(false)
        }
        s.at(80_000)
        let last = s.readMaximumAdvertisingDataLength(31).answer
        return (s, enable, last)
    }

    @Test func withoutNeedTooLong() {
        #expect(verdict(AdvWithoutNeed.self, SessionScript().analysis()).status == .notEvaluated)
        let on = advertising(stopMs: nil)
        let v = verdict(AdvWithoutNeed.self, on.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [on.enable, on.last])
        #expect(verdict(AdvWithoutNeed.self, advertising(stopMs: 4000).0.analysis()).status == .passed)
        #expect(verdict(AdvWithoutNeed.self, advertising(stopMs: nil, connectable: false).0.analysis()).status == .notEvaluated)
    }

    /// The connection a span may have brought is the first peripheral-role one completed while
    /// it was enabled: one completed after the span stopped is not named, and the stopped span
    /// leaves a long capture at the next hand-over, whatever the rule's window.
    @Test func withoutNeedNamesOnlyAConnectionWhileEnabled() throws {
        for whileEnabled in [true, false] {
            var s = SessionScript()
            s.at(900)
            s.advertisingParameters(connectable: true)
            s.at(1000)
            s.advertisingEnable(true)
            var connection: FrameNumber = 0
            if whileEnabled {
                s.at(3000)
                connection = s.connectionComplete(peerA, handle: 0x40, peripheral: true)
            }
            s.at(5000)
            s.advertisingEnable(false)
            if !whileEnabled {
                s.at(6000)
                connection = s.connectionComplete(peerA, handle: 0x40, peripheral: true)
            }
            s.at(7000)
            s.disconnectionComplete(0x40, reason: 0x13)
            for i in 0..<4 {
                s.at(8000 + Double(i) * 1000)
                s.advertisingData([0x02, 0x01, 0x06])
            }
            let v = verdict(AdvWithoutNeed.self, s.analysis())
            #expect(v.status == .passed)
            #expect(v.reason.contains("connection at frame \(connection)") == whileEnabled)
            let judged = try judgedWholeAndInBatches(s, AdvWithoutNeed.self)
            #expect(judged.handedOver.advertisingSpans == 1)
            #expect(judged.batched == judged.whole)
        }
    }

    /// LE supported states read at the start (`states`), a peripheral-role connection up from
    /// 1.5 s to 23 s, and connectable advertising enabled from 2 s to 22 s while it is up.
    static func advertisingWhileConnected(states: UInt64) -> (SessionScript, states: FrameNumber, connection: FrameNumber, enable: FrameNumber) {
        var s = SessionScript()
        s.at(10)
        let read = s.readSupportedStates(states)
        s.at(1500)
        let connection = s.connectionComplete(peerA, handle: 0x40, peripheral: true)
        s.at(2000)
        let enable = s.advertisingEnable(true).command
        s.at(22_000)
        s.advertisingEnable(false)
        s.at(23_000)
        s.disconnectionComplete(0x40, reason: 0x13)
        return (s, read.answer, connection, enable)
    }

    static let allStates: UInt64 = 0x3FF_FFFF_FFFF
    static let withoutConnectableWhilePeripheral = allStates & ~(UInt64(1) << 38)

    @Test func withoutNeedSupportedStates() {
        let limited = Self.advertisingWhileConnected(states: Self.withoutConnectableWhilePeripheral)
        let v = verdict(AdvWithoutNeed.self, limited.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [limited.states, limited.connection, limited.enable])
        #expect(verdict(AdvWithoutNeed.self, Self.advertisingWhileConnected(states: Self.allStates).0.analysis()).status == .passed)
    }

    /// A long capture judges spans in batches as they leave the analysis, before the end: the
    /// supported states that decide are still those read by the end of the capture.
    @Test func withoutNeedBatchesUseTheStatesReadByTheEnd() throws {
        for (early, late) in [(Self.allStates, Self.withoutConnectableWhilePeripheral), (Self.withoutConnectableWhilePeripheral, Self.allStates)] {
            var s = Self.advertisingWhileConnected(states: early).0
            // Items enough after the span for it to leave the analysis, then the states read again.
            for i in 0..<4 {
                s.at(70_000 + Double(i) * 1000)
                s.advertisingData([0x02, 0x01, 0x06])
            }
            s.at(80_000)
            s.readSupportedStates(late)
            let judged = try judgedWholeAndInBatches(s, AdvWithoutNeed.self)
            #expect(judged.handedOver.advertisingSpans == 1)
            let batched = judged.batched
            #expect(batched == judged.whole)
            #expect(batched.status == (late & (1 << 38) == 0 ? .violated : .passed))
        }
    }

    /// Likewise extended data and the controller's maximum data length.
    @Test func payloadBudgetBatchesUseTheMaximumReadByTheEnd() throws {
        var s = SessionScript()
        s.extendedAdvertisingData([119, 0xFF] + [UInt8](repeating: 0x4C, count: 118))
        for i in 0..<4 {
            s.at(1000 + Double(i) * 1000)
            s.advertisingData([0x02, 0x01, 0x06])
        }
        s.at(10_000)
        let read = s.readMaximumAdvertisingDataLength(100)
        let judged = try judgedWholeAndInBatches(s, AdvPayloadBudget.self)
        #expect(judged.handedOver.advertisingData > 0)
        let batched = judged.batched
        #expect(batched == judged.whole)
        #expect(batched.status == .violated && batched.findings.first?.evidence.contains(read.answer) == true)
    }
}

/// A connection (handle 1) with the host central, then a pairing it starts: Pairing Request with
/// `initIO`, Pairing Response with `respIO`, both with Secure Connections when `sc` (AuthReq:
/// bonding, SC, no MITM).
private func pairing(initIO: UInt8, respIO: UInt8, sc: Bool) -> (SessionScript, request: FrameNumber, response: FrameNumber) {
    var s = SessionScript()
    s.at(50)
    s.createConnection(peerA)
    s.at(90)
    s.connectionComplete(peerA, handle: 1)
    s.at(100)
    let auth: UInt8 = sc ? 0x09 : 0x01
    let request = s.pairingFeatures(1, response: false, io: initIO, authReq: auth)
    s.at(150)
    let response = s.pairingFeatures(1, response: true, io: respIO, authReq: auth)
    return (s, request, response)
}

@Suite struct SecurityRuleTests {
    @Test func insufficientAuth() {
        #expect(verdict(SecurityInsufficientAuth.self, SessionScript().analysis()).status == .notEvaluated)
        var s = SessionScript()
        s.at(50)
        s.createConnection(peerA)
        s.at(100)
        s.connectionComplete(peerA, handle: 1)
        s.at(500)
        s.read(1, attribute: 0x0012)
        let refused = s.attError(1, request: 0x0A, attribute: 0x0012, error: 0x0F)
        var v = verdict(SecurityInsufficientAuth.self, s.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [refused])
        s.at(9000)
        let encrypted = s.encryptionChange(1)
        v = verdict(SecurityInsufficientAuth.self, s.analysis())
        #expect(v.status == .passed)
        #expect(v.reason.contains("frame \(encrypted)"))
    }

    @Test func legacyPairing() {
        #expect(verdict(SecurityLegacyPairing.self, SessionScript().analysis()).status == .notEvaluated)
        let legacy = pairing(initIO: 3, respIO: 3, sc: false)
        let v = verdict(SecurityLegacyPairing.self, legacy.0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [legacy.request, legacy.response])
        #expect(verdict(SecurityLegacyPairing.self, pairing(initIO: 3, respIO: 3, sc: true).0.analysis()).status == .passed)
    }

    @Test func unauthenticatedPairing() {
        #expect(verdict(SecurityUnauthenticatedPairing.self, SessionScript().analysis()).status == .notEvaluated)
        // KeyboardDisplay and DisplayYesNo without MITM: Just Works where Numeric Comparison was possible.
        let v = verdict(SecurityUnauthenticatedPairing.self, pairing(initIO: 4, respIO: 1, sc: true).0.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.message.contains("Numeric Comparison") == true)
        #expect(verdict(SecurityUnauthenticatedPairing.self, pairing(initIO: 3, respIO: 3, sc: false).0.analysis()).status == .passed)
        // Legacy table: DisplayYesNo/DisplayYesNo gives Just Works; SC gives Numeric Comparison.
        #expect(SecurityUnauthenticatedPairing.bestMethod(initiator: 1, responder: 1, secureConnections: false) == .justWorks)
        #expect(SecurityUnauthenticatedPairing.bestMethod(initiator: 1, responder: 1, secureConnections: true) == .numericComparison)
        #expect(SecurityUnauthenticatedPairing.bestMethod(initiator: 4, responder: 0, secureConnections: true) == .passkeyEntry)
    }

    @Test func pairingFailed() {
        #expect(verdict(SecurityPairingFailed.self, SessionScript().analysis()).status == .notEvaluated)
        var ok = pairing(initIO: 3, respIO: 3, sc: true).0
        ok.at(300)
        ok.encryptionChange(1)
        #expect(verdict(SecurityPairingFailed.self, ok.analysis()).status == .passed)
        var failed = pairing(initIO: 3, respIO: 3, sc: true).0
        failed.at(200)
        let f = failed.pairingFailed(1, reason: 0x05)
        let v = verdict(SecurityPairingFailed.self, failed.analysis())
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [f])
        #expect(v.findings.first?.severity == .error)
    }
}
