#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ScopeCore

/// What a file found in a folder is, decided by its content (never by its name).
public enum CaptureRecognition: Sendable, Hashable {
    /// A capture this tool reads.
    case capture(CaptureFormat)
    /// It looks like a capture (a known magic, or it could not be read at all), but it cannot
    /// be opened: a row with this error, not a silent skip.
    case unreadable(CaptureError)
    /// Something else (a README, a JSON file, an empty file): skipped when walking folders.
    case notACapture
}

/// Finding the captures under folders: `hciscope analyze DIR...`.
public enum CaptureFiles {
    /// Whether `path` is a capture. The single place that decides it for the folder walker, so
    /// new containers (compressed files, archives) are added here and the walker follows.
    ///
    /// The file is opened exactly as the readers open it (`CaptureReader.open`), so a file is a
    /// capture here exactly when `show` and `analyze` can read it. A file whose sniffing fails
    /// is not a capture only when it does not even begin with a capture magic: a btsnoop file
    /// cut inside its header, a link-layer sniffer's pcap or a pcapng with a broken block is a
    /// capture that cannot be read, and says why.
    public static func recognise(path: String) -> CaptureRecognition {
        do {
            var reader = try CaptureReader.open(path: path)
            let format = reader.format
            reader.close()
            return .capture(format)
        } catch {
            return recognition(of: error, path: path)
        }
    }

    /// What opening `path` failing with `error` says of it: not a capture (the readers
    /// recognise nothing and no capture magic starts it), or a capture that cannot be read.
    public static func recognition(of error: CaptureError, path: String) -> CaptureRecognition {
        if case .notACapture = error.kind, !beginsWithCaptureMagic(path: path) { return .notACapture }
        return .unreadable(error)
    }

    /// True when the file's first bytes are a btsnoop, pcap or pcapng magic (PacketLogger has
    /// none: a file that fails its record checks is not one). "-": standard input's first bytes
    /// as a reader saw them (``StandardInput/head``).
    static func beginsWithCaptureMagic(path: String) -> Bool {
        if path == "-" { return StandardInput.head.map(Containers.hasCaptureMagic) ?? false }
        guard let fd = try? POSIX.openForReading(path) else { return false }
        defer { _ = POSIX.closeDescriptor(fd) }
        var bytes = [UInt8](repeating: 0, count: 8)
        let n = bytes.withUnsafeMutableBytes { POSIX.read(fd, $0).count }
        guard n > 0 else { return false }
        return Containers.hasCaptureMagic(Array(bytes.prefix(n)))
    }

    /// What walking the folders found.
    public struct Walk: Sendable {
        /// Regular files (and links to them), in the order walked: each folder's entries sorted by
        /// name, sub-folders where they sort.
        public var files: [String] = []
        /// Folders that could not be listed (and arguments that do not exist).
        public var problems: [CaptureError] = []
    }

    /// Every regular file under `root`, recursively (an unpacked sysdiagnose or bug report
    /// folder counts as one file: see ``isUnpackedContainer(_:)``). Entries whose names begin with "." (`.git`,
    /// `.build`) are left out, and links to folders are not followed (no cycles); links to
    /// files are. A `root` that is a file is returned as it is.
    ///
    /// `wholeContainers: false` lists the files inside an unpacked container too (what
    /// `CaptureReader` does when it opens such a folder).
    public static func walk(_ root: String, wholeContainers: Bool = true) -> Walk {
        var walk = Walk()
        if isDirectory(root) { visit(root, wholeContainers: wholeContainers, into: &walk) } else { walk.files.append(root) }
        return walk
    }

    /// True when both paths name one existing file (the same device and inode, following
    /// links): an output that is the input, a hard link to it or a symbolic link to it.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        guard a != "-", b != "-" else { return false }
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// True when `path` is a regular file (following links): one that can be read twice.
    public static func isRegularFile(_ path: String) -> Bool { Containers.isRegularFile(path) }

    /// True when `path` names a folder (following links).
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// True for a folder that is one capture as a whole: an unpacked iOS sysdiagnose
    /// (`logs/Bluetooth/`) or Android bug report (`FS/data/misc/bluetooth/`), whose logs
    /// `CaptureReader` merges into one capture.
    public static func isUnpackedContainer(_ folder: String) -> Bool {
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        return isDirectory(base + "logs/Bluetooth") || isDirectory(base + "FS/data/misc/bluetooth")
    }

    private static func visit(_ folder: String, wholeContainers: Bool, into walk: inout Walk) {
        if wholeContainers, isUnpackedContainer(folder) {
            walk.files.append(folder)
            return
        }
        guard let dir = opendir(folder) else {
            walk.problems.append(POSIX.ioError("cannot list folder", file: folder, errno: errno))
            return
        }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            names.append(name)
        }
        closedir(dir)
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        for name in names.sorted() {
            let path = base + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                visit(path, wholeContainers: wholeContainers, into: &walk)
            case S_IFREG:
                walk.files.append(path)
            case S_IFLNK:
                // Links to files count; links to folders are not followed.
                var target = stat()
                if stat(path, &target) == 0, (target.st_mode & S_IFMT) == S_IFREG { walk.files.append(path) }
            default:
                continue
            }
        }
    }
}
