import ScopeCore
import ScopeDecode

/// Pairing: the SMP exchanges of each connection, from the Pairing Request to the encryption
/// (or failure) that decides them, and the identities (IRK and identity address) they
/// distribute. Fed by SMP PDUs and encryption events; owned by `AnalysisBuilder`.
struct PairingTracker: Sendable {
    private(set) var pairings = HeldList<Pairing, Int>()
    /// Per connection, the id of its pairing still in progress.
    private(set) var open: [ConnectionID: Int] = [:]
    /// IRKs waiting for their Identity Address Information, per connection and direction.
    private var pendingIRK: [IdentityKey: ([UInt8], FrameTime)] = [:]
    /// A Security Request not yet followed by a Pairing Request, and who sent it.
    private var pendingSecurityRequest: [ConnectionID: (at: FrameTime, sentBy: Side)] = [:]
    /// Identities learned from SMP key distribution.
    private(set) var identities: [Identity] = []
    /// Resolve resolvable private addresses with the IRKs the capture distributes (on by default).
    /// A setting (`AnalysisBuilder.resolvePrivateAddressesEnabled`), not state.
    var resolvePrivateAddresses = true
    private var identityCache: [BDAddr: BDAddr?] = [:]
    /// Peers a pairing with bonding succeeded with, and its Pairing Request (at most
    /// `bondedPeersLimit`).
    private var bondedPeers: [BDAddr: FrameTime] = [:]
    static let bondedPeersLimit = 4096
}

extension PairingTracker {
    /// One SMP PDU on connection `id`.
    mutating func smp(_ pdu: SMPPDU, connection id: ConnectionID, direction: Direction, at: FrameTime) {
        let side: Side = direction == .sent ? .local : direction == .received ? .remote : .unknown
        switch pdu.code {
        case .securityRequest:
            pendingSecurityRequest[id] = (at, side)
        case .pairingRequest:
            guard let f = pdu.pairingFeatures else { return }
            var pairing = Pairing(connection: id, request: at, initiatedBy: side)
            pairing.securityRequest = pendingSecurityRequest.removeValue(forKey: id)?.at
            pairing.initiator = Self.features(f)
            open[id] = pairings.append(pairing)
        case .pairingResponse:
            guard let f = pdu.pairingFeatures, let p = open[id].flatMap({ pairings.position(of: $0) }) else { return }
            var pairing = pairings[p]
            pairing.response = at
            let responder = Self.features(f)
            pairing.responder = responder
            if let initiator = pairing.initiator {
                pairing.secureConnections = initiator.secureConnections && responder.secureConnections
                pairing.method = PairingMethod.method(initiator: initiator, responder: responder, secureConnections: pairing.secureConnections)
            }
            pairings[p] = pairing
        case .identityInformation, .identityAddressInformation:
            identityKey(pdu, connection: id, direction: direction, at: at)
        case .pairingFailed:
            // A Security Request answered with Pairing Failed: a pairing refused before it began
            // (its exchange starts at the Security Request, asked for by its sender).
            if open[id] == nil, let asked = pendingSecurityRequest.removeValue(forKey: id) {
                var refused = Pairing(connection: id, request: asked.at, initiatedBy: asked.sentBy)
                refused.securityRequest = asked.at
                open[id] = pairings.append(refused)
            }
            guard let p = open.removeValue(forKey: id).flatMap({ pairings.position(of: $0) }) else { return }
            pairings[p].result = .failed
            pairings[p].reason = pdu.failureReason?.rawValue
            pairings[p].failed = at
            pairings[p].failedSentBy = side
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
    /// `peer`: the connection's peer (its identity when resolved).
    mutating func encryption(connection id: ConnectionID, change: EncryptionChange, wasEncrypted: Bool, peer: BDAddr?) {
        guard let p = open[id].flatMap({ pairings.position(of: $0) }) else { return }
        defer { noteBond(p, peer: peer) }
        if change.isKeyRefresh && !wasEncrypted { return }
        open[id] = nil
        pairings[p].encryption = change.at
        if LinkEnd.isLinkLoss(change.status) {
            // Connection Timeout: the link was lost while encryption started; the pairing did
            // not fail, it was cut off (conn.link-lost reports the link).
            pairings[p].linkLost = change.at
        } else if change.status == 0 && (change.isKeyRefresh || (change.enabled ?? 0) != 0) {
            pairings[p].result = .success
        } else {
            pairings[p].result = .failed
            pairings[p].reason = change.status
            pairings[p].failed = change.at
            pairings[p].failedSentBy = .unknown
        }
    }

    /// A pairing that succeeded with bonding on both sides: a second one with the same peer means
    /// the bond was deleted and made again (`Pairing.repeatsBond`).
    private mutating func noteBond(_ p: Int, peer: BDAddr?) {
        let pairing = pairings[p]
        guard pairing.result == .success, let peer, pairing.initiator?.bonding == true, pairing.responder?.bonding == true
        else { return }
        if let earlier = bondedPeers[peer] {
            pairings[p].repeatsBond = earlier
        } else if bondedPeers.count < Self.bondedPeersLimit {
            bondedPeers[peer] = pairing.request
        }
    }

    /// The link went away: a pairing still open stays incomplete, and no identity key can follow.
    mutating func connectionClosed(_ id: ConnectionID) {
        open[id] = nil
        pendingSecurityRequest[id] = nil
        if !pendingIRK.isEmpty { pendingIRK = pendingIRK.filter { $0.key.connection != id } }
    }

    /// SMP Identity Information (IRK) and Identity Address Information, in that order per
    /// distribution (Core v5.4 Vol 3 Part H §3.6.4–3.6.5).
    mutating func identityKey(_ pdu: SMPPDU, connection id: ConnectionID, direction: Direction, at: FrameTime) {
        let key = IdentityKey(connection: id, direction: direction)
        switch pdu.parameters {
        case .identityInformation(let irk) where irk.count == 16:
            pendingIRK[key] = (irk, at)
        case .identityAddressInformation(let type, let address):
            guard let (irk, learned) = pendingIRK.removeValue(forKey: key) else { return }
            let side: Side = direction == .sent ? .local : direction == .received ? .remote : .unknown
            // The same identity distributed again (every bonding repeats it) adds nothing.
            guard !identities.contains(where: { $0.address == address && $0.addressType == type && $0.irk == irk && $0.distributedBy == side })
            else { return }
            identities.append(Identity(address: address, addressType: type, irk: irk, distributedBy: side, learned: learned))
            identityCache = [:]
        default:
            break
        }
    }

    /// The identity address of `address` as far as the IRKs learned so far tell (resolvable
    /// private addresses only).
    mutating func identitySoFar(_ address: BDAddr) -> BDAddr? {
        guard resolvePrivateAddresses, !identities.isEmpty, address.value >> 46 == 0b01 else { return nil }
        if let hit = identityCache[address] { return hit }
        let found = identities.first { RPAResolver.resolves(address.value, irkWire: $0.irk) }?.address
        identityCache[address] = .some(found)
        return found
    }
}

struct IdentityKey: Hashable, Sendable {
    var connection: ConnectionID
    var direction: Direction
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

extension PairingTracker {
    /// Drops the pairings at `positions` (handed over with their connections).
    mutating func removePairings(_ positions: [Int]) {
        pairings.remove(positions)
    }
}
