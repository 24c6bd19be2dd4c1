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
/// keys; Android: `removeBond`; BlueZ: `RemoveDevice`) so encryption with the old LTK fails.
package struct SecurityPairingFailed: ItemRule {
    package static let id = "security.pairing-failed"
    package static let guidance = 9
    package static let defaultSeverity = Severity.error
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
            t.finding(key(0, Int(p.request.frame), i), Self.defaultSeverity, actor: context.actor(attribution)) {
                finding(
                    subject: "pairing at frame \(p.request.frame)",
                    shows: "SMP Pairing Failed, reason \(SMPPairingFailedReason(p.reason ?? 0)) (frame \(f.frame)\(by.isEmpty ? "" : ", \(by)"))"
                        + (p.initiator == nil && p.securityRequest != nil
                            ? ", answering the \(p.initiatedBy == .remote ? "peer's" : "local host's") Security Request (frame \(p.request.frame)) before any Pairing Request" : ""),
                    cause:
                        "The user declined or mistyped the passkey, the peripheral does not support pairing, or one side's bond was deleted",
                    evidence: [f.frame],
                    fix: "Handle pairing errors in the app (peripheral(_:didFailToConnect:) / onBondStateChanged) and ask the user to forget and re-pair.",
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
