import ScopeCore

/// A GAP Appearance value (Core v5.4, Vol 3, Part C, §12.2; Assigned Numbers §2.6): a 10-bit
/// category in bits 15–6 and a 6-bit sub-category in bits 5–0. Sent in the Appearance AD type
/// (0x19) and the Appearance characteristic (0x2A01).
public struct Appearance: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Bits 15–6.
    public var category: UInt16 { rawValue >> 6 }
    /// Bits 5–0.
    public var subcategory: UInt8 { UInt8(truncatingIfNeeded: rawValue & 0x3F) }

    /// The assigned name ("Watch" for 0x00C0, "Sports Watch" for 0x00C1), or nil when the exact
    /// value is not assigned.
    public var name: String? { AssignedNumbers.appearanceName(rawValue) }

    /// The category's name ("Watch" for 0x00C0…0x00FF), or nil when the category is unassigned.
    public var categoryName: String? { AssignedNumbers.appearanceCategoryName(category) }

    /// "Sports Watch (0x00c1)"; for an unassigned sub-category of a known category
    /// "Watch, sub-category 0x05 (0x00c5)"; otherwise "Unknown (0x1234)".
    public var description: String {
        let code = Hex.prefixed(rawValue, digits: 4)
        if let name { return "\(name) (\(code))" }
        if let categoryName { return "\(categoryName), sub-category \(Hex.prefixed(subcategory, digits: 2)) (\(code))" }
        return "Unknown (\(code))"
    }

    /// 0x0000 Unknown.
    public static let unknown = Appearance(rawValue: 0x0000)
}
