#if os(Linux)
import Foundation
import ScopeTestSupport
import Testing

/// On Linux the executable does not link libpcap: it loads it on the first pcap call
/// (Sources/CPcap/pcap.c). The dynamic loader's own trace (`LD_DEBUG=files`) of the built binary
/// shows libpcap absent from an `analyze` of a btsnoop file and loaded by a `convert` to pcap,
/// which must still write the file.
@Suite("libpcap is loaded on first use")
struct LazyLibpcapTests {
    /// The loader's trace of one run: (exit status, the trace lines that name libpcap).
    private func trace(_ binary: String, _ arguments: [String]) throws -> (Int32, [Substring]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = ["LD_DEBUG": "files", "PATH": "/usr/bin:/bin"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        return (process.terminationStatus, lines.filter { $0.contains("file=libpcap") })
    }

    @Test func analyzeOfABtsnoopFileNeverMapsLibpcap() throws {
        let binary = try #require(builtBinary)
        let (status, pcapLines) = try trace(binary, ["analyze", "--format", "json", shippedSample])
        #expect(status == 0)
        #expect(pcapLines.isEmpty, "\(pcapLines)")
    }

    @Test func writingPcapLoadsLibpcapThenAndWritesTheFile() throws {
        let binary = try #require(builtBinary)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("lazy-libpcap-\(getpid()).pcap")
        defer { try? FileManager.default.removeItem(at: out) }
        let (status, pcapLines) = try trace(binary, ["convert", shippedSample, out.path])
        #expect(status == 0)
        #expect(pcapLines.contains { $0.contains("dynamically loaded") }, "\(pcapLines)")
        let back = try show(["--json", out.path]).out.split(separator: "\n")
        let plain = try show(["--json", shippedSample]).out.split(separator: "\n")
        #expect(back.count == plain.count)
    }
}
#endif
