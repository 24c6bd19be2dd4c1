#if os(Linux)
// CBluetooth's shim is the first to include <sys/socket.h> in this module (see H4Proxy.swift).
import CBluetooth
import Glibc
import ScopeCapture
import ScopeCore

/// A byte stream to record from: a serial port set up raw (`--tty`), a TCP connection to an RTT
/// server (`--rtt`), or a file, FIFO or standard input (`--h4-file`). Read with `poll` + `read`,
/// never blocking on a quiet line.
package final class StreamInput {
    package let fd: Int32
    /// How diagnostics name it: the path, `tcp:HOST:PORT`, `standard input`.
    package let name: String
    package let isTTY: Bool
    private let ownsDescriptor: Bool

    init(fd: Int32, name: String, isTTY: Bool, ownsDescriptor: Bool = true) {
        self.fd = fd
        self.name = name
        self.isTTY = isTTY
        self.ownsDescriptor = ownsDescriptor
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// Opens a serial port (or pseudo-terminal) the way btmon's `--tty` does: raw mode (no echo, no
    /// line editing, no CR/LF translation, 8 data bits), receiver on, modem lines ignored, no
    /// RTS/CTS flow control, `baud` both ways; input queued before now is discarded.
    package static func serial(path: String, baud: Int) throws(LiveError) -> StreamInput {
        guard let speed = Self.speed(baud) else {
            throw LiveError(
                "--baud \(baud) is not a rate the serial driver offers",
                fix: "use one of " + Self.speeds.map { String($0.0) }.joined(separator: ", "))
        }
        let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw LiveError(
                "cannot open \(path)",
                fix: code == EACCES ? "add yourself to the group that owns it (often `dialout`), or run as root"
                    : code == ENOENT ? "check the device name (`ls /dev/ttyACM* /dev/ttyUSB*`) and that the board is plugged in" : nil,
                errno: code)
        }
        var ti = termios()
        guard tcgetattr(fd, &ti) == 0 else {
            let code = errno
            close(fd)
            throw LiveError("\(path) is not a terminal (serial port)", fix: "for a file or FIFO of H4 bytes use --h4-file", errno: code)
        }
        cfmakeraw(&ti)
        ti.c_cflag |= tcflag_t(CLOCAL | CREAD)
        ti.c_cflag &= ~tcflag_t(CRTSCTS)
        guard cfsetspeed(&ti, speed) == 0, tcsetattr(fd, TCSANOW, &ti) == 0 else {
            let code = errno
            close(fd)
            throw LiveError("cannot set \(path) to raw mode at \(baud) baud", errno: code)
        }
        _ = tcflush(fd, TCIFLUSH)
        return StreamInput(fd: fd, name: path, isTTY: true)
    }

    /// Connects to an RTT server's TCP port (`HOST:PORT`, or `tcp:HOST:PORT`).
    package static func rtt(_ text: String) throws(LiveError) -> StreamInput {
        let endpoint = try H4Endpoint(parsing: text.hasPrefix("tcp:") ? text : "tcp:" + text)
        guard case .tcp = endpoint else { throw LiveError("--rtt \(text): expected HOST:PORT") }
        do {
            return StreamInput(fd: try endpoint.connect(), name: endpoint.description, isTTY: false)
        } catch {
            throw LiveError(
                error.message,
                fix: "start the RTT server first: OpenOCD `rtt setup …; rtt start; rtt server start PORT CHANNEL`, "
                    + "or J-Link's RTT telnet port (19021, channel 0 only); check HOST:PORT",
                errno: error.errno)
        }
    }

    /// Opens a file or FIFO (or `-`, standard input) for reading without blocking: a FIFO with no
    /// writer yet is waited for in `poll`, so a stop signal still ends the capture.
    package static func file(path: String) throws(LiveError) -> StreamInput {
        if path == "-" { return StreamInput(fd: 0, name: "standard input", isTTY: false, ownsDescriptor: false) }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw LiveError("cannot open \(path)", errno: errno) }
        return StreamInput(fd: fd, name: path, isTTY: isatty(fd) == 1)
    }

    /// Rates the Linux serial drivers offer (termios `B…` constants).
    static let speeds: [(Int, speed_t)] = [
        (9600, speed_t(B9600)), (19200, speed_t(B19200)), (38400, speed_t(B38400)), (57600, speed_t(B57600)),
        (115200, speed_t(B115200)), (230400, speed_t(B230400)), (460800, speed_t(B460800)), (500000, speed_t(B500000)),
        (576000, speed_t(B576000)), (921600, speed_t(B921600)), (1_000_000, speed_t(B1000000)),
        (1_152_000, speed_t(B1152000)), (1_500_000, speed_t(B1500000)), (2_000_000, speed_t(B2000000)),
        (2_500_000, speed_t(B2500000)), (3_000_000, speed_t(B3000000)), (3_500_000, speed_t(B3500000)),
        (4_000_000, speed_t(B4000000)),
    ]

    static func speed(_ baud: Int) -> speed_t? { speeds.first { $0.0 == baud }?.1 }
}

