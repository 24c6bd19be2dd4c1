import ScopeAnalysis
import ScopeCore
import Testing

@testable import ScopeRules

private func dataCommand(
    _ frame: FrameNumber, kind: AdvertisingDataCommand.DataKind, length: Int, data: [UInt8]? = nil, status: UInt8 = 0,
    legacy: Bool = true, handle: UInt8? = nil
) -> AdvertisingDataCommand {
    AdvertisingDataCommand(
        at: rt(frame, Double(frame)), complete: rt(frame + 1, Double(frame) + 1),
        command: kind == .advertising ? "LE Set Advertising Data" : "LE Set Scan Response Data", advertisingHandle: handle,
        kind: kind, legacyPDUs: legacy, operation: legacy ? nil : 3, length: length, fragmentLength: length,
        data: data ?? [UInt8](repeating: 0, count: length), status: status)
}

private func span(_ start: FrameTime, stop: FrameTime?, connectable: Bool = true) -> AdvertisingSpan {
    AdvertisingSpan(
        advertisingHandle: nil, api: .legacy, connectable: connectable, directed: false, intervalMicros: 100_000, start: start,
        stop: stop, stoppedBy: "command", enabledMicros: 0, connectedWhileEnabledMicros: 0)
}

@Suite struct AdvertisingRuleTests {
    @Test func payloadBudgetLegacy() {
        var r = rtResult()
        #expect(rtVerdict(AdvPayloadBudget.self, r).status == .notEvaluated)
        var adv = AdvertisingActivity()
        adv.dataCommands = [dataCommand(35, kind: .advertising, length: 40, status: 0x12)]
        r.advertising = adv
        let v = rtVerdict(AdvPayloadBudget.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.severity == .error)
        #expect(v.findings.first?.evidence == [35, 36])
        r.advertising?.dataCommands = [dataCommand(35, kind: .advertising, length: 31)]
        #expect(rtVerdict(AdvPayloadBudget.self, r).status == .passed)
    }

    @Test func payloadBudgetIOSProfile() {
        var r = rtResult()
        var adv = AdvertisingActivity()
        // Flags (3 bytes) + 26 bytes of other AD: 26 besides Flags, within 28.
        let flags: [UInt8] = [0x02, 0x01, 0x06]
        let name: [UInt8] = [25, 0x09] + [UInt8](repeating: 0x41, count: 24)
        adv.dataCommands = [
            dataCommand(31, kind: .advertising, length: 29, data: flags + name),
            dataCommand(33, kind: .scanResponse, length: 21),
        ]
        r.advertising = adv
        #expect(rtVerdict(AdvPayloadBudget.self, r).status == .passed)
        let v = rtVerdict(AdvPayloadBudget.self, r, config: RuleConfiguration(profile: .ios))
        #expect(v.status == .violated)
        #expect(v.findings.map(\.evidence) == [[33, 34]])
        #expect(v.findings.first?.severity == .info)
    }

    @Test func extendedDataNotJudgedAgainst31() {
        var r = rtResult()
        var adv = AdvertisingActivity()
        adv.dataCommands = [dataCommand(31, kind: .advertising, length: 120, legacy: false, handle: 0)]
        r.advertising = adv
        #expect(rtVerdict(AdvPayloadBudget.self, r, config: RuleConfiguration(profile: .ios)).status == .passed)
        r.advertising?.maxAdvertisingDataLength = 100
        #expect(rtVerdict(AdvPayloadBudget.self, r).status == .violated)
    }

    @Test func withoutNeedTooLong() {
        var r = rtResult(frames: 68, lastMs: 80_000)
        #expect(rtVerdict(AdvWithoutNeed.self, r).status == .notEvaluated)
        var adv = AdvertisingActivity()
        adv.spans = [span(rt(37, 1000), stop: nil)]
        r.advertising = adv
        let v = rtVerdict(AdvWithoutNeed.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [37, 68])
        r.advertising?.spans = [span(rt(37, 1000), stop: rt(40, 4000))]
        #expect(rtVerdict(AdvWithoutNeed.self, r).status == .passed)
        r.advertising?.spans = [span(rt(37, 1000), stop: nil, connectable: false)]
        #expect(rtVerdict(AdvWithoutNeed.self, r).status == .notEvaluated)
    }

