import ScopeAnalysis
import ScopeCore

/// `security.pairing-failed` — guidance 9: pairing and encryption must succeed for protected data.
///
/// Judges pairings and encryption starts: violated (error) on SMP Pairing Failed, or an
/// Encryption Change / Encryption Key Refresh Complete with an error status (e.g. 0x06 PIN or Key
/// Missing: the peer lost its bond).
///
/// Usual cause: the user declined or mistyped the passkey, the peripheral does not support
/// pairing, or one side deleted the bond (iOS: "Forget This Device" / the peripheral erased its
/// keys; Android: `removeBond`; BlueZ: `RemoveDevice`) so encryption with the old LTK fails.
public struct SecurityPairingFailed: ItemRule {
    public static let id = "security.pairing-failed"
    public static let guidance = 9
    public static let defaultSeverity = Severity.error
    public static let summary = "Pairing or encryption failed"
    public init() {}

    func tally(_ view: ItemView, config: RuleConfiguration) -> ItemTally {
        var t = ItemTally()
        for (i, p) in view.pairings.enumerated() {
            t.tick(0)
            guard let f = p.failed else { continue }
            let by = p.failedSentBy.map { $0 == .local ? "sent" : ($0 == .remote ? "received" : "") } ?? ""
            t.finding(key(0, Int(p.request.frame), i), Self.defaultSeverity) {
                finding(
                    subject: "pairing at frame \(p.request.frame)",
                    shows: "SMP Pairing Failed, reason \(Text.hex2(p.reason ?? 0)) (frame \(f.frame)\(by.isEmpty ? "" : ", \(by)"))",
                    cause:
                        "The user declined or mistyped the passkey, the peripheral does not support pairing, or one side's bond was deleted",
                    evidence: [f.frame],
                    fix: "Handle pairing errors in the app (peripheral(_:didFailToConnect:) / onBondStateChanged) and ask the user to forget and re-pair.")
            }
        }
        // Failed encryption not already reported as a pairing failure (of the same link).
        let reported = Set(view.connectionPairings.compactMap { $0.failed?.frame })
        for (i, c) in view.connections.enumerated() {
            // Every change counts; the failures are listed among the first changes kept.
            if !c.encryptionChanges.isEmpty { t.tick(1, c.encryptionChanges.count) }
            if c.encryption.succeeded > 0 { t.tick(2, c.encryption.succeeded) }
            for (j, e) in c.encryptionChanges.kept.enumerated() {
                guard e.status != 0, !reported.contains(e.at.frame) else { continue }
                t.finding(key(1, Int(c.firstSeen), i, j), Self.defaultSeverity) {
                    finding(
                        subject: c.label,
                        shows:
                            "\(e.isKeyRefresh ? "Encryption Key Refresh Complete" : "Encryption Change") with status \(Text.hex2(e.status)) (frame \(e.at.frame)) on \(c.label)",
                        cause:
                            "Usually one side lost the bond (status 0x06 PIN or Key Missing): the peripheral erased its keys or the phone forgot the device",
                        evidence: [e.at.frame],
                        fix: "Remove the stale bond on both sides and pair again.")
                }
            }
        }
        return t
    }

    func verdict(_ t: ItemTally, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.count(0) > 0 || t.count(1) > 0 else {
            return notEvaluated("no SMP pairing and no encryption in this capture")
        }
        return verdict(
            t.findingList,
            passReason: "\(t.count(0)) pairing(s), \(t.count(2)) successful encryption change(s), no failure")
    }
}
