import ScopeAnalysis
import ScopeCore

/// `security.unauthenticated-pairing` — guidance 9: prefer authenticated pairing when the devices
/// can do it.
///
/// Judges pairings that negotiated a method: violated (info) when Just Works was used although
/// both sides' IO capabilities allowed an authenticated method (Passkey Entry or Numeric
/// Comparison) per the association table of the pairing type in use (Core v5.4 Vol 3 Part H
/// §2.3.5.1: legacy or LE Secure Connections). Just Works gives no MITM protection.
///
/// Usual cause: neither side set the MITM bit (Core Bluetooth decides from the peripheral's
/// characteristic permissions — use `.readEncryptionRequired`/`.writeEncryptionRequired` with
/// authentication on the peripheral; Android: `BluetoothGattCharacteristic.PERMISSION_*_ENCRYPTED_MITM`;
/// BlueZ: `encrypt-authenticated-*` flags).
package struct SecurityUnauthenticatedPairing: ItemRule {
    package static let id = "security.unauthenticated-pairing"
    package static let guidance = 9
    package static let defaultSeverity = Severity.info
    package static let summary = "Just Works pairing although the IO capabilities allow an authenticated method"
    package init() {}

    static let ioNames = ["DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay"]

    /// The best method the IO capability table gives (ignoring MITM and OOB).
    static func bestMethod(initiator i: UInt8, responder r: UInt8, secureConnections sc: Bool) -> Pairing.Method {
        guard i <= 4, r <= 4, i != 3, r != 3 else { return .justWorks }
        let keyboard: Set<UInt8> = [2, 4]
        if keyboard.contains(i) || keyboard.contains(r) {
            // KeyboardDisplay/DisplayYesNo pairs use Numeric Comparison in SC, Passkey in legacy.
            let yesNo: Set<UInt8> = [1, 4]
            if sc && yesNo.contains(i) && yesNo.contains(r) { return .numericComparison }
            return .passkeyEntry
        }
        if sc && i == 1 && r == 1 { return .numericComparison }
        return .justWorks
    }

    static func io(_ v: UInt8?) -> String {
        guard let v else { return "unknown" }
        return Int(v) < ioNames.count ? ioNames[Int(v)] : "reserved \(Text.hex2(v))"
    }

    struct State: RuleState {
        var findings = FindingTally()
        /// Pairings judged.
        var pairings = 0
        /// The pairings that pass, and why.
        var passed = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let context = PlatformContext(view.platform, config)
        for (i, p) in view.pairings.enumerated() where p.response != nil {
            t.pairings += 1
            let k = key(0, Int(p.request.frame), i)
            let frames = { "\(p.request.frame)/\(p.response?.frame ?? 0)" }
            guard let ini = p.initiator, let rsp = p.responder else {
                t.passed.note(k) { "pairing at frames \(frames()): features not decoded" }
                continue
            }
            let type = p.secureConnections ? "LE Secure Connections" : "LE legacy"
            let caps = {
                "IO capabilities \(Self.io(ini.ioCapability)) (initiator) / \(Self.io(rsp.ioCapability)) (responder), MITM requested \(ini.mitm ? "True" : "False")/\(rsp.mitm ? "True" : "False"), \(type)"
            }
            let best = Self.bestMethod(initiator: ini.ioCapability, responder: rsp.ioCapability, secureConnections: p.secureConnections)
            if p.method == .justWorks && best != .justWorks {
                let lacking = p.lacking(\.mitm)
                let attribution = p.attribution(lacking: lacking, local: view.localAttribution(ofPairingLink: p.connection))
                t.finding(k, Self.defaultSeverity, actor: context.actor(attribution)) {
                    let who = [lacking.request ? p.pduText(request: true) : nil, lacking.response ? p.pduText(request: false) : nil]
                        .compactMap { $0 }.joined(separator: " and ")
                    return finding(
                        subject: "pairing at frame \(p.request.frame)",
                        shows: "pairing at frames \(frames()) used Just Works although the \(caps()) allow \(best.rawValue); MITM not requested in \(who.isEmpty ? "either PDU" : who)",
                        cause:
                            "Usually neither side asked for MITM protection: the peripheral's characteristics require encryption but not authentication (iOS: permissions without authentication; Android: PERMISSION_READ_ENCRYPTED instead of PERMISSION_READ_ENCRYPTED_MITM)",
                        evidence: [p.request.frame, p.response?.frame],
                        fix: "Require authenticated (MITM) pairing for sensitive characteristics.", attribution: attribution, context: context)
                }
            } else if p.method == .justWorks {
                t.passed.note(k) { "pairing at frames \(frames()): Just Works, and the \(caps()) allow nothing better" }
            } else {
                t.passed.note(k) { "pairing at frames \(frames()): \(p.method.rawValue) (\(caps()))" }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.pairings > 0 else {
            return notEvaluated("no pairing negotiated (Pairing Request + Pairing Response) in this capture")
        }
        return verdict(t.findingList, passReason: t.passed.joined(separator: "; "))
    }
}
