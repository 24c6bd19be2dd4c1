import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    /// SMP Identity Information (IRK) and Identity Address Information, in that order per
    /// distribution (Core v5.4 Vol 3 Part H §3.6.4–3.6.5).
    mutating func identityKey(_ pdu: SMPPDU, connection i: Int, direction: Direction, at: FrameTime) {
        let key = IdentityKey(connection: result.connections[i].id, direction: direction)
        switch pdu.parameters {
        case .identityInformation(let irk) where irk.count == 16:
            pendingIRK[key] = (irk, at)
        case .identityAddressInformation(let type, let address):
            guard let (irk, learned) = pendingIRK.removeValue(forKey: key) else { return }
            let side: Side = direction == .sent ? .local : direction == .received ? .remote : .unknown
            // The same identity distributed again (every bonding repeats it) adds nothing.
            guard !result.identities.contains(where: { $0.address == address && $0.addressType == type && $0.irk == irk && $0.distributedBy == side })
            else { return }
            result.identities.append(Identity(address: address, addressType: type, irk: irk, distributedBy: side, learned: learned))
            identityCache = [:]
        default:
            break
        }
    }

    /// Resolves every resolvable private address in devices, attempts and connections against
    /// the IRKs learned (at the end, so addresses seen before the pairing resolve too).
    mutating func resolvePrivateAddresses() {
        guard resolvePrivateAddressesEnabled, !result.identities.isEmpty else { return }
        var cache: [BDAddr: Int?] = [:]
        func identity(of address: BDAddr?) -> BDAddr? {
            guard let address, address.value >> 46 == 0b01 else { return nil }
            if let hit = cache[address] { return hit.map { result.identities[$0].address } }
            let found = result.identities.firstIndex { RPAResolver.resolves(address.value, irkWire: $0.irk) }
            cache[address] = .some(found)
            if let found, !result.identities[found].resolvedAddresses.contains(address) {
                result.identities[found].resolvedAddresses.append(address)
            }
            return found.map { result.identities[$0].address }
        }
        for i in result.devices.indices { result.devices[i].identity = identity(of: result.devices[i].address) }
        for i in result.attempts.indices { result.attempts[i].peerIdentity = identity(of: result.attempts[i].peer) }
        for i in result.connections.indices { result.connections[i].peerIdentity = identity(of: result.connections[i].peer) }
    }
}

struct IdentityKey: Hashable, Sendable {
    var connection: ConnectionID
    var direction: Direction
}
