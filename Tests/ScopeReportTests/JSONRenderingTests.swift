import ScopeCore
import ScopeReport
import Testing

/// The byte-level parts of JSON rendering: the escape scan that checks eight bytes at a time,
/// and numbers written straight into the output.
@Suite struct JSONRenderingTests {
    /// The escape rule byte by byte, as the reference.
    static func escaped(_ s: String) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): out += Array(#"\\"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0..<0x20: out += Array(("\\u00" + Hex.string([b]).lowercased()).utf8)
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    /// Every ASCII byte at every position of strings of 1 to 19 bytes (short ones byte by byte,
    /// longer ones a word at a time with an overlapping last word).
    @Test func everyByteAtEveryPosition() {
        var wrong: [String] = []
        for length in 1..<20 {
            for position in 0..<length {
                for b in UInt8(0)..<0x80 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = b
                    let s = String(decoding: bytes, as: UTF8.self)
                    let first = bytes.withUnsafeBufferPointer { JSONWriter.firstEscaped(in: $0, from: 0) }
                    if JSONValue.string(s).compact() != Self.escaped(s) || first != (JSONWriter.needsEscape(b) ? position : nil) {
                        wrong.append("byte \(b) at \(position) of \(length)")
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
        // Non-ASCII characters stand for themselves, next to ones that need an escape.
        for s in ["é\"ü", "日本語のテキスト\n", "\u{7F}\u{80}\u{FF}\\", "ünïcödé without escapes"] {
            #expect(JSONValue.string(s).compact() == Self.escaped(s))
        }
    }

    @Test func numbersWrittenInPlace() {
        var values: [Int64] = [0, 1, -1, 5, 9, 10, 99, 100, 101, 999, 1000, 1001, 1010, 1100, 64000, 707_556, -1500, -70,
                               Int64.max, Int64.min, Int64.min + 1]
        var p: Int64 = 1
        for _ in 0..<18 {
            p *= 10
            values += [p - 1, p, p + 1, -p, -(p - 1), p / 3 * 7]
        }
        for v in values {
            #expect(JSONValue.int(v).compact() == String(v))
            #expect(JSONValue.millis(v).compact() == Millis.string(v))
            #expect(JSONValue.millis(v) == .decimal(Millis.string(v)))
        }
        #expect(JSONValue.millis(707_556).compact() == "707.556")
        #expect(JSONValue.millis(-9).compact() == "-0.009")
        #expect(JSONValue.millis(Int64.min).compact() == "-9223372036854775.808")
        #expect(JSONValue.array([.millis(1), .int(-3)]).rendered() == "[0.001, -3]\n")
    }
}
