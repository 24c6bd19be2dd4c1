#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few system calls the capture readers and writers make, with EINTR retried and errors
/// turned into ``CaptureError``s carrying `strerror` text.
enum POSIX {
    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    static func ioError(_ what: String, file: String, offset: Int? = nil, errno code: Int32) -> CaptureError {
        CaptureError(.io, file: file, offset: offset, message: "\(what): \(errorText(code))")
    }

    /// Opens `path` read-only.
    static func openForReading(_ path: String) throws(CaptureError) -> Int32 {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return fd }
            let code = errno
            if code == EINTR { continue }
            throw ioError("cannot open", file: path, errno: code)
        }
    }

    /// Creates (or truncates) `path` for writing with mode 0600: captures can hold link keys
    /// and personal data. An existing regular file is also brought down to 0600.
    static func createForWriting(_ path: String) throws(CaptureError) -> Int32 {
        let fd: Int32
        while true {
            let r = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(0o600))
            if r >= 0 { fd = r; break }
            let code = errno
            if code == EINTR { continue }
            throw ioError("cannot create", file: path, errno: code)
        }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
            _ = fchmod(fd, mode_t(0o600))
        }
        return fd
    }

    /// `read(2)` with EINTR retried: bytes read, 0 at end of file.
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> (count: Int, errno: Int32) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return (0, 0) }
        while true {
            let n = Glibc_read(fd, base, buffer.count)
            if n >= 0 { return (n, 0) }
            let code = errno
            if code == EINTR { continue }
            return (-1, code)
        }
    }

    /// Writes all of `buffer`, retrying partial writes and EINTR; returns 0 or the errno.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32 {
        guard var base = buffer.baseAddress else { return 0 }
        var left = buffer.count
        while left > 0 {
            let n = Glibc_write(fd, base, left)
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                return code
            }
            if n == 0 { return EIO }
            left -= n
            base += n
        }
        return 0
    }

    static func closeDescriptor(_ fd: Int32) -> Int32 {
        close(fd) == 0 ? 0 : errno
    }
}

// Module-qualified names so that the static methods above can call the C functions of the
// same name.
@inline(__always) private func Glibc_read(_ fd: Int32, _ buf: UnsafeMutableRawPointer, _ n: Int) -> Int {
    read(fd, buf, n)
}

@inline(__always) private func Glibc_write(_ fd: Int32, _ buf: UnsafeRawPointer, _ n: Int) -> Int {
    write(fd, buf, n)
}
