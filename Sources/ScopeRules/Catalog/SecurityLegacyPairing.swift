import ScopeAnalysis
import ScopeCore

/// `security.legacy-pairing` — guidance 9: use LE Secure Connections.
///
/// Judges pairings that negotiated a method (Pairing Request + Pairing Response): violated when
/// LE legacy pairing was used instead of LE Secure Connections (the SC bit of AuthReq not set on
/// both sides). Legacy pairing's Just Works and Passkey keys can be cracked from a sniffed
/// exchange.
///
/// Usual cause: a peripheral firmware (or an old stack) without LE Secure Connections support;
/// iOS and Android set the SC flag themselves, so the fix is usually on the peripheral (Zephyr:
/// `CONFIG_BT_SMP_SC_ONLY`; BlueZ: `mgmt` Secure Connections setting).
package struct SecurityLegacyPairing: ItemRule {
    package static let id = "security.legacy-pairing"
    package static let guidance = 9
    package static let defaultSeverity = Severity.warning
    package static let summary = "Pairing uses LE legacy pairing instead of LE Secure Connections"
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Pairings judged.
        var pairings = 0
        /// The pairings that used LE Secure Connections.
        var secureConnections = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let context = PlatformContext(view.platform, config)
        for (i, p) in view.pairings.enumerated() where p.response != nil {
            t.pairings += 1
            let k = key(0, Int(p.request.frame), i)
            let frames = { "\(p.request.frame)/\(p.response?.frame ?? 0)" }
            let req = p.initiator?.secureConnections ?? false
            let rsp = p.responder?.secureConnections ?? false
            let flags = { "Secure Connections flag: \(req ? "set" : "not set") in the Pairing Request, \(rsp ? "set" : "not set") in the Pairing Response" }
            if p.secureConnections || (req && rsp) {
                t.secureConnections.note(k) { "pairing at frames \(frames()): \(flags()) -> LE Secure Connections" }
            } else {
                let lacking = p.lacking(\.secureConnections)
                let attribution = p.attribution(lacking: lacking, local: view.localAttribution(ofPairingLink: p.connection))
                let remote = attribution.signal == .remotePairingFeatures
                // The remote central's Pairing Request lacked it (this host is the peripheral and
                // offered it): the platform advice, written for a phone that is the central,
                // would point at this device.
                let remoteCentral = remote && p.requestSide == .remote && lacking.request && !lacking.response
                t.finding(k, Self.defaultSeverity, actor: context.actor(attribution)) {
                    let who = [lacking.request ? p.pduText(request: true) : nil, lacking.response ? p.pduText(request: false) : nil]
                        .compactMap { $0 }.joined(separator: " and ")
                    return finding(
                        subject: "pairing at frame \(p.request.frame)",
                        shows: "pairing at frames \(frames()): \(flags()) -> LE legacy pairing; Secure Connections missing from \(who)",
                        cause: remoteCentral
                            ? "The remote central's stack or firmware does not offer LE Secure Connections: its Pairing Request lacks the flag, while this device, the peripheral, offered it in its Pairing Response"
                            : remote
                                ? "The peer's stack or firmware does not offer LE Secure Connections (iOS and Android request it themselves)"
                                : "The local host did not offer LE Secure Connections in its pairing PDU",
                        evidence: [p.request.frame, p.response?.frame],
                        fix: remoteCentral
                            ? "Enable LE Secure Connections in the central's firmware (the remote device); nothing on this device can change what the central asks for, short of refusing legacy pairing (Secure Connections only mode) if the central supports Secure Connections at all."
                            : remote
                                ? "Enable LE Secure Connections in the peer's firmware (and consider SC-only mode)."
                                : "Enable LE Secure Connections in the local stack (Zephyr: CONFIG_BT_SMP_SC_ONLY or SC support; BlueZ: Secure Connections in main.conf).",
                        platform: remoteCentral ? context.platform : nil,
                        attribution: attribution, context: context)
                }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.pairings > 0 else {
            return notEvaluated("no pairing negotiated (Pairing Request + Pairing Response) in this capture")
        }
        return verdict(t.findingList, passReason: t.secureConnections.joined(separator: "; "))
    }
}
