/// Hex rendering and parsing for fixtures, dumps and reports.
public enum Hex {
    /// The ASCII lowercase hex digit for `nibble` (0...15).
    @inlinable public static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble &+ 0x30 : nibble &+ 0x57
    }

    /// "0a1b2c" (no separators). The string is written as UTF-8 into its own storage, in one
    /// allocation (appending characters one at a time costs ten times as much). Inlinable: a
    /// caller in another module gets a copy for its collection type (unspecialised, every byte
    /// went through the collection's witness table).
    @inlinable
    public static func string<C: Collection>(_ bytes: C, separator: String = "") -> String where C.Element == UInt8 {
        let count = bytes.count
        guard count > 0 else { return "" }
        let separatorCount = separator.utf8.count
        return String(unsafeUninitializedCapacity: 2 * count + (count - 1) * separatorCount) { out in
            var i = 0
            for b in bytes {
                if i > 0, separatorCount > 0 {
                    for s in separator.utf8 {
                        out[i] = s
                        i += 1
                    }
                }
                out[i] = digit(b >> 4)
                out[i + 1] = digit(b & 0x0F)
                i += 2
            }
            return i
        }
    }

    /// Parses hex text, ignoring whitespace, `:` and `-`. Returns nil on any other character or
    /// an odd number of digits.
    public static func bytes(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var high: UInt8?
        for scalar in text.unicodeScalars {
            let v: UInt8
            switch scalar {
            case "0"..."9": v = UInt8(scalar.value - 48)
            case "a"..."f": v = UInt8(scalar.value - 87)
            case "A"..."F": v = UInt8(scalar.value - 55)
            case " ", "\n", "\t", ":", "-", "\r": continue
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? out : nil
    }

    /// "0x1a" style with a fixed number of digits.
    @inlinable
    public static func prefixed<T: BinaryInteger>(_ value: T, digits: Int) -> String {
        guard let v = UInt64(exactly: value) else {
            let s = String(value, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, digits - s.count)) + s
        }
        // As above, written as UTF-8 in one allocation: the digits `v` needs (at least one),
        // zero-padded to `digits`.
        let width = max(1, (64 - v.leadingZeroBitCount + 3) / 4, digits)
        return String(unsafeUninitializedCapacity: width + 2) { out in
            out[0] = 0x30  // "0"
            out[1] = 0x78  // "x"
            for i in 0..<width {
                let shift = 4 * (width - 1 - i)
                out[2 + i] = shift < 64 ? digit(UInt8(truncatingIfNeeded: v >> UInt64(shift)) & 0x0F) : 0x30
            }
            return width + 2
        }
    }

    /// A btmon-style dump: 16 bytes per line, hex then printable ASCII.
    public static func dump(_ bytes: [UInt8], indent: String = "") -> [String] {
        var lines: [String] = []
        var i = 0
        while i < bytes.count {
            let chunk = bytes[i..<min(i + 16, bytes.count)]
            var hex = string(chunk, separator: " ")
            hex += String(repeating: " ", count: max(0, 48 - hex.count))
            let ascii = String(chunk.map { (0x20...0x7E).contains($0) ? Character(UnicodeScalar($0)) : "." })
            lines.append(indent + hex + " " + ascii)
            i += 16
        }
        return lines
    }
}
