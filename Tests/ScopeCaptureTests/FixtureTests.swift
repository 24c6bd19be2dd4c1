import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

/// The small fixtures in ScopeTestSupport/Fixtures (made by make_fixtures.py from 24 records of
/// scenarios/good_central.btsnoop: set-up commands and events, then ACL both ways; see the
/// README there).
@Suite struct GoodFixtureTests {
    static let reference = "btsnoop/h4.btsnoop"

    static func records(_ fixture: String) throws -> [CaptureRecord] {
        try readAll(Fixtures.url(fixture).path).records
    }

    @Test func theReferenceHolds24HCIRecords() throws {
        let ref = try Self.records(Self.reference)
        #expect(ref.count == 24)
        // good_central frame 1 (tshark): 1741683737.418233000, "Sent Reset", H4 01 03 0c 00.
        #expect(ref[0].timestamp.microseconds == 1_741_683_737_418_233)
        #expect(ref[0].kind == .command)
        #expect(ref[0].direction == .sent)
        #expect(ref[0].payload == Fixtures.hex("03 0c 00"))
        #expect(ref[0].originalLength == 3)
        // frame 2: "Rcvd Command Complete (Reset)", 7 bytes with the H4 byte.
        #expect(ref[1].kind == .event)
        #expect(ref[1].direction == .received)
        #expect(ref[1].payload.count == 6)
        // good_central frames 41–52 (records 13–24 here) include ACL both ways.
        #expect(ref.filter { $0.kind == .acl }.map(\.direction).contains(.sent))
        #expect(ref.filter { $0.kind == .acl }.map(\.direction).contains(.received))
    }

    @Test("every good fixture holds the same records", arguments: [
        ("btsnoop/h1.btsnoop", CaptureFormat.btsnoopH1, 0),
        ("pcap/h4phdr-us-le.pcap", .pcapH4PHDR, 0),
        ("pcap/h4phdr-us-be.pcap", .pcapH4PHDR, 0),
        ("pcap/h4phdr-ns-le.pcap", .pcapH4PHDR, 0),  // +789 ns per record, truncated
        ("pcap/h4phdr-ns-be.pcap", .pcapH4PHDR, 0),
        ("pcap/h4-187.pcap", .pcapH4, 0),
        ("pcapng/h4phdr-201.pcapng", .pcapngH4PHDR, 0),
        ("pcapng/h4phdr-201-ns.pcapng", .pcapngH4PHDR, 0),  // if_tsresol 9, +123 ns
        ("btsnoop/monitor.btsnoop", .btsnoopMonitor, 4),  // 4 meta records first
        ("pcap/monitor-254.pcap", .pcapMonitor, 4),
        ("pcapng/monitor-254.pcapng", .pcapngMonitor, 4),
        ("pklg/be.pklg", .pklgBE, 2),  // a note and a config record first
        ("pklg/le.pklg", .pklgLE, 2),
    ])
    func sameRecords(_ fixture: String, _ format: CaptureFormat, _ extra: Int) throws {
        let ref = try Self.records(Self.reference)
        let (records, reader) = try readAll(Fixtures.url(fixture).path)
        #expect(reader.format == format)
        #expect(reader.summary.exitClass == .ok)
        #expect(reader.diagnostics.isEmpty)
        #expect(records.count == ref.count + extra)
        #expect(records.map(\.frame) == Array(1...(ref.count + extra)))
        for (r, o) in zip(records.dropFirst(extra), ref) {
            #expect(r.kind == o.kind)
            #expect(r.timestamp == o.timestamp)
            #expect(r.payload == o.payload)
            #expect(r.originalLength == o.originalLength)
            if format == .pcapH4 {
                // LINKTYPE 187 has no direction: inferred for commands and events only.
                #expect(r.direction == (o.kind == .acl ? .unknown : o.direction))
            } else {
                #expect(r.direction == o.direction)
            }
        }
    }

