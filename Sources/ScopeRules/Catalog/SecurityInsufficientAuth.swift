import ScopeAnalysis
import ScopeCore
import ScopeDecode

/// `security.insufficient-auth` — guidance 9: protect sensitive characteristics with
/// encryption/authentication; the peer then pairs.
///
/// Judges ATT Error Responses Insufficient Authentication (0x05), Insufficient Encryption (0x0F)
/// and Insufficient Encryption Key Size (0x0C): violated when such an error is not followed, on
/// that connection, by successful pairing or encryption — the access failed for good. When pairing
/// or encryption follows, the rule passes: that is the intended flow (the server protects the
/// characteristic, the client pairs and retries).
///
/// Usual cause: the app reads/writes a protected characteristic and never triggers pairing — on
/// iOS pairing starts automatically on this error, so a failure usually means the user declined,
/// or the peripheral doesn't support pairing; on Android `createBond()` is needed for some
/// stacks; BlueZ needs an agent (`RegisterAgent`) to answer.
package struct SecurityInsufficientAuth: ItemRule {
    package static let id = "security.insufficient-auth"
    package static let guidance = 9
    package static let defaultSeverity = Severity.warning
    package static let summary = "An access failed for lack of authentication/encryption and no pairing fixed it"
    package static let scope = RuleScope.connection
    package init() {}

    /// The Error Response codes judged (their names are ScopeDecode's `ATTErrorCode`'s).
    static let codes: Set<ATTErrorCode> = [.insufficientAuthentication, .insufficientEncryption, .insufficientEncryptionKeySize]

    /// The Error Responses of one connection with one of `codes`.
    struct Fold: Sendable {
        var errors: [ATTEvent] = []

        mutating func add(_ e: ATTEvent) {
            guard e.opcode == ATTOpcode.errorResponse.rawValue, let code = e.errorCode, SecurityInsufficientAuth.codes.contains(ATTErrorCode(code)) else { return }
            errors.append(e)
        }
    }

    struct State: RuleState {
        var findings = FindingTally()
        /// Insufficient authentication or encryption errors judged.
        var errors = 0
        /// The errors followed by successful encryption.
        var fixedByEncryption = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let analysis = view.detail, facts = view.facts
        let context = PlatformContext(view.platform, config)
        for (i, c) in analysis.connections.enumerated() {
            for (j, e) in facts.folds(analysis, i, config: config).insufficient.errors.enumerated() {
                guard let code = e.errorCode, Self.codes.contains(ATTErrorCode(code)), let codeName = ATTErrorCode(code).name else { continue }
                t.errors += 1
                let k = key(0, Int(c.firstSeen), i, j)
                let req = e.requestOpcodeInError.flatMap { ATTOpcode($0).name } ?? "request"
                let handle = e.handle.map { " of handle \(Text.hex4($0))" } ?? ""
                let sensitive = e.handle.flatMap { c.characteristic(valueHandle: $0, server: e.server) }.map { config.isSensitive(uuid: $0.uuid) } ?? false
                let head =
                    "frame \(e.at.frame): \(req)\(handle) answered \(codeName) (\(Text.hex2(code))) on \(c.label)"
                    + (sensitive ? " (a characteristic configured as sensitive)" : "")
                let pairing = analysis.pairings.first { $0.connection == c.id && $0.request.frame > e.at.frame }
                // Where the link was encrypted after the error: the first such change among the
                // first changes kept, else the latest one (the list keeps the first ones only),
                // else the encryption of a successful pairing after it.
                let pairedOK = analysis.pairings.first {
                    $0.connection == c.id && $0.request.frame > e.at.frame && $0.result == .success
                }
                let encryptedAt =
                    c.encryptionChanges.kept.first { $0.at.frame > e.at.frame && $0.leavesEncrypted }?.at
                    ?? c.encryption.lastSuccess.flatMap { $0.frame > e.at.frame ? $0 : nil }
                    ?? pairedOK?.encryption
                if let encryptedAt {
                    let pText = pairing.map { "Pairing Request frame \($0.request.frame), then " } ?? ""
                    t.fixedByEncryption.note(k) { "\(head); \(pText)Encryption Change 0x00 (frame \(encryptedAt.frame))" }
                    continue
                }
                var tail = "no pairing attempted"
                var evidence: [FrameNumber?] = [e.at.frame]
                if let p = pairing {
                    tail = "Pairing Request frame \(p.request.frame)"
                    if let f = p.failed {
                        tail += ", SMP Pairing Failed (frame \(f.frame), reason \(Text.hex2(p.reason ?? 0)))"
                        evidence.append(f.frame)
                    }
                }
                let attribution = c.attribution(client: e.clientSide)
                t.finding(k, Self.defaultSeverity, actor: context.actor(attribution)) {
                    finding(
                        subject: "\(c.label) frame \(e.at.frame)",
                        shows: "\(head); \(tail); no successful pairing or encryption followed on that connection",
                        cause:
                            "The characteristic requires a secure link and the client never completed pairing: the user declined the pairing prompt, the peripheral does not support pairing, or the app retried without bonding (Android: createBond() first; BlueZ: no pairing agent registered)",
                        evidence: evidence,
                        fix: "Pair (bond) before using protected characteristics and handle a declined pairing in the app.",
                        attribution: attribution, context: context)
                }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.errors > 0 else {
            if let r = end.detail.attIncompleteReason { return notEvaluated(r) }
            return notEvaluated(
                "no ATT Error Response with Insufficient Authentication / Encryption / Encryption Key Size in this capture")
        }
        return verdict(t.findingList, passReason: "every such error was followed by successful encryption on its connection: " + t.fixedByEncryption.joined(separator: "; "))
    }
}
