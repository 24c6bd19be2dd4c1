import ScopeCore

/// Every escape the reporters need, in one place. Strings from captures (device names, notes,
/// file names) are hostile until escaped for the format they land in.
package enum Escaping {
    /// Text content and attribute values of HTML and XML (both quotes escaped), as
    /// `RenderBuffer.appendXMLEscaped` writes them; a string with nothing to escape is returned
    /// as is.
    package static func xml(_ s: String) -> String {
        var out = RenderBuffer(capacity: s.utf8.count + 16)
        return out.appendXMLEscaped(s) ? out.string : s
    }

    /// HTML is escaped exactly like XML.
    package static func html(_ s: String) -> String { xml(s) }

    /// A Markdown table cell or inline text: Markdown punctuation and HTML are neutralised,
    /// newlines become spaces (they would end the table row).
    ///
    /// Works on the UTF-8 bytes like ``xml(_:)`` (every character it changes is ASCII): runs
    /// that need nothing are copied whole, and a string with nothing to change is returned as is.
    package static func markdown(_ s: String) -> String {
        var text = s
        let escaped: String? = text.withUTF8 { bytes in
            var out: [UInt8] = []
            var copied = 0
            for i in bytes.indices {
                let b = bytes[i]
                // nil: Markdown punctuation, kept with a backslash before it.
                let replacement: StaticString?
                switch b {
                case UInt8(ascii: "\\"), UInt8(ascii: "`"), UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "["), UInt8(ascii: "]"),
                    UInt8(ascii: "|"), UInt8(ascii: "#"), UInt8(ascii: "~"), UInt8(ascii: "!"):
                    replacement = nil
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): replacement = " "
                case 0..<0x20, 0x7F: replacement = "\u{FFFD}"
                default: continue
                }
                if out.isEmpty { out.reserveCapacity(bytes.count + 16) }
                out.append(contentsOf: bytes[copied..<i])
                if let replacement {
                    replacement.withUTF8Buffer { out.append(contentsOf: $0) }
                } else {
                    out.append(UInt8(ascii: "\\"))
                    out.append(b)
                }
                copied = i + 1
            }
            guard copied > 0 else { return nil }
            out.append(contentsOf: bytes[copied...])
            return String(decoding: out, as: UTF8.self)
        }
        return escaped ?? text
    }

    /// Text for a terminal: control characters (ESC included, so a device name cannot move the
    /// cursor or recolour the screen) become U+FFFD; newlines stay.
    package static func terminal(_ s: String) -> String {
        // Almost every line is printable ASCII/UTF-8 already: hand it back without rebuilding it.
        // (0xC2 leads the C1 controls U+0080–U+009F, and a few printable characters: slow path.)
        // (Over the contiguous bytes when the string has them: iterating the UTF-8 view costs
        // several times more.)
        func plain(_ b: UInt8) -> Bool { (b >= 0x20 && b != 0x7F && b != 0xC2) || b == 0x0A || b == 0x09 }
        if s.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(plain) }) ?? s.utf8.allSatisfy(plain) { return s }
        var out = ""
        for scalar in s.unicodeScalars {
            if scalar == "\n" || scalar == "\t" || (scalar.value >= 0x20 && scalar.value != 0x7F && !(0x80...0x9F).contains(scalar.value)) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\u{FFFD}"
            }
        }
        return out
    }

    /// A JSON string literal (quotes included).
    package static func json(_ s: String) -> String {
        var out = ""
        JSONWriter.appendString(s, to: &out)
        return out
    }

    /// The message of a GitHub workflow command (`::error …::MESSAGE`): `%`, CR and LF are
    /// percent-encoded, as `@actions/core` does (a raw newline would end the command).
    package static func githubData(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A property value of a GitHub workflow command (`file=`, `title=`): as ``githubData(_:)``,
    /// plus `:` and `,`, which separate the properties.
    package static func githubProperty(_ s: String) -> String {
        var out = ""
        for scalar in githubData(s).unicodeScalars {
            switch scalar {
            case ":": out += "%3A"
            case ",": out += "%2C"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
