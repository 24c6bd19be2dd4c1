import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Feeds `bytes` into a new pipe from another thread in chunks of 1…`maxChunk` bytes (sizes
/// from a fixed seed), then closes it; returns the read end.
///
/// A reader may stop early (a refused link type, say) and close its end: the feeder then gets
/// EPIPE, not a SIGPIPE that would kill the whole test process.
func dripFeed(_ bytes: [UInt8], maxChunk: Int, seed: UInt64 = 0x5EED) -> Int32 {
    signal(SIGPIPE, SIG_IGN)
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return -1 }
    let writeEnd = fds[1]
    Thread.detachNewThread {
        var state = seed
        var i = 0
        while i < bytes.count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let n = min(bytes.count - i, 1 + Int((state >> 33) % UInt64(maxChunk)))
            let written = bytes[i..<(i + n)].withUnsafeBytes { write(writeEnd, $0.baseAddress, n) }
            if written <= 0 { break }
            i += written
        }
        close(writeEnd)
    }
    return fds[0]
}

func readAll(fileDescriptor fd: Int32) throws -> (records: [CaptureRecord], reader: CaptureReader) {
    defer { close(fd) }
    var reader = try CaptureReader.open(fileDescriptor: fd, name: "<pipe>")
    var out: [CaptureRecord] = []
    while let r = reader.next() { out.append(r) }
    return (out, reader)
}

@Suite struct StreamingTests {
    static let fixtures = [
        "btsnoop/h4.btsnoop", "btsnoop/h1.btsnoop", "btsnoop/monitor.btsnoop", "pklg/be.pklg", "pklg/le.pklg",
        "pcap/h4phdr-us-le.pcap", "pcap/h4phdr-ns-be.pcap", "pcap/monitor-254.pcap", "pcapng/h4phdr-201.pcapng",
        "pcapng/monitor-254.pcapng",
    ]

    @Test("pipes fed a few bytes at a time give the same records as files", arguments: fixtures, [1, 7, 4096])
    func readsFromADripFedPipe(_ fixture: String, _ maxChunk: Int) throws {
        let url = Fixtures.url(fixture)
        let fromFile = try readAll(url.path).records
        let bytes = Array(try Data(contentsOf: url))
        let (fromPipe, reader) = try readAll(fileDescriptor: dripFeed(bytes, maxChunk: maxChunk))
        #expect(fromPipe == fromFile)
        #expect(reader.summary.exitClass == .ok)
        if !fixture.hasPrefix("pcapng") { #expect(reader.bytesRead == bytes.count) }
        #expect(reader.name == "<pipe>")
    }

    @Test("broken files give the same diagnostics through a pipe", arguments: [
        "bad/oversized-length.btsnoop", "bad/garbage-between-records.btsnoop", "bad/truncated-last-record.pklg",
        "bad/record-cut-then-resync.btsnoop",
    ])
    func brokenFilesThroughAPipe(_ fixture: String) throws {
        let url = Fixtures.url(fixture)
        let fromFile = try readAll(url.path)
        let (records, reader) = try readAll(fileDescriptor: dripFeed(Array(try Data(contentsOf: url)), maxChunk: 13))
        #expect(records == fromFile.records)
        #expect(reader.diagnostics.map(\.message) == fromFile.reader.diagnostics.map(\.message))
        #expect(reader.diagnostics.map(\.offset) == fromFile.reader.diagnostics.map(\.offset))
        #expect(reader.diagnostics.map(\.frame) == fromFile.reader.diagnostics.map(\.frame))
    }

    @Test func pcapOffsetsThroughAPipeAreCounted() throws {
        let url = Fixtures.url("bad/incl-gt-orig.pcap")
        let fromFile = try readAll(url.path).reader.diagnostics
        let fromPipe = try readAll(fileDescriptor: dripFeed(Array(try Data(contentsOf: url)), maxChunk: 64)).reader.diagnostics
        #expect(fromPipe.map(\.offset) == [75])
        #expect(fromPipe.map(\.message) == fromFile.map(\.message))
    }

    @Test func refusalsThroughAPipe() throws {
        let bytes = Array(try Data(contentsOf: Fixtures.url("bad/link-type-272.pcap")))
        let error = try #require(throws: CaptureError.self) { try readAll(fileDescriptor: dripFeed(bytes, maxChunk: 3)) }
        #expect(error.description == "<pipe>: error: link type 272 (NORDIC_BLE) is a link-layer sniffer capture, not HCI")
    }

    /// A 10 MB btsnoop file is read through one 64 KiB buffer: the first record needs at most
    /// one read, and the buffer never grows.
    @Test func readingDoesNotLoadTheFile() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path("big.btsnoop")
        var writer = try CaptureWriter.make(format: .btsnoopH4, path: path)
        let payload = [UInt8](repeating: 0xA5, count: 100)
        let count = 100_000
        for i in 0..<count {
            try writer.write(CaptureRecord(
                frame: i + 1, timestamp: Timestamp(microseconds: 1_741_683_737_000_000 + Int64(i)), direction: .received,
                kind: .acl, payload: payload))
        }
        try writer.close()
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size == 16 + count * (24 + 101))

