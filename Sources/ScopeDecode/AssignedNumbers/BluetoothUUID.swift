import ScopeCore

/// A Bluetooth UUID (Core v5.4, Vol 3, Part B, §2.5.1): 16, 32 or 128 bits on the wire.
///
/// Every UUID is a 128-bit value. 16- and 32-bit UUIDs are short forms of values derived from the
/// Base UUID `00000000-0000-1000-8000-00805F9B34FB`:
///
///     128-bit value = 16/32-bit value × 2⁹⁶ + Base UUID
///
/// so `0x180D` is `0000180d-0000-1000-8000-00805f9b34fb`. Two UUIDs are equal when their 128-bit
/// values are equal, whatever width they were written with; ``width`` remembers how this one was
/// written (for rendering and re-encoding). On the wire (ATT, SDP long form, AD) UUIDs are
/// little-endian: the least significant byte comes first.
public struct BluetoothUUID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// How many octets the UUID takes on the wire.
    public enum Width: Int, Sendable, Hashable, CaseIterable {
        case bits16 = 2
        case bits32 = 4
        case bits128 = 16

        /// Octets on the wire (2, 4 or 16).
        public var byteCount: Int { rawValue }
    }

    /// Most significant 64 bits of the 128-bit value (`0000180d-0000-1000` for 0x180D).
    public let high: UInt64
    /// Least significant 64 bits of the 128-bit value (`8000-00805f9b34fb` for 0x180D).
    public let low: UInt64
    /// The width the UUID was written with.
    public let width: Width

    /// Base UUID high half, with the short value's bits (96…127) clear.
    @usableFromInline static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    /// Base UUID low half.
    @usableFromInline static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    /// The Base UUID, 00000000-0000-1000-8000-00805F9B34FB.
    public static let base = BluetoothUUID(high: baseHigh, low: baseLow)

    // MARK: Construction

    /// A 16-bit UUID.
    @inlinable
    public init(uuid16: UInt16) {
        self.high = UInt64(uuid16) << 32 | Self.baseHigh
        self.low = Self.baseLow
        self.width = .bits16
    }

    /// A 32-bit UUID.
    @inlinable
    public init(uuid32: UInt32) {
        self.high = UInt64(uuid32) << 32 | Self.baseHigh
        self.low = Self.baseLow
        self.width = .bits32
    }

    /// A 128-bit UUID from its two 64-bit halves (`high` holds the first 8 bytes of the string form).
    @inlinable
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
        self.width = .bits128
    }

    /// From wire bytes, least significant first: 2, 4 or 16 of them. Returns nil for any other
    /// count. (Decoders check the size first and report a wrong size as a malformation; see also
    /// `ByteReader.readUUID(_:)`.)
    public init?<C: Collection>(littleEndian bytes: C) where C.Element == UInt8 {
        switch bytes.count {
        case 2:
            var v: UInt16 = 0
            for (i, b) in bytes.enumerated() { v |= UInt16(b) << (8 * UInt16(i)) }
            self.init(uuid16: v)
        case 4:
            var v: UInt32 = 0
            for (i, b) in bytes.enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
            self.init(uuid32: v)
        case 16:
            var lo: UInt64 = 0
            var hi: UInt64 = 0
            for (i, b) in bytes.enumerated() {
                if i < 8 { lo |= UInt64(b) << (8 * UInt64(i)) } else { hi |= UInt64(b) << (8 * UInt64(i - 8)) }
            }
            self.init(high: hi, low: lo)
        default:
            return nil
        }
    }

    /// From 16 bytes in string order, most significant first (RFC 4122 order, as iBeacon
    /// proximity UUIDs are sent). Returns nil unless there are exactly 16 bytes.
    public init?<C: Collection>(bigEndian bytes: C) where C.Element == UInt8 {
        guard bytes.count == 16 else { return nil }
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        for (i, b) in bytes.enumerated() {
            if i < 8 { hi = hi << 8 | UInt64(b) } else { lo = lo << 8 | UInt64(b) }
        }
        self.init(high: hi, low: lo)
    }

    /// Parses "180d", "0x180D", "0000fe8f" (32-bit), or a 128-bit UUID with or without dashes
    /// ("6e400001-b5a3-f393-e0a9-e50e24dcca9e"). Case-insensitive. Returns nil for anything else.
    public init?(_ text: String) {
        var s = Substring(text)
        if s.hasPrefix("0x") || s.hasPrefix("0X") { s = s.dropFirst(2) }
        let dashed = s.contains("-")
        if dashed {
            let groups = s.split(separator: "-", omittingEmptySubsequences: false)
            guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        }
        let hex = s.filter { $0 != "-" }
        guard !hex.isEmpty, hex.allSatisfy(\.isHexDigit) else { return nil }
        switch (hex.count, dashed) {
        case (4, false):
            guard let v = UInt16(hex, radix: 16) else { return nil }
            self.init(uuid16: v)
        case (8, false):
            guard let v = UInt32(hex, radix: 16) else { return nil }
            self.init(uuid32: v)
        case (32, _):
            guard let hi = UInt64(hex.prefix(16), radix: 16), let lo = UInt64(hex.suffix(16), radix: 16) else {
                return nil
            }
            self.init(high: hi, low: lo)
        default:
            return nil
        }
    }

    // MARK: Views

    /// True when the value is derived from the Base UUID (it has a 16- or 32-bit short form).
    @inlinable
    public var isBaseDerived: Bool { low == Self.baseLow && high & 0xFFFF_FFFF == Self.baseHigh }

    /// The 16-bit short form, when the value is Base-derived and fits in 16 bits.
    @inlinable
    public var uuid16: UInt16? {
        guard isBaseDerived, high >> 32 <= 0xFFFF else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// The 32-bit short form, when the value is Base-derived.
    @inlinable
    public var uuid32: UInt32? {
        guard isBaseDerived else { return nil }
        return UInt32(truncatingIfNeeded: high >> 32)
    }

    /// The wire encoding at ``width``, least significant byte first.
    public var littleEndianBytes: [UInt8] {
        switch width {
        case .bits16, .bits32:
            let v = high >> 32
            return (0..<width.byteCount).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
        case .bits128:
            return (0..<8).map { UInt8(truncatingIfNeeded: low >> (8 * UInt64($0))) }
                + (0..<8).map { UInt8(truncatingIfNeeded: high >> (8 * UInt64($0))) }
        }
    }

    /// The 16 bytes of the 128-bit value in string order (most significant first).
    public var bigEndianBytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (8 * UInt64(7 - $0))) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (8 * UInt64(7 - $0))) }
    }

    /// The full 128-bit form, lowercase: "0000180d-0000-1000-8000-00805f9b34fb".
    public var uuidString: String {
        // The 32 digits of `high` then `low`, most significant first, with a dash before digits
        // 8, 12, 16 and 20; written as UTF-8 in one allocation.
        String(unsafeUninitializedCapacity: 36) { out in
            var i = 0
            for n in 0..<32 {
                if n == 8 || n == 12 || n == 16 || n == 20 {
                    out[i] = 0x2D  // "-"
                    i += 1
                }
                let word = n < 16 ? high : low
                out[i] = Hex.digit(UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (n % 16))) & 0x0F)
                i += 1
            }
            return i
        }
    }

    /// The short key reports use for a UUID: the four lowercase digits of a Base-derived value
    /// that fits 16 bits ("180d", whatever width it was written with), the 128-bit form
    /// otherwise. Written as UTF-8 in one allocation (GATT discovery and advertising data name
    /// thousands of UUIDs on long captures).
    public var compactString: String {
        guard let u = uuid16 else { return uuidString }
        return String(unsafeUninitializedCapacity: 4) { out in
            for i in 0..<4 { out[i] = Hex.digit(UInt8(truncatingIfNeeded: u >> UInt16(12 - 4 * i)) & 0x0F) }
            return 4
        }
    }

    /// The form it was written in: "0x180d", "0x0000fe8f", or the 128-bit string.
    public var shortString: String {
        switch width {
        case .bits16: Hex.prefixed(high >> 32, digits: 4)
        case .bits32: Hex.prefixed(high >> 32, digits: 8)
        case .bits128: uuidString
        }
    }

    /// Name from the assigned-number tables ("Heart Rate", "Nordic UART Service"), or nil.
    /// Base-derived values are looked up by their 16-bit value whatever their width.
    public var name: String? {
        if let u = uuid16 { return AssignedNumbers.uuid16Name(u) }
        if isBaseDerived { return nil }
        return AssignedNumbers.uuid128Name(high: high, low: low)
    }

    /// What the UUID identifies according to the tables, or nil when unknown.
    public var kind: UUIDKind? {
        if let u = uuid16 { return AssignedNumbers.uuid16Kind(u) }
        if isBaseDerived { return nil }
        return AssignedNumbers.uuid128Entry(high: high, low: low)?.kind
    }

    /// "Heart Rate (0x180d)", "Unknown (0x1234)", "Nordic UART Service
    /// (6e400001-b5a3-f393-e0a9-e50e24dcca9e)", or the bare 128-bit string when unknown.
    public var description: String {
        if let name { return "\(name) (\(shortString))" }
        return width == .bits128 ? uuidString : "Unknown (\(shortString))"
    }

    // MARK: Equality by value

    public static func == (a: BluetoothUUID, b: BluetoothUUID) -> Bool { a.high == b.high && a.low == b.low }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }

    public static func < (a: BluetoothUUID, b: BluetoothUUID) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

