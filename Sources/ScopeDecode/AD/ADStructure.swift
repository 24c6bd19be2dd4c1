import ScopeCore

// PLACEHOLDER API — filled in by the AD work (see AD/README in the task). Signatures are the contract.

/// One AD structure (Core v5.4, Vol 3, Part C, §11; CSS Part A).
public struct ADStructure: Sendable, Hashable {
    public var type: UInt8
    /// The element's data (after the type byte).
    public var data: [UInt8]
    /// Offset of the length byte within the record payload.
    public var offset: Int

    public init(type: UInt8, data: [UInt8], offset: Int) {
        self.type = type
        self.data = data
        self.offset = offset
    }
}

/// Result of parsing an advertising/scan-response/EIR data block.
public struct ADParseResult: Sendable, Hashable {
    public var structures: [ADStructure]
    public var malformed: [Malformation]
    public init(structures: [ADStructure], malformed: [Malformation]) {
        self.structures = structures
        self.malformed = malformed
    }
}

/// Splits advertising data into AD structures. PLACEHOLDER: the AD work replaces the body with the
/// full decoder (names, values, malformed flags); the signature stays.
public enum ADParser {
    /// - Parameters:
    ///   - data: the AD block (advertising data, scan response data or EIR).
    ///   - baseOffset: offset of `data[0]` within the record payload, for malformation offsets.
    public static func parse(_ data: [UInt8], baseOffset: Int) -> ADParseResult {
        var structures: [ADStructure] = []
        var malformed: [Malformation] = []
        var i = 0
        while i < data.count {
            let length = Int(data[i])
            if length == 0 { i += 1; continue }
            guard i + 1 + length <= data.count else {
                malformed.append(Malformation(layer: .ad, offset: baseOffset + i, message: "AD length \(length) runs past the end"))
                break
            }
            structures.append(ADStructure(type: data[i + 1], data: Array(data[(i + 2)..<(i + 1 + length)]), offset: baseOffset + i))
            i += 1 + length
        }
        return ADParseResult(structures: structures, malformed: malformed)
    }
}

extension ADStructure {
    /// AD type name from the Assigned Numbers ("Complete Local Name"). PLACEHOLDER.
    public var name: String { "AD type \(Hex.prefixed(type, digits: 2))" }
    /// The value rendered for people and for JSON `value`. PLACEHOLDER.
    public var valueDescription: String { Hex.string(data) }
}
