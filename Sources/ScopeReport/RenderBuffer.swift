import ScopeCore

/// The UTF-8 bytes of a rendering (JSON, HTML, XML). A report is hundreds of thousands of small
/// pieces (keys, tags, punctuation, indentation, numbers); each is copied in with one capacity
/// check, without the uniqueness check and generic copy of `Array.append(contentsOf:)`, and the
/// bytes become a string once.
struct RenderBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes so far as a string. Every writer appends whole UTF-8 sequences (ASCII bytes,
    /// literals, strings, runs of a string cut only at ASCII bytes), so the bytes are copied
    /// without validating them again (validating a report with a few non-ASCII characters in
    /// it goes byte by byte); debug builds check.
    var string: String {
        let bytes = UnsafeBufferPointer(start: base, count: count)
        assert(String(validating: bytes, as: UTF8.self) != nil, "a RenderBuffer holds invalid UTF-8")
        return String(copying: unsafe UTF8Span(unchecked: bytes.span))
    }

    mutating func removeAll() { count = 0 }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ a: UInt8, _ b: UInt8) {
        if count + 2 > capacity { grow(2) }
        base[count] = a
        base[count + 1] = b
        count += 2
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { grow(bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { append($0) }
    }

    /// A string's UTF-8 as it is (a number already rendered, a name that needs no escape).
    mutating func appendUTF8(_ s: String) {
        var s = s
        s.withUTF8 { append($0) }
    }

    /// Indentation: a few words of spaces rather than a call to `memset`.
    @inline(__always)
    mutating func spaces(_ n: Int) {
        if count + n + 8 > capacity { grow(n + 8) }
        Self.fillSpaces(base + count, n)
        count += n
    }

    /// `n` spaces at `to`, written a word at a time: up to 7 bytes past them are written too.
    @inline(__always)
    private static func fillSpaces(_ to: UnsafeMutablePointer<UInt8>, _ n: Int) {
        let raw = UnsafeMutableRawPointer(to)
        var i = 0
        while i < n {
            raw.storeBytes(of: 0x2020_2020_2020_2020 as UInt64, toByteOffset: i, as: UInt64.self)
            i += 8
        }
    }

    /// `Millis.string(micros)`, written in place.
    mutating func appendMillis(_ micros: Int64) {
        if count + 56 > capacity { grow(56) }
        let start = base + count
        var first = start + 32
        Millis.write(micros, before: &first)
        count += Decimal.move(from: first, to: start, end: start + 32)
    }

    /// The decimal digits of `value` (as `String(value)` writes them).
    mutating func appendDecimal(_ value: Int64) {
        if count + 48 > capacity { grow(48) }
        // Written right to left into the free space past the sign, then moved to its start.
        let start = base + count
        var first = start + 24
        if value < 0 {
            start.pointee = UInt8(ascii: "-")
            Decimal.digits(value.magnitude, before: &first)
            count += 1 + Decimal.move(from: first, to: start + 1, end: start + 24)
        } else {
            Decimal.digits(value.magnitude, before: &first)
            count += Decimal.move(from: first, to: start, end: start + 24)
        }
    }

    @inline(__always)
    mutating func appendDecimal(_ value: Int) { appendDecimal(Int64(value)) }

    private mutating func grow(_ needed: Int) {
        let newCapacity = max(capacity * 2, count + needed)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}

// MARK: - JSON

extension RenderBuffer {
    /// A JSON string literal, quotes included. Nearly every string needs no escape: its bytes
    /// are checked and copied eight at a time (`JSONWriter.escapeMask`) in one pass; a string
    /// that needs one is written again piece by piece (`JSONWriter.forEachPiece`).
    mutating func appendString(_ s: String) {
        var s = s
        let plain = s.withUTF8 { appendPlain($0) }
        if !plain {
            append(UInt8(ascii: "\""))
            JSONWriter.forEachPiece(ofString: s) { append($0) }
            append(UInt8(ascii: "\""))
        }
    }

    /// The start of an object's field: `{` (its first) or `,`, a newline, `indent` spaces, the
    /// key in quotes and `: `, with one capacity check.
    mutating func appendKey(_ key: StaticString, first: Bool, indent: Int) {
        key.withUTF8Buffer { bytes in
            let n = bytes.count
            let total = 2 + indent + n + 4
            if count + total + 8 > capacity { grow(total + 8) }
            let start = base + count
            start[0] = first ? UInt8(ascii: "{") : UInt8(ascii: ",")
            start[1] = 0x0A
            Self.fillSpaces(start + 2, indent)
            let quote = start + 2 + indent
            guard Self.copyPlain(bytes, to: quote + 1) else {
                count += 2 + indent
                appendString(key.description)
                append(UInt8(ascii: ":"), UInt8(ascii: " "))
                return
            }
            quote[0] = UInt8(ascii: "\"")
            quote[n + 1] = UInt8(ascii: "\"")
            quote[n + 2] = UInt8(ascii: ":")
            quote[n + 3] = UInt8(ascii: " ")
            count += total
        }
    }

    /// `bytes` in quotes when none needs an escape (true); else nothing written (false).
    @inline(__always)
    private mutating func appendPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = bytes.count
        if count + n + 2 > capacity { grow(n + 2) }
        guard Self.copyPlain(bytes, to: base + count + 1) else { return false }
        base[count] = UInt8(ascii: "\"")
        base[count + n + 1] = UInt8(ascii: "\"")
        count += n + 2
        return true
    }

    /// Copies `bytes` to `out` if none needs a JSON escape (true); else stops (false), having
    /// written part of them. Eight bytes are checked and copied at a time.
    @inline(__always)
    private static func copyPlain(_ bytes: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Bool {
        let n = bytes.count
        if n >= 8, let source = bytes.baseAddress {
            let from = UnsafeRawPointer(source)
            let to = UnsafeMutableRawPointer(out)
            var i = 0
            while i + 8 <= n {
                let word = from.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if JSONWriter.escapeMask(word) != 0 { return false }
                to.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
                i += 8
            }
            if i < n {
                // The last eight bytes, overlapping the ones already copied.
                let word = from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
                if JSONWriter.escapeMask(word) != 0 { return false }
                to.storeBytes(of: word, toByteOffset: n - 8, as: UInt64.self)
            }
        } else {
            for i in 0..<n {
                let b = bytes[i]
                if JSONWriter.needsEscape(b) { return false }
                out[i] = b
            }
        }
        return true
    }
}

// MARK: - XML and HTML

extension RenderBuffer {
    /// `s` as text content or an attribute value of XML or HTML (both quotes escaped): `&`, `<`,
    /// `>`, `"` and `'` become entities; C0 controls other than tab, LF and CR, which XML 1.0
    /// forbids even as references, and the noncharacters U+FFFE and U+FFFF (EF BF BE, EF BF BF)
    /// become U+FFFD, shown visibly. Every other byte is copied as it is, in runs found eight
    /// bytes at a time (`markupMask`). Returns whether anything was changed.
    @discardableResult
    mutating func appendXMLEscaped(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { appendXMLEscaped($0) }
    }

    private mutating func appendXMLEscaped(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let source = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(source)
        let n = bytes.count
        var copied = 0
        var i = 0
        while true {
            // The next byte that may need an escape (the mask can flag a byte that needs none).
            while i + 8 <= n {
                let mask = Self.markupMask(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                if mask != 0 {
                    i += mask.trailingZeroBitCount / 8
                    break
                }
                i += 8
            }
            if i + 8 > n {
                while i < n && !Self.mayNeedMarkupEscape(source[i]) { i += 1 }
            }
            guard i < n else { break }
            let replacement: StaticString
            var length = 1
            switch source[i] {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\""): replacement = "&quot;"
            case UInt8(ascii: "'"): replacement = "&#39;"
            case UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                i += 1
                continue
            case 0..<0x20: replacement = "\u{FFFD}"
            case 0xEF where i + 2 < n && source[i + 1] == 0xBF && source[i + 2] >= 0xBE:
                replacement = "\u{FFFD}"
                length = 3
            default:
                i += 1
                continue
            }
            append(UnsafeBufferPointer(start: source + copied, count: i - copied))
            append(replacement)
            i += length
            copied = i
        }
        append(UnsafeBufferPointer(start: source + copied, count: n - copied))
        return copied > 0
    }

    /// A byte ``appendXMLEscaped(_:)`` looks at: a C0 control, `&`, `'`, `<`, `>`, `"`, or 0xEF
    /// (the lead byte of U+FFFE and U+FFFF).
    @inline(__always)
    private static func mayNeedMarkupEscape(_ b: UInt8) -> Bool {
        b < 0x20 || b == UInt8(ascii: "&") || b == UInt8(ascii: "'") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">")
            || b == UInt8(ascii: "\"") || b == 0xEF
    }

    /// `mayNeedMarkupEscape` for the eight bytes of `word` at once (in memory order, whatever the
    /// machine's byte order): zero when no byte is one; otherwise the lowest set bit is the high
    /// bit of the first that is (as `JSONWriter.escapeMask`: a borrow that could flag a later
    /// byte wrongly starts at a flagged one).
    @inline(__always)
    private static func markupMask(_ word: UInt64) -> UInt64 {
        let x = UInt64(littleEndian: word)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func equal(_ byte: UInt8) -> UInt64 {
            let y = x ^ (ones &* UInt64(byte))
            return (y &- ones) & ~y
        }
        let control = (x &- ones &* 0x20) & ~x
        // `&` (0x26) and `'` (0x27): the byte XOR 0x26 is below 2.
        let a = x ^ (ones &* 0x26)
        let ampersandOrApostrophe = (a &- ones &* 2) & ~a
        let marks = equal(UInt8(ascii: "<")) | equal(UInt8(ascii: ">")) | equal(UInt8(ascii: "\"")) | equal(0xEF)
        return (control | ampersandOrApostrophe | marks) & high
    }
}

/// Decimal digits written right to left, two at a time.
enum Decimal {
    /// "00" to "99", each pair of digits at twice its value.
    static var pairs: StaticString {
        """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
    }

    /// Writes the digits of `value` ending just before `first` (at most 20) and moves `first`
    /// to the first digit.
    @inline(__always)
    static func digits(_ value: UInt64, before first: inout UnsafeMutablePointer<UInt8>) {
        let table = pairs.utf8Start
        var v = value
        while v >= 100 {
            let pair = Int(v % 100) &* 2
            v /= 100
            first -= 2
            first[0] = table[pair]
            first[1] = table[pair &+ 1]
        }
        if v >= 10 {
            let pair = Int(v) &* 2
            first -= 2
            first[0] = table[pair]
            first[1] = table[pair &+ 1]
        } else {
            first -= 1
            first.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v)
        }
    }

    /// Moves the bytes from `from` to `end` (at most 24) down to `to` (not above `from`),
    /// returning how many: three words copied in order, so 24 bytes from `from` and from `to`
    /// must be inside the buffer.
    @inline(__always)
    static func move(from: UnsafeMutablePointer<UInt8>, to: UnsafeMutablePointer<UInt8>, end: UnsafeMutablePointer<UInt8>) -> Int {
        let source = UnsafeRawPointer(from)
        let target = UnsafeMutableRawPointer(to)
        for offset in stride(from: 0, to: 24, by: 8) {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset, as: UInt64.self)
        }
        return end - from
    }
}
