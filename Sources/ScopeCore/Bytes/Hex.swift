/// Hex rendering and parsing for fixtures, dumps and reports.
public enum Hex {
    private static let digits: [Character] = Array("0123456789abcdef")

    /// "0a1b2c" (no separators).
    public static func string<C: Collection>(_ bytes: C, separator: String = "") -> String where C.Element == UInt8 {
        var out = ""
        out.reserveCapacity(bytes.count * (2 + separator.count))
        var first = true
        for b in bytes {
            if !first { out += separator }
            first = false
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return out
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
    public static func prefixed<T: BinaryInteger>(_ value: T, digits: Int) -> String {
        let s = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, digits - s.count)) + s
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
