#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ScopeCore

/// A ring buffer of capture files in the tcpdump `-C`/`-W` tradition: when the current file
/// has grown past `maxBytes`, it is closed (a complete, valid capture) and the next record
/// starts a new file with its own header. Files are named `PATH.0`, `PATH.1`, …; with
/// `maxFiles` the names wrap (`PATH.0` again after `PATH.(maxFiles-1)`), overwriting the
/// oldest, so at most `maxFiles` files exist. Without `maxBytes` it writes `PATH` itself.
///
/// The size is checked before each record (after flushing), so a file exceeds `maxBytes` by
/// at most one record, and a file always holds at least one record.
public struct RotatingCaptureWriter {
    public let format: CaptureFormat
    public let basePath: String
    public let maxBytes: Int?
    public let maxFiles: Int?
    /// Files started so far (1 before any rotation).
    public private(set) var filesStarted = 1
    /// Records written across all files.
    public private(set) var written = 0
    private var current: CaptureWriter
    private var skippedBefore = SkippedRecords()
    private var closed = false

    /// Creates the first file. `maxBytes` needs a real path (not "-").
    public static func make(format: CaptureFormat, path: String, maxBytes: Int? = nil, maxFiles: Int? = nil) throws(CaptureError)
        -> RotatingCaptureWriter
    {
        if maxBytes != nil && path == "-" {
            throw CaptureError(.usage, file: "<stdout>", message: "cannot rotate standard output: -C needs a file")
        }
        if let maxFiles, maxFiles < 1 { throw CaptureError(.usage, file: path, message: "the ring needs at least one file") }
        let first = maxBytes == nil ? path : Self.name(path, 0)
        let writer = try CaptureWriter.make(format: format, path: first)
        return RotatingCaptureWriter(format: format, basePath: path, maxBytes: maxBytes, maxFiles: maxFiles, current: writer)
    }

    private init(format: CaptureFormat, basePath: String, maxBytes: Int?, maxFiles: Int?, current: CaptureWriter) {
        self.format = format
        self.basePath = basePath
        self.maxBytes = maxBytes
        self.maxFiles = maxFiles
        self.current = current
    }

    static func name(_ base: String, _ n: Int) -> String { "\(base).\(n)" }

    /// The file being written.
    public var currentPath: String {
        maxBytes == nil ? basePath : Self.name(basePath, (filesStarted - 1) % (maxFiles ?? Int.max))
    }

    /// The files that exist now, oldest first.
    public var paths: [String] {
        guard maxBytes != nil else { return [basePath] }
        let ring = maxFiles ?? Int.max
        let first = max(0, filesStarted - ring)
        return (first..<filesStarted).map { Self.name(basePath, $0 % ring) }
    }

    /// Records skipped across all files (formats that cannot hold a kind).
    public var skipped: SkippedRecords {
        var all = skippedBefore
        for (key, n) in current.skipped.counts { for _ in 0..<n { all.add(key.kind, key.reason) } }
        return all
    }

    public mutating func write(_ record: CaptureRecord) throws(CaptureError) {
        guard !closed else { throw CaptureError(.usage, file: currentPath, message: "write after close") }
        if let maxBytes, current.written > 0 {
            try current.flush()
            var st = stat()
            if stat(currentPath, &st) == 0, Int(st.st_size) > maxBytes {
                try rotate()
            }
        }
        let before = current.written
        try current.write(record)
        written += current.written - before
    }

    private mutating func rotate() throws(CaptureError) {
        try current.close()
        for (key, n) in current.skipped.counts { for _ in 0..<n { skippedBefore.add(key.kind, key.reason) } }
        filesStarted += 1
        current = try CaptureWriter.make(format: format, path: currentPath)
    }

    public mutating func flush() throws(CaptureError) { try current.flush() }

    public mutating func close() throws(CaptureError) {
        guard !closed else { return }
        closed = true
        try current.close()
    }
}
