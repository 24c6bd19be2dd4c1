/// A 48-bit Bluetooth device address (Core v5.4, Vol 2, Part B, §1.2). Stored as it is written
/// for people: `bytes[0]` is the most significant byte (the first pair in "aa:bb:cc:dd:ee:ff").
/// On the wire HCI sends it little-endian, least significant byte first.
public struct BDAddr: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let value: UInt64  // 48 bits

    public init(value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    /// From the 6 wire bytes (least significant first). Fewer bytes give a zero-padded value.
    @inlinable
    public init<C: Collection>(littleEndian bytes: C) where C.Element == UInt8 {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        for b in bytes.prefix(6) {
            v |= UInt64(b) << shift
            shift += 8
        }
        self.init(value: v)
    }

    /// Parses "aa:bb:cc:dd:ee:ff" (case-insensitive, `:` or `-`).
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var v: UInt64 = 0
        for p in parts {
            guard p.count == 2, let b = UInt8(p, radix: 16) else { return nil }
            v = v << 8 | UInt64(b)
        }
        self.init(value: v)
    }

    public var littleEndianBytes: [UInt8] { (0..<6).map { UInt8((value >> (8 * UInt64($0))) & 0xFF) } }

    /// "aa:bb:cc:dd:ee:ff", lowercase.
    public var description: String {
        // Written straight into the string's storage: addresses are printed for every report.
        let v = value
        return String(unsafeUninitializedCapacity: 17) { out in
            var i = 0
            for k in stride(from: 5, through: 0, by: -1) {
                let b = UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))
                out[i] = BDAddr.hexDigit(b >> 4)
                out[i + 1] = BDAddr.hexDigit(b & 0x0F)
                i += 2
                if k > 0 {
                    out[i] = UInt8(ascii: ":")
                    i += 1
                }
            }
            return i
        }
    }

    private static func hexDigit(_ d: UInt8) -> UInt8 { d < 10 ? 0x30 + d : 0x57 + d }

    /// For LE random addresses: the two most significant bits give the sub-type
    /// (Core v5.4, Vol 6, Part B, §1.3.2).
    public var randomSubtype: String {
        switch value >> 46 {
        case 0b11: return "static"
        case 0b01: return "resolvable"
        case 0b00: return "non-resolvable"
        default: return "reserved"
        }
    }

    public static func < (a: BDAddr, b: BDAddr) -> Bool { a.value < b.value }
}
