#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes through one 64 KiB buffer with `write(2)`; files are created with mode 0600.
final class BufferedFileWriter {
    static let bufferSize = 65_536

    let name: String
    private var fd: Int32
    private var buffer: [UInt8]
    private(set) var bytesWritten = 0

    /// Creates `path` ("-" for standard output, which is duplicated and left open).
    init(path: String) throws(CaptureError) {
        if path == "-" {
            let copy = dup(STDOUT_FILENO)
            guard copy >= 0 else { throw POSIX.ioError("cannot duplicate standard output", file: "<stdout>", errno: errno) }
            fd = copy
            name = "<stdout>"
        } else {
            fd = try POSIX.createForWriting(path)
            name = path
        }
        buffer = []
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit {
        if fd >= 0 {
            _ = try? flush()
            _ = POSIX.closeDescriptor(fd)
        }
    }

    @inline(__always) func u8(_ v: UInt8) { buffer.append(v) }

    @inline(__always) func be32(_ v: UInt32) {
        buffer.append(UInt8(truncatingIfNeeded: v >> 24))
        buffer.append(UInt8(truncatingIfNeeded: v >> 16))
        buffer.append(UInt8(truncatingIfNeeded: v >> 8))
        buffer.append(UInt8(truncatingIfNeeded: v))
    }

    @inline(__always) func le32(_ v: UInt32) {
        buffer.append(UInt8(truncatingIfNeeded: v))
        buffer.append(UInt8(truncatingIfNeeded: v >> 8))
        buffer.append(UInt8(truncatingIfNeeded: v >> 16))
        buffer.append(UInt8(truncatingIfNeeded: v >> 24))
    }

    @inline(__always) func be64(_ v: UInt64) {
        be32(UInt32(truncatingIfNeeded: v >> 32))
        be32(UInt32(truncatingIfNeeded: v))
    }

    func append(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    /// Writes the buffer out when it is full; call after each record.
    func flushIfFull() throws(CaptureError) {
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func flush() throws(CaptureError) {
        guard fd >= 0 else {
            throw CaptureError(.usage, file: name, message: "write after close")
        }
        guard !buffer.isEmpty else { return }
        let code = buffer.withUnsafeBytes { POSIX.writeAll(fd, $0) }
        if code != 0 {
            throw POSIX.ioError("write failed", file: name, offset: bytesWritten, errno: code)
        }
        bytesWritten += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws(CaptureError) {
        guard fd >= 0 else { return }
        defer { fd = -1 }
        do {
            try flush()
        } catch {
            _ = POSIX.closeDescriptor(fd)
            throw error
        }
        let code = POSIX.closeDescriptor(fd)
        if code != 0 { throw POSIX.ioError("close failed", file: name, errno: code) }
    }
}
