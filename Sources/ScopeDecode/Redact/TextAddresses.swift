import ScopeCore

/// Bluetooth addresses written as text in notes, logs and strings: six pairs of hex digits
/// separated by ':' or '-' ("80:96:98:42:54:B0"), most significant byte first.
enum TextAddresses {
    struct Style: Sendable {
        var separator: UInt8
        var uppercase: Bool
    }

    /// Calls `body` with the offset, address and style of each text address in `p[start...]`.
    static func forEach(in p: [UInt8], from start: Int, _ body: (Int, BDAddr, Style) -> Void) {
        guard p.count >= 17 else { return }
        var i = max(0, start)
        while i + 17 <= p.count {
            if let (address, style) = parse(p, at: i) {
                body(i, address, style)
                i += 17
            } else {
                i += 1
            }
        }
    }

    static func parse(_ p: [UInt8], at i: Int) -> (BDAddr, Style)? {
        let separator = p[i + 2]
        guard separator == 0x3A || separator == 0x2D else { return nil }
        // Not part of a longer run (an IPv6 address, a longer hex dump).
        if i > 0, hexValue(p[i - 1]) != nil { return nil }
        if i >= 3, p[i - 1] == separator, hexValue(p[i - 2]) != nil, hexValue(p[i - 3]) != nil { return nil }
        if i + 17 < p.count, hexValue(p[i + 17]) != nil { return nil }
        if i + 19 < p.count, p[i + 17] == separator, hexValue(p[i + 18]) != nil, hexValue(p[i + 19]) != nil { return nil }
        var value: UInt64 = 0
        var uppercase = false
        for k in 0..<6 {
            let at = i + k * 3
            if k < 5, p[at + 2] != separator { return nil }
            guard let hi = hexValue(p[at]), let lo = hexValue(p[at + 1]) else { return nil }
            if p[at] >= 0x41 && p[at] <= 0x46 || p[at + 1] >= 0x41 && p[at + 1] <= 0x46 { uppercase = true }
            value = value << 8 | UInt64(hi << 4 | lo)
        }
        return (BDAddr(value: value), Style(separator: separator, uppercase: uppercase))
    }

    static func format(_ address: BDAddr, _ style: Style) -> [UInt8] {
        let digits = Array((style.uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out: [UInt8] = []
        for k in 0..<6 {
            let byte = UInt8(truncatingIfNeeded: address.value >> UInt64(8 * (5 - k)))
            if k > 0 { out.append(style.separator) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return out
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }
}
