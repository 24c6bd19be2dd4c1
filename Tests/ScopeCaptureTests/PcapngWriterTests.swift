import Foundation
@testable import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

/// The pcapng writer behind `analyze --annotate`: its blocks walked by the layout in the pcapng
/// specification (independent of the writer's code), and its files read back by libpcap through
/// hciscope's reader, record for record.
@Suite struct PcapngWriterTests {
    /// One real capture per format the project reads, and the link type each goes to.
    static let sources: [(String, UInt32)] = [
        ("btsnoop/h1.btsnoop", 201), ("btsnoop/h4.btsnoop", 201), ("btsnoop/monitor.btsnoop", 254),
        ("pcap/h4-187.pcap", 187), ("pcap/h4phdr-us-le.pcap", 201), ("pcap/monitor-254.pcap", 254),
        ("pcapng/h4phdr-201.pcapng", 201), ("pcapng/monitor-254.pcapng", 254), ("pklg/be.pklg", 254), ("pklg/le.pklg", 254),
    ]

    static func records(_ path: String) throws -> (CaptureFormat, [CaptureRecord]) {
        var reader = try CaptureReader.open(path: path)
        var records: [CaptureRecord] = []
        while let r = reader.next() { records.append(r) }
        return (reader.format, records)
    }

    /// Writes `records` with a comment on every third frame (some with non-ASCII text, one
    /// frame with two); returns the file's bytes and the comments written.
    static func annotate(_ records: [CaptureRecord], linkType: UInt32, to path: String) throws -> (Data, [FrameNumber: [String]]) {
        var writer = try PcapngWriter(path: path, linkType: linkType, sectionComment: "section — ok", application: "hciscope test")
        var written: [FrameNumber: [String]] = [:]
        for r in records {
            var comments: [String] = []
            if r.frame % 3 == 1 { comments.append("hciscope test.rule (warning): frame \(r.frame) µs") }
            if r.frame == 4 { comments.append("second comment, odd length: abc") }
            written[r.frame] = comments
            try writer.write(r, comments: comments)
        }
        try writer.close()
        #expect(writer.written == records.count)
        #expect(writer.placeholders == 0)
        return (try Data(contentsOf: URL(fileURLWithPath: path)), written)
    }

    @Test(arguments: sources.map(\.0))
    func readsBackRecordForRecordWithItsComments(fixture: String) throws {
        let linkType = try #require(Self.sources.first { $0.0 == fixture }?.1)
        let (format, records) = try Self.records(Fixtures.url(fixture).path)
        #expect(PcapngWriter.linkType(for: format) == linkType)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-pcapng-\(UUID().uuidString).pcapng").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (bytes, comments) = try Self.annotate(records, linkType: linkType, to: out)

        // The blocks, walked by the specification's layout.
        let blocks = try PcapngWalk.blocks(Array(bytes))
        #expect(blocks.first?.type == 0x0A0D_0D0A)
        #expect(blocks.first?.options[1] == ["section — ok"])
        #expect(blocks.first?.options[4] == ["hciscope test"])
        #expect(blocks.dropFirst().first?.type == 1)
        #expect(blocks.dropFirst().first?.linkType == UInt16(linkType))
        let packets = blocks.filter { $0.type == 6 }
        #expect(packets.count == records.count)
        for (block, r) in zip(packets, records) {
            #expect(block.options[1] ?? [] == comments[r.frame] ?? [], "frame \(r.frame)")
            #expect(Array(block.data.suffix(r.payload.count)) == r.payload)
        }

        // And as libpcap reads it: the same records (PacketLogger text and LMP records come
        // back as the monitor records they travel as).
        let (backFormat, back) = try Self.records(out)
        #expect(backFormat.linkType == linkType)
        #expect(backFormat.container == .pcapng)
        #expect(back.count == records.count)
        for (a, b) in zip(records, back) {
            #expect(a.frame == b.frame)
            #expect(a.timestamp == b.timestamp)
            #expect(a.payload == b.payload)
            #expect(a.originalLength == b.originalLength)
            switch a.kind {
            case .packetLoggerText: #expect(b.kind == .systemNote)
            case .lmp, .unknownPacketLogger: #expect(b.kind == .vendorDiagnostic)  // no direction in the monitor's
            default:
                #expect(a.kind == b.kind, "frame \(a.frame)")
                #expect(a.direction == b.direction, "frame \(a.frame)")
            }
            if linkType == 254 { #expect(a.adapter == b.adapter) }
        }
    }

    /// pcapng time is unsigned; real btsnoop files with clocks before 1970 exist (the corpus has
    /// one from 1969). The interface then carries an if_tsoffset, which libpcap (and Wireshark)
    /// add back.
    @Test func timestampsBefore1970ComeBackThroughTheTimeOffset() throws {
        let (_, records) = try Self.records(Fixtures.url("btsnoop/h4.btsnoop").path)
        let shift: Int64 = 1_051_674_456_214 + (records.first?.timestamp.microseconds ?? 0)
        let early = records.map { r in
            var r = r
            r.timestamp = Timestamp(microseconds: r.timestamp.microseconds - shift)
            return r
        }
        #expect(early.first?.timestamp.microseconds == -1_051_674_456_214)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-pcapng-\(UUID().uuidString).pcapng").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (bytes, _) = try Self.annotate(early, linkType: 201, to: out)
        let interface = try #require(try PcapngWalk.blocks(Array(bytes)).first { $0.type == 1 })
        #expect(interface.options[14]?.count == 1)
        let (_, back) = try Self.records(out)
        #expect(back.map(\.timestamp) == early.map(\.timestamp))
    }

    @Test func commentsLongerThanAnOptionAreCutOnACharacterBoundary() throws {
        // 40,000 two-byte characters: 80,000 bytes, more than the 65,535 an option holds.
        let long = String(repeating: "é", count: 40_000)
        let block = PcapngBlock.enhancedPacket(interface: 0, timestamp: 1, data: [4, 0x0E], originalLength: 2, comments: [long])
        let walked = try PcapngWalk.blocks(PcapngBlock.sectionHeader(comment: nil, application: nil) + block)
        let comment = try #require(walked.last?.options[1]?.first)
        #expect(comment.utf8.count == 65_534)
        #expect(comment == String(repeating: "é", count: 32_767))
    }

    @Test func unreadableAndUnrepresentableFramesArePseudoHeadersOnly() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-pcapng-\(UUID().uuidString).pcapng").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        var writer = try PcapngWriter(path: out, linkType: LinkType.bluetoothHCIH4WithPHDR)
        try writer.writeUnreadable(timestamp: Timestamp(microseconds: 5), comments: ["hciscope: frame 1 could not be read"])
        // A monitor New Index has no place under LINKTYPE 201.
        let newIndex = CaptureRecord(frame: 2, timestamp: Timestamp(microseconds: 6), direction: .unknown, kind: .newIndex,
                                     payload: [0, 1, 0x00, 0x00, 0x00, 0x01, 0xAA, 0x00] + Array("hci0\0\0\0\0".utf8))
        try writer.write(newIndex, comments: [])
        try writer.close()
        #expect(writer.placeholders == 2)
        let packets = try PcapngWalk.blocks(Array(try Data(contentsOf: URL(fileURLWithPath: out)))).filter { $0.type == 6 }
        #expect(packets.map(\.data) == [[0, 0, 0, 0], [0, 0, 0, 0]])  // a direction word, no H4 type
        #expect(packets[1].options[1]?.first?.contains("New Index record (frame 2) has no place in LINKTYPE 201") == true)
    }
}

