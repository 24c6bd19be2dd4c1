import ScopeCore

/// A device identity learned from SMP key distribution: its Identity Resolving Key (Identity
/// Information, 0x08) and identity address (Identity Address Information, 0x09). Resolvable private
/// addresses generated with the IRK are the same device (Core v5.4 Vol 3 Part H §2.4.2.3, Vol 6
/// Part B §1.3.2.3).
package struct Identity: Sendable, Hashable {
    package var address: BDAddr
    /// 0x00 public, 0x01 static random.
    package var addressType: UInt8
    /// IRK as carried on the wire (least significant octet first).
    package var irk: [UInt8]
    /// Who distributed it: `.remote` for the peer's identity, `.local` for the host's own.
    package var distributedBy: Side
    package var learned: FrameTime
    /// Resolvable private addresses seen in the capture that this IRK resolves.
    package var resolvedAddresses: [BDAddr] = []

    package init(address: BDAddr, addressType: UInt8, irk: [UInt8], distributedBy: Side, learned: FrameTime) {
        self.address = address
        self.addressType = addressType
        self.irk = irk
        self.distributedBy = distributedBy
        self.learned = learned
    }
}
