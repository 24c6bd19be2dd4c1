import ScopeCore

/// Names from the Bluetooth Assigned Numbers: company identifiers (§7), GATT and SDP UUIDs (§3),
/// appearance values (§2.6) and URI schemes (§2.7).
///
/// The big tables live in `*+Generated.swift`, written by `Scripts/gen-assigned-numbers.py` from
/// the bluetooth-numbers-database; never edit them by hand. Each is a set of sorted parallel arrays
/// searched with a binary search, so lookups cost O(log n) and build no strings.
public enum AssignedNumbers {
    /// Company name for a Bluetooth SIG company identifier ("Apple, Inc." for 0x004C), or nil
    /// when the identifier is not assigned in the table.
    public static func companyName(_ id: UInt16) -> String? {
        lowerBound(companyIDs, id).flatMap { companyNames[$0] }
    }

    /// Name of a 16-bit GATT service, characteristic, descriptor or declaration UUID, SDP service
    /// class or member service ("Heart Rate" for 0x180D, "Client Characteristic Configuration"
    /// for 0x2902, "Primary Service" for 0x2800), or nil when unknown.
    public static func uuid16Name(_ uuid: UInt16) -> String? {
        lowerBound(uuid16Values, uuid).flatMap { uuid16Names[$0] }
    }

    /// What the 16-bit UUID identifies (service, characteristic, …), or nil when unknown.
    public static func uuid16Kind(_ uuid: UInt16) -> UUIDKind? {
        lowerBound(uuid16Values, uuid).flatMap { uuid16Kinds[$0] }
    }

    /// Name and kind of a vendor 128-bit UUID (one that is not derived from the Base UUID), given
    /// as its most and least significant 64 bits. When one UUID is listed with several kinds (a
    /// vendor reused it for a service and a characteristic) the first kind in ``UUIDKind`` order
    /// wins.
    public static func uuid128Entry(high: UInt64, low: UInt64) -> (name: String, kind: UUIDKind)? {
        let lo = uuid128High.indices.partitionPoint { (uuid128High[$0], uuid128Low[$0]) >= (high, low) }
        guard lo < uuid128High.count, uuid128High[lo] == high, uuid128Low[lo] == low else { return nil }
        return (uuid128Names[lo], uuid128Kinds[lo])
    }

    /// Name of a 128-bit vendor UUID, or nil when unknown.
    public static func uuid128Name(high: UInt64, low: UInt64) -> String? {
        uuid128Entry(high: high, low: low)?.name
    }

    /// Appearance name for a full 16-bit appearance value ("Watch" for 0x00C0, "Sports Watch"
    /// for 0x00C1), or nil when the value is not assigned. Sub-category 0 carries the category's
    /// name. (Assigned Numbers §2.6.)
    public static func appearanceName(_ value: UInt16) -> String? {
        lowerBound(appearanceValues, value).flatMap { appearanceNames[$0] }
    }

    /// Name of an appearance category (bits 15–6 of the value, 0…0x3FF), or nil when unassigned.
    public static func appearanceCategoryName(_ category: UInt16) -> String? {
        lowerBound(appearanceCategories, category).flatMap { appearanceCategoryNames[$0] }
    }

    /// The URI scheme for a URI data type scheme code point ("https:" for U+0017), nil for
    /// U+0001 (the "empty scheme name": the URI carries its own scheme) and for unassigned codes.
    /// (Assigned Numbers §2.7; Core Specification Supplement, Part A, §1.18.)
    public static func uriScheme(_ codePoint: UInt32) -> String? {
        guard codePoint >= 2, codePoint - 2 < UInt32(uriSchemes.count) else { return nil }
        return uriSchemes[Int(codePoint - 2)]
    }

    /// Index of `key` in the ascending array `keys`, or nil.
    @usableFromInline
    static func lowerBound(_ keys: [UInt16], _ key: UInt16) -> Int? {
        let lo = keys.partitionPoint { $0 >= key }
        return lo < keys.count && keys[lo] == key ? lo : nil
    }
}

/// What a UUID in the assigned-number tables identifies.
///
/// This is the project's own classification of the tables, not a wire code, so it is a closed
/// enum. The case order is the precedence used when one UUID appears under several kinds.
public enum UUIDKind: String, Sendable, Hashable, CaseIterable {
    /// A GATT service (Assigned Numbers §3.4) or a vendor service.
    case service
    /// A GATT characteristic (§3.8) or a vendor characteristic.
    case characteristic
    /// A GATT characteristic descriptor (§3.7).
    case descriptor
    /// A GATT attribute-type declaration: Primary/Secondary Service, Include, Characteristic (§3.6).
    case declaration
    /// An SDP service class or profile identifier (§3.3), seen in BR/EDR EIR UUID lists.
    case serviceClass
    /// A 16-bit UUID allocated to a member company (§3.11); the name is the company's.
    case memberService
}

/// A table of strings stored as one UTF-8 literal plus byte offsets: string `i` is
/// `data[offsets[i] ..< offsets[i + 1]]`.
///
/// The generated tables use this instead of `[String]` array literals because it compiles in a
/// fraction of the time (a 4,000-entry `[String]` literal costs ~10 s in -O builds; see
/// Scripts/gen-assigned-numbers.py). Each access builds a `String`; lookups happen when names
/// are rendered, not on the decoding hot path.
struct PackedStrings: RandomAccessCollection, Sendable {
    let offsets: [UInt32]
    let data: StaticString

    init(offsets: [UInt32], data: StaticString) {
        self.offsets = offsets
        self.data = data
    }

    var startIndex: Int { 0 }
    var endIndex: Int { Swift.max(0, offsets.count - 1) }

    /// The string at `i`; "" for an index or offset outside the table (never traps).
    subscript(i: Int) -> String {
        guard i >= 0, i + 1 < offsets.count else { return "" }
        let start = Int(offsets[i])
        let end = Int(offsets[i + 1])
        return data.withUTF8Buffer { buffer in
            guard start <= end, end <= buffer.count else { return "" }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)
        }
    }
}
