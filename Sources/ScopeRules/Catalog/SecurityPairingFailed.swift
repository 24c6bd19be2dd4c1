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
public struct SecurityPairingFailed: Rule {
    public static let id = "security.pairing-failed"
    public static let guidance = 9
    public static let defaultSeverity = Severity.error
    public static let summary = "Pairing or encryption failed"
    public init() {}

    public func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration) -> RuleVerdict {
        let encryptions = analysis.connections.flatMap { c in c.encryptionChanges.map { (c, $0) } }
        guard !analysis.pairings.isEmpty || !encryptions.isEmpty else {
            return notEvaluated("no SMP pairing and no encryption in this capture")
        }
        var findings = FindingList()
        var reported = Set<FrameNumber>()
        for p in analysis.pairings {
            guard let f = p.failed else { continue }
            reported.insert(f.frame)
            let by = p.failedSentBy.map { $0 == .local ? "sent" : ($0 == .remote ? "received" : "") } ?? ""
            findings.append(
                finding(
                    subject: "pairing at frame \(p.request.frame)",
                    shows: "SMP Pairing Failed, reason \(Text.hex2(p.reason ?? 0)) (frame \(f.frame)\(by.isEmpty ? "" : ", \(by)"))",
                    cause:
                        "The user declined or mistyped the passkey, the peripheral does not support pairing, or one side's bond was deleted",
                    evidence: [f.frame],
                    fix: "Handle pairing errors in the app (peripheral(_:didFailToConnect:) / onBondStateChanged) and ask the user to forget and re-pair."))
        }
        for (c, e) in encryptions where e.status != 0 && !reported.contains(e.at.frame) {
            findings.append(
                finding(
                    subject: c.label,
                    shows:
                        "\(e.isKeyRefresh ? "Encryption Key Refresh Complete" : "Encryption Change") with status \(Text.hex2(e.status)) (frame \(e.at.frame)) on \(c.label)",
                    cause:
                        "Usually one side lost the bond (status 0x06 PIN or Key Missing): the peripheral erased its keys or the phone forgot the device",
                    evidence: [e.at.frame],
                    fix: "Remove the stale bond on both sides and pair again."))
        }
        let ok = encryptions.filter { $0.1.status == 0 }.count
        return verdict(
            findings,
            passReason: "\(analysis.pairings.count) pairing(s), \(ok) successful encryption change(s), no failure")
    }
}
