import ScopeCore

/// A device identity learned from SMP key distribution: its Identity Resolving Key (Identity
/// Information, 0x08) and identity address (Identity Address Information, 0x09). Resolvable private
/// addresses generated with the IRK are the same device (Core v5.4 Vol 3 Part H §2.4.2.3, Vol 6
/// Part B §1.3.2.3).
public struct Identity: Sendable, Hashable {
    public var address: BDAddr
    /// 0x00 public, 0x01 static random.
    public var addressType: UInt8
    /// IRK as carried on the wire (least significant octet first).
    public var irk: [UInt8]
    /// Who distributed it: `.remote` for the peer's identity, `.local` for the host's own.
    public var distributedBy: Side
    public var learned: FrameTime
    /// Resolvable private addresses seen in the capture that this IRK resolves.
    public var resolvedAddresses: [BDAddr] = []

    public init(address: BDAddr, addressType: UInt8, irk: [UInt8], distributedBy: Side, learned: FrameTime) {
        self.address = address
        self.addressType = addressType
        self.irk = irk
        self.distributedBy = distributedBy
        self.learned = learned
    }
}