/// A pcapng reader for the tests, written from the specification's block and option layouts
/// (little-endian files only, which is what the writer produces).
enum PcapngWalk {
    struct Block {
        var type: UInt32
        var linkType: UInt16?
        var data: [UInt8] = []
        var options: [UInt16: [String]] = [:]
    }

    struct Malformed: Error { var message: String }

    static func blocks(_ bytes: [UInt8]) throws -> [Block] {
        func u32(_ i: Int) -> UInt32 { UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24 }
        func u16(_ i: Int) -> UInt16 { UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 }
        var result: [Block] = []
        var at = 0
        while at < bytes.count {
            guard at + 12 <= bytes.count else { throw Malformed(message: "short block at \(at)") }
            let type = u32(at), length = Int(u32(at + 4))
            guard length % 4 == 0, length >= 12, at + length <= bytes.count else { throw Malformed(message: "block length \(length) at \(at)") }
            guard u32(at + length - 4) == UInt32(length) else { throw Malformed(message: "trailing length differs at \(at)") }
            var block = Block(type: type)
            let end = at + length - 4
            var options = end
            switch type {
            case 0x0A0D_0D0A:
                guard u32(at + 8) == 0x1A2B_3C4D, u16(at + 12) == 1, u16(at + 14) == 0 else { throw Malformed(message: "section header") }
                options = at + 24
            case 1:
                block.linkType = u16(at + 8)
                options = at + 16
            case 6:
                let captured = Int(u32(at + 20))
                guard Int(u32(at + 24)) >= captured else { throw Malformed(message: "original < captured") }
                block.data = Array(bytes[(at + 28)..<(at + 28 + captured)])
                let padded = (captured + 3) / 4 * 4
                guard bytes[(at + 28 + captured)..<(at + 28 + padded)].allSatisfy({ $0 == 0 }) else { throw Malformed(message: "padding") }
                options = at + 28 + padded
            default:
                break
            }
            var o = options
            while o < end {
                let code = u16(o), size = Int(u16(o + 2))
                if code == 0 {
                    guard size == 0, o + 4 == end else { throw Malformed(message: "opt_endofopt not last") }
                    break
                }
                guard o + 4 + size <= end else { throw Malformed(message: "option overruns its block") }
                block.options[code, default: []].append(String(decoding: bytes[(o + 4)..<(o + 4 + size)], as: UTF8.self))
                o += 4 + (size + 3) / 4 * 4
            }
            result.append(block)
            at += length
        }
        return result
    }
}