    @Test(arguments: ["btsnoop/monitor.btsnoop", "pcap/monitor-254.pcap", "pcapng/monitor-254.pcapng"])
    func monitorMetaRecords(_ fixture: String) throws {
        let r = try Self.records(fixture)
        #expect(r.prefix(4).map(\.kind) == [.systemNote, .newIndex, .openIndex, .indexInfo])
        #expect(r.prefix(4).map(\.adapter) == [0xFFFF, 0, 0, 0])
        #expect(r[0].payload == Array("Bluetooth subsystem version 2.22".utf8) + [0])
        #expect(r[1].payload == Fixtures.hex("00 01 b4 c9 32 d3 c5 d0") + Array("hci0".utf8) + [0, 0, 0, 0])
        #expect(r.dropFirst(4).allSatisfy { $0.adapter == 0 })
    }

    @Test(arguments: ["pklg/be.pklg", "pklg/le.pklg"])
    func packetLoggerTextRecords(_ fixture: String) throws {
        let r = try Self.records(fixture)
        #expect(r[0].kind == .systemNote)
        #expect(r[0].payload == Array("hciscope fixture: PacketLogger note".utf8))
        #expect(r[1].kind == .packetLoggerText(0xFD))
        #expect(r[0].direction == .unknown)
    }

    @Test("sniffing the good fixtures", arguments: [
        ("btsnoop/h4.btsnoop", CaptureFormat.btsnoopH4, Sniffed.ByteOrder.big, Sniffed.TimestampPrecision?.some(.microseconds)),
        ("btsnoop/h1.btsnoop", .btsnoopH1, .big, .microseconds),
        ("btsnoop/monitor.btsnoop", .btsnoopMonitor, .big, .microseconds),
        ("pcap/h4phdr-us-le.pcap", .pcapH4PHDR, .little, .microseconds),
        ("pcap/h4phdr-us-be.pcap", .pcapH4PHDR, .big, .microseconds),
        ("pcap/h4phdr-ns-le.pcap", .pcapH4PHDR, .little, .nanoseconds),
        ("pcap/h4phdr-ns-be.pcap", .pcapH4PHDR, .big, .nanoseconds),
        ("pcap/h4-187.pcap", .pcapH4, .little, .microseconds),
        ("pcap/monitor-254.pcap", .pcapMonitor, .little, .microseconds),
        ("pcapng/h4phdr-201.pcapng", .pcapngH4PHDR, .little, nil),
        ("pcapng/monitor-254.pcapng", .pcapngMonitor, .little, nil),
        ("pklg/be.pklg", .pklgBE, .big, .microseconds),
        ("pklg/le.pklg", .pklgLE, .little, .microseconds),
    ])
    func sniffs(_ fixture: String, _ format: CaptureFormat, _ order: Sniffed.ByteOrder,
                _ precision: Sniffed.TimestampPrecision?) throws {
        let bytes = Array(try Data(contentsOf: Fixtures.url(fixture)))
        let s = try CaptureFormat.sniff(bytes)
        #expect(s.format == format)
        #expect(s.byteOrder == order)
        #expect(s.timestampPrecision == precision)
        // A file's first 16 bytes are enough for btsnoop; every header is within the first 64.
        #expect(try CaptureFormat.sniff(Array(bytes.prefix(64))).format == format)
    }

    /// Writers reproduce the independently made (Python) fixtures byte for byte.
    @Test("writers reproduce the fixtures byte for byte", arguments: [
        ("btsnoop/h4.btsnoop", CaptureFormat.btsnoopH4),
        ("btsnoop/monitor.btsnoop", .btsnoopMonitor),
        ("pcap/h4phdr-us-le.pcap", .pcapH4PHDR),
        ("pcap/monitor-254.pcap", .pcapMonitor),
        ("pklg/be.pklg", .pklgBE),
        ("pklg/le.pklg", .pklgLE),
    ])
    func writesIdenticalBytes(_ fixture: String, _ format: CaptureFormat) throws {
        let tmp = try TemporaryDirectory()
        let out = tmp.path("copy")
        var writer = try CaptureWriter.make(format: format, path: out)
        for r in try Self.records(fixture) { try writer.write(r) }
        try writer.close()
        #expect(writer.skipped.total == 0)
        let written = try Data(contentsOf: URL(fileURLWithPath: out))
        let original = try Data(contentsOf: Fixtures.url(fixture))
        #expect(written == original)
    }
}