    @Test func withoutNeedSupportedStates() {
        var r = rtResult(frames: 60, lastMs: 30_000)
        var adv = AdvertisingActivity()
        adv.supportedStates = 0x3FF_FFFF_FFFF & ~(UInt64(1) << 38)
        adv.supportedStatesFrame = 30
        adv.spans = [span(rt(44, 2000), stop: rt(58, 22_000))]
        r.advertising = adv
        var c = rtConnection(role: .peripheral, complete: rt(41, 1500))
        c.disconnect = rt(60, 23_000)
        r.connections = [c]
        let v = rtVerdict(AdvWithoutNeed.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [30, 41, 44])
        r.advertising?.supportedStates = 0x3FF_FFFF_FFFF
        #expect(rtVerdict(AdvWithoutNeed.self, r).status == .passed)
    }

    /// A long capture judges spans in batches as they leave the analysis, before the end: the
    /// supported states that decide are still those read by the end of the capture.
    @Test func withoutNeedBatchesUseTheStatesReadByTheEnd() {
        var c = rtConnection(role: .peripheral, complete: rt(41, 1500))
        c.disconnect = rt(60, 23_000)
        var s = span(rt(44, 2000), stop: rt(58, 22_000))
        s.connectionsTracked = true
        s.connectionAtStart = AdvertisingSpan.SpanConnection(role: .peripheral, complete: rt(41, 1500), disconnect: c.disconnect, ordinal: 0)
        var items = LeavingItems()
        items.advertisingSpans = [s]
        let rule = AdvWithoutNeed()
        for (early, late) in [(UInt64(0x3FF_FFFF_FFFF), 0x3FF_FFFF_FFFF & ~(UInt64(1) << 38)), (0x3FF_FFFF_FFFF & ~(UInt64(1) << 38), 0x3FF_FFFF_FFFF)] {
            var batch = rtResult(frames: 58, lastMs: 22_000)
            var then = AdvertisingActivity()
            then.supportedStates = early
            then.supportedStatesFrame = 30
            batch.advertising = then
            let judged = rule.tally(ItemView(leaving: items, of: batch), config: RuleConfiguration())
            // The end: the span gone, the states read again.
            var end = rtResult(frames: 90, lastMs: 40_000)
            var adv = AdvertisingActivity()
            adv.supportedStates = late
            adv.supportedStatesFrame = 80
            end.advertising = adv
            var whole = end
            whole.advertising?.spans = [s]
            let merged = rule.evaluate(end, config: RuleConfiguration(), retired: judged)
            let expected = rtVerdict(AdvWithoutNeed.self, whole)
            #expect(merged == expected)
            #expect(merged.status == (late & (1 << 38) == 0 ? .violated : .passed))
        }
    }

    /// Likewise extended data and the controller's maximum data length.
    @Test func payloadBudgetBatchesUseTheMaximumReadByTheEnd() {
        var cmd = dataCommand(31, kind: .advertising, length: 120, legacy: false, handle: 0)
        cmd.assembledLength = 120
        var items = LeavingItems()
        items.advertisingData = [cmd]
        let rule = AdvPayloadBudget()
        var batch = rtResult()
        batch.advertising = AdvertisingActivity()
        let judged = rule.tally(ItemView(leaving: items, of: batch), config: RuleConfiguration())
        var end = rtResult()
        end.advertising = AdvertisingActivity()
        end.advertising?.maxAdvertisingDataLength = 100
        end.advertising?.maxAdvertisingDataLengthFrame = 50
        var whole = end
        whole.advertising?.dataCommands = [cmd]
        let merged = rule.evaluate(end, config: RuleConfiguration(), retired: judged)
        #expect(merged == rtVerdict(AdvPayloadBudget.self, whole))
        #expect(merged.status == .violated && merged.findings.first?.evidence.contains(50) == true)
    }
}

