import ScopeCore
import ScopeDecode

extension PairingTracker {
    /// Resolves every resolvable private address in devices, attempts and connections against
    /// the IRKs learned (at the end, so addresses seen before the pairing resolve too).
    func resolveAddresses(in result: inout AnalysisResult) {
        guard resolvePrivateAddresses, !result.identities.isEmpty else { return }
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