extension BluetoothUUID {
    /// «Primary Service» declaration (Core v5.4, Vol 3, Part G, §3.1).
    public static let primaryService = BluetoothUUID(uuid16: 0x2800)
    /// «Secondary Service» declaration (Vol 3, Part G, §3.1).
    public static let secondaryService = BluetoothUUID(uuid16: 0x2801)
    /// «Include» declaration (Vol 3, Part G, §3.2).
    public static let include = BluetoothUUID(uuid16: 0x2802)
    /// «Characteristic» declaration (Vol 3, Part G, §3.3.1).
    public static let characteristic = BluetoothUUID(uuid16: 0x2803)
    /// «Characteristic Extended Properties» descriptor (Vol 3, Part G, §3.3.3.1).
    public static let characteristicExtendedProperties = BluetoothUUID(uuid16: 0x2900)
    /// «Characteristic User Description» descriptor (Vol 3, Part G, §3.3.3.2).
    public static let characteristicUserDescription = BluetoothUUID(uuid16: 0x2901)
    /// «Client Characteristic Configuration» descriptor (Vol 3, Part G, §3.3.3.3).
    public static let clientCharacteristicConfiguration = BluetoothUUID(uuid16: 0x2902)
    /// Generic Access service (0x1800).
    public static let genericAccess = BluetoothUUID(uuid16: 0x1800)
    /// Generic Attribute service (0x1801).
    public static let genericAttribute = BluetoothUUID(uuid16: 0x1801)
}

extension ByteReader {
    /// Reads a little-endian UUID of the given width (2, 4 or 16 octets). Throws `.truncated`
    /// without moving when fewer bytes remain.
    public mutating func readUUID(_ width: BluetoothUUID.Width) throws(DecodeError) -> BluetoothUUID {
        switch width {
        case .bits16:
            return BluetoothUUID(uuid16: try readLE16())
        case .bits32:
            return BluetoothUUID(uuid32: try readLE32())
        case .bits128:
            let lo = try readLE64Pair()
            return BluetoothUUID(high: lo.high, low: lo.low)
        }
    }

    /// 16 bytes as (high, low) of a little-endian 128-bit value; atomic (moves only on success).
    private mutating func readLE64Pair() throws(DecodeError) -> (high: UInt64, low: UInt64) {
        guard remaining >= 16 else {
            throw DecodeError(.truncated(needed: 16, available: remaining), offset: offset, layer: layer)
        }
        let low = try readLE64()
        let high = try readLE64()
        return (high, low)
    }
}
