import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

/// The stream decoders (monitor TTY/RTT framing, raw H4) on streams made from the frames of the
/// shipped capture captures/btvirt-le-pairing.btsnoop (400 records of two virtual controllers:
/// index events, commands, events, ACL both ways, notes), encoded the way Zephyr's monitor.c
/// sends them.
@Suite("Stream decoders (monitor TTY framing, H4)")
struct StreamDecoderTests {
    struct Frame {
        var opcode: UInt16
        var payload: [UInt8]
        var ts32: UInt32
        var drops: [(type: UInt8, count: UInt8)]
    }

    /// The sample's records as Zephyr would send them: TS32 = 12.3456 s of uptime plus the time
    /// since the first record (truncated to 1/10 ms); every 50th record carries drop counters.
    static let frames: [Frame] = {
        guard var reader = try? CaptureReader.open(path: Fixtures.project("btvirt-le-pairing.btsnoop").path) else { return [] }
        var out: [Frame] = []
        var first: Int64?
        while let r = reader.next() {
            guard let opcode = MonitorOpcode.opcode(for: r.kind, direction: r.direction) else { continue }
            let t0 = first ?? r.timestamp.microseconds
            first = t0
            let ts32 = UInt32(123_456 + (r.timestamp.microseconds - t0) / 100)
            let drops: [(type: UInt8, count: UInt8)] = out.count % 50 == 49 ? [(1, 2), (4, 1), (7, 3)] : []
            out.append(Frame(opcode: opcode, payload: r.payload, ts32: ts32, drops: drops))
        }
        return out
    }()

    static var stream: [UInt8] {
        frames.flatMap { StreamEncoding.monitorFrame(opcode: $0.opcode, payload: $0.payload, ts32: $0.ts32, drops: $0.drops) }
    }

    static let arrival = Timestamp(microseconds: 1_790_000_000_000_000)

    static func decode(_ chunks: [[UInt8]]) -> (StreamOutput, MonitorStreamDecoder) {
        var decoder = MonitorStreamDecoder(source: "test")
        var out = StreamOutput()
        for chunk in chunks {
            let o = decoder.push(chunk, receivedAt: arrival)
            out.records += o.records
            out.diagnostics += o.diagnostics
        }
        let o = decoder.finish(receivedAt: arrival)
        out.records += o.records
        out.diagnostics += o.diagnostics
        return (out, decoder)
    }

    /// Every record: opcode (kind and direction), payload, timestamp (sender spacing kept exactly,
    /// anchored at the host time of the first), cumulative drops.
    static func expectMatches(_ records: [CaptureRecord], _ frames: [Frame], cut: Set<Int> = [], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(records.count == frames.count, sourceLocation: sourceLocation)
        var drops: UInt32 = 0
        for (i, (r, f)) in zip(records, frames).enumerated() {
            let (kind, direction) = MonitorOpcode.kind(for: f.opcode)
            drops += UInt32(f.drops.reduce(0) { $0 + Int($1.count) })
            let ok = r.kind == kind && r.direction == direction && (cut.contains(i) || r.payload == f.payload) && r.frame == i + 1
                && r.timestamp.microseconds == arrival.microseconds + (Int64(f.ts32) - Int64(frames[0].ts32)) * 100
                && r.drops == drops && r.adapter == 0 && r.isTruncated == cut.contains(i)
            #expect(ok, "record \(i + 1): \(r) vs opcode \(f.opcode)", sourceLocation: sourceLocation)
            if !ok { return }
        }
    }

    @Test func everyRecordRoundTripsWhateverTheChunking() throws {
        try #require(Self.frames.count == 400)
        let bytes = Self.stream
        let (whole, decoder) = Self.decode([bytes])
        Self.expectMatches(whole.records, Self.frames)
        #expect(decoder.skippedBytes == 0 && decoder.truncatedFrames == 0 && decoder.buffered == 0)
        // Only the drop counters are worth saying: 8 records carry them.
        #expect(whole.diagnostics.count == 8)
        #expect(whole.diagnostics.allSatisfy { $0.message.contains("the sender dropped 6 records before this one (command 2, ACL 1, other 3)") })
        #expect(whole.diagnostics.first?.frame == 50)
        #expect(decoder.framing.senderDrops == [.command: 16, .acl: 8, .other: 24])

        let (single, _) = Self.decode(bytes.map { [$0] })
        Self.expectMatches(single.records, Self.frames)
        for seed in UInt64(1)...20 {
            var rng = Seeded(state: seed)
            let (split, _) = Self.decode(Self.chunks(bytes, using: &rng))
            Self.expectMatches(split.records, Self.frames)
            #expect(split.diagnostics.count == 8, "seed \(seed)")
        }
    }