package struct StreamCaptureSummary: Sendable {
    package var written = 0
    package var bytesRead = 0
    /// Bytes that belonged to no frame.
    package var skippedBytes = 0
    /// Frames recorded cut short.
    package var truncatedFrames = 0
    /// Records the sender said it dropped (monitor drop counters), in total.
    package var senderDrops: UInt32 = 0
    package var diagnostics = 0
    package var stoppedBy: LiveCaptureSummary.Stop = .endOfInput
}

/// Records from a byte stream through `decoder` until a stop signal, the count, the duration or
/// the end of input (end of file, the server closing, the serial device going away). Each record
/// is handed to `write` (which must put it on disk) as soon as the decoder gives it; every
/// diagnostic (garbage skipped, frames cut short, drops the sender reports) goes to `diagnostic`.
/// When the line stays quiet for the poll interval the decoder gives up waiting for what follows
/// a frame (``StreamDeframer/flush(receivedAt:)``).
package func runStreamCapture<Framing: StreamFraming>(
    input: StreamInput, decoder: inout StreamDeframer<Framing>, stopFD: Int32, options: LiveCaptureOptions,
    write: (CaptureRecord) throws(LiveError) -> Void,
    diagnostic: (Diagnostic) -> Void = { _ in },
    status: ((StreamCaptureSummary) -> Void)? = nil
) throws(LiveError) -> StreamCaptureSummary {
    var summary = StreamCaptureSummary()
    var loop = CaptureLoop(options: options)
    var buffer = [UInt8](repeating: 0, count: 65_536)

    func handle(_ out: StreamOutput) throws(LiveError) {
        for d in out.diagnostics {
            summary.diagnostics += 1
            diagnostic(d)
        }
        for record in out.records {
            if let count = options.count, summary.written >= count { break }
            try write(record)
            summary.written += 1
            summary.senderDrops = max(summary.senderDrops, record.drops)
        }
    }
    /// Reads what is there; false at the end of input.
    func readChunk() throws(LiveError) -> Bool {
        var n: Int
        repeat { n = buffer.withUnsafeMutableBytes { read(input.fd, $0.baseAddress, $0.count) } } while n < 0 && errno == EINTR
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return true }
            // A serial device unplugged, or a pseudo-terminal whose other side closed.
            if errno == EIO && input.isTTY { return false }
            if errno == ECONNRESET { return false }
            throw LiveError("reading \(input.name) failed", errno: errno)
        }
        if n == 0 { return false }
        summary.bytesRead += n
        try handle(decoder.push(buffer[0..<n], receivedAt: MonitorSource.now()))
        return true
    }

    while true {
        var fds = [pollfd(fd: input.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        let turn = try loop.wait(&fds, written: summary.written)
        guard case .ready(let ready) = turn else {
            summary.stoppedBy = turn == .reached(.count) ? .count : .duration
            break
        }
        if fds[1].revents != 0 {
            // Keep what already arrived.
            var one = pollfd(fd: input.fd, events: Int16(POLLIN), revents: 0)
            if poll(&one, 1, 0) > 0, one.revents & Int16(POLLIN) != 0 { _ = try readChunk() }
            summary.stoppedBy = .signal
            break
        }
        if ready == 0 {
            try handle(decoder.flush(receivedAt: MonitorSource.now()))
        } else if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            guard try readChunk() else {
                summary.stoppedBy = .endOfInput
                break
            }
        }
        if let status, loop.statusDue() { status(summary) }
    }
    if summary.stoppedBy != .count { try handle(decoder.finish(receivedAt: MonitorSource.now())) }
    summary.skippedBytes = decoder.skippedBytes
    summary.truncatedFrames = decoder.truncatedFrames
    return summary
}
#endif
