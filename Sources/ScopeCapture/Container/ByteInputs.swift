import CStreams
import ScopeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `count` bytes of a file from `offset` on, read with `pread` (zip entries: several can be
/// read side by side from one descriptor).
final class FileRangeInput: ByteInput {
    private let file: SharedFile
    private var position: Int
    private var remaining: Int

    init(_ file: SharedFile, offset: Int, count: Int) {
        self.file = file
        self.position = offset
        self.remaining = count
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        guard remaining > 0, let base = buffer.baseAddress else { return 0 }
        let want = min(buffer.count, remaining)
        let n = try file.read(into: base, count: want, at: position)
        if n == 0 {
            throw CaptureError(
                .io, file: file.name, offset: position,
                message: "the file ends \(grouped(remaining)) bytes before the end of an archive member: it is cut short")
        }
        position += n
        remaining -= n
        return n
    }
}

/// A file opened once and read at any offset by several members.
final class SharedFile {
    let name: String
    let fd: Int32
    let size: Int

    init(path: String, name: String) throws(CaptureError) {
        self.name = name
        fd = try POSIX.openForReading(path)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            _ = POSIX.closeDescriptor(fd)
            throw POSIX.ioError("cannot stat", file: name, errno: code)
        }
        size = Int(info.st_size)
    }

    /// An open descriptor of `size` bytes, owned from now on.
    init(fd: Int32, name: String, size: Int) {
        self.name = name
        self.fd = fd
        self.size = size
    }

    deinit { _ = POSIX.closeDescriptor(fd) }

    /// Reads up to `count` bytes at `offset`; 0 at the end of the file.
    func read(into base: UnsafeMutableRawPointer, count: Int, at offset: Int) throws(CaptureError) -> Int {
        while true {
            let n = pread(fd, base, count, off_t(offset))
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw POSIX.ioError("read failed", file: name, offset: offset, errno: errno)
        }
    }

    /// Exactly `count` bytes at `offset`, or an error naming what was being read.
    func bytes(at offset: Int, count: Int, what: String) throws(CaptureError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset + count <= size else {
            throw CaptureError(
                .notACapture, file: name, offset: offset,
                message: "\(what) at offset \(offset) runs past the end of the file (\(grouped(size)) bytes)")
        }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 8)
        defer { buffer.deallocate() }
        while done < count {
            let n = try read(into: buffer + done, count: count - done, at: offset + done)
            if n == 0 { break }
            done += n
        }
        if done > 0 { out.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: buffer, byteCount: done) } }
        guard done == count else {
            throw CaptureError(.io, file: name, offset: offset + done, message: "\(what): the file ends early")
        }
        return out
    }
}

/// Some bytes already read (`prefix`), then the rest of an input.
final class PrefixedInput: ByteInput {
    private let prefix: [UInt8]
    private var used = 0
    private let rest: ByteInput

    init(prefix: [UInt8], rest: ByteInput) {
        self.prefix = prefix
        self.rest = rest
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        if used < prefix.count, let base = buffer.baseAddress {
            let n = min(buffer.count, prefix.count - used)
            prefix.withUnsafeBytes { base.copyMemory(from: $0.baseAddress! + used, byteCount: n) }
            used += n
            return n
        }
        return try rest.read(into: buffer)
    }
}

/// Bytes held in memory.
final class MemoryInput: ByteInput {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        let n = min(buffer.count, bytes.count - position)
        guard n > 0, let base = buffer.baseAddress else { return 0 }
        bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
        position += n
        return n
    }
}

/// A ``ByteInput`` as a C stream (`FILE *`), for libpcap, which reads pcap and pcapng only
/// through stdio. The stream owns the input; closing it releases the input. A failure of the
/// input reads as an error on the stream (`ferror`), and ``lastError`` keeps what it was.
final class StreamBridge {
    let input: ByteInput
    private(set) var lastError: CaptureError?

    private init(input: ByteInput) { self.input = input }

    /// A new read-only stream over `input`, or nil when the C library refuses.
    static func open(_ input: ByteInput) -> (stream: UnsafeMutablePointer<FILE>, bridge: StreamBridge)? {
        let bridge = StreamBridge(input: input)
        let context = Unmanaged.passRetained(bridge).toOpaque()
        guard let stream = hciscope_open_read_stream(context, streamRead, streamClose) else {
            Unmanaged<StreamBridge>.fromOpaque(context).release()
            return nil
        }
        return (stream, bridge)
    }

    fileprivate func read(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int {
        guard let buffer, size > 0 else { return 0 }
        do {
            return try input.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size))
        } catch {
            lastError = error
            errno = EIO
            return -1
        }
    }
}

private func streamRead(_ context: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int {
    guard let context else { return -1 }
    return Unmanaged<StreamBridge>.fromOpaque(context).takeUnretainedValue().read(buffer, size)
}

private func streamClose(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<StreamBridge>.fromOpaque(context).release()
}
