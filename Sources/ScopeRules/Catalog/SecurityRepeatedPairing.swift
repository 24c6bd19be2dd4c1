import ScopeAnalysis
import ScopeCore

/// `security.repeated-pairing` — guidance 9: pair once and keep the bond.
///
/// Judges successful pairings with bonding on both sides: violated (warning) when the same peer
/// (its identity address when resolved) had already bonded earlier in the capture — the bond was
/// deleted on one side and made again, usually on every connection.
///
/// Usual cause: the app removes the bond (Android `removeBond` through reflection, "forget" in
/// a settings flow) or the peripheral erases its keys at each connection or reset; or the
/// peripheral does not distribute its identity key, so the phone cannot recognise it.
package struct SecurityRepeatedPairing: ItemRule {
    package static let id = "security.repeated-pairing"
    package static let guidance = 9
    package static let defaultSeverity = Severity.warning
    package static let summary = "A peer that already bonded pairs again (the bond is deleted and re-created)"
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Successful pairings judged.
        var pairings = 0
        /// The pairings that were the first bond with their peer.
        var firstBonds = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let context = PlatformContext(view.platform, config)
        for (i, p) in view.pairings.enumerated() where p.result == .success {
            t.pairings += 1
            let k = key(0, Int(p.request.frame), i)
            guard let earlier = p.repeatsBond else {
                t.firstBonds.note(k) { "pairing at frame \(p.request.frame): the first bond with its peer in this capture" }
                continue
            }
            // Whoever asked for the pairing had no keys: the peer when it sent the Security
            // Request or the Pairing Request, else the local side.
            let byPeer = p.initiatedBy == .remote || p.securityRequest != nil
            let attribution = byPeer ? ActorEvidence(.remotePairingFeatures, frame: p.securityRequest?.frame ?? p.request.frame)
                : view.localAttribution(ofPairingLink: p.connection)
            t.finding(k, Self.defaultSeverity, actor: context.actor(attribution)) {
                finding(
                    subject: "pairing at frame \(p.request.frame)",
                    shows:
                        "pairing at frame \(p.request.frame) bonds again with a peer that already bonded at frame \(earlier.frame) in this capture"
                        + (byPeer ? " (the peer asked: it had no keys)" : " (the local host asked: it had no keys)"),
                    cause: byPeer
                        ? "The peripheral forgets its bonds (keys not kept across resets or connections)"
                        : "The app or the phone deletes the bond between connections (Android: removeBond, a \"forget device\" flow), or the peer's identity is not recognised",
                    evidence: [earlier.frame, p.securityRequest?.frame, p.request.frame],
                    fix: "Keep the bond: store keys on the peripheral, never remove the bond from the app, and distribute the identity key so the phone recognises the peer.",
                    attribution: attribution, context: context)
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.pairings > 0 else { return notEvaluated("no successful pairing in this capture") }
        return verdict(t.findingList, passReason: t.firstBonds.joined(separator: "; "))
    }
}
