import ScopeCore

/// A JSON value whose objects keep their keys in insertion order, so reports serialise the same
/// way every time (golden files, diffs between runs, programs that read them). Not `indirect`:
/// arrays and objects already keep their items in array storage, and a scalar held inline costs
/// no allocation (a long report has hundreds of thousands of them).
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    /// A decimal number already rendered (e.g. milliseconds "707.556"): no floating point drift.
    case decimal(String)
    /// A microsecond count rendered as milliseconds (`Millis.string`) when written: no string kept.
    case millis(Int64)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.decimal(let x), .decimal(let y)): return x == y
        case (.millis(let x), .millis(let y)): return x == y
        case (.millis(let x), .decimal(let y)), (.decimal(let y), .millis(let x)): return Millis.string(x) == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The value of `key` in an object.
    package subscript(key: String) -> JSONValue? {
        if case .object(let pairs) = self { return pairs.first { $0.0 == key }?.1 }
        return nil
    }

    /// Keys of an object, in order.
    package var keys: [String] {
        if case .object(let pairs) = self { return pairs.map(\.0) }
        return []
    }

    /// Two-space indented, one key per line, trailing newline.
    package func rendered() -> String {
        var out = RenderBuffer(capacity: 1 << 12)
        write(into: &out, indent: 0, flush: Int.max) { _ in }
        out.append(0x0A)
        return out.string
    }

    /// The rendering of `rendered()`, handed to `sink` in pieces of about `chunk` bytes: a long
    /// report is never one string in memory.
    package func write(chunk: Int = 1 << 16, to sink: (String) -> Void) {
        var out = RenderBuffer(capacity: chunk + 4096)
        write(into: &out, indent: 0, flush: chunk) { sink($0) }
        out.append(0x0A)
        sink(out.string)
    }

    // Written as UTF-8 bytes, turned into a string once per piece: appending to a `String` piece
    // by piece updates its count and flags each time (a third of writing a long report).
    fileprivate func write(into out: inout RenderBuffer, indent: Int, flush: Int, sink: (String) -> Void) {
        if out.count >= flush {
            sink(out.string)
            out.removeAll()
        }
        switch self {
        case .null, .bool, .int, .decimal, .millis, .string:
            writeScalar(into: &out)
        case .array(let items):
            if items.isEmpty {
                out.append("[]")
                return
            }
            // Arrays of scalars stay on one line (frame lists).
            if items.allSatisfy({ $0.isScalar }) {
                out.append(UInt8(ascii: "["))
                for i in items.indices {
                    if i > 0 { out.append(UInt8(ascii: ","), UInt8(ascii: " ")) }
                    items[i].writeScalar(into: &out)
                }
                out.append(UInt8(ascii: "]"))
                return
            }
            out.append("[\n")
            for i in items.indices {
                out.spaces(2 * (indent + 1))
                items[i].write(into: &out, indent: indent + 1, flush: flush, sink: sink)
                if i + 1 < items.count {
                    out.append(UInt8(ascii: ","), 0x0A)
                } else {
                    out.append(0x0A)
                }
            }
            out.spaces(2 * indent)
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            if pairs.isEmpty {
                out.append("{}")
                return
            }
            out.append("{\n")
            for i in pairs.indices {
                out.spaces(2 * (indent + 1))
                out.appendString(pairs[i].0)
                out.append(UInt8(ascii: ":"), UInt8(ascii: " "))
                pairs[i].1.write(into: &out, indent: indent + 1, flush: flush, sink: sink)
                if i + 1 < pairs.count {
                    out.append(UInt8(ascii: ","), 0x0A)
                } else {
                    out.append(0x0A)
                }
            }
            out.spaces(2 * indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A scalar's text (nothing for an array or object).
    private func writeScalar(into out: inout RenderBuffer) {
        switch self {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .int(let i): out.appendDecimal(i)
        case .decimal(let d): out.appendUTF8(d)
        case .millis(let m): out.appendMillis(m)
        case .string(let s): out.appendString(s)
        case .array, .object: break
        }
    }

    /// On one line, without spaces: a JSON Lines row.
    package func compact() -> String {
        var out = RenderBuffer(capacity: 1 << 10)
        writeCompact(into: &out)
        return out.string
    }

    private func writeCompact(into out: inout RenderBuffer) {
        switch self {
        case .null, .bool, .int, .decimal, .millis, .string:
            writeScalar(into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for i in items.indices {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                items[i].writeCompact(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            out.append(UInt8(ascii: "{"))
            for i in pairs.indices {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.appendString(pairs[i].0)
                out.append(UInt8(ascii: ":"))
                pairs[i].1.writeCompact(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    var isScalar: Bool {
        switch self {
        case .array, .object: return false
        default: return true
        }
    }
}

/// The fields of one JSON object, in order. A shape written once against this is either kept as
/// a tree (`JSONObject`) or rendered straight into the output (`JSONFieldWriter`), byte for byte
/// as `JSONValue.write` renders that tree.
///
/// The keys of a shape are literals: the writer copies their bytes without making strings.
protocol JSONFields: ~Copyable {
    mutating func set(_ key: StaticString, _ value: JSONValue)
    /// An object whose fields `fields` sets.
    mutating func set(_ key: StaticString, object fields: (inout Self) -> Void)
    /// An array of objects, one per item, each with the fields `fields` sets.
    mutating func set<T>(_ key: StaticString, objects items: [T], _ fields: (T, inout Self) -> Void)
}

/// Optional values written as `null`.
extension JSONFields where Self: ~Copyable {
    mutating func set(_ key: StaticString, _ value: String?) { set(key, value.map(JSONValue.string) ?? .null) }
    mutating func set(_ key: StaticString, _ value: Int?) { set(key, value.map { .int(Int64($0)) } ?? .null) }
    mutating func set(_ key: StaticString, _ value: Bool?) { set(key, value.map(JSONValue.bool) ?? .null) }
    /// Milliseconds from a microsecond count.
    mutating func set(ms key: StaticString, _ micros: Int64?) { set(key, micros.map(JSONValue.millis) ?? .null) }
    mutating func set(_ key: StaticString, frames: [FrameNumber]) { set(key, .array(frames.map { .int(Int64($0)) })) }
}

/// Builds ordered objects as a tree; keys made at run time (settings, counts by name) too.
struct JSONObject: JSONFields {
    private(set) var pairs: [(String, JSONValue)] = []

    mutating func set(_ key: String, _ value: JSONValue) { pairs.append((key, value)) }
    mutating func set(_ key: String, _ value: String?) { set(key, value.map(JSONValue.string) ?? .null) }
    mutating func set(_ key: String, _ value: Int?) { set(key, value.map { .int(Int64($0)) } ?? .null) }
    mutating func set(_ key: String, _ value: Bool?) { set(key, value.map(JSONValue.bool) ?? .null) }
    mutating func set(ms key: String, _ micros: Int64?) { set(key, micros.map(JSONValue.millis) ?? .null) }
    mutating func set(_ key: String, frames: [FrameNumber]) { set(key, .array(frames.map { .int(Int64($0)) })) }

    mutating func set(_ key: StaticString, _ value: JSONValue) { pairs.append((key.description, value)) }

    mutating func set(_ key: StaticString, object fields: (inout JSONObject) -> Void) {
        var o = JSONObject()
        fields(&o)
        pairs.append((key.description, o.value))
    }

    mutating func set<T>(_ key: StaticString, objects items: [T], _ fields: (T, inout JSONObject) -> Void) {
        pairs.append((key.description, .array(items.map { item in
            var o = JSONObject()
            fields(item, &o)
            return o.value
        })))
    }

    var value: JSONValue { .object(pairs) }
}

/// Writes an object's fields as they are set, as `JSONValue.write` writes the tree `JSONObject`
/// would build: long lists are rendered without a tree of their items.
struct JSONFieldWriter: JSONFields, ~Copyable {
    private var out: RenderBuffer
    private let chunk: Int
    private let sink: (String) -> Void
    /// The indentation level of the object being written and how many fields it has so far.
    private var level = 0
    private var fields = 0

    private init(chunk: Int, sink: @escaping (String) -> Void) {
        out = RenderBuffer(capacity: chunk + 4096)
        self.chunk = chunk
        self.sink = sink
    }

    /// The object `body` writes, handed to `sink` in pieces of about `chunk` bytes (as
    /// `JSONValue.write(chunk:to:)`).
    static func write(chunk: Int, to sink: (String) -> Void, _ body: (inout JSONFieldWriter) -> Void) {
        withoutActuallyEscaping(sink) { sink in
            var w = JSONFieldWriter(chunk: chunk, sink: sink)
            body(&w)
            w.close()
            w.out.append(0x0A)
            sink(w.out.string)
        }
    }

    private mutating func key(_ key: StaticString) {
        out.appendKey(key, first: fields == 0, indent: 2 * (level + 1))
        fields += 1
    }

    /// Ends the object of the current level.
    private mutating func close() {
        if fields == 0 {
            out.append("{}")
            return
        }
        out.append(UInt8(ascii: "\n"))
        out.spaces(2 * level)
        out.append(UInt8(ascii: "}"))
    }

    /// The fields `body` sets, as an object one level down.
    private mutating func nested(_ body: (inout JSONFieldWriter) -> Void) {
        let outer = (level, fields)
        level += 1
        fields = 0
        body(&self)
        close()
        (level, fields) = outer
    }

    mutating func set(_ key: StaticString, _ value: JSONValue) {
        self.key(key)
        value.write(into: &out, indent: level + 1, flush: chunk, sink: sink)
    }

    mutating func set(_ key: StaticString, object body: (inout JSONFieldWriter) -> Void) {
        self.key(key)
        nested(body)
    }

    mutating func set<T>(_ key: StaticString, objects items: [T], _ body: (T, inout JSONFieldWriter) -> Void) {
        self.key(key)
        if items.isEmpty {
            out.append("[]")
            return
        }
        out.append("[\n")
        level += 1
        for i in items.indices {
            if out.count >= chunk {
                sink(out.string)
                out.removeAll()
            }
            out.spaces(2 * (level + 1))
            nested { body(items[i], &$0) }
            if i + 1 < items.count {
                out.append(UInt8(ascii: ","), 0x0A)
            } else {
                out.append(0x0A)
            }
        }
        level -= 1
        out.spaces(2 * (level + 1))
        out.append(UInt8(ascii: "]"))
    }
}

/// Exact decimal rendering of microsecond quantities in milliseconds (no floating point).
package enum Millis {
    /// 707556 → "707.556", 64000 → "64", -1500 → "-1.5".
    package static func string(_ micros: Int64) -> String {
        // Written into bytes on the stack, then made into a string once: reports render tens of
        // thousands of these.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            let end = buffer.baseAddress! + 32
            var first = end
            write(micros, before: &first)
            return String(decoding: UnsafeBufferPointer(start: first, count: end - first), as: UTF8.self)
        }
    }

    /// Writes `string(micros)` right to left, ending just before `first` (at most 21 bytes: a
    /// sign, 16 whole digits, a point and 3 decimals), and moves `first` to its first byte.
    static func write(_ micros: Int64, before first: inout UnsafeMutablePointer<UInt8>) {
        let m = micros.magnitude
        var frac = m % 1000
        if frac != 0 {
            var places = 3
            while frac % 10 == 0 {
                frac /= 10
                places -= 1
            }
            for _ in 0..<places {
                first -= 1
                first.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: frac % 10)
                frac /= 10
            }
            first -= 1
            first.pointee = UInt8(ascii: ".")
        }
        Decimal.digits(m / 1000, before: &first)
        if micros < 0 {
            first -= 1
            first.pointee = UInt8(ascii: "-")
        }
    }

    /// A ratio rendered with `places` decimals, half away from zero, e.g. 0.3333 → "0.333".
    package static func ratio(_ value: Double, places: Int = 3) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (value * scale).rounded()
        let micros = Int64(scaled)
        // Reuse the integer path: treat the scaled value as "thousandths" when places == 3.
        if places == 3 { return string(micros) }
        var s = String(scaled / scale)
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }
}
