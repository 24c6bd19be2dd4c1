#if os(Linux)
import CBluetooth
import Glibc
import ScopeCore

/// Why live capture could not start or had to stop, with the fix in words.
package struct LiveError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var fix: String?
    package var errno: Int32?
    /// True for `nothingYet` only (a poll that found nothing: not a problem); checked instead of
    /// the message.
    var isNothingYet = false

    package init(_ message: String, fix: String? = nil, errno: Int32? = nil) {
        self.message = message
        self.fix = fix
        self.errno = errno
    }

    package var description: String {
        var text = message
        if let errno { text += " (\(String(cString: strerror(errno))))" }
        if let fix { text += "\n  fix: " + fix }
        return text
    }

    static func socketFailed(_ code: Int32) -> LiveError {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            return LiveError(
                "this kernel has no Bluetooth support: socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI) failed",
                fix: "load it with `modprobe bluetooth` (and a controller driver), or run where the kernel has "
                    + "Bluetooth; in containers and CI, run it in a VM with a Bluetooth-enabled kernel",
                errno: code)
        case EPERM, EACCES:
            return permission(code)
        default:
            return LiveError("cannot open the Bluetooth monitor socket", errno: code)
        }
    }

    static func permission(_ code: Int32) -> LiveError {
        LiveError(
            "not permitted to open the Bluetooth monitor channel",
            fix: "it needs CAP_NET_RAW: run as root, or once `sudo setcap cap_net_raw+ep $(command -v hciscope)`",
            errno: code)
    }
}

/// One message from the monitor channel, split per the kernel's framing
/// (`include/net/bluetooth/hci_mon.h`: opcode LE16, index LE16, length LE16, then the payload).
package struct MonitorMessage: Sendable, Hashable {
    package var opcode: UInt16
    package var index: UInt16
    package var payload: [UInt8]
    package var timestamp: Timestamp

    /// Parses one datagram; nil (with the reason) when it is shorter than its header or its
    /// length field disagrees with what arrived.
    package static func parse(_ datagram: [UInt8], timestamp: Timestamp) -> Result<MonitorMessage, LiveError> {
        var r = ByteReader(datagram, layer: .monitor)
        do {
            let opcode = try r.readLE16()
            let index = try r.readLE16()
            let length = Int(try r.readLE16())
            guard length == r.remaining else {
                return .failure(LiveError("monitor message: header says \(length) bytes, \(r.remaining) arrived"))
            }
            return .success(MonitorMessage(opcode: opcode, index: index, payload: r.readRest(), timestamp: timestamp))
        } catch {
            return .failure(LiveError("monitor message shorter than its 6-byte header (\(datagram.count) bytes)"))
        }
    }

    /// The record for the capture file (frame numbers are assigned by the caller, in order).
    package func record(frame: FrameNumber) -> CaptureRecord {
        let (kind, direction) = MonitorOpcode.kind(for: opcode)
        return CaptureRecord(
            frame: frame, timestamp: timestamp, adapter: index, direction: direction, kind: kind, payload: payload)
    }
}

/// Where live records come from: a descriptor to wait on and a non-blocking-after-poll read of
/// one monitor message.
package protocol LiveSource: AnyObject {
    /// Readable when a message is waiting.
    var fd: Int32 { get }
    /// Messages the kernel dropped (cumulative).
    var kernelDrops: UInt32 { get }
    /// One message, nil at the end of input.
    func receive() throws(LiveError) -> Result<MonitorMessage, LiveError>?
}

/// The Linux monitor channel: `AF_BLUETOOTH`/`BTPROTO_HCI` bound to `HCI_DEV_NONE` on
/// `HCI_CHANNEL_MONITOR`, with kernel receive timestamps (`SO_TIMESTAMP`) and the socket's drop
/// counter (`SO_RXQ_OVFL`). Any datagram socket with the same framing works (tests use a
/// socketpair).
package final class MonitorSource: LiveSource {
    package let fd: Int32
    /// Messages the kernel dropped because the socket's queue was full (cumulative).
    package private(set) var kernelDrops: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: 65_536 + 6)
    private var control = [UInt8](repeating: 0, count: 128)
    private let ownsDescriptor: Bool

    /// Opens and binds the real monitor channel.
    package static func open() throws(LiveError) -> MonitorSource {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else { throw LiveError.socketFailed(errno) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, hciscope_so_timestamp(), &on, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, SOL_SOCKET, hciscope_so_rxq_ovfl(), &on, socklen_t(MemoryLayout<Int32>.size))
        guard hciscope_bind_monitor(fd) == 0 else {
            let code = errno
            close(fd)
            throw code == EPERM || code == EACCES ? LiveError.permission(code) : LiveError("cannot bind the monitor channel", errno: code)
        }
        return MonitorSource(fileDescriptor: fd, ownsDescriptor: true)
    }

    /// Wraps an already open datagram socket with the monitor framing (tests, other sources).
    package init(fileDescriptor: Int32, ownsDescriptor: Bool) {
        self.fd = fileDescriptor
        self.ownsDescriptor = ownsDescriptor
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, hciscope_so_timestamp(), &on, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// Receives one message (blocking; use `poll` first to wait with a timeout). Returns nil
    /// when the peer closed the socket. The timestamp is the kernel's when it came with the
    /// message, else the current time.
    package func receive() throws(LiveError) -> Result<MonitorMessage, LiveError>? {
        var tv = timeval()
        var drops: UInt32 = 0
        let (count, found): (Int, Int32) = buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { ctl in
                var iov = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &iov) { iovPointer in
                    var msg = msghdr()
                    msg.msg_iov = iovPointer
                    msg.msg_iovlen = 1
                    msg.msg_control = ctl.baseAddress
                    msg.msg_controllen = ctl.count
                    var n: Int
                    repeat { n = recvmsg(fd, &msg, 0) } while n < 0 && errno == EINTR
                    guard n >= 0 else { return (n, 0) }
                    return (n, hciscope_parse_cmsgs(&msg, &tv, &drops))
                }
            }
        }
        if count < 0 { throw LiveError("reading the monitor socket failed", errno: errno) }
        if count == 0 { return nil }
        if found & 2 != 0 { kernelDrops = drops }
        let stamp: Timestamp
        if found & 1 != 0 {
            stamp = Timestamp(microseconds: Int64(tv.tv_sec) * 1_000_000 + Int64(tv.tv_usec))
        } else {
            stamp = Self.now()
        }
        return MonitorMessage.parse(Array(buffer[0..<count]), timestamp: stamp)
    }

    /// The current wall-clock time.
    package static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(microseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }
}
#endif
