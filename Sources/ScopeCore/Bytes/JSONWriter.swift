/// A small, allocation-light JSON writer with keys in the order they are written (stable
/// output for golden files and for programs that read it). Used on the `show --json` hot path.
public struct JSONWriter: Sendable {
    public private(set) var output: String = ""
    private var needsComma: [Bool] = [false]

    public init() { output.reserveCapacity(256) }

    private mutating func separator() {
        if needsComma[needsComma.count - 1] { output += "," }
        needsComma[needsComma.count - 1] = true
    }

    public mutating func beginObject(_ key: String? = nil) {
        if let key { self.key(key) } else { separator() }
        output += "{"
        needsComma.append(false)
    }

    public mutating func endObject() {
        needsComma.removeLast()
        output += "}"
    }

    public mutating func beginArray(_ key: String? = nil) {
        if let key { self.key(key) } else { separator() }
        output += "["
        needsComma.append(false)
    }

    public mutating func endArray() {
        needsComma.removeLast()
        output += "]"
    }

    private mutating func key(_ k: String) {
        separator()
        Self.appendString(k, to: &output)
        output += ":"
    }

    public mutating func field(_ k: String, _ v: Int) { key(k); output += String(v) }
    public mutating func field(_ k: String, _ v: Int64) { key(k); output += String(v) }
    public mutating func field<T: BinaryInteger>(_ k: String, int v: T) { key(k); output += String(v) }
    public mutating func field(_ k: String, _ v: String) { key(k); Self.appendString(v, to: &output) }
    public mutating func field(_ k: String, _ v: Bool) { key(k); output += v ? "true" : "false" }
    public mutating func null(_ k: String) { key(k); output += "null" }

    /// An element of the current array.
    public mutating func element(_ v: String) { separator(); Self.appendString(v, to: &output) }
    public mutating func element(_ v: Int) { separator(); output += String(v) }

    /// The UTF-8 of `s` as the inside of a JSON string literal (the quotes left to the caller),
    /// handed to `emit` in order: the runs of bytes that stand for themselves and the escapes
    /// between them. Nearly every string is one run.
    @inlinable
    public static func forEachPiece(ofString s: String, _ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        var s = s
        s.withUTF8 { bytes in
            var plain = bytes.startIndex
            while let i = firstEscaped(in: bytes, from: plain) {
                emit(UnsafeBufferPointer(rebasing: bytes[plain..<i]))
                plain = i + 1
                escape(bytes[i]).withUnsafeBufferPointer(emit)
            }
            emit(UnsafeBufferPointer(rebasing: bytes[plain...]))
        }
    }

    /// Whether a byte cannot stand for itself in a JSON string: a control character, a quote or
    /// a backslash (every other byte, UTF-8 of non-ASCII characters included, is written as it is).
    @inlinable
    public static func needsEscape(_ b: UInt8) -> Bool {
        b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\")
    }

    /// `needsEscape` for the eight bytes of `word` at once (in memory order, whatever the
    /// machine's byte order): zero when none needs an escape; otherwise the lowest set bit is
    /// the high bit of the first byte that does. Each term flags a byte when it (or the byte
    /// XOR-ed with a quote or backslash) is below a bound, only once every earlier byte was not
    /// (the borrow that could flag a later byte wrongly starts at a flagged one).
    @inlinable
    public static func escapeMask(_ word: UInt64) -> UInt64 {
        let x = UInt64(littleEndian: word)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let control = (x &- ones &* 0x20) & ~x
        let q = x ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let quote = (q &- ones) & ~q
        let b = x ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let backslash = (b &- ones) & ~b
        return (control | quote | backslash) & high
    }

    /// The index of the first byte at or after `start` that needs an escape, nil when none does;
    /// eight bytes at a time.
    @inlinable
    public static func firstEscaped(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        var i = start
        while i + 8 <= bytes.count {
            let mask = escapeMask(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            if mask != 0 { return i + mask.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < bytes.count {
            if needsEscape(base[i]) { return i }
            i += 1
        }
        return nil
    }

    /// The escape of a byte that cannot stand for itself in a JSON string.
    @usableFromInline
    static func escape(_ b: UInt8) -> [UInt8] {
        switch b {
        case UInt8(ascii: "\""): return [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): return [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case 0x0A: return [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0x0D: return [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case 0x09: return [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        default:
            return [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Hex.digit(b >> 4), Hex.digit(b & 0x0F)]
        }
    }

    public static func appendString(_ s: String, to out: inout String) {
        out += "\""
        // Nearly every string needs no escape (every character that does is ASCII): appended
        // whole; the others piece by piece (`forEachPiece`, the one escaping rule).
        var s = s
        if s.withUTF8({ firstEscaped(in: $0, from: 0) }) == nil {
            out += s
            out += "\""
            return
        }
        forEachPiece(ofString: s) { out += String(decoding: $0, as: UTF8.self) }
        out += "\""
    }
}
