import ScopeCore

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
            throw ioError("cannot open", file: SafeText.escaped(path), errno: code)
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

/// Where a writer's bytes go until they are complete: a new file beside `path` (mode 0600,
/// `.NAME.hciscope-XXXXXX`) that ``commit()`` renames over `path` and ``discard()`` removes, so
/// that a failure leaves no half-written output and an existing file is replaced only by a
/// complete one. Standard output ("-") and an existing output that is not a regular file (a
/// device such as /dev/null, a FIFO) are written directly: they cannot be replaced.
final class OutputFile {
    /// The output as named in errors ("<stdout>" for standard output).
    let name: String
    private(set) var fd: Int32
    private let path: String
    private var temporary: String?

    init(path: String, atomic: Bool) throws(CaptureError) {
        self.path = path
        if path == "-" {
            let copy = dup(STDOUT_FILENO)
            guard copy >= 0 else { throw POSIX.ioError("cannot duplicate standard output", file: "<stdout>", errno: errno) }
            fd = copy
            name = "<stdout>"
            return
        }
        name = path
        var info = stat()
        let exists = stat(path, &info) == 0
        guard atomic, !exists || (info.st_mode & S_IFMT) == S_IFREG else {
            fd = try POSIX.createForWriting(path)
            return
        }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array((folder + "." + base + ".hciscope-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard created >= 0 else { throw POSIX.ioError("cannot create a file beside it", file: path, errno: errno) }
        _ = fcntl(created, F_SETFD, FD_CLOEXEC)
        fd = created
        temporary = template.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { String(cString: $0) } }
    }

    deinit {
        if fd >= 0 { _ = POSIX.closeDescriptor(fd) }
        if let temporary { unlink(temporary) }
    }

    /// True while the output is a file beside `path` not yet renamed to it.
    var isPending: Bool { temporary != nil }

    /// Gives the descriptor to a C stream that closes it (libpcap's dumper); the file is still
    /// committed or discarded here.
    func handOverDescriptor() -> Int32 {
        defer { fd = -1 }
        return fd
    }

    /// Closes the descriptor (when still held) and gives the file its name.
    func commit() throws(CaptureError) {
        if fd >= 0 {
            let code = POSIX.closeDescriptor(fd)
            fd = -1
            if code != 0 {
                discard()
                throw POSIX.ioError("close failed", file: name, errno: code)
            }
        }
        guard let temporary else { return }
        self.temporary = nil
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw POSIX.ioError("cannot rename the file written beside it (\(temporary)) to it", file: name, errno: code)
        }
    }

    /// Closes the descriptor (when still held) and removes what was written (an output written
    /// directly stays as it is).
    func discard() {
        if fd >= 0 {
            _ = POSIX.closeDescriptor(fd)
            fd = -1
        }
        if let temporary {
            unlink(temporary)
            self.temporary = nil
        }
    }
}
