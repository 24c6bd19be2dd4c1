#if os(Linux)
import Dispatch
import Foundation
import Glibc
import ScopeCapture
import ScopeCommands
import ScopeCore
import ScopeTestSupport
import Testing

/// `hciscope capture --tty`, `--rtt` and `--h4-file` end to end, in-process: the 400 records of
/// the shipped capture captures/btvirt-le-pairing.btsnoop, encoded as Zephyr's monitor.c sends
/// them (TS32 in 1/10 ms of uptime first, then drop counters on every 50th record), go through a
/// pseudo-terminal, a TCP connection and a file, preceded by text (a boot log on the same UART, an
/// RTT server's banner); every record must come back out of the written capture: opcode (kind
/// and direction), payload, timestamp (the sender's spacing, exactly), drops.
@Suite("capture --tty / --rtt / --h4-file", .serialized)
struct CaptureStreamTests {
    struct Frame {
        var opcode: UInt16
        var payload: [UInt8]
        var ts32: UInt32
        var drops: [(type: UInt8, count: UInt8)]
    }

    static let sample: [CaptureRecord] = {
        guard var reader = try? CaptureReader.open(path: Fixtures.project("btvirt-le-pairing.btsnoop").path) else { return [] }
        var out: [CaptureRecord] = []
        while let r = reader.next() { out.append(r) }
        return out
    }()

    static let frames: [Frame] = {
        var out: [Frame] = []
        guard let t0 = sample.first?.timestamp.microseconds else { return [] }
        for r in sample {
            guard let opcode = MonitorOpcode.opcode(for: r.kind, direction: r.direction) else { continue }
            let drops: [(type: UInt8, count: UInt8)] = out.count % 50 == 49 ? [(2, 1), (3, 4)] : []
            out.append(Frame(opcode: opcode, payload: r.payload, ts32: UInt32(987_654 + (r.timestamp.microseconds - t0) / 100), drops: drops))
        }
        return out
    }()

    static func monitorStream(banner: String) -> [UInt8] {
        Array(banner.utf8) + frames.flatMap { StreamEncoding.monitorFrame(opcode: $0.opcode, payload: $0.payload, ts32: $0.ts32, drops: $0.drops) }
    }

    final class Outcome: @unchecked Sendable {
        var status: Int32?  // written before `done` is signalled, read after
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs `hciscope capture ARGS` on its own thread (it blocks in poll).
    static func startCapture(_ arguments: [String], console: CapturedConsole) -> Outcome {
        let outcome = Outcome()
        let printer = console.console
        let thread = Thread {
            outcome.status = (try? Capture.parse(arguments))?.execute(console: printer) ?? 64
            outcome.done.signal()
        }
        thread.start()
        return outcome
    }

