#if os(Linux)
import Glibc
import ScopeCapture
import ScopeCore
import ScopeLive
import Testing

/// A full disk stops the capture with a clear message; what was written before stays valid.
@Suite("Capture on a full disk")
struct WriteFailureTests {
    @Test func theHeaderOnAFullDeviceIsAClearError() throws {
        // /dev/full answers every write with ENOSPC.
        var writer = try CaptureWriter.make(format: .btsnoopMonitor, path: "/dev/full")
        #expect(throws: CaptureError.self) { try writer.flush() }
        do {
            try writer.flush()
        } catch {
            #expect(error.description.contains("/dev/full"))
            #expect(error.description.lowercased().contains("no space"))
        }
    }

    @Test func aWriteErrorStopsTheLoopAndNamesTheCause() throws {
        var fds: [Int32] = [0, 0]
        _ = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds)
        var stop: [Int32] = [0, 0]
        _ = pipe(&stop)
        defer { for fd in [fds[1], stop[0], stop[1]] { close(fd) } }
        let source = MonitorSource(fileDescriptor: fds[0], ownsDescriptor: true)
        // Three Reset commands on hci0 in the kernel's framing.
        let reset: [UInt8] = [0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x03, 0x0C, 0x00]
        for _ in 0..<3 { _ = reset.withUnsafeBytes { send(fds[1], $0.baseAddress, $0.count, 0) } }
        var written = 0
        #expect(throws: LiveError.self) {
            _ = try runLiveCapture(
                source: source, stopFD: stop[0], options: LiveCaptureOptions(),
                write: { (_: CaptureRecord) throws(LiveError) in
                    if written == 2 { throw LiveError("write failed: No space left on device", fix: "free disk space") }
                    written += 1
                })
        }
        #expect(written == 2)
    }
}
#endif
