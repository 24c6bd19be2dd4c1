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
                .cutShort, file: file.name, offset: position,
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
    /// Its size (a spool file grows as members are appended: ``SpoolFile``).
    fileprivate(set) var size: Int

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

    /// True when `count` bytes at `offset` lie inside the file (no arithmetic that can overflow).
    func contains(offset: Int, count: Int) -> Bool {
        offset >= 0 && count >= 0 && offset <= size && count <= size - offset
    }

    /// Exactly `count` bytes at `offset`, or an error naming what was being read.
    func bytes(at offset: Int, count: Int, what: String) throws(CaptureError) -> [UInt8] {
        guard contains(offset: offset, count: count) else {
            throw CaptureError(
                .damaged, file: name, offset: max(0, offset),
                message: "\(what) at offset \(offset) (\(grouped(count)) bytes) runs past the end of the file (\(grouped(size)) bytes)")
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
            throw CaptureError(.cutShort, file: name, offset: offset + done, message: "\(what): the file ends early")
        }
        return out
    }
}

/// An unlinked temporary file that inputs are copied into one after another (tar members,
/// a zip read from a stream, merge passes), each then read back as a range of it. Every byte
/// counts against the input's ``CaptureLimits/spoolBytes``.
final class SpoolFile {
    let file: SharedFile
    private let context: OpenContext

    init(name: String, context: OpenContext) throws(CaptureError) {
        self.file = try TemporaryFile.create(name: name)
        self.context = context
    }

    /// Appends `bytes`; throws the limit error (nothing written) when they do not fit.
    func append(_ bytes: UnsafeRawBufferPointer, name: String, what: String) throws(CaptureError) {
        guard bytes.count <= context.spoolLeft else { throw context.spoolLimit(name: name, what: what) }
        let status = POSIX.writeAll(file.fd, bytes)
        if status != 0 { throw POSIX.ioError("cannot write a temporary file", file: name, errno: status) }
        file.size += bytes.count
        context.spooled += bytes.count
    }

    /// Appends `bytes` (see ``append(_:name:what:)-(UnsafeRawBufferPointer,_,_)``).
    func append(_ bytes: [UInt8], name: String, what: String) throws(CaptureError) {
        var failure: CaptureError?
        bytes.withUnsafeBytes { raw in
            do throws(CaptureError) { try append(raw, name: name, what: what) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Copies `input` to the end of the file; returns where it starts and its length. At the
    /// spool limit the copy stops: `limited` is then the limit error (what was copied stays).
    /// An error of `input` is returned in `failure` with what was copied before it.
    func append(
        _ input: ByteInput, name: String, what: String
    ) throws(CaptureError) -> (offset: Int, count: Int, failure: CaptureError?) {
        let start = file.size
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n: Int
            do { n = try input.read(into: buffer) } catch { return (start, file.size - start, error) }
            if n == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            if n > context.spoolLeft {
                let fits = context.spoolLeft
                try append(UnsafeRawBufferPointer(rebasing: chunk[0..<fits]), name: name, what: what)
                return (start, file.size - start, context.spoolLimit(name: name, what: what))
            }
            try append(chunk, name: name, what: what)
        }
        return (start, file.size - start, nil)
    }

    /// The bytes appended at `offset`, as an input.
    func range(offset: Int, count: Int) -> FileRangeInput {
        FileRangeInput(file, offset: offset, count: count)
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
