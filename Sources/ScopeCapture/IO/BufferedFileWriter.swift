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
    private let output: OutputFile
    private var fd: Int32
    private var buffer: [UInt8]
    private(set) var bytesWritten = 0

    /// Creates `path` ("-" for standard output, which is duplicated and left open). `atomic`:
    /// written beside `path` and renamed to it by ``close()`` (``OutputFile``).
    init(path: String, atomic: Bool = false) throws(CaptureError) {
        output = try OutputFile(path: path, atomic: atomic)
        fd = output.fd
        name = output.name
        buffer = []
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit {
        // A writer dropped without close(): a direct output keeps what was written; an atomic
        // one never gets its name (it was not finished).
        if fd >= 0, !output.isPending {
            _ = try? flush()
            try? output.commit()
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

    /// Writes what is buffered, closes the file and gives it its name; on failure nothing is
    /// left of an atomic output.
    func close() throws(CaptureError) {
        guard fd >= 0 else { return }
        defer { fd = -1 }
        do {
            try flush()
        } catch {
            output.discard()
            throw error
        }
        try output.commit()
    }

    /// Closes the file and removes what was written (an atomic output leaves nothing behind).
    func discard() {
        guard fd >= 0 else { return }
        fd = -1
        buffer.removeAll()
        output.discard()
    }
}
