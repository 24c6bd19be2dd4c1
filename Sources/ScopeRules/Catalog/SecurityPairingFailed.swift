import ScopeAnalysis
import ScopeCore
import ScopeDecode

/// `security.pairing-failed` — guidance 9: pairing and encryption must succeed for protected data.
///
/// Judges pairings and encryption starts: violated (error) on SMP Pairing Failed, or an
/// Encryption Change / Encryption Key Refresh Complete with an error status (e.g. 0x06 PIN or Key
/// Missing: the peer lost its bond).
///
/// Usual cause: the user declined or mistyped the passkey, the peripheral does not support
/// pairing, or one side deleted the bond (iOS: "Forget This Device" / the peripheral erased its
/// keys; Android: `removeBond`; BlueZ: `RemoveDevice`) so encryption with the old LTK fails. A
/// Pairing Failed the local host sends within a second of the peer's Security Request, before
/// any Pairing Request, is its stack's refusal (no one could have been asked): the finding says so
/// and advises bonding from the app.
package struct SecurityPairingFailed: ItemRule {
    package static let id = "security.pairing-failed"
    package static let guidance = 9
    package static let defaultSeverity = Severity.error
    /// A Pairing Failed sent sooner than this after the peer's Security Request is the stack's
    /// answer: no user could have been asked.
    static let promptMicros: Int64 = 1_000_000
    package static let summary = "Pairing or encryption failed"
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Pairings judged.
        var pairings = 0
        /// Encryption changes.
        var encryptionChanges = 0
        /// Encryption changes that succeeded.
        var encryptionsSucceeded = 0
        /// Failures that a lost link caused (not failures of pairing).
        var cutByLinkLoss = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let context = PlatformContext(view.platform, config)
        for (i, p) in view.pairings.enumerated() {
            t.pairings += 1
            if let lost = p.linkLost {
                t.cutByLinkLoss.note(key(0, Int(p.request.frame), i)) { "pairing at frame \(p.request.frame): cut off by a lost link (Encryption Change status 0x08 at frame \(lost.frame); conn.link-lost)" }
            }
            guard let f = p.failed else { continue }
            let by = p.failedSentBy.map { $0 == .local ? "sent" : ($0 == .remote ? "received" : "") } ?? ""
            // The side that failed it: the peer's Pairing Failed is the peer's; the local host's
            // (or a failed encryption) is whoever drives the local side of the link.
            let attribution =
                p.failedSentBy == .remote ? ActorEvidence(.remoteEnded, frame: f.frame)
                : view.localAttribution(ofPairingLink: p.connection)
            // The local host refused the peer's Security Request at once: no one was asked, the
            // stack declined (bbmp: Pairing Not Supported 0.5 ms after it).
            let answered = f.time.microseconds &- p.request.time.microseconds
            let declinedAtOnce =
                p.initiator == nil && p.securityRequest != nil && p.initiatedBy == .remote && p.failedSentBy == .local
                && answered >= 0 && answered < Self.promptMicros
            t.finding(key(0, Int(p.request.frame), i), Self.defaultSeverity, actor: context.actor(attribution)) {
                finding(
                    subject: "pairing at frame \(p.request.frame)",
                    shows: "SMP Pairing Failed, reason \(SMPPairingFailedReason(p.reason ?? 0)) (frame \(f.frame)\(by.isEmpty ? "" : ", \(by)"))"
                        + (p.initiator == nil && p.securityRequest != nil
                            ? ", answering the \(p.initiatedBy == .remote ? "peer's" : "local host's") Security Request (frame \(p.request.frame))"
                                + (declinedAtOnce ? " \(Text.millis(answered)) after it," : "") + " before any Pairing Request" : ""),
                    cause: declinedAtOnce
                        ? "The local stack refused the peripheral's request to pair at once, too soon for anyone to have been "
                            + "asked: this host does not pair with the device on the peripheral's request (no user cancelled, no "
                            + "passkey was typed)"
                        : "The user declined or mistyped the passkey, the peripheral does not support pairing, or one side's bond was deleted",
                    evidence: declinedAtOnce ? [p.request.frame, f.frame] : [f.frame],
                    fix: declinedAtOnce
                        ? "If the device must be bonded, bond from the app (Android: `createBond()`; iOS: access a characteristic "
                            + "that requires encryption) instead of relying on the peripheral's Security Request; on the peripheral, "
                            + "send it only on a link that is not being encrypted with stored keys."
                        : "Handle pairing errors in the app (peripheral(_:didFailToConnect:) / onBondStateChanged) and ask the user to forget and re-pair.",
                    platform: declinedAtOnce ? context.platform : nil,
                    attribution: attribution, context: context)
            }
        }
        // Failed encryption not already reported as a pairing failure (of the same link).
        let reported = Set(view.connectionPairings.compactMap { $0.failed?.frame })
        for (i, c) in view.connections.enumerated() {
            // Every change counts; the failures are listed among the first changes kept.
            if !c.encryptionChanges.isEmpty { t.encryptionChanges += c.encryptionChanges.count }
            if c.encryption.succeeded > 0 { t.encryptionsSucceeded += c.encryption.succeeded }
            for (j, e) in c.encryptionChanges.kept.enumerated() {
                guard e.status != 0, !reported.contains(e.at.frame) else { continue }
                // Connection Timeout: the link was lost, not the keys (conn.link-lost).
                guard !LinkEnd.isLinkLoss(e.status) else {
                    t.cutByLinkLoss.note(key(1, Int(c.firstSeen), i, j)) { "\(c.label): encryption cut off by a lost link (status 0x08 at frame \(e.at.frame); conn.link-lost)" }
                    continue
                }
                // A missing key (0x06): as central the peer answered without it; as peripheral
                // the local host had none to give.
                let attribution = c.role == .central ? ActorEvidence(.remoteEnded, frame: e.at.frame) : c.localAttribution
                t.finding(key(1, Int(c.firstSeen), i, j), Self.defaultSeverity, actor: context.actor(attribution)) {
                    finding(
                        subject: c.label,
                        shows:
                            "\(e.isKeyRefresh ? "Encryption Key Refresh Complete" : "Encryption Change") with status \(Text.hex2(e.status)) (frame \(e.at.frame)) on \(c.label)",
                        cause:
                            "Usually one side lost the bond (status 0x06 PIN or Key Missing): the peripheral erased its keys or the phone forgot the device",
                        evidence: [e.at.frame],
                        fix: "Remove the stale bond on both sides and pair again.", attribution: attribution, context: context)
                }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.pairings > 0 || t.encryptionChanges > 0 else {
            return notEvaluated("no SMP pairing and no encryption in this capture")
        }
        return verdict(
            t.findingList,
            passReason: "\(t.pairings) pairing(s), \(t.encryptionsSucceeded) successful encryption change(s), no failure"
                + (t.cutByLinkLoss.isEmpty ? "" : "; not failures: " + t.cutByLinkLoss.joined(separator: "; ")))
    }
}
