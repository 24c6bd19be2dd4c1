#if os(Linux)
// The socket constants (SOCK_STREAM, SOCK_CLOEXEC) belong to whichever clang module first includes
// <sys/socket.h>; CBluetooth's shim does. Import it here too rather than rely on another file of
// the module importing it in the same compiler batch (a fresh build failed that way).
import CBluetooth
import Glibc
import ScopeCore

/// Where an H4 stream is: `tcp:HOST:PORT` (HOST may be empty or `_` for every interface when
/// listening; IPv6 literals in brackets, `tcp:[::1]:9000`) or `unix:/path`.
package enum H4Endpoint: Sendable, Hashable, CustomStringConvertible {
    case tcp(host: String, port: UInt16)
    case unix(path: String)

    package init(parsing text: String) throws(LiveError) {
        let fix = "write tcp:HOST:PORT (e.g. tcp:127.0.0.1:9000) or unix:/path/to/socket"
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { throw LiveError("\(text): no socket path", fix: fix) }
            guard path.utf8.count < 108 else { throw LiveError("\(text): a UNIX socket path must be under 108 bytes", fix: "use a shorter path") }
            self = .unix(path: path)
        } else if text.hasPrefix("tcp:") {
            let rest = text.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0 else {
                throw LiveError("\(text): no port", fix: fix)
            }
            var host = String(rest[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            self = .tcp(host: host, port: port)
        } else {
            throw LiveError("\(text): unknown endpoint", fix: fix)
        }
    }

    package var description: String {
        switch self {
        case .tcp(let host, let port): return "tcp:\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .unix(let path): return "unix:\(path)"
        }
    }

    /// A bound, listening socket. A stale UNIX socket file at the path is replaced (only a
    /// socket: any other file is an error).
    package func listen() throws(LiveError) -> Int32 {
        switch self {
        case .unix(let path):
            var st = stat()
            if lstat(path, &st) == 0 {
                guard st.st_mode & S_IFMT == S_IFSOCK else {
                    throw LiveError("\(self): the path exists and is not a socket", fix: "choose another path")
                }
                unlink(path)
            }
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw LiveError("\(self): cannot create a socket", errno: errno) }
            let result = withUnixAddress(path) { bind(fd, $0, $1) }
            guard result == 0, Glibc.listen(fd, 1) == 0 else {
                let code = errno
                close(fd)
                throw LiveError("\(self): cannot listen", fix: "check that the directory exists and is writable", errno: code)
            }
            return fd
        case .tcp(let host, let port):
            return try withAddresses(host: host == "_" || host.isEmpty ? nil : host, port: port, passive: true) { info throws(LiveError) in
                let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
                guard fd >= 0 else { throw LiveError("\(self): cannot create a socket", errno: errno) }
                var on: Int32 = 1
                _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
                guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, Glibc.listen(fd, 1) == 0 else {
                    let code = errno
                    close(fd)
                    throw LiveError("\(self): cannot listen", fix: code == EADDRINUSE ? "the port is taken: choose another" : nil, errno: code)
                }
                return fd
            }
        }
    }

    /// A connected socket.
    package func connect() throws(LiveError) -> Int32 {
        let fix = "start the controller (e.g. Bumble's `tcp-server:`) first, and check the address"
        switch self {
        case .unix(let path):
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw LiveError("\(self): cannot create a socket", errno: errno) }
            var result: Int32
            repeat { result = withUnixAddress(path) { Glibc.connect(fd, $0, $1) } } while result < 0 && errno == EINTR
            guard result == 0 else {
                let code = errno
                close(fd)
                throw LiveError("cannot connect to \(self)", fix: fix, errno: code)
            }
            return fd
        case .tcp(let host, let port):
            return try withAddresses(host: host.isEmpty ? "127.0.0.1" : host, port: port, passive: false) { info throws(LiveError) in
                let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
                guard fd >= 0 else { throw LiveError("\(self): cannot create a socket", errno: errno) }
                var result: Int32
                repeat { result = Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) } while result < 0 && errno == EINTR
                guard result == 0 else {
                    let code = errno
                    close(fd)
                    throw LiveError("cannot connect to \(self)", fix: fix, errno: code)
                }
                var on: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                return fd
            }
        }
    }

    /// Tries each address getaddrinfo gives until `body` succeeds; throws the last error.
    private func withAddresses(
        host: String?, port: UInt16, passive: Bool, _ body: (UnsafeMutablePointer<addrinfo>) throws(LiveError) -> Int32
    ) throws(LiveError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw LiveError("\(self): cannot resolve the host (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(list) }
        var last = LiveError("\(self): no address")
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let info = node {
            do throws(LiveError) { return try body(info) } catch { last = error }
            node = info.pointee.ai_next
        }
        throw last
    }
}

private func withUnixAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, b) in bytes.prefix(raw.count - 1).enumerated() { raw[i] = b }
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

