import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// Malformed AD data: overruns, early termination, size contracts; every prefix and random bytes.
@Suite("AD malformed")
struct ADMalformedTests {
    /// real/AleBonora3__Tesi_BLE__Lv4_passkey.pcapng frame 89, an ADV_IND received over the air
    /// with bit errors (the name was "Nordic_JBS" with Length 0x0b; it arrived as 0x03). tshark:
    ///   Flags: BR/EDR Not Supported, LE General Discoverable Mode
    ///   Device Name: No
    ///   Unknown: Length: 114, Type: Unknown (0x64)   [runs past the end]
    @Test func lengthRunningPastTheEndKeepsWhatCameBefore() {
        let data = Fixtures.hex("02 01 06 03 09 4e 6f 72 64 69 63 5f 4a 42 53")
        let r = ADParser.parse(data, baseOffset: 29)
        #expect(r.structures.map(\.type) == [0x01, 0x09])
        #expect(r.localName == "No")
        #expect(r.malformed == [
            Malformation(layer: .ad, offset: 36, message: "AD structure Length 114 runs past the end (7 octets left)")
        ])
    }

    @Test func zeroPaddingAfterEarlyTerminationIsLegal() {
        // Core v5.4 Vol 3 Part C §11: a zero Length ends the significant part; zeros may follow.
        let r = ADParser.parse(Fixtures.hex("02 01 06 00 00 00 00"), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.structures.count == 1)
        #expect(ADParser.parse([0x00], baseOffset: 0) == ADParseResult(structures: [], malformed: []))
        #expect(ADParser.parse([], baseOffset: 0) == ADParseResult(structures: [], malformed: []))
    }

    @Test func nonZeroOctetsAfterEarlyTerminationAreReported() {
        // A zero Length followed by what looks like another structure: the rest is outside the
        // significant part, so it is not parsed, and the first non-zero octet is reported.
        let r = ADParser.parse(Fixtures.hex("02 01 06 00 00 05 09 41 42 43 44"), baseOffset: 10)
        #expect(r.structures.map(\.type) == [0x01])
        #expect(r.malformed.count == 1)
        #expect(r.malformed.first?.offset == 15)
        #expect(r.malformed.first?.message
            == "6 non-zero octets after the early termination (zero Length) at offset 13; the non-significant part must be all zeros")
    }

    @Test(arguments: [
        // (hex, type, message) — each structure is kept, shown raw, and reported at its Length octet.
        ("04 03 0d 18 0f", 0x03, "length 3 is not a multiple of 2"),
        ("06 05 0d 18 00 00 0f", 0x05, "length 5 is not a multiple of 4"),
        ("05 07 01 02 03 04", 0x07, "length 4 is not a multiple of 16"),
        ("03 0a 00 00", 0x0A, "expected 1 octet, got 2"),
        ("01 0a", 0x0A, "expected 1 octet, got 0"),
        ("02 19 c0", 0x19, "expected 2 octets, got 1"),
        ("03 0d 0c 02", 0x0D, "expected 3 octets, got 2"),
        ("06 10 02 00 6b 1d 46", 0x10, "expected 8 octets (Device ID) or 16 (TK Value), got 5"),
        ("04 12 06 00 80", 0x12, "expected 4 octets, got 3"),
        ("02 16 aa", 0x16, "expected at least 2 octets, got 1"),
        ("04 20 01 02 03", 0x20, "expected at least 4 octets, got 3"),
        ("06 17 01 02 03 04 05", 0x17, "length 5 is not a non-zero multiple of 6"),
        ("07 1b 01 02 03 04 05 06", 0x1B, "expected 7 octets, got 6"),
        ("02 ff 4c", 0xFF, "expected at least 2 octets, got 1"),
        ("01 24", 0x24, "expected at least 1 octets, got 0"),
        ("03 2f 00 08", 0x2F, "expected 3 or 4 octets, got 2"),
        ("04 30 41 42 43", 0x30, "expected 4 to 32 octets, got 3"),
        ("05 2e 01 02 03 04", 0x2E, "expected 6 octets, got 4"),
    ] as [(String, UInt8, String)])
    func wrongSizeForType(hex: String, type: UInt8, message: String) throws {
        let data = Fixtures.hex("02 01 06") + Fixtures.hex(hex)
        let r = ADParser.parse(data, baseOffset: 100)
        #expect(r.structures.count == 2)
        let s = try #require(r.structures.last)
        #expect(s.type == type)
        #expect(s.offset == 103)
        #expect(s.value == .bytes(s.data))
        #expect(r.malformed == [Malformation(layer: .ad, offset: 103, message: "\(s.name): \(message)")])
    }

    @Test func zeroLengthFlagsIsLegal() {
        // CSS Part A §1.3: "The Flags field may be zero or more octets long."
        let r = ADParser.parse(Fixtures.hex("01 01 03 03 0d 18"), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.flags == [])
        #expect(r.structures[0].valueDescription == "0x00")
    }

    @Test func unknownTypesAreKeptNotMalformed() {
        let r = ADParser.parse(Fixtures.hex("03 42 01 02 02 00 05"), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.structures.map(\.name) == ["Unknown (0x42)", "Unknown (0x00)"])
        #expect(r.structures[0].valueDescription == "0102")
    }

    @Test func lossyNames() {
        // BlueZ unit/test-eir.c "invalid-utf8-name": one octet of a 3-octet sequence is missing.
        let bytes = Fixtures.hex("""
            22 09 74 65 73 74 20 e0 a4 aa e0 a4 b0 e0 a5 80 e0 a4 e0 a5 8d e0 a4 b7 e0 a4 be 20 69 6e 76 61 6c 69 64
            """)
        let r = ADParser.parse(bytes, baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.localName == "test \u{92A}\u{930}\u{940}\u{FFFD}\u{94D}\u{937}\u{93E} invalid")
        // BlueZ "utf16-name": UTF-16 sent as a name; NULs are kept inside and escaped for display.
        let utf16 = ADParser.parse(Fixtures.hex("07 09 00 55 00 54 00 46"), baseOffset: 0)
        #expect(utf16.localName == "\u{0}U\u{0}T\u{0}F")
        #expect(utf16.structures[0].valueDescription == "\\u{0}U\\u{0}T\\u{0}F")
        // Trailing NUL terminators are dropped from the name.
        #expect(ADParser.parse(Fixtures.hex("05 09 41 42 00 00"), baseOffset: 0).localName == "AB")
    }

    // MARK: Prefixes and random input: never trap, always account for every octet

    /// Real AD blocks from ADDecoderTests (corpus and BlueZ vectors).
    static let validBlocks: [String] = [
        "04 09 41 53 4a 05 03 12 11 00 12 01 05 01 07 00 00 00",
        "02 01 06 1a ff 4c 00 02 15 ef 09 00 00 11 d6 42 ba 93 b8 9d d7 ec 09 0a a9 00 02 7a 2d c8",
        "02 01 1a 09 ff c4 00 08 33 15 13 17 80 02 0a d4 03 03 b9 fe 08 1b 00 87 32 0c 26 8d 60",
        "02 0a f7 16 16 2c fe 10 52 d4 32 10 64 15 21 5e 0b 2a fb 78 c0 2d 7f 4d ac d6 02 01 06",
        "02 01 05 05 12 7f 01 8f 01 14 09 45 63 6f 2d 44 72 69 76 65 20 50 72 6f 78 69 6d 69 74 79",
        "11 15 d0 00 2d 12 1e 4b 0f a4 99 4e ce b5 31 f4 05 79 09 ff ef f0 da 44 71 37 6d f6",
        "17 2b 01 00 9e 15 5b f1 88 bc 98 ad 00 00 00 00 cb 3e 54 ae 6b db 53 5e",
        "02 01 05 03 19 42 0c 03 03 e7 fe 04 09 43 36 30",
    ]

    /// Every strict prefix of a valid block: a prefix ending inside a structure reports exactly one
    /// malformation (the overrun, at that structure's Length octet); a prefix ending on a
    /// structure boundary (or in the zero padding) is itself valid and reports nothing. Either way
    /// the structures before the cut are identical to the full parse's.
    @Test(arguments: validBlocks)
    func everyStrictPrefix(hex: String) {
        let full = Fixtures.hex(hex)
        let whole = ADParser.parse(full, baseOffset: 7)
        #expect(whole.malformed.isEmpty)
        let ends = Set(whole.structures.map { $0.offset - 7 + 1 + $0.data.count + 1 })
        let significantEnd = ends.max() ?? 0
        for n in 0..<full.count {
            let r = ADParser.parse(Array(full.prefix(n)), baseOffset: 7)
            let kept = whole.structures.filter { $0.offset - 7 + 2 + $0.data.count <= n }
            #expect(r.structures == kept, "prefix \(n)")
            if n == 0 || ends.contains(n) || n >= significantEnd {
                #expect(r.malformed.isEmpty, "prefix \(n)")
            } else {
                #expect(r.malformed.count == 1, "prefix \(n)")
                let cutAt = (kept.last.map { $0.offset + 2 + $0.data.count } ?? 7)
                #expect(r.malformed.first?.offset == cutAt, "prefix \(n)")
                #expect(r.malformed.first?.message.contains("runs past the end") == true, "prefix \(n)")
            }
        }
    }

    /// Seeded random blocks (and single-octet corruptions of the valid ones) never trap, keep
    /// every structure inside the input, and render.
    @Test func randomInputNeverTraps() {
        var rng = SplitMix64(seed: 0x5EED_AD00)
        var inputs: [[UInt8]] = (0..<2000).map { _ in
            (0..<Int(rng.next() % 64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        }
        for hex in Self.validBlocks {
            let block = Fixtures.hex(hex)
            for i in block.indices {
                var copy = block
                copy[i] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                inputs.append(copy)
            }
        }
        for input in inputs {
            let r = ADParser.parse(input, baseOffset: 3)
            for s in r.structures {
                #expect(s.offset >= 3 && s.offset - 3 + 2 + s.data.count <= input.count)
                _ = s.valueDescription
                _ = s.fields
            }
            for m in r.malformed { #expect(m.offset >= 3 && m.offset < 3 + input.count) }
            _ = (r.localName, r.flags, r.serviceUUIDs, r.manufacturerData, r.txPower, r.appearance, r.fields)
        }
    }
}

/// A tiny deterministic generator (SplitMix64) so failures reproduce.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