    @Test func aWholeFrameWaitsForWhatFollowsUntilTheLineIsQuiet() {
        var decoder = MonitorStreamDecoder()
        let one = StreamEncoding.monitorFrame(opcode: 2, payload: [0x03, 0x0C, 0x00], ts32: 10)
        #expect(decoder.push(one, receivedAt: Self.arrival).records.isEmpty)
        let flushed = decoder.flush(receivedAt: Self.arrival).records
        #expect(flushed.map(\.kind) == [.command] && flushed.first?.payload == [0x03, 0x0C, 0x00])
        #expect(decoder.buffered == 0)
    }

    @Test func aHeldPacketKeepsTheTimeItsLastByteArrived() {
        // H4 has no clock: a packet takes the host time of its last byte, even though it is only
        // believed when the next packet (or the quiet line) comes 250 ms later.
        var decoder = H4StreamDecoder()
        let t0 = Self.arrival.microseconds
        var records = decoder.push([0x01, 0x03, 0x0C], receivedAt: Timestamp(microseconds: t0)).records
        records += decoder.push([0x00, 0x04, 0x0E], receivedAt: Timestamp(microseconds: t0 + 1_000)).records
        records += decoder.push([0x04, 0x01, 0x03, 0x0C, 0x00], receivedAt: Timestamp(microseconds: t0 + 2_000)).records
        records += decoder.flush(receivedAt: Timestamp(microseconds: t0 + 252_000)).records
        #expect(records.map(\.kind) == [.command, .event])
        #expect(records.map(\.timestamp.microseconds) == [t0 + 1_000, t0 + 2_000])
    }