/// Waits for one connection on `listener`, or nil when `stopFD` became readable first.
package func acceptOne(listener: Int32, stopFD: Int32) throws(LiveError) -> Int32? {
    while true {
        var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 2, -1)
        if ready < 0 {
            if errno == EINTR { continue }
            throw LiveError("poll failed", errno: errno)
        }
        if fds[1].revents != 0 { return nil }
        if fds[0].revents != 0 {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                throw LiveError("accepting the host connection failed", errno: errno)
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var on: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            return fd
        }
    }
}

package struct H4ProxySummary: Sendable {
    package enum Stop: String, Sendable {
        case signal, count, duration
        case hostClosed = "the host closing its connection"
        case controllerClosed = "the controller closing its connection"
    }

    /// Records handed to `write`.
    package var written = 0
    /// Packets host → controller (sent) and controller → host (received).
    package var sent = 0, received = 0
    /// Bytes forwarded each way.
    package var bytesToController = 0, bytesToHost = 0
    /// Directions whose recording stopped because the stream could not be framed.
    package var framingFailures: [String] = []
    package var stoppedBy: Stop = .hostClosed
}

/// Forwards bytes unchanged between `host` and `controller` (connected stream sockets) and
/// records every complete H4 packet each way: host → controller as `.sent`, controller →
/// host as `.received`, timestamped on arrival. Each chunk's complete packets are handed to
/// `write` (which must put them on disk) before the chunk is forwarded. An unknown packet
/// type stops the recording of that direction (reported through `problem`); forwarding
/// goes on. Stops on `stopFD` becoming readable, either side closing, `options.count`
/// records or `options.durationMicros`. The caller closes the sockets.
package func runH4Proxy(
    host: Int32, controller: Int32, stopFD: Int32, options: LiveCaptureOptions,
    write: (CaptureRecord) throws(LiveError) -> Void,
    status: ((H4ProxySummary) -> Void)? = nil,
    problem: (LiveError) -> Void = { _ in }
) throws(LiveError) -> H4ProxySummary {
    var summary = H4ProxySummary()
    var framers = [H4Framer(), H4Framer()]  // [0] host → controller, [1] controller → host
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var loop = CaptureLoop(options: options)

    /// Reads one chunk from side `i`, records it, forwards it; why to stop when a side closed.
    func pump(_ i: Int) throws(LiveError) -> H4ProxySummary.Stop? {
        let closed: H4ProxySummary.Stop = i == 0 ? .hostClosed : .controllerClosed
        let from = i == 0 ? host : controller
        let to = i == 0 ? controller : host
        var n: Int
        repeat { n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) } } while n < 0 && errno == EINTR
        if n < 0 {
            if errno == ECONNRESET { return closed }
            throw LiveError("reading from the \(i == 0 ? "host" : "controller") failed", errno: errno)
        }
        if n == 0 { return closed }
        let stamp = MonitorSource.now()
        let chunk = buffer[0..<n]
        let hadFailed = framers[i].failure != nil
        for packet in framers[i].push(chunk) {
            if let count = options.count, summary.written >= count { break }
            let record = CaptureRecord(
                frame: summary.written + 1, timestamp: stamp, adapter: 0, direction: i == 0 ? .sent : .received,
                kind: packet.kind, payload: packet.bytes)
            try write(record)
            summary.written += 1
            if i == 0 { summary.sent += 1 } else { summary.received += 1 }
        }
        if !hadFailed, let failure = framers[i].failure {
            let text = "\(i == 0 ? "host → controller" : "controller → host"): \(failure); no longer recording this direction (still forwarding)"
            summary.framingFailures.append(text)
            problem(LiveError(text))
        }
        var offset = 0
        while offset < n {
            let w = buffer.withUnsafeBytes { raw in
                raw.baseAddress.map { send(to, $0 + offset, n - offset, Int32(MSG_NOSIGNAL)) } ?? 0
            }
            if w < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { return i == 0 ? .controllerClosed : .hostClosed }
                throw LiveError("forwarding to the \(i == 0 ? "controller" : "host") failed", errno: errno)
            }
            offset += w
        }
        if i == 0 { summary.bytesToController += n } else { summary.bytesToHost += n }
        return nil
    }

    proxying: while true {
        var fds = [
            pollfd(fd: host, events: Int16(POLLIN), revents: 0), pollfd(fd: controller, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
        ]
        if case .reached(let limit) = try loop.wait(&fds, written: summary.written) {
            summary.stoppedBy = limit == .count ? .count : .duration
            break
        }
        if fds[2].revents != 0 {
            summary.stoppedBy = .signal
            break
        }
        for i in 0..<2 where fds[i].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            if let stop = try pump(i) {
                summary.stoppedBy = stop
                break proxying
            }
            if let count = options.count, summary.written >= count { continue proxying }
        }
        if let status, loop.statusDue() { status(summary) }
    }
    return summary
}
#endif
