import ScopeCore
import ScopeTestSupport
import Testing

@Suite("ByteReader")
struct ByteReaderTests {
    // LE Set Scan Parameters from good_central.btsnoop frame 3 (tshark: opcode 0x200b, type active,
    // interval 0x0060, window 0x0030, own address random, policy accept all).
    let bytes = Fixtures.hex("0b 20 07 01 60 00 30 00 01 00")

    @Test func readsInStatedByteOrder() throws {
        var r = ByteReader(bytes, layer: .hci)
        #expect(try r.readLE16() == 0x200B)
        #expect(try r.readU8() == 7)
        var params = try r.slice(7)
        #expect(r.isAtEnd)
        #expect(try params.readU8() == 1)
        #expect(try params.readLE16() == 0x0060)
        #expect(params.offset == 6)
        var be = ByteReader(bytes, layer: .hci)
        #expect(try be.readBE16() == 0x0B20)
        #expect(try be.readBE32() == 0x0701_6000)
    }

    @Test func wideIntegers() throws {
        var r = ByteReader(Fixtures.hex("01 02 03 04 05 06 07 08"), layer: .capture)
        #expect(try r.readLE64() == 0x0807_0605_0403_0201)
        var b = ByteReader(Fixtures.hex("01 02 03 04 05 06 07 08"), layer: .capture)
        #expect(try b.readBE64() == 0x0102_0304_0506_0708)
        var t = ByteReader(Fixtures.hex("01 02 03"), layer: .capture)
        #expect(try t.readLE24() == 0x030201)
    }

    @Test func failedReadDoesNotMoveAndReportsAbsoluteOffset() throws {
        var r = ByteReader(bytes, layer: .att, baseOffset: 100)
        try r.skip(8)
        #expect(throws: DecodeError(.truncated(needed: 4, available: 2), offset: 108, layer: .att)) {
            try r.readLE32()
        }
        #expect(r.offset == 108)
        #expect(try r.readLE16() == 0x0001)
    }

    @Test func everyPrefixThrowsTruncatedInsideInput() {
        for n in 0..<bytes.count {
            var r = ByteReader(Array(bytes.prefix(n)), layer: .hci)
            do {
                _ = try r.readLE16()
                let length = Int(try r.readU8())
                _ = try r.slice(length)
                Issue.record("prefix \(n) decoded")
            } catch {
                #expect(error.offset <= n)
                if case .truncated = error.kind {} else { Issue.record("expected truncated") }
            }
        }
    }

    @Test func sliceUpToTakesWhatIsThere() {
        var r = ByteReader(bytes, layer: .hci)
        let s = r.sliceUpTo(100)
        #expect(s.remaining == bytes.count)
        #expect(r.isAtEnd)
    }

    @Test func addressIsLittleEndianOnTheWire() throws {
        // LE Connection Complete peer address bytes from good_central: 45 23 01 ef cd ab → ab:cd:ef:01:23:45
        var r = ByteReader(Fixtures.hex("45 23 01 ef cd ab"), layer: .hci)
        let a = try r.readAddress()
        #expect(a.description == "ab:cd:ef:01:23:45")
        #expect(a.littleEndianBytes == Fixtures.hex("45 23 01 ef cd ab"))
        #expect(BDAddr("AB:CD:EF:01:23:45") == a)
        #expect(BDAddr("ab:cd:ef:01:23") == nil)
        #expect(BDAddr(value: 0xC000_0000_0000).randomSubtype == "static")
        #expect(BDAddr(value: 0x4000_0000_0000).randomSubtype == "resolvable")
    }
}

@Suite("Core values")
struct CoreValueTests {
    @Test func hexRoundTrip() {
        let b: [UInt8] = [0, 1, 0xAB, 0xFF]
        #expect(Hex.string(b) == "0001abff")
        #expect(Hex.bytes("00 01 AB ff") == b)
        #expect(Hex.bytes("0") == nil)
        #expect(Hex.bytes("zz") == nil)
        #expect(Hex.prefixed(0x1A, digits: 4) == "0x001a")
        #expect(Hex.prefixed(0x12345, digits: 2) == "0x12345")
        #expect(Hex.prefixed(0, digits: 0) == "0x0")
        #expect(Hex.prefixed(UInt64.max, digits: 18) == "0x00ffffffffffffffff")
        #expect(Hex.prefixed(-26, digits: 4) == "0x0-1a")
        #expect(Hex.string([0x0A, 0xFF, 0x00], separator: " ") == "0a ff 00")
        #expect(Hex.string([0x01, 0x02], separator: ", ") == "01, 02")
        #expect(Hex.string([UInt8]()) == "")
        #expect(Hex.dump(Array(0..<20)).count == 2)
    }

    @Test func timestampCivilDate() {
        // good_central.truth.json: first packet 2025-03-11T09:02:17.418233Z
        let t = Timestamp(microseconds: 1_741_683_737_418_233)
        #expect(t.description == "2025-03-11 09:02:17.418233")
        #expect(t.isPlausible)
        // mchwalisz file: clocks before 1970 stay exact.
        let before = Timestamp(microseconds: -1_000_001)
        #expect(before.description == "1969-12-31 23:59:58.999999")
        #expect(!before.isPlausible)
        #expect(formatSeconds(-1_500_000) == "-1.500000")
    }

    @Test func monitorOpcodesRoundTrip() {
        for opcode in UInt16(0)...30 {
            let (kind, direction) = MonitorOpcode.kind(for: opcode)
            #expect(MonitorOpcode.opcode(for: kind, direction: direction) == opcode)
        }
        #expect(MonitorOpcode.kind(for: 5) == (.acl, .received))
        #expect(RecordKind.deleteIndex.jsonName == "del_index")
    }

    @Test func h4TypesRoundTrip() {
        for t in UInt8(0)...0xFF {
            #expect(H4PacketType.type(for: H4PacketType.kind(for: t)) == t)
        }
    }

    @Test func jsonWriterEscapesAndKeepsOrder() {
        var w = JSONWriter()
        w.beginObject()
        w.field("b", 1)
        w.field("a", "x\"y\n\u{01}")
        w.null("dir")
        w.beginArray("list")
        w.element(1)
        w.element("two")
        w.endArray()
        w.endObject()
        #expect(w.output == #"{"b":1,"a":"x\"y\n\u0001","dir":null,"list":[1,"two"]}"#)
    }

    @Test func diagnosticNamesFileFrameAndOffset() {
        let d = Diagnostic(.error, layer: .capture, file: "x.btsnoop", frame: 12, offset: 500, message: "truncated record")
        #expect(d.description == "x.btsnoop: frame 12, offset 500 (0x1f4): error: truncated record")
    }
}