    @Test func garbageBeforeAndBetweenFramesIsSkippedAndNamed() throws {
        // A text banner first (as an RTT telnet server sends), then frames with junk between them.
        let banner = Array("SEGGER J-Link - Real time terminal output\r\nProcess: JLinkExe\r\n".utf8)
        var rng = Seeded(state: 7)
        var bytes = banner
        var junkAt: [(offset: Int, count: Int)] = [(0, banner.count)]
        for (i, f) in Self.frames.enumerated() {
            if i % 40 == 20 {
                let junk = (0..<(3 + i % 11)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                junkAt.append((bytes.count, junk.count))
                bytes += junk
            }
            bytes += StreamEncoding.monitorFrame(opcode: f.opcode, payload: f.payload, ts32: f.ts32, drops: f.drops)
        }
        let (out, decoder) = Self.decode([bytes])
        Self.expectMatches(out.records, Self.frames)
        let skips = out.diagnostics.filter { $0.message.hasPrefix("skipped ") }
        #expect(skips.map { $0.offset } == junkAt.map { $0.offset })
        #expect(skips.first?.message.contains("skipped \(banner.count) bytes at the start of the stream (offsets 0–\(banner.count - 1))") == true)
        #expect(decoder.skippedBytes == junkAt.reduce(0) { $0 + $1.count })
        #expect(skips.allSatisfy { $0.file == "test" })
        // Chunking does not change it.
        var r2 = Seeded(state: 99)
        let (split, _) = Self.decode(Self.chunks(bytes, using: &r2))
        Self.expectMatches(split.records, Self.frames)
        #expect(split.diagnostics.filter { $0.message.hasPrefix("skipped ") }.map(\.offset) == junkAt.map { $0.offset })
    }

    @Test func aFrameCutShortIsRecordedTruncatedAndTheNextOneIsKept() throws {
        // A record from the middle loses its last 5 bytes on the line (the sender restarted, or the
        // UART lost them): the first record from 100 on with more than 8 payload bytes.
        let frames = Self.frames
        let k = try #require((99..<frames.count).first { frames[$0].payload.count > 8 })
        var bytes: [UInt8] = []
        var cutAt = 0
        var cutFrame: [UInt8] = []
        for (i, f) in frames.enumerated() {
            let encoded = StreamEncoding.monitorFrame(opcode: f.opcode, payload: f.payload, ts32: f.ts32, drops: f.drops)
            if i == k {
                cutAt = bytes.count
                cutFrame = encoded
                bytes += encoded.dropLast(5)
            } else {
                bytes += encoded
            }
        }
        let (out, decoder) = Self.decode([bytes])
        #expect(out.records.count == frames.count)
        #expect(decoder.truncatedFrames == 1)
        let cut = out.records[k]
        #expect(cut.isTruncated && cut.payload == Array(frames[k].payload.dropLast(5)) && cut.originalLength == frames[k].payload.count)
        let note = out.diagnostics.first { $0.message.hasPrefix("frame cut short") }
        #expect(note?.offset == cutAt && note?.frame == k + 1)
        #expect(note?.message.contains("its header says \(cutFrame.count) bytes") == true)
        // Everything else is intact, the cut record's timestamp and drop counters included.
        Self.expectMatches(out.records, frames, cut: [k])
    }

    /// The monitor framing, counting its header checks.
    final class CheckCount: @unchecked Sendable { var checks = 0 }
    struct CountingMonitorFraming: StreamFraming {
        var inner = MonitorStreamFraming()
        let count: CheckCount
        static var findsFramesCutShort: Bool { MonitorStreamFraming.findsFramesCutShort }
        func check(_ bytes: ArraySlice<UInt8>, strict: Bool) -> FrameCheck {
            count.checks += 1
            return inner.check(bytes, strict: strict)
        }
        mutating func record(
            _ bytes: ArraySlice<UInt8>, claimedLength: Int, frame: FrameNumber, offset: Int, receivedAt: Timestamp,
            source: String?, diagnostics: inout [Diagnostic]
        ) -> CaptureRecord {
            inner.record(bytes, claimedLength: claimedLength, frame: frame, offset: offset, receivedAt: receivedAt, source: source, diagnostics: &diagnostics)
        }
    }

    @Test func aFrameFollowedByGarbageArrivingAByteAtATimeIsSearchedOnce() throws {
        // The sample's longest record, followed by garbage, arrives a byte at a time (a serial
        // line). Inside it, from payload byte 40 on, sit the first bytes of another frame as long
        // as itself: a plausible start of a frame cut short, which cannot be judged until the
        // bytes where that frame would end have arrived. The search inside the first frame resumes
        // at that start on each byte, so the header checks grow with the bytes, not with bytes
        // times the frame's length (found by the reader_stream fuzz target: 80 ms for 1 KB).
        let f = try #require(Self.frames.max { $0.payload.count < $1.payload.count })
        #expect(f.payload.count > 100)
        let encoded = StreamEncoding.monitorFrame(opcode: f.opcode, payload: f.payload, ts32: f.ts32)
        let headerAndHCI = encoded.count - f.payload.count + 4
        var outer = f.payload
        outer.replaceSubrange(40..<(40 + headerAndHCI), with: encoded.prefix(headerAndHCI))
        let first = StreamEncoding.monitorFrame(opcode: f.opcode, payload: outer, ts32: f.ts32)
        let garbage = [UInt8](repeating: 0x01, count: 2 * encoded.count)
        let stream = first + garbage
        let count = CheckCount()
        var decoder = StreamDeframer(framing: CountingMonitorFraming(count: count))
        var records: [CaptureRecord] = []
        var diagnostics: [Diagnostic] = []
        for b in stream {
            let out = decoder.push([b], receivedAt: Self.arrival)
            records += out.records
            diagnostics += out.diagnostics
        }
        let end = decoder.finish(receivedAt: Self.arrival)
        records += end.records
        diagnostics += end.diagnostics
        #expect(count.checks < 4 * stream.count, "\(count.checks) header checks for \(stream.count) bytes")
        // The same records and diagnostics as the whole stream in one push.
        let whole = Self.decode([stream]).0
        #expect(records.map(\.payload) == whole.records.map(\.payload) && records.count == 1)
        #expect(diagnostics.map(\.message) == whole.diagnostics.map(\.message))
        #expect(records.first?.payload == outer)
    }

    @Test func anIncompleteFrameAtTheEndIsReportedNotRecorded() {
        let f = Self.frames[5]
        let encoded = StreamEncoding.monitorFrame(opcode: f.opcode, payload: f.payload, ts32: f.ts32)
        let first = StreamEncoding.monitorFrame(opcode: 2, payload: [0x03, 0x0C, 0x00], ts32: 1)
        let (out, decoder) = Self.decode([first + encoded.dropLast(2)])
        #expect(out.records.count == 1)
        let d = out.diagnostics.last
        #expect(d?.offset == first.count)
        #expect(d?.message == "an incomplete frame: its header says \(encoded.count) bytes, \(encoded.count - 2) arrived before the end of input; not recorded")
        #expect(decoder.buffered == 0)
    }

    @Test func garbageThenAnIncompleteFrameAtTheEndAreReportedApart() {
        let first = StreamEncoding.monitorFrame(opcode: 2, payload: [0x03, 0x0C, 0x00], ts32: 1)
        let tail = Array(StreamEncoding.monitorFrame(opcode: 3, payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], ts32: 2).prefix(13))
        let (out, decoder) = Self.decode([first + [0xEE, 0xEE, 0xEE] + tail])
        #expect(out.records.count == 1)
        #expect(out.diagnostics.map(\.offset) == [first.count, first.count + 3])
        #expect(out.diagnostics.first?.message.hasPrefix("skipped 3 bytes between frames (offsets \(first.count)–\(first.count + 2))") == true)
        #expect(out.diagnostics.last?.message.hasPrefix("an incomplete frame: its header says 17 bytes, 13 arrived") == true)
        #expect(decoder.skippedBytes == 3 + 13)
    }

