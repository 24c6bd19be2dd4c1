import ScopeCore

/// One AD structure of advertising, scan response, EIR or OOB data (Core v5.4, Vol 3, Part C,
/// §11 and §8; Core Specification Supplement (CSS), Part A, §1):
///
///     | Length (1) | AD Type (1) | AD Data (Length − 1) |
///
/// Holds the raw bytes; ``value`` decodes them on demand.
public struct ADStructure: Sendable, Hashable {
    /// The AD type code (see ``adType``).
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

    /// The type as an ``ADType``.
    @inlinable public var adType: ADType { ADType(rawValue: type) }
}

/// Result of parsing an advertising/scan-response/EIR data block.
public struct ADParseResult: Sendable, Hashable {
    /// The structures of the significant part, in order.
    public var structures: [ADStructure]
    /// Problems found, at absolute offsets (`baseOffset` + index): a length running past the end,
    /// non-zero bytes after an early termination, and data of the wrong size for its type.
    public var malformed: [Malformation]

    public init(structures: [ADStructure], malformed: [Malformation]) {
        self.structures = structures
        self.malformed = malformed
    }
}

/// Splits advertising data into AD structures and checks each one's size contract.
///
/// Rules (Core v5.4, Vol 3, Part C, §11, and §8 for EIR):
/// - The data is a *significant part* (a sequence of AD structures) followed by a
///   *non-significant part* that "shall contain all-zero octets".
/// - A Length of zero "shall only occur to allow an early termination": it ends the significant
///   part. Trailing zero padding after it is legal and silent (EIR is always padded to 240
///   octets). If any non-zero octet follows, that is reported once, at the first non-zero octet,
///   and the octets are not parsed (they are outside the significant part).
/// - A Length running past the end is reported at its length byte; every structure before it is
///   kept, the truncated one is not.
/// - A structure whose data has the wrong size for its type (a 16-bit UUID list of odd length,
///   a Tx Power Level of two octets, …) is kept, reported at its length byte, and its value
///   decodes as raw bytes. A zero-length Flags is *not* reported: CSS Part A §1.3 allows a Flags
///   field of zero or more octets (all flags clear).
/// - Unknown AD types are kept and shown raw; they are not malformed.
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
            if length == 0 {
                // Early termination: everything after must be zero (non-significant part).
                if let firstNonZero = data[(i + 1)...].firstIndex(where: { $0 != 0 }) {
                    let count = data[firstNonZero...].reduce(0) { $1 != 0 ? $0 + 1 : $0 }
                    malformed.append(Malformation(
                        layer: .ad, offset: baseOffset + firstNonZero,
                        message: "\(count) non-zero octet\(count == 1 ? "" : "s") after the early termination "
                            + "(zero Length) at offset \(baseOffset + i); the non-significant part must be all zeros"))
                }
                break
            }
            let available = data.count - i - 1
            guard length <= available else {
                malformed.append(Malformation(
                    layer: .ad, offset: baseOffset + i,
                    message: "AD structure Length \(length) runs past the end (\(available) octet\(available == 1 ? "" : "s") left)"))
                break
            }
            let structure = ADStructure(type: data[i + 1], data: Array(data[(i + 2)..<(i + 1 + length)]), offset: baseOffset + i)
            if let problem = structure.sizeProblem {
                malformed.append(Malformation(layer: .ad, offset: structure.offset, message: "\(structure.name): \(problem)"))
            }
            structures.append(structure)
            i += 1 + length
        }
        return ADParseResult(structures: structures, malformed: malformed)
    }
}

extension ADStructure {
    /// The size contract of the type, checked against ``data``: nil when the size is acceptable
    /// (or the type has no fixed size), else why not ("expected 1 octet, got 2").
    /// (CSS Part A §1.x for each type; profile specifications for the rest.)
    public var sizeProblem: String? {
        let n = data.count
        func exactly(_ k: Int) -> String? { n == k ? nil : "expected \(k) octet\(k == 1 ? "" : "s"), got \(n)" }
        func multiple(_ k: Int) -> String? { n % k == 0 ? nil : "length \(n) is not a multiple of \(k)" }
        func atLeast(_ k: Int) -> String? { n >= k ? nil : "expected at least \(k) octets, got \(n)" }
        switch type {
        case 0x02, 0x03, 0x14: return multiple(2)
        case 0x04, 0x05, 0x1F: return multiple(4)
        case 0x06, 0x07, 0x15: return multiple(16)
        case 0x0A, 0x11, 0x1C: return exactly(1)
        case 0x0D: return exactly(3)
        case 0x0E, 0x0F, 0x1D, 0x1E, 0x22, 0x23, 0x2D: return exactly(16)
        case 0x10: return n == 8 || n == 16 ? nil : "expected 8 octets (Device ID) or 16 (TK Value), got \(n)"
        case 0x12: return exactly(4)
        case 0x16: return atLeast(2)
        case 0x20: return atLeast(4)
        case 0x21: return atLeast(16)
        case 0x17, 0x18: return n > 0 && n % 6 == 0 ? nil : "length \(n) is not a non-zero multiple of 6"
        case 0x19, 0x1A: return exactly(2)
        case 0x1B: return exactly(7)
        case 0x24: return atLeast(1)
        case 0x28: return exactly(7)
        case 0x2B: return atLeast(1)
        case 0x2C: return n == 33 || n == 57 ? nil : "expected 33 octets (or 57 encrypted), got \(n)"
        case 0x2E: return exactly(6)
        case 0x2F: return n == 3 || n == 4 ? nil : "expected 3 or 4 octets, got \(n)"
        case 0x30: return (4...32).contains(n) ? nil : "expected 4 to 32 octets, got \(n)"
        case 0x31: return atLeast(9)  // Randomizer (5) + encrypted data + MIC (4)
        case 0xFF: return atLeast(2)
        default: return nil
        }
    }
}
