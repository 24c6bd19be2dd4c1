import ScopeCore

/// How a command should end after touching a capture (the CLI maps it to the process exit
/// status): 0 read entirely without errors, 1 read with errors (something was delivered, but
/// not everything, or something was wrong), 2 could not read at all.
public enum ExitClass: Int32, Sendable, Hashable, Comparable {
    case ok = 0
    case readWithErrors = 1
    case couldNotRead = 2

    public static func < (a: ExitClass, b: ExitClass) -> Bool { a.rawValue < b.rawValue }
}

/// A failure that stops a capture from being opened or written: the file is not a capture,
/// its header is cut short, it holds something other than HCI traffic, or the system refused
/// an operation. Problems *inside* a readable file are never thrown: they become
/// ``Diagnostic``s on the reader and reading goes on.
public struct CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Empty, or the first bytes match no known capture format.
        case notACapture
        /// A known magic, but the file ends inside the file header.
        case truncatedHeader
        /// A capture format or variant this tool does not read (btsnoop 1003/1004/2002, …).
        case unsupported
        /// A pcap/pcapng file of a link-layer sniffer or another non-HCI link type.
        case notHCI(linkType: UInt32)
        /// open/read/write/close failed (the message carries `strerror`).
        case io
        /// libpcap refused the file or the dump.
        case libpcap
        /// A writer was used after `close()`, or with arguments it cannot honour.
        case usage
        /// The data is damaged (a CRC-32 that does not match, corrupt compressed data, an
        /// archive structure that contradicts itself or points outside the file).
        case damaged
        /// The file (or an archive member, or a compressed stream) ends before its structure
        /// says it should: cut short at its end.
        case cutShort
        /// A limit of the configuration (`limits:` in hciscope.yml, ``CaptureLimits``) stopped
        /// reading: a decoder window above the maximum, a spool file past its size, a text
        /// stream with no capture in its first stretch.
        case limit
    }

    public var kind: Kind
    /// The file as the user named it ("<stdin>" for standard input), when known.
    public var file: String?
    /// Byte offset within the file, when the problem has a place.
    public var offset: Int?
    public var message: String

    public init(_ kind: Kind, file: String? = nil, offset: Int? = nil, message: String) {
        self.kind = kind
        self.file = file
        self.offset = offset
        self.message = message
    }

    /// Every thrown capture error means the file could not be read (or written) at all.
    public var exitClass: ExitClass { .couldNotRead }

    /// "trace.pcap: offset 0 (0x0): error: link type 272 (NORDIC_BLE) is a link-layer …"
    public var description: String { diagnostic.description }

    /// The same problem as a ``Diagnostic`` (layer `.capture`, severity error).
    public var diagnostic: Diagnostic {
        Diagnostic(.error, layer: .capture, file: file, frame: nil, offset: offset, message: message)
    }

    /// The diagnostic code of an error that stopped reading in the middle of an input: a file
    /// cut short at its end is a truncated record, damage and limits are named as such, anything
    /// else (a system error) stopped reading.
    var stoppingCode: Diagnostic.Code {
        switch kind {
        case .cutShort, .truncatedHeader: return .truncatedRecord
        case .damaged: return .dataDamaged
        case .limit: return .limitReached
        default: return .readingStopped
        }
    }

    func with(file: String) -> CaptureError {
        var copy = self
        if copy.file == nil { copy.file = file }
        return copy
    }
}

/// What a reader achieved, for the caller's exit status.
public struct ReadSummary: Sendable, Hashable {
    /// Records delivered by `next()`.
    public var records: Int
    /// Frame numbers used (records delivered plus framed records that could not be normalised).
    public var frames: Int
    public var errors: Int
    public var warnings: Int
    /// True when reading reached the end of the input (false when an I/O or libpcap error
    /// stopped it early, or when the caller stopped before the end).
    public var complete: Bool
    /// Bytes of the input consumed so far.
    public var bytesRead: Int

    public init(records: Int, frames: Int, errors: Int, warnings: Int, complete: Bool, bytesRead: Int) {
        self.records = records
        self.frames = frames
        self.errors = errors
        self.warnings = warnings
        self.complete = complete
        self.bytesRead = bytesRead
    }

    /// 0 when the whole input was read without errors, 1 otherwise.
    public var exitClass: ExitClass { complete && errors == 0 ? .ok : .readWithErrors }
}
