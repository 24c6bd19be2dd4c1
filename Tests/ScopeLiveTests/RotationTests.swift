#if os(Linux)
import Foundation
import Glibc
import ScopeCapture
import ScopeCore
import ScopeLive
import Testing

/// `-C`/`-W` ring buffer: the monitor framing fed through the socketpair harness into
/// `runLiveCapture`, written by `RotatingCaptureWriter` with a tiny size; every file must be a
/// complete capture and together they must hold the stream in order.
@Suite("Ring buffer (-C/-W)")
struct RotationTests {
    static func directory(_ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-ring-\(getpid())-\(name)")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }

    /// 40 messages (the five of `MonitorSourceTests`, eight times), then end of input.
    static func record(into writer: inout RotatingCaptureWriter, flushEach: Bool = true) throws -> [(opcode: UInt16, index: UInt16, payload: [UInt8])] {
        let pair = MonitorSourceTests.Pair()
        defer { pair.closeAll() }
        let sent = Array(repeating: MonitorSourceTests.messages, count: 8).flatMap { $0 }
        for m in sent { pair.send(MonitorSourceTests.frame(m)) }
        shutdown(pair.kernelSide, Int32(SHUT_WR))
        let summary = try runLiveCapture(
            source: pair.source, stopFD: pair.stopRead, options: LiveCaptureOptions(),
            write: { (r: CaptureRecord) throws(LiveError) in
                do {
                    try writer.write(r)
                    if flushEach { try writer.flush() }
                } catch { throw LiveError("\(error)") }
            })
        #expect(summary.written == sent.count)
        try writer.close()
        return sent
    }

    static func read(_ path: String) throws -> (records: [CaptureRecord], problems: Int) {
        var reader = try CaptureReader.open(path: path)
        var records: [CaptureRecord] = []
        while let r = reader.next() { records.append(r) }
        return (records, reader.diagnostics.count)
    }

    static func size(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : -1
    }

    @Test(arguments: [CaptureFormat.btsnoopMonitor, .pcapMonitor])
    func sizeRotationSplitsIntoCompleteFilesInOrder(format: CaptureFormat) throws {
        let dir = try Self.directory("c-\(format.rawValue)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = dir + "/ring"
        var writer = try RotatingCaptureWriter.make(format: format, path: base, maxBytes: 200)
        let sent = try Self.record(into: &writer)
        #expect(writer.written == sent.count)
        #expect(writer.filesStarted > 3)
        #expect(writer.paths == (0..<writer.filesStarted).map { "\(base).\($0)" })
        #expect(!FileManager.default.fileExists(atPath: base))
        var all: [CaptureRecord] = []
        for (i, path) in writer.paths.enumerated() {
            let (records, problems) = try Self.read(path)
            #expect(problems == 0, "\(path) is not a clean capture")
            #expect(!records.isEmpty, "\(path) holds no record")
            // A file exceeds the limit by at most its last record.
            if i < writer.paths.count - 1, let last = records.last {
                #expect(Self.size(path) > 200)
                #expect(Self.size(path) - (last.payload.count + 24) <= 200)
            }
            #expect((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
            all += records
        }
        #expect(all.map(\.payload) == sent.map(\.payload))
        #expect(all.map(\.adapter) == sent.map(\.index))
    }

    @Test func aRingKeepsAtMostWFilesHoldingTheNewestRecords() throws {
        let dir = try Self.directory("w")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = dir + "/ring.btsnoop"
        var writer = try RotatingCaptureWriter.make(format: .btsnoopMonitor, path: base, maxBytes: 150, maxFiles: 3)
        let sent = try Self.record(into: &writer)
        #expect(writer.filesStarted > 3)
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(onDisk == ["ring.btsnoop.0", "ring.btsnoop.1", "ring.btsnoop.2"])
        #expect(writer.paths.count == 3)
        // Oldest first: the file after the current one in the ring.
        let current = (writer.filesStarted - 1) % 3
        #expect(writer.paths.last == "\(base).\(current)")
        var kept: [CaptureRecord] = []
        for path in writer.paths {
            let (records, problems) = try Self.read(path)
            #expect(problems == 0)
            #expect(!records.isEmpty)
            kept += records
        }
        // The kept records are the newest ones, in order, up to the last message.
        #expect(kept.count < sent.count)
        #expect(kept.map(\.payload) == sent.suffix(kept.count).map(\.payload))
    }

    @Test func withoutASizeTheFileIsThePathItself() throws {
        let dir = try Self.directory("plain")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var writer = try RotatingCaptureWriter.make(format: .btsnoopMonitor, path: dir + "/one.btsnoop")
        let sent = try Self.record(into: &writer, flushEach: false)
        #expect(writer.paths == [dir + "/one.btsnoop"])
        #expect(try Self.read(dir + "/one.btsnoop").records.count == sent.count)
        #expect(throws: CaptureError.self) { try RotatingCaptureWriter.make(format: .btsnoopMonitor, path: "-", maxBytes: 10) }
    }
}
#endif
