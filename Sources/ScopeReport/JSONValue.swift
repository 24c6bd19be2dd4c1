import ScopeCore

/// A JSON value whose objects keep their keys in insertion order, so reports serialise the same
/// way every time (golden files, diffs between runs, programs that read them).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    /// A decimal number already rendered (e.g. milliseconds "707.556"): no floating point drift.
    case decimal(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.decimal(let x), .decimal(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The value of `key` in an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let pairs) = self { return pairs.first { $0.0 == key }?.1 }
        return nil
    }

    /// Keys of an object, in order.
    public var keys: [String] {
        if case .object(let pairs) = self { return pairs.map(\.0) }
        return []
    }

    /// Two-space indented, one key per line, trailing newline.
    public func rendered() -> String {
        var out = ""
        var whole = ""
        write(into: &out, indent: 0, flush: Int.max) { whole += $0 }
        out += "\n"
        return whole + out
    }

    /// The rendering of `rendered()`, handed to `sink` in pieces of about `chunk` bytes: a long
    /// report is never one string in memory.
    public func write(chunk: Int = 1 << 16, to sink: (String) -> Void) {
        var out = ""
        out.reserveCapacity(chunk + 4096)
        write(into: &out, indent: 0, flush: chunk, sink: sink)
        out += "\n"
        sink(out)
    }

    private func write(into out: inout String, indent: Int, flush: Int, sink: (String) -> Void) {
        if out.utf8.count >= flush {
            sink(out)
            out.removeAll(keepingCapacity: true)
        }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .decimal(let d): out += d
        case .string(let s): JSONWriter.appendString(s, to: &out)
        case .array(let items):
            if items.isEmpty {
                out += "[]"
                return
            }
            // Arrays of scalars stay on one line (frame lists).
            if items.allSatisfy(\.isScalar) {
                out += "["
                for (i, item) in items.enumerated() {
                    if i > 0 { out += ", " }
                    item.write(into: &out, indent: indent, flush: flush, sink: sink)
                }
                out += "]"
                return
            }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += Self.indentation(indent + 1)
                item.write(into: &out, indent: indent + 1, flush: flush, sink: sink)
                out += i + 1 < items.count ? ",\n" : "\n"
            }
            out += Self.indentation(indent)
            out += "]"
        case .object(let pairs):
            if pairs.isEmpty {
                out += "{}"
                return
            }
            out += "{\n"
            for (i, (k, v)) in pairs.enumerated() {
                out += Self.indentation(indent + 1)
                JSONWriter.appendString(k, to: &out)
                out += ": "
                v.write(into: &out, indent: indent + 1, flush: flush, sink: sink)
                out += i + 1 < pairs.count ? ",\n" : "\n"
            }
            out += Self.indentation(indent)
            out += "}"
        }
    }

    /// On one line, without spaces: a JSON Lines row.
    public func compact() -> String {
        var out = ""
        writeCompact(into: &out)
        return out
    }

    private func writeCompact(into out: inout String) {
        switch self {
        case .null, .bool, .int, .decimal, .string:
            write(into: &out, indent: 0, flush: Int.max) { _ in }
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.writeCompact(into: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, (k, v)) in pairs.enumerated() {
                if i > 0 { out += "," }
                JSONWriter.appendString(k, to: &out)
                out += ":"
                v.writeCompact(into: &out)
            }
            out += "}"
        }
    }

    /// Two spaces per level, built once for the depths reports reach (a line's indentation is
    /// otherwise a new string per line: about a tenth of writing a long report).
    private static let indentations: [String] = (0..<16).map { String(repeating: "  ", count: $0) }

    private static func indentation(_ level: Int) -> String {
        level < indentations.count ? indentations[level] : String(repeating: "  ", count: level)
    }

    var isScalar: Bool {
        switch self {
        case .array, .object: return false
        default: return true
        }
    }
}

/// Builds ordered objects with optional values written as `null`.
struct JSONObject {
    private(set) var pairs: [(String, JSONValue)] = []

    mutating func set(_ key: String, _ value: JSONValue) { pairs.append((key, value)) }
    mutating func set(_ key: String, _ value: String?) { pairs.append((key, value.map(JSONValue.string) ?? .null)) }
    mutating func set(_ key: String, _ value: Int?) { pairs.append((key, value.map { .int(Int64($0)) } ?? .null)) }
    mutating func set(_ key: String, _ value: Bool?) { pairs.append((key, value.map(JSONValue.bool) ?? .null)) }
    /// Milliseconds from a microsecond count.
    mutating func set(ms key: String, _ micros: Int64?) {
        pairs.append((key, micros.map { .decimal(Millis.string($0)) } ?? .null))
    }
    mutating func set(_ key: String, frames: [FrameNumber]) { pairs.append((key, .array(frames.map { .int(Int64($0)) }))) }

    var value: JSONValue { .object(pairs) }
}

/// Exact decimal rendering of microsecond quantities in milliseconds (no floating point).
public enum Millis {
    /// 707556 → "707.556", 64000 → "64", -1500 → "-1.5".
    public static func string(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let m = micros.magnitude
        let whole = String(m / 1000)
        var frac = String(m % 1000)
        if m % 1000 == 0 { return sign + whole }
        frac = String(repeating: "0", count: 3 - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        return sign + whole + "." + frac
    }

    /// A ratio rendered with `places` decimals, half away from zero, e.g. 0.3333 → "0.333".
    public static func ratio(_ value: Double, places: Int = 3) -> String {
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
