/// Text from a file (an archive member's name, a folder entry) made safe to print: control
/// characters (C0, DEL, C1), the bidirectional overrides and isolates, and the line and
/// paragraph separators are written as escapes (`\x1B`, `\n`, `\u{202E}`), so that a name can
/// neither drive the terminal nor forge a line of a report. Backslashes are doubled, so the
/// result reads back unambiguously.
public enum SafeText {
    /// `text` with every unsafe character escaped (the same string when there is none).
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0) || $0 == "\\" }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if isUnsafe(scalar) {
                    let hex = String(Hex.prefixed(scalar.value, digits: scalar.value < 0x80 ? 2 : 4).dropFirst(2)).uppercased()
                    out += scalar.value < 0x80 ? "\\x" + hex : "\\u{" + hex + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Control characters and the invisible characters that reorder or break lines.
    public static func isUnsafe(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: return true
        default: return false
        }
    }
}
