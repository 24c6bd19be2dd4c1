import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    mutating func smp(_ pdu: SMPPDU, connection i: Int, direction: Direction, at: FrameTime) {
        let side: Side = direction == .sent ? .local : direction == .received ? .remote : .unknown
        let id = result.connections[i].id
        switch pdu.code {
        case .securityRequest:
            pendingSecurityRequest[id] = at
        case .pairingRequest:
            guard let f = pdu.pairingFeatures else { return }
            var pairing = Pairing(connection: id, request: at, initiatedBy: side)
            pairing.securityRequest = pendingSecurityRequest.removeValue(forKey: id)
            pairing.initiator = Self.features(f)
            pairing.ordinal = result.retired.pairings + result.pairings.count
            result.pairings.append(pairing)
            itemsSinceCheck += 1
            openPairing[id] = pairing.ordinal
        case .pairingResponse:
            guard let f = pdu.pairingFeatures, let p = openPairing[id].flatMap({ result.pairings.position(of: $0) }) else { return }
            var pairing = result.pairings[p]
            pairing.response = at
            let responder = Self.features(f)
            pairing.responder = responder
            if let initiator = pairing.initiator {
                pairing.secureConnections = initiator.secureConnections && responder.secureConnections
                pairing.method = PairingMethod.method(initiator: initiator, responder: responder, secureConnections: pairing.secureConnections)
            }
            result.pairings[p] = pairing
        case .identityInformation, .identityAddressInformation:
            identityKey(pdu, connection: i, direction: direction, at: at)
        case .pairingFailed:
            guard let p = openPairing.removeValue(forKey: id).flatMap({ result.pairings.position(of: $0) }) else { return }
            result.pairings[p].result = .failed
            result.pairings[p].reason = pdu.failureReason?.rawValue
            result.pairings[p].failed = at
            result.pairings[p].failedSentBy = side
        default:
            break
        }
    }

    static func features(_ f: SMPPairingFeatures) -> Pairing.Features {
        Pairing.Features(
            ioCapability: f.ioCapability.rawValue, oobDataPresent: f.oobDataFlag == 0x01, authReq: f.authReq.rawValue,
            maxKeySize: f.maxEncryptionKeySize, initiatorKeys: f.initiatorKeyDistribution.rawValue,
            responderKeys: f.responderKeyDistribution.rawValue)
    }

    /// Encryption Change (or Key Refresh on an encrypted link) after the SMP exchange decides it.
    mutating func pairingEncryption(connection i: Int, change: EncryptionChange, wasEncrypted: Bool) {
        let id = result.connections[i].id
        guard let p = openPairing[id].flatMap({ result.pairings.position(of: $0) }) else { return }
        if change.isKeyRefresh && !wasEncrypted { return }
        openPairing[id] = nil
        result.pairings[p].encryption = change.at
        if change.status == 0 && (change.isKeyRefresh || (change.enabled ?? 0) != 0) {
            result.pairings[p].result = .success
        } else {
            result.pairings[p].result = .failed
            result.pairings[p].reason = change.status
            result.pairings[p].failed = change.at
            result.pairings[p].failedSentBy = .unknown
        }
    }
}

/// The association model of Core v5.4, Vol 3, Part H, §2.3.5.1 (Tables 2.6–2.8).
enum PairingMethod {
    static func method(initiator: Pairing.Features, responder: Pairing.Features, secureConnections sc: Bool) -> Pairing.Method {
        if sc {
            if initiator.oobDataPresent || responder.oobDataPresent { return .outOfBand }
        } else if initiator.oobDataPresent && responder.oobDataPresent {
            return .outOfBand
        }
        if !initiator.mitm && !responder.mitm { return .justWorks }
        return ioTable(initiator: initiator.ioCapability, responder: responder.ioCapability, secureConnections: sc)
    }

    /// Table 2.8: rows are the responder's IO capability, columns the initiator's.
    /// 0 DisplayOnly, 1 DisplayYesNo, 2 KeyboardOnly, 3 NoInputNoOutput, 4 KeyboardDisplay.
    static func ioTable(initiator i: UInt8, responder r: UInt8, secureConnections sc: Bool) -> Pairing.Method {
        guard i <= 4, r <= 4 else { return .unknown }
        let jw = Pairing.Method.justWorks, pk = Pairing.Method.passkeyEntry
        let nc: Pairing.Method = sc ? .numericComparison : .justWorks
        let ncOrPk: Pairing.Method = sc ? .numericComparison : .passkeyEntry
        let table: [[Pairing.Method]] = [
            // initiator: DO, DYN, KO, NoIO, KD
            [jw, jw, pk, jw, pk],  // responder DisplayOnly
            [jw, nc, pk, jw, ncOrPk],  // responder DisplayYesNo
            [pk, pk, pk, jw, pk],  // responder KeyboardOnly
            [jw, jw, jw, jw, jw],  // responder NoInputNoOutput
            [pk, ncOrPk, pk, jw, ncOrPk],  // responder KeyboardDisplay
        ]
        return table[Int(r)][Int(i)]
    }
}