        var reader = try CaptureReader.open(path: path)
        _ = reader.next()
        let early = try #require(reader.bufferStatistics)
        #expect(early.bytesFromInput <= BufferedFileReader.chunkSize)
        var n = 1
        while reader.next() != nil { n += 1 }
        #expect(n == count)
        let late = try #require(reader.bufferStatistics)
        #expect(late.bytesFromInput == size)
        #expect(late.peakBufferSize == BufferedFileReader.chunkSize)
        #expect(reader.summary.bytesRead == size)
    }

    /// A record longer than any HCI packet but well framed is delivered (with an error); the
    /// buffer grows to hold it and stays bounded.
    @Test func anOversizedButFramedRecordIsDelivered() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path("big-record.btsnoop")
        var w = ByteWriter()
        w.append(Array("btsnoop".utf8) + [0])
        w.be32(1)
        w.be32(1002)
        let t0: UInt64 = 0x00DC_DDB3_0F2F_8000 + 1_741_683_737_000_000
        for (i, size) in [10, 70_000, 10].enumerated() {
            w.be32(UInt32(size + 1))
            w.be32(UInt32(size + 1))
            w.be32(1)
            w.be32(0)
            w.be64(t0 + UInt64(i))
            w.u8(0x02)
            w.append([UInt8](repeating: UInt8(i), count: size))
        }
        try Data(w.bytes).write(to: URL(fileURLWithPath: path))
        let (records, reader) = try readAll(path)
        #expect(records.map(\.payload.count) == [10, 70_000, 10])
        #expect(records.map(\.frame) == [1, 2, 3])
        #expect(reader.diagnostics.map(\.description) == [
            path + ": frame 2, offset 51 (0x33): error: record of 70,001 bytes exceeds the largest btsnoop 1002 record (65,540 bytes); delivered as it is framed",
        ])
        let stats = try #require(reader.bufferStatistics)
        #expect(stats.peakBufferSize > BufferedFileReader.chunkSize)
        #expect(stats.peakBufferSize <= 2 * BufferedFileReader.maximumWindow)
    }

    @Test func bufferedFileReaderWindowAcrossChunks() throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let input = BufferedFileReader(fileDescriptor: dripFeed(bytes, maxChunk: 5000), name: "<pipe>", closeWhenDone: true)
        var position = 0
        var step = 1
        while !input.isAtEnd {
            let want = (step * 7919) % 70_000 + 1
            let have = try input.fill(atLeast: want)
            #expect(have >= min(want, bytes.count - position))
            guard have > 0 else { break }
            #expect(input.offset == position)
            #expect(input.byte(at: 0) == bytes[position])
            #expect(input.bytes(at: have - 1, count: 1) == [bytes[position + have - 1]])
            let take = min(have, (step * 104_729) % 9000 + 1)
            input.consume(take)
            position += take
            step += 1
        }
        #expect(position == bytes.count)
        #expect(input.bytesFromInput == bytes.count)
        #expect(input.peakBufferSize <= 2 * BufferedFileReader.maximumWindow)
    }
}
