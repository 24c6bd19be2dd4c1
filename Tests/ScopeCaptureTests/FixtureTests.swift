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
        #expect(said == c.diagnostics)
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
        for folder in ["btsnoop", "pcap", "pcapng", "pklg", "bad"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path) {
                present.insert("\(folder)/\(name)")
                let size = try FileManager.default.attributesOfItem(
                    atPath: root.appendingPathComponent(folder).appendingPathComponent(name).path)[.size] as? Int
                #expect((size ?? .max) < 20_000, "\(folder)/\(name)")
            }
        }
        #expect(listed == present)
    }
}
