import ScopeCore

/// A UUID as carried in ATT PDUs: 16-bit or 128-bit on the wire, little-endian (Core v5.4,
/// Vol 3, Part F, §3.2.1; Vol 3, Part B, §2.5.1 for the Bluetooth Base UUID).
///
/// Stored as the full 128-bit value, so a 16-bit UUID and its 128-bit form derived from the
/// Base UUID (0000xxxx-0000-1000-8000-00805F9B34FB) compare equal; `wireSize` remembers which
/// form was sent.
public struct ATTUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 128-bit value, most significant 64 bits (as the UUID is written for people).
    public let high: UInt64
    /// The 128-bit value, least significant 64 bits.
    public let low: UInt64

    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A 16-bit UUID (an alias into the Base UUID).
    public init(_ uuid16: UInt16) {
        self.init(high: ATTUUID.baseHigh | UInt64(uuid16) << 32, low: ATTUUID.baseLow)
    }

    /// A 32-bit UUID (an alias into the Base UUID).
    public init(uuid32: UInt32) {
        self.init(high: ATTUUID.baseHigh | UInt64(uuid32) << 32, low: ATTUUID.baseLow)
    }

    /// From 2, 4 or 16 little-endian wire bytes; nil for any other count.
    public init?<C: Collection>(littleEndian bytes: C) where C.Element == UInt8 {
        let b = Array(bytes)
        switch b.count {
        case 2: self.init(UInt16(b[0]) | UInt16(b[1]) << 8)
        case 4: self.init(uuid32: UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24)
        case 16:
            var lo: UInt64 = 0
            var hi: UInt64 = 0
            for i in 0..<8 { lo |= UInt64(b[i]) << (8 * UInt64(i)) }
            for i in 0..<8 { hi |= UInt64(b[8 + i]) << (8 * UInt64(i)) }
            self.init(high: hi, low: lo)
        default: return nil
        }
    }

    /// True when the UUID lies in the Bluetooth Base UUID range (has a 16- or 32-bit alias).
    public var isBaseDerived: Bool { low == ATTUUID.baseLow && high & 0xFFFF_FFFF == ATTUUID.baseHigh }

    /// The 16-bit alias, when there is one.
    public var uuid16: UInt16? {
        guard isBaseDerived, high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// The 32-bit alias, when there is one.
    public var uuid32: UInt32? {
        isBaseDerived ? UInt32(truncatingIfNeeded: high >> 32) : nil
    }

    /// "0x2a37" for 16-bit aliases, "0x12345678" for 32-bit ones, otherwise the canonical
    /// "6e400001-b5a3-f393-e0a9-e50e24dcca9e".
    public var string: String {
        if let u = uuid16 { return Hex.prefixed(u, digits: 4) }
        if let u = uuid32 { return Hex.prefixed(u, digits: 8) }
        let h = Hex.string((0..<8).reversed().map { UInt8(truncatingIfNeeded: high >> (8 * UInt64($0))) })
        let l = Hex.string((0..<8).reversed().map { UInt8(truncatingIfNeeded: low >> (8 * UInt64($0))) })
        let s = Array(h + l)
        return String(s[0..<8]) + "-" + String(s[8..<12]) + "-" + String(s[12..<16]) + "-" + String(s[16..<20]) + "-"
            + String(s[20..<32])
    }

    /// The assigned name of a 16-bit UUID ("Heart Rate Measurement"), else nil. GATT
    /// declaration and descriptor types always have names (see ``GATTNames``).
    public var name: String? {
        guard let u = uuid16 else { return nil }
        return GATTNames.uuid16(u)
    }

    /// "Heart Rate Measurement (0x2a37)", "Unknown (0xfff1)" or the 128-bit string.
    public var description: String {
        if let u = uuid16 { return named(name, u, digits: 4) }
        return string
    }
}