    @Test func aSenderRestartAnchorsTheClockAgain() {
        let a = StreamEncoding.monitorFrame(opcode: 2, payload: [0x03, 0x0C, 0x00], ts32: 500_000)  // 50 s uptime
        let b = StreamEncoding.monitorFrame(opcode: 3, payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], ts32: 500_100)
        let c = StreamEncoding.monitorFrame(opcode: 2, payload: [0x03, 0x0C, 0x00], ts32: 20)  // restarted: 2 ms uptime
        var decoder = MonitorStreamDecoder()
        var records = decoder.push(a + b, receivedAt: Timestamp(microseconds: 1_000_000_000)).records
        records += decoder.push(c, receivedAt: Timestamp(microseconds: 1_000_500_000)).records
        let end = decoder.finish(receivedAt: Timestamp(microseconds: 1_000_500_000))
        records += end.records
        #expect(records.map(\.timestamp.microseconds) == [1_000_000_000, 1_000_010_000, 1_000_500_000])
        #expect(end.diagnostics.contains { $0.frame == 3 && $0.message.hasPrefix("the sender's clock went back from 50.010000 s to 0.002000 s") })
    }

    @Test func unknownExtendedHeaderTypesAreSkippedAsBtmonDoes() {
        // hdr_len 7: TS32, then an unknown type 0x42 and a byte; the payload starts after hdr_len.
        let payload: [UInt8] = [0x03, 0x0C, 0x00]
        let frame: [UInt8] = [UInt8(4 + 7 + payload.count), 0, 2, 0, 0, 7, 8, 0x10, 0, 0, 0, 0x42, 0xAA] + payload
        let first = StreamEncoding.monitorFrame(opcode: 2, payload: payload, ts32: 1)
        let (out, _) = Self.decode([first + frame])
        #expect(out.records.count == 2 && out.records[1].payload == payload && out.records[1].kind == .command)
        #expect(out.diagnostics.contains { $0.offset == first.count + 11 && $0.message.hasPrefix("unknown extended header type 66") })
    }

    // MARK: H4

    @Test func h4StreamsFrameWithGarbageAndAnyChunking() throws {
        guard var reader = try? CaptureReader.open(path: Fixtures.project("btvirt-le-pairing.btsnoop").path) else {
            Issue.record("sample capture missing")
            return
        }
        var packets: [CaptureRecord] = []
        while let r = reader.next() { if r.kind.isHCI { packets.append(r) } }
        try #require(packets.count == 288)
        var bytes = Array("boot: hello\n".utf8)
        for (i, p) in packets.enumerated() {
            if i == 150 { bytes += [0x00, 0xFF, 0x42, 0x13] }
            bytes += try #require(StreamEncoding.h4Packet(kind: p.kind, payload: p.payload))
        }
        for seed in UInt64(0)...10 {
            var rng = Seeded(state: seed)
            var decoder = H4StreamDecoder(source: "h4")
            var out: [CaptureRecord] = []
            var diagnostics: [Diagnostic] = []
            for chunk in seed == 0 ? [bytes] : Self.chunks(bytes, using: &rng) {
                let o = decoder.push(chunk, receivedAt: Self.arrival)
                out += o.records
                diagnostics += o.diagnostics
            }
            let o = decoder.finish(receivedAt: Self.arrival)
            out += o.records
            diagnostics += o.diagnostics
            #expect(out.count == packets.count, "seed \(seed)")
            for (r, p) in zip(out, packets) {
                #expect(r.kind == p.kind && r.payload == p.payload)
                #expect(r.direction == (p.kind == .command ? .sent : p.kind == .event ? .received : .unknown))
            }
            #expect(diagnostics.count == 2, "\(diagnostics)")
            #expect(diagnostics.first?.offset == 0)
            #expect(decoder.skippedBytes == 12 + 4)
        }
    }

    // MARK: every capture

    /// Every capture the tests know (the project's own, and the corpus's with HCISCOPE_CORPUS): its
    /// records framed as a Zephyr monitor stream, and its HCI packets as raw H4, come back whole
    /// with nothing skipped, cut or reported. Real captures hold what a synthetic stream would not:
    /// malformed HCI packets, payloads full of bytes that look like frame headers, 1000s of records.
    @Test func everyCaptureRoundTripsAsAStream() throws {
        var files = 0
        for url in Fixtures.corpusFiles() {
            guard var reader = try? CaptureReader.open(path: url.path) else { continue }
            var records: [CaptureRecord] = []
            while let r = reader.next() { records.append(r) }
            let name = url.lastPathComponent
            // Monitor framing: records with an opcode whose payload fits a u16 data length.
            let framed = records.compactMap { r -> Frame? in
                guard let opcode = MonitorOpcode.opcode(for: r.kind, direction: r.direction), r.payload.count <= 60_000 else { return nil }
                return Frame(opcode: opcode, payload: r.payload, ts32: UInt32(truncatingIfNeeded: r.frame * 7), drops: [])
            }
            guard !framed.isEmpty else { continue }
            files += 1
            let stream = framed.flatMap { StreamEncoding.monitorFrame(opcode: $0.opcode, payload: $0.payload, ts32: $0.ts32) }
            var decoder = MonitorStreamDecoder(source: name)
            var out: [CaptureRecord] = []
            var diagnostics: [Diagnostic] = []
            var i = 0
            while i < stream.count {
                let o = decoder.push(stream[i..<min(stream.count, i + 4096)], receivedAt: Self.arrival)
                out += o.records
                diagnostics += o.diagnostics
                i += 4096
            }
            let end = decoder.finish(receivedAt: Self.arrival)
            out += end.records
            diagnostics += end.diagnostics
            #expect(out.count == framed.count && diagnostics.isEmpty, "\(name): \(out.count) of \(framed.count) records; \(diagnostics.prefix(3))")
            let wrong = zip(out, framed).filter { r, f in r.payload != f.payload || r.kind != MonitorOpcode.kind(for: f.opcode).0 }.count
            #expect(wrong == 0, "\(name): \(wrong) records differ")

            // H4: HCI packets whose own length fills them (a truncated or malformed one cannot be
            // framed), ACL on a connection handle (the H4 decoder resynchronises on one above
            // 0x0EFF: nick0451's vendor data on 0x0FF1).
            let packets = records.filter { r in
                guard r.kind.isHCI, !r.isTruncated, let h = MonitorStreamFraming.hciHeaderLength(r.kind), r.payload.count >= h else { return false }
                if r.kind == .acl, (UInt16(r.payload[0]) | UInt16(r.payload[1]) << 8) & 0x0FFF > 0x0EFF { return false }
                return MonitorStreamFraming.hciParameterLength(r.kind, r.payload[0..<h]) == r.payload.count - h
            }
            var h4 = H4StreamDecoder(source: name)
            let h4Bytes = packets.flatMap { StreamEncoding.h4Packet(kind: $0.kind, payload: $0.payload) ?? [] }
            var h4Out = h4.push(h4Bytes, receivedAt: Self.arrival)
            let h4End = h4.finish(receivedAt: Self.arrival)
            h4Out.records += h4End.records
            h4Out.diagnostics += h4End.diagnostics
            #expect(h4Out.records.map(\.payload) == packets.map(\.payload) && h4Out.diagnostics.isEmpty,
                    "\(name): H4 \(h4Out.records.count) of \(packets.count); \(h4Out.diagnostics.prefix(3))")
        }
        #expect(files >= 20, "\(files) captures")
    }

    // MARK: helpers

    static func chunks(_ bytes: [UInt8], using rng: inout Seeded) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        var i = 0
        while i < bytes.count {
            let n = Int.random(in: 0...min(64, bytes.count - i), using: &rng)
            chunks.append(Array(bytes[i..<(i + n)]))
            i += n
        }
        return chunks
    }

    /// A seeded generator (SplitMix64) so a failing split can be reproduced.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
