/// A small, allocation-light JSON writer with keys in the order they are written (stable
/// output for golden files and for programs that read it). Used on the `show --json` hot path:
/// it writes UTF-8 bytes (appending to a `String` piece by piece updates its count and flags
/// each time, several times the cost of the bytes), and one writer can be emptied and reused.
public struct JSONWriter: Sendable {
    /// The UTF-8 of the JSON written so far.
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value at each open level needs a comma before it (the outermost first).
    private var needsComma: [Bool] = [false]

    public init() { bytes.reserveCapacity(256) }

    /// The JSON written so far.
    public var output: String { String(decoding: bytes, as: UTF8.self) }

    /// Forgets what was written (keeping the storage) to write the next document.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        needsComma.removeAll(keepingCapacity: true)
        needsComma.append(false)
    }

    private mutating func separator() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    public mutating func beginObject(_ key: String? = nil) {
        if let key { self.key(key) } else { separator() }
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func beginArray(_ key: String? = nil) {
        if let key { self.key(key) } else { separator() }
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    public mutating func endArray() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func key(_ k: String) {
        separator()
        Self.appendString(k, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func field(_ k: String, _ v: Int) { key(k); Self.appendDecimal(Int64(v), to: &bytes) }
    public mutating func field(_ k: String, _ v: Int64) { key(k); Self.appendDecimal(v, to: &bytes) }
    public mutating func field<T: BinaryInteger>(_ k: String, int v: T) {
        key(k)
        if let i = Int64(exactly: v) { Self.appendDecimal(i, to: &bytes) } else { bytes += String(v).utf8 }
    }
    public mutating func field(_ k: String, _ v: String) { key(k); Self.appendString(v, to: &bytes) }
    public mutating func field(_ k: String, _ v: Bool) { key(k); bytes += (v ? "true" : "false").utf8 }
    public mutating func null(_ k: String) { key(k); bytes += "null".utf8 }

    /// An element of the current array.
    public mutating func element(_ v: String) { separator(); Self.appendString(v, to: &bytes) }
    public mutating func element(_ v: Int) { separator(); Self.appendDecimal(Int64(v), to: &bytes) }

    /// The decimal digits of `value`, as `String(value)` writes them.
    static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var end = digits.count
            var m = value.magnitude
            repeat {
                end -= 1
                digits[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m % 10)
                m /= 10
            } while m > 0
            if value < 0 { out.append(UInt8(ascii: "-")) }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[end...]))
        }
    }

    /// `s` as a JSON string literal, quotes included, appended as UTF-8.
    static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        // Nearly every string needs no escape: its bytes go in whole.
        let plain = s.withUTF8 { utf8 in
            if firstEscaped(in: utf8, from: 0) != nil { return false }
            out.append(contentsOf: utf8)
            return true
        }
        if !plain { forEachPiece(ofString: s) { out.append(contentsOf: $0) } }
        out.append(UInt8(ascii: "\""))
    }

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