    static func temporaryDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// True once the output file has its header (the capture writes it only after opening its source).
    static func waitForHeader(_ path: String) -> Bool {
        for _ in 0..<250 {
            if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size >= 16 { return true }
            usleep(20_000)
        }
        return false
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], chunk: Int) {
        var offset = 0
        while offset < bytes.count {
            let n = min(chunk, bytes.count - offset)
            let w = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, n) }
            if w < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += w
        }
    }

    /// The written capture holds every frame, in order, with its opcode, payload, the sender's
    /// timestamps (relative to the first) and the cumulative drops (btsnoop keeps them; pcap cannot).
    static func expectRoundTrip(_ path: String, format: CaptureFormat, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var reader = try CaptureReader.open(path: path)
        #expect(reader.format == format, sourceLocation: sourceLocation)
        var records: [CaptureRecord] = []
        while let r = reader.next() { records.append(r) }
        // The sample's two controllers' records interleave slightly out of time order; reading it
        // says so too. Nothing else is worth a word.
        #expect(reader.diagnostics.allSatisfy { $0.message.hasPrefix("timestamp goes backwards") }, "\(reader.diagnostics)", sourceLocation: sourceLocation)
        try #require(records.count == frames.count, "\(records.count) records", sourceLocation: sourceLocation)
        let t0 = records[0].timestamp.microseconds
        #expect(records[0].timestamp.isPlausible, sourceLocation: sourceLocation)
        var drops: UInt32 = 0
        var mismatches = 0
        for (i, (r, f)) in zip(records, frames).enumerated() {
            drops += UInt32(f.drops.reduce(0) { $0 + Int($1.count) })
            let (kind, direction) = MonitorOpcode.kind(for: f.opcode)
            let ok = r.kind == kind && r.direction == direction && r.payload == f.payload && r.adapter == 0
                && r.timestamp.microseconds - t0 == (Int64(f.ts32) - Int64(frames[0].ts32)) * 100
                && (format != .btsnoopMonitor || r.drops == drops)
            if !ok {
                mismatches += 1
                if mismatches <= 3 { Issue.record("record \(i + 1): \(r) vs opcode \(f.opcode) ts32 \(f.ts32)", sourceLocation: sourceLocation) }
            }
        }
        #expect(mismatches == 0, sourceLocation: sourceLocation)
    }

    @Test func ttyThroughAPseudoTerminal() throws {
        try #require(Self.frames.count == 400)
        let directory = try Self.temporaryDirectory("tty")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("zephyr.btsnoop").path

        // A pseudo-terminal stands in for the board's UART. openpty(3) is in glibc's libc since
        // 2.34 but not in Swift's Glibc module (pty.h): looked up by name.
        typealias OpenPTY = @convention(c) (
            UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<CChar>?, UnsafeRawPointer?, UnsafeRawPointer?
        ) -> Int32
        let libc = dlopen(nil, RTLD_NOW)
        let symbol = try #require(dlsym(libc, "openpty") ?? dlsym(dlopen("libutil.so.1", RTLD_NOW), "openpty"))
        let openpty = unsafeBitCast(symbol, to: OpenPTY.self)
        var master: Int32 = -1, slave: Int32 = -1
        try #require(openpty(&master, &slave, nil, nil, nil) == 0)
        defer {
            close(master)
            close(slave)
        }
        let device = try #require(ttyname(slave).map { String(cString: $0) })

        let console = CapturedConsole()
        let outcome = Self.startCapture(["--tty", device, "--baud", "921600", "-w", output, "-q", "-c", "400"], console: console)
        try #require(Self.waitForHeader(output), "capture did not start: \(console.err)")
        // The board's boot log comes first on the same line; the capture set the line raw, so
        // bytes such as 0x03 (^C), 0x0D and 0x11 (XON) in the frames arrive untouched.
        let stream = Self.monitorStream(banner: "*** Booting Zephyr OS build v4.1.0 ***\r\n[00:00:00.001,000] <inf> bt_hci_core: HCI transport\r\n")
        Self.writeAll(master, stream, chunk: 512)

        let finished = outcome.done.wait(timeout: .now() + 30) == .success
        try #require(finished, "capture did not stop: \(console.err)")
        #expect(outcome.status == 0, "\(console.err)")
        #expect(console.err.contains("400 frames written to \(output) (btsnoop-2001)"), "\(console.err)")
        #expect(console.err.contains("40 records dropped by the sender (event 8, ACL 32)"), "\(console.err)")
        #expect(console.err.contains("stopped by count"), "\(console.err)")
        #expect(console.err.contains("\(device): offset 0 (0x0): warning: skipped 93 bytes at the start of the stream"), "\(console.err)")
        try Self.expectRoundTrip(output, format: .btsnoopMonitor)
    }

    @Test func rttThroughATCPConnection() throws {
        try #require(Self.frames.count == 400)
        let directory = try Self.temporaryDirectory("rtt")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("rtt.pcap").path

        // A local RTT server: listens, sends a banner and the stream in small pieces, closes.
        let (listener, port) = try #require(loopbackListener())
        defer { close(listener) }
        let stream = Self.monitorStream(banner: "SEGGER J-Link V7.94 - Real time terminal output\r\nProcess: JLinkGDBServerCLExe\r\n")
        let served = DispatchSemaphore(value: 0)
        let server = Thread {
            let fd = accept(listener, nil, nil)
            if fd >= 0 {
                Self.writeAll(fd, stream, chunk: 333)
                close(fd)
            }
            served.signal()
        }
        server.start()

        let console = CapturedConsole()
        let outcome = Self.startCapture(["--rtt", "127.0.0.1:\(port)", "-w", output, "-q"], console: console)
        let finished = outcome.done.wait(timeout: .now() + 30) == .success
        try #require(finished, "capture did not stop: \(console.err)")
        _ = served.wait(timeout: .now() + 5)
        #expect(outcome.status == 0, "\(console.err)")
        #expect(console.err.contains("400 frames written to \(output) (pcap-254)"), "\(console.err)")
        #expect(console.err.contains("\(stream.count) bytes read from tcp:127.0.0.1:\(port), 79 not part of any frame"), "\(console.err)")
        #expect(console.err.contains("stopped by end of input"), "\(console.err)")
        try Self.expectRoundTrip(output, format: .pcapMonitor)
    }

    /// The built binary on a FIFO: it waits for a writer without blocking a stop, records what the
    /// writer sends, and a SIGINT ends it cleanly (status 0, the summary line, a whole file).
    @Test func h4FifoStoppedBySIGINT() throws {
        guard let binary = builtBinary else {
            FileHandle.standardError.write(Data("note: FIFO/SIGINT test SKIPPED: no built hciscope\n".utf8))
            return
        }
        let packets = Self.sample.filter { $0.kind == .command || $0.kind == .event }.prefix(50)
        let directory = try Self.temporaryDirectory("fifo")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("h4.fifo").path
        let output = directory.appendingPathComponent("fifo.btsnoop").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // Spawned with SIGINT unblocked and at its default action, as a shell starts it (Foundation's
        // Process passes on the spawning thread's mask, where it may be blocked).
        let errPath = directory.appendingPathComponent("stderr.txt").path
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = [binary, "capture", "--h4-file", fifo, "-w", output, "-q"]
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        try #require(posix_spawn(&pid, binary, &actions, &attributes, &cArgs, environ) == 0)
        try #require(Self.waitForHeader(output))
        usleep(300_000)  // no writer yet: still waiting, not ended
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == 0, "it ended before a writer came")
        let writer = open(fifo, O_WRONLY)
        try #require(writer >= 0)
        var bytes: [UInt8] = []
        for p in packets { bytes += try #require(StreamEncoding.h4Packet(kind: p.kind, payload: p.payload)) }
        Self.writeAll(writer, bytes, chunk: 100)
        // The last packet is written once the line is quiet (the decoder waits to see what follows).
        for _ in 0..<100 {
            if var reader = try? CaptureReader.open(path: output) {
                var n = 0
                while reader.next() != nil { n += 1 }
                if n == packets.count { break }
            }
            usleep(20_000)
        }
        kill(pid, SIGINT)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        close(writer)
        let said = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        // Exited (not killed by the signal), with status 0.
        #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 0, "wait status \(status): \(said)")
        #expect(said.contains("\(packets.count) frames written to \(output) (btsnoop-2001); \(bytes.count) bytes read from \(fifo), 0 not part of any frame; stopped by signal"), "\(said)")
        var reader = try CaptureReader.open(path: output)
        var records: [CaptureRecord] = []
        while let r = reader.next() { records.append(r) }
        #expect(records.map(\.payload) == packets.map(\.payload))
    }

    @Test func h4FileWithGarbageAndATruncatedTail() throws {
        let packets = Self.sample.filter { $0.kind.isHCI }
        try #require(packets.count == 288)
        let directory = try Self.temporaryDirectory("h4file")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("uart.h4").path
        let output = directory.appendingPathComponent("uart.btsnoop").path
        var bytes: [UInt8] = []
        var junkAt = 0
        for (i, p) in packets.enumerated() {
            if i == 100 {
                junkAt = bytes.count
                bytes += [0x00, 0x00, 0xFF, 0x7E]
            }
            bytes += try #require(StreamEncoding.h4Packet(kind: p.kind, payload: p.payload))
        }
        let whole = bytes.count
        bytes += [0x04, 0x0E, 0x04, 0x01]  // an event cut off by the end of the file
        try Data(bytes).write(to: URL(fileURLWithPath: input))

        let console = CapturedConsole()
        let outcome = Self.startCapture(["--h4-file", input, "--data-direction", "received", "-w", output, "-q"], console: console)
        let finished = outcome.done.wait(timeout: .now() + 30) == .success
        try #require(finished, "capture did not stop: \(console.err)")
        #expect(outcome.status == 0, "\(console.err)")
        #expect(console.err.contains("288 frames written to \(output) (btsnoop-2001); \(bytes.count) bytes read from \(input), 8 not part of any frame; stopped by end of input"), "\(console.err)")
        #expect(console.err.contains("\(input): frame 100, offset \(junkAt) (0x\(String(junkAt, radix: 16))): warning: skipped 4 bytes between frames"), "\(console.err)")
        #expect(console.err.contains("\(input): offset \(whole) (0x\(String(whole, radix: 16))): warning: an incomplete frame: its header says 7 bytes, 4 arrived before the end of input; not recorded"), "\(console.err)")

        var reader = try CaptureReader.open(path: output)
        var records: [CaptureRecord] = []
        while let r = reader.next() { records.append(r) }
        try #require(records.count == packets.count)
        for (r, p) in zip(records, packets) {
            #expect(r.kind == p.kind && r.payload == p.payload)
            // Commands are sent and events received; data went the way --data-direction said.
            #expect(r.direction == (p.kind == .command ? .sent : .received))
        }

        // Without --data-direction the data packets cannot be written (btsnoop 2001 has only TX and
        // RX opcodes for them), and the summary says so and how to keep them.
        let console2 = CapturedConsole()
        let again = Self.startCapture(["--h4-file", input, "-w", output, "-q"], console: console2)
        try #require(again.done.wait(timeout: .now() + 30) == .success)
        let acl = packets.filter { $0.kind == .acl }.count
        #expect(console2.err.contains("\(packets.count - acl) frames written to \(output) (btsnoop-2001);"), "\(console2.err)")
        #expect(console2.err.contains("; \(acl) records skipped: \(acl) ACL Data (direction not representable); H4 does not say which way data packets went: give --data-direction sent|received to keep them"), "\(console2.err)")
    }
}
#endif