private func pairing(initIO: UInt8, respIO: UInt8, sc: Bool, method: Pairing.Method) -> Pairing {
    var p = Pairing(connection: ConnectionID(adapter: 0, handle: 1, generation: 1), request: rt(58, 100), initiatedBy: .local)
    p.response = rt(60, 150)
    let auth: UInt8 = sc ? 0x09 : 0x01
    p.initiator = Pairing.Features(ioCapability: initIO, oobDataPresent: false, authReq: auth, maxKeySize: 16, initiatorKeys: 1, responderKeys: 1)
    p.responder = Pairing.Features(ioCapability: respIO, oobDataPresent: false, authReq: auth, maxKeySize: 16, initiatorKeys: 1, responderKeys: 1)
    p.secureConnections = sc
    p.method = method
    return p
}

@Suite struct SecurityRuleTests {
    @Test func insufficientAuth() {
        var r = rtResult()
        #expect(rtVerdict(SecurityInsufficientAuth.self, r).status == .notEvaluated)
        var c = rtConnection()
        c.att = [rtATT(61, 500, .received, 0x01, handle: 0x12, error: 0x0F)]
        r.connections = [c]
        var v = rtVerdict(SecurityInsufficientAuth.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [61])
        r.connections[0].encryptionChanges = [EncryptionChange(at: rt(193, 9000), status: 0, enabled: 1, isKeyRefresh: false)]
        v = rtVerdict(SecurityInsufficientAuth.self, r)
        #expect(v.status == .passed)
        #expect(v.reason.contains("frame 193"))
    }

    @Test func legacyPairing() {
        var r = rtResult()
        #expect(rtVerdict(SecurityLegacyPairing.self, r).status == .notEvaluated)
        r.pairings = [pairing(initIO: 3, respIO: 3, sc: false, method: .justWorks)]
        let v = rtVerdict(SecurityLegacyPairing.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [58, 60])
        r.pairings = [pairing(initIO: 3, respIO: 3, sc: true, method: .justWorks)]
        #expect(rtVerdict(SecurityLegacyPairing.self, r).status == .passed)
    }

    @Test func unauthenticatedPairing() {
        var r = rtResult()
        #expect(rtVerdict(SecurityUnauthenticatedPairing.self, r).status == .notEvaluated)
        r.pairings = [pairing(initIO: 4, respIO: 1, sc: true, method: .justWorks)]
        let v = rtVerdict(SecurityUnauthenticatedPairing.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.message.contains("Numeric Comparison") == true)
        r.pairings = [pairing(initIO: 3, respIO: 3, sc: false, method: .justWorks)]
        #expect(rtVerdict(SecurityUnauthenticatedPairing.self, r).status == .passed)
        // Legacy table: DisplayYesNo/DisplayYesNo gives Just Works; SC gives Numeric Comparison.
        #expect(SecurityUnauthenticatedPairing.bestMethod(initiator: 1, responder: 1, secureConnections: false) == .justWorks)
        #expect(SecurityUnauthenticatedPairing.bestMethod(initiator: 1, responder: 1, secureConnections: true) == .numericComparison)
        #expect(SecurityUnauthenticatedPairing.bestMethod(initiator: 4, responder: 0, secureConnections: true) == .passkeyEntry)
    }

    @Test func pairingFailed() {
        var r = rtResult()
        #expect(rtVerdict(SecurityPairingFailed.self, r).status == .notEvaluated)
        var p = pairing(initIO: 3, respIO: 3, sc: true, method: .justWorks)
        p.result = .success
        r.pairings = [p]
        #expect(rtVerdict(SecurityPairingFailed.self, r).status == .passed)
        r.pairings[0].result = .failed
        r.pairings[0].failed = rt(63, 200)
        r.pairings[0].reason = 0x05
        let v = rtVerdict(SecurityPairingFailed.self, r)
        #expect(v.status == .violated)
        #expect(v.findings.first?.evidence == [63])
        #expect(v.findings.first?.severity == .error)
    }
}