/// One deliberately broken fixture: what must be delivered and what must be said.
struct BadCase: Sendable, CustomTestStringConvertible {
    var file: String
    /// The good fixture it was made from.
    var reference: String
    /// Frame numbers delivered.
    var frames: [Int]
    /// Indices (0-based) into the reference's records of the records delivered, when their
    /// payloads must be intact (nil: the delivered records are not compared).
    var intact: [Int]?
    /// Each diagnostic, printed without the leading file path.
    var diagnostics: [String]
    var exit: ExitClass
    var testDescription: String { file }
}

@Suite struct BadFixtureTests {
    static let h4 = "btsnoop/h4.btsnoop", pcap = "pcap/h4phdr-us-le.pcap", pklg = "pklg/be.pklg"

    static let cases: [BadCase] = [
        BadCase(
            file: "bad/truncated-last-record.btsnoop", reference: h4, frames: Array(1...23), intact: Array(0..<23),
            diagnostics: [": frame 24, offset 895 (0x37f): error: truncated record at end of file: header announces 16 bytes, only 3 remain; not delivered"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/oversized-length.btsnoop", reference: h4, frames: Array(1...23), intact: Array(0..<4) + Array(5..<24),
            diagnostics: [": frame 5, offset 198 (0xc6): error: bad record header: record length 2,147,483,392 exceeds the largest btsnoop 1002 record (65,540 bytes); skipped 28 bytes to the next plausible record header at offset 226"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/garbage-between-records.btsnoop", reference: h4, frames: Array(1...24), intact: Array(0..<24),
            diagnostics: [": frame 4, offset 103 (0x67): error: bad record header: record length 2,680,482,062 exceeds the largest btsnoop 1002 record (65,540 bytes); skipped 37 bytes to the next plausible record header at offset 140"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/record-cut-then-resync.btsnoop", reference: h4, frames: Array(1...23),
            intact: nil,  // frame 6 swallows the head of the next record; checked below
            diagnostics: [": frame 7, offset 265 (0x109): error: bad record header (included length 0 leaves no H4 packet type byte, and no record header follows it); skipped 19 bytes to the next plausible record header at offset 284"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/incl-gt-orig.btsnoop", reference: h4, frames: Array(1...24), intact: Array(0..<24),
            diagnostics: [": frame 3, offset 75 (0x4b): error: included length 4 is greater than original length 2; original length taken as 4"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/no-h4-byte.btsnoop", reference: h4, frames: [1, 2] + Array(4...25), intact: Array(0..<24),
            diagnostics: [": frame 3, offset 75 (0x4b): error: record has no H4 packet type byte (included length 0); not delivered"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/backwards-timestamp.btsnoop", reference: h4, frames: Array(1...24), intact: Array(0..<24),
            diagnostics: [": frame 4, offset 103 (0x67): warning: timestamp goes backwards by 0.000344 s (2025-03-11 09:02:17.418705 → 2025-03-11 09:02:17.418361); record delivered"],
            exit: .ok),
        BadCase(
            file: "bad/implausible-year.btsnoop", reference: h4, frames: Array(1...6), intact: Array(0..<6),
            diagnostics: [
                ": frame 1, offset 16 (0x10): warning: timestamp 1975-03-24 09:02:17.418233 UTC is outside 1990–2100: the capturing clock was wrong (further implausible timestamps are counted at the end)",
                ": warning: 6 records of 6 have timestamps outside 1990–2100",
            ],
            exit: .ok),
        BadCase(
            file: "bad/epoch-skew.btsnoop", reference: h4, frames: Array(1...6), intact: Array(0..<6),
            diagnostics: [": frame 4, offset 103 (0x67): warning: timestamp jumps by +378 days (32,659,200 s) from the previous frame: a writer counting btsnoop time from 0001-01-01 is off by exactly this much (FORMATS.md §1)"],
            exit: .ok),
        BadCase(
            file: "bad/original-over-64k.btsnoop", reference: h4, frames: Array(1...24), intact: Array(0..<24),
            diagnostics: [": frame 2, offset 44 (0x2c): warning: original length 70,000 exceeds the largest btsnoop 1002 record (65,540 bytes)"],
            exit: .ok),
        BadCase(
            file: "bad/truncated-last-record.pcap", reference: pcap, frames: Array(1...23), intact: Array(0..<23),
            diagnostics: [": frame 24, offset 811 (0x32b): error: libpcap: truncated dump file; tried to read 20 captured bytes, only got 4; reading stopped (frames before this one were delivered)"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/oversized-length.pcap", reference: pcap, frames: Array(1...4), intact: Array(0..<4),
            diagnostics: [": frame 5, offset 190 (0xbe): error: libpcap: invalid packet capture length 2147483392, bigger than snaplen of 262144; reading stopped (frames before this one were delivered)"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/incl-gt-orig.pcap", reference: pcap, frames: Array(1...24), intact: Array(0..<24),
            diagnostics: [": frame 3, offset 75 (0x4b): error: included length 8 is greater than original length 3; original length taken as 8"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/short-phdr.pcap", reference: pcap, frames: [1, 2, 4, 5, 6], intact: Array(0..<5),
            diagnostics: [": frame 3, offset 75 (0x4b): error: record of 3 bytes is too short for its 4-byte direction pseudo-header and H4 packet type; not delivered"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/backwards-timestamp.pcap", reference: pcap, frames: Array(1...6), intact: Array(0..<6),
            diagnostics: [": frame 4, offset 99 (0x63): warning: timestamp goes backwards by 0.000472 s (2025-03-11 09:02:17.418705 → 2025-03-11 09:02:17.418233); record delivered"],
            exit: .ok),
        BadCase(
            file: "bad/truncated-last-record.pklg", reference: pklg, frames: Array(1...25), intact: Array(0..<25),
            diagnostics: [": frame 26, offset 688 (0x2b0): error: truncated record at end of file: header announces 15 bytes, only 2 remain; not delivered"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/oversized-length.pklg", reference: pklg, frames: Array(1...25), intact: Array(0..<5) + Array(6..<26),
            diagnostics: [": frame 6, offset 136 (0x88): error: bad record header: record length 16,777,206 exceeds the largest PacketLogger record (65,541 bytes); skipped 83 bytes to the next plausible record header at offset 219"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/short-length.pklg", reference: pklg, frames: Array(1...25), intact: Array(0..<5) + Array(6..<26),
            diagnostics: [": frame 6, offset 136 (0x88): error: bad record header: record length 4 is shorter than the 9 bytes of timestamp and type it must count; skipped 83 bytes to the next plausible record header at offset 219"],
            exit: .readWithErrors),
        // One per remaining reader path (see readerPathsHaveFixtures).
        BadCase(
            file: "bad/unconvertible-timestamp.btsnoop", reference: h4, frames: Array(1...24), intact: Array(0..<24),
            diagnostics: [
                ": frame 24, offset 911 (0x38f): error: timestamp -9223372036854775803 cannot be converted to Unix time",
                ": frame 24, offset 895 (0x37f): warning: timestamp goes backwards by 9223372036854.775807 s (2025-03-11 09:02:18.484932 → -290308-12-21 19:59:05.224192); record delivered",
                ": frame 24, offset 895 (0x37f): warning: timestamp -290308-12-21 19:59:05.224192 UTC is outside 1990–2100: the capturing clock was wrong (further implausible timestamps are counted at the end)",
            ],
            exit: .readWithErrors),
        BadCase(
            file: "bad/unknown-flags.btsnoop", reference: h4, frames: Array(1...24), intact: Array(0..<24),
            diagnostics: [": frame 2, offset 52 (0x34): warning: unknown flag bits 0x00000013 (further ones not reported)"],
            exit: .ok),
        BadCase(
            file: "bad/version-2.btsnoop", reference: h4, frames: Array(1...24), intact: Array(0..<24),
            diagnostics: [": offset 8 (0x8): warning: btsnoop version 2 (expected 1); reading as version 1"],
            exit: .ok),
        BadCase(
            file: "bad/truncated-record-header.btsnoop", reference: h4, frames: Array(1...23), intact: Array(0..<23),
            diagnostics: [": frame 24, offset 895 (0x37f): error: truncated record header at end of file: 10 of 24 bytes; not delivered"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/garbage-to-end.btsnoop", reference: h4, frames: Array(1...5), intact: Array(0..<5),
            diagnostics: [": frame 6, offset 226 (0xe2): error: bad record header: record length 4,294,967,295 exceeds the largest btsnoop 1002 record (65,540 bytes); no plausible record header follows: 40 bytes ignored to end of file"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/oversized-framed.btsnoop", reference: h4, frames: Array(1...7), intact: nil,
            diagnostics: [": frame 4, offset 103 (0x67): error: record of 70,005 bytes exceeds the largest btsnoop 1002 record (65,540 bytes); delivered as it is framed"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/many-backwards.btsnoop", reference: h4, frames: Array(1...24), intact: Array(0..<24),
            diagnostics: (0..<20).map { _ in "" } + [": warning: timestamps go backwards 23 times in all (20 reported individually)"],
            exit: .ok),
        BadCase(
            file: "bad/original-over-64k.pcap", reference: pcap, frames: Array(1...24), intact: Array(0..<24),
            diagnostics: [": frame 2, offset 48 (0x30): warning: original length 70,000 exceeds the largest pcap-201 record (65,544 bytes)"],
            exit: .ok),
        BadCase(
            file: "bad/direction-bits.pcap", reference: pcap, frames: Array(1...5), intact: Array(0..<5),
            diagnostics: [": frame 3, offset 75 (0x4b): warning: direction pseudo-header 0x00000300 has bits other than bit 0 set (further ones not reported)"],
            exit: .ok),
        BadCase(
            file: "bad/oversized-framed.pcap", reference: pcap, frames: Array(1...7), intact: nil,
            diagnostics: [": frame 4, offset 99 (0x63): error: record of 70,009 bytes exceeds the largest pcap-201 record (65,544 bytes); delivered as it is framed"],
            exit: .readWithErrors),
        BadCase(
            file: "bad/timestamp-overflow.pcapng", reference: pcap, frames: [1, 2], intact: nil,
            diagnostics: [
                ": frame 1, offset 60 (0x3c): error: timestamp 9223372036854775807 s cannot be represented in microseconds",
                ": frame 1, offset 60 (0x3c): warning: timestamp 294247-01-10 04:00:54.775807 UTC is outside 1990–2100: the capturing clock was wrong (further implausible timestamps are counted at the end)",
                ": frame 2, offset 100 (0x64): warning: timestamp goes backwards by 9223372035854.775807 s (294247-01-10 04:00:54.775807 → 1970-01-01 00:16:40.000000); record delivered",
                ": warning: 2 records of 2 have timestamps outside 1990–2100",
            ],
            exit: .readWithErrors),
        BadCase(
            file: "bad/microseconds-over-1e6.pklg", reference: pklg, frames: Array(1...26), intact: nil,
            diagnostics: [
                ": frame 11, offset 313 (0x139): warning: microseconds field 1,500,000 is not below 1,000,000",
                ": frame 12, offset 321 (0x141): warning: timestamp goes backwards by 1.079875 s (2025-03-11 09:02:18.500000 → 2025-03-11 09:02:17.420125); record delivered",
            ],
            exit: .ok),
        BadCase(
            file: "bad/truncated-record-header.pklg", reference: pklg, frames: Array(1...25), intact: Array(0..<25),
            diagnostics: [": frame 26, offset 688 (0x2b0): error: truncated record header at end of file: 7 of 13 bytes; not delivered"],
            exit: .readWithErrors),
    ]

    @Test("broken fixtures: what is delivered and what is said", arguments: cases)
    func badFixture(_ c: BadCase) throws {
        let path = Fixtures.url(c.file).path
        let (records, reader) = try readAll(path)
        #expect(records.map(\.frame) == c.frames)
        let said = reader.diagnostics.map { d -> String in
            let text = d.description
            return text.hasPrefix(path) ? String(text.dropFirst(path.count)) : text
        }
        if c.diagnostics.first == "" {
            // Only the count matters here: as many lines as listed, the last one as written.
            #expect(said.count == c.diagnostics.count && said.last == c.diagnostics.last, "\(said)")
        } else {
            #expect(said == c.diagnostics)
        }
        #expect(reader.summary.exitClass == c.exit)
        #expect(reader.summary.records == c.frames.count)
        if let intact = c.intact {
            let ref = try readAll(Fixtures.url(c.reference).path).records
            #expect(records.map(\.payload) == intact.map { ref[$0].payload })
            #expect(records.map(\.kind) == intact.map { ref[$0].kind })
        }
    }

    @Test func afterACutRecordTheReaderResynchronises() throws {
        let ref = try readAll(Fixtures.url(Self.h4).path).records
        let records = try readAll(Fixtures.url("bad/record-cut-then-resync.btsnoop").path).records
        // Frames 1–5 intact; frame 6 is record 6's header with the head of record 7 as body;
        // the rest of record 7 is skipped; frames 7… are records 8…24.
        #expect(records.prefix(5).map(\.payload) == ref.prefix(5).map(\.payload))
        #expect(records[5].payload.prefix(6) == ref[5].payload.prefix(6))
        #expect(records.suffix(17).map(\.payload) == ref.suffix(17).map(\.payload))
    }

    static let refused: [(String, CaptureError.Kind, String)] = [
        ("bad/truncated-file-header.btsnoop", .truncatedHeader, ": offset 11 (0xb): error: truncated btsnoop file header: 11 of 16 bytes"),
        ("bad/truncated-file-header.pcap", .truncatedHeader, ": offset 20 (0x14): error: truncated pcap file header: 20 of 24 bytes"),
        ("bad/truncated-file-header.pcapng", .truncatedHeader, ": offset 20 (0x14): error: truncated pcapng Section Header Block: 20 of 28 bytes"),
        ("bad/wrong-magic.btsnoop", .notACapture, ": offset 0 (0x0): error: not a capture file: first bytes 42 54 53 4e 4f 4f 50 00 match no btsnoop, pcap, pcapng or PacketLogger header"),
        ("bad/empty.btsnoop", .notACapture, ": offset 0 (0x0): error: empty file: not a capture"),
        ("bad/datalink-1004.btsnoop", .unsupported, ": offset 12 (0xc): error: btsnoop datalink 1004 (HCI Three-wire/H5) is not supported"),
        ("bad/link-type-272.pcap", .notHCI(linkType: 272), ": error: link type 272 (NORDIC_BLE) is a link-layer sniffer capture, not HCI"),
        ("bad/link-type-256.pcapng", .notHCI(linkType: 256), ": error: link type 256 (BLUETOOTH_LE_LL_WITH_PHDR) is a link-layer sniffer capture, not HCI"),
        ("bad/datalink-1003.btsnoop", .unsupported, ": offset 12 (0xc): error: btsnoop datalink 1003 (BCSP) is not supported"),
        ("bad/datalink-2002.btsnoop", .unsupported, ": offset 12 (0xc): error: btsnoop datalink 2002 (BlueZ simulator, link-layer PHY packets) is not HCI; not supported"),
        ("bad/datalink-9999.btsnoop", .unsupported, ": offset 12 (0xc): error: unknown btsnoop datalink 9999"),
        ("bad/truncated-magic.pcap", .truncatedHeader, ": offset 0 (0x0): error: truncated file header: 3 bytes of a pcap/pcapng magic"),
        ("bad/version-3.pcap", .libpcap, ": offset 0 (0x0): error: libpcap: unsupported pcap savefile version 3.4"),
        ("bad/link-type-1.pcap", .notHCI(linkType: 1), ": error: pcap link type 1 is not a Bluetooth HCI link type (readable: 187 BLUETOOTH_HCI_H4, 201 BLUETOOTH_HCI_H4_WITH_PHDR, 254 BLUETOOTH_LINUX_MONITOR)"),
        ("bad/byte-order-magic.pcapng", .notACapture, ": offset 8 (0x8): error: pcapng magic without a valid byte-order magic (got 78 56 34 12)"),
        ("bad/shb-length.pcapng", .notACapture, ": offset 4 (0x4): error: pcapng Section Header Block length 13 is invalid"),
        ("bad/truncated-shb.pcapng", .truncatedHeader, ": offset 28 (0x1c): error: truncated pcapng Section Header Block: 28 of 64 bytes"),
        ("bad/no-idb.pcapng", .truncatedHeader, ": offset 88 (0x58): error: truncated pcapng header: no Interface Description Block in the first 88 bytes"),
        ("bad/block-length.pcapng", .notACapture, ": offset 32 (0x20): error: pcapng block length 5 at offset 28 is invalid"),
        ("bad/packet-before-idb.pcapng", .notACapture, ": offset 28 (0x1c): error: pcapng packet block at offset 28 before any Interface Description Block"),
    ]

    @Test("files that cannot be read at all", arguments: refused)
    func refusedFixture(_ file: String, _ kind: CaptureError.Kind, _ text: String) throws {
        let path = Fixtures.url(file).path
        let error = try #require(throws: CaptureError.self) { try CaptureReader.open(path: path) }
        #expect(error.kind == kind)
        #expect(error.description == path + text)
        #expect(error.exitClass == .couldNotRead)
    }
}

@Suite struct FixtureInventoryTests {
    /// Every fixture has a line in README.md, every line names a fixture, and each is small.
    @Test func readmeListsEveryFixture() throws {
        let root = Fixtures.url("")
        let readme = try String(contentsOf: Fixtures.url("README.md"), encoding: .utf8)
        let listed = Set(readme.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        })
        var present = Set<String>()
        for folder in ["btsnoop", "pcap", "pcapng", "pklg", "bad", "containers"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path) {
                present.insert("\(folder)/\(name)")
                let size = try FileManager.default.attributesOfItem(
                    atPath: root.appendingPathComponent(folder).appendingPathComponent(name).path)[.size] as? Int
                // Small, but for two records larger than any HCI record, which must be that big.
                let limit = name.hasPrefix("oversized-framed.") ? 80_000 : 20_000
                #expect((size ?? .max) < limit, "\(folder)/\(name)")
            }
        }
        #expect(listed == present)
    }
}

/// Every error and warning a capture reader can give has a fixture that gives it: the list below
/// is every message the readers and the sniffer write (ScopeCapture), each with the fixture that
/// produces it. When you add a diagnostic, add a fixture (make_fixtures.py) and a line here.
@Suite struct ReaderPathInventoryTests {
    /// (message as written in the source, fixture that produces it; nil with the reason when no
    /// file can).
    static let paths: [(message: String, fixture: String?)] = [
        // Sniffer and file headers.
        ("empty file: not a capture", "bad/empty.btsnoop"),
        ("not a capture file: first bytes", "bad/wrong-magic.btsnoop"),
        ("truncated file header: 3 bytes of a pcap/pcapng magic", "bad/truncated-magic.pcap"),
        ("truncated btsnoop file header", "bad/truncated-file-header.btsnoop"),
        ("btsnoop datalink 1003 (BCSP) is not supported", "bad/datalink-1003.btsnoop"),
        ("btsnoop datalink 1004 (HCI Three-wire/H5) is not supported", "bad/datalink-1004.btsnoop"),
        ("btsnoop datalink 2002", "bad/datalink-2002.btsnoop"),
        ("unknown btsnoop datalink", "bad/datalink-9999.btsnoop"),
        ("btsnoop version 2 (expected 1)", "bad/version-2.btsnoop"),
        ("truncated pcap file header", "bad/truncated-file-header.pcap"),
        ("libpcap: unsupported pcap savefile version", "bad/version-3.pcap"),
        ("is not a Bluetooth HCI link type", "bad/link-type-1.pcap"),
        ("is a link-layer sniffer capture, not HCI", "bad/link-type-272.pcap"),
        ("truncated pcapng Section Header Block: 20 of 28 bytes", "bad/truncated-file-header.pcapng"),
        ("pcapng magic without a valid byte-order magic", "bad/byte-order-magic.pcapng"),
        ("pcapng Section Header Block length 13 is invalid", "bad/shb-length.pcapng"),
        ("truncated pcapng Section Header Block: 28 of 64 bytes", "bad/truncated-shb.pcapng"),
        ("no Interface Description Block in the first", "bad/no-idb.pcapng"),
        ("pcapng block length 5 at offset 28 is invalid", "bad/block-length.pcapng"),
        ("before any Interface Description Block", "bad/packet-before-idb.pcapng"),
        // Records (FramedSource: btsnoop, PacketLogger).
        ("truncated record header at end of file", "bad/truncated-record-header.btsnoop"),
        ("truncated record at end of file", "bad/truncated-last-record.btsnoop"),
        ("delivered as it is framed", "bad/oversized-framed.btsnoop"),
        ("skipped 28 bytes to the next plausible record header", "bad/oversized-length.btsnoop"),
        ("no plausible record header follows", "bad/garbage-to-end.btsnoop"),
        ("and no record header follows it", "bad/record-cut-then-resync.btsnoop"),
        ("is shorter than the 9 bytes of timestamp and type", "bad/short-length.pklg"),
        ("record has no H4 packet type byte", "bad/no-h4-byte.btsnoop"),
        ("cannot be converted to Unix time", "bad/unconvertible-timestamp.btsnoop"),
        ("is greater than original length", "bad/incl-gt-orig.btsnoop"),
        ("original length 70,000 exceeds the largest btsnoop", "bad/original-over-64k.btsnoop"),
        ("unknown flag bits", "bad/unknown-flags.btsnoop"),
        ("microseconds field", "bad/microseconds-over-1e6.pklg"),
        // pcap and pcapng records (libpcap).
        ("reading stopped (frames before this one were delivered)", "bad/oversized-length.pcap"),
        ("cannot be represented in microseconds", "bad/timestamp-overflow.pcapng"),
        ("too short for its 4-byte direction pseudo-header", "bad/short-phdr.pcap"),
        ("included length 8 is greater than original length 3", "bad/incl-gt-orig.pcap"),
        ("original length 70,000 exceeds the largest pcap-201", "bad/original-over-64k.pcap"),
        ("record of 70,009 bytes exceeds the largest pcap-201 record", "bad/oversized-framed.pcap"),
        ("has bits other than bit 0 set", "bad/direction-bits.pcap"),
        // Timestamp checks (CaptureReader), whatever the format.
        ("timestamp goes backwards", "bad/backwards-timestamp.btsnoop"),
        ("timestamps go backwards 23 times in all", "bad/many-backwards.btsnoop"),
        ("is outside 1990–2100", "bad/implausible-year.btsnoop"),
        ("have timestamps outside 1990–2100", "bad/implausible-year.btsnoop"),
        ("378 days", "bad/epoch-skew.btsnoop"),
        // Not reachable from a file: I/O failures while reading (a failing read(2)), a reference
        // time (checked with `referenceTime` below), the sniffer's "file header needs N bytes"
        // (only when told more is coming) and "pcapng block length overflows" (a 32-bit length
        // cannot overflow a 64-bit offset).
    ]

    @Test(arguments: paths.map { $0.message })
    func eachReaderPathHasItsFixture(_ message: String) throws {
        let fixture = try #require(Self.paths.first { $0.message == message }?.fixture)
        let path = Fixtures.url(fixture).path
        let said: [String]
        do {
            said = try readAll(path).reader.diagnostics.map(\.description)
        } catch let error as CaptureError {
            said = [error.description]
        }
        #expect(said.contains { $0.contains(message) }, "\(fixture) does not say \"\(message)\": \(said)")
    }

    @Test func aReferenceTimeFlagsLaterRecords() throws {
        let reference = try #require(GoodFixtureTests.records(GoodFixtureTests.reference).first?.timestamp)
        var reader = try CaptureReader.open(
            path: Fixtures.url(GoodFixtureTests.reference).path,
            options: .init(referenceTime: Timestamp(microseconds: reference.microseconds - 2 * 86_400_000_000)))
        while reader.next() != nil {}
        let said = reader.drainDiagnostics().map(\.description)
        #expect(said.contains { $0.contains("is later than the reference time") })
        #expect(said.contains { $0.contains("24 records have timestamps after the reference time") })
    }
}
