/// A problem noticed while reading or decoding, located precisely enough to be checked by hand.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable, Comparable {
        case warning, error
        public static func < (a: Severity, b: Severity) -> Bool { a == .warning && b == .error }
    }

    public var severity: Severity
    public var layer: Layer
    /// File the problem is in, when known.
    public var file: String?
    /// 1-based frame number, when the problem belongs to a frame.
    public var frame: FrameNumber?
    /// Byte offset: within the file for capture errors, within the record payload otherwise.
    public var offset: Int?
    /// What kind of problem this is, for code that acts on it: match this, never `message`
    /// (the wording is for people and may change).
    public var code: Code
    public var message: String

    public init(
        _ severity: Severity, layer: Layer, file: String? = nil, frame: FrameNumber? = nil, offset: Int? = nil,
        code: Code = .other, message: String
    ) {
        self.severity = severity
        self.layer = layer
        self.file = file
        self.frame = frame
        self.offset = offset
        self.code = code
        self.message = message
    }

    /// The kinds of problem other modules act on (and the common ones worth telling apart);
    /// everything else is `.other`.
    public enum Code: String, Sendable, Hashable, Codable {
        /// A timestamp explained by the 378-day btsnoop epoch error: a jump of ±378 days from the
        /// previous frame, or an implausible or future timestamp that shifting by 378 days fixes.
        case epochSkew
        /// A timestamp earlier than the previous one of its adapter (or the count of them).
        case timestampBackwards
        /// A timestamp outside 1990–2100 (or the count of them).
        case implausibleTimestamp
        /// A timestamp after the reference time (or the count of them).
        case futureTimestamp
        /// A timestamp field that cannot be converted to Unix microseconds.
        case unconvertibleTimestamp
        /// A record or record header cut off by the end of the input; not delivered.
        case truncatedRecord
        /// A record whose lengths disagree or exceed the format's largest record.
        case badRecordLength
        /// Bytes skipped to find the next plausible record header.
        case resynchronised
        /// An error that stopped reading before the end of the input.
        case readingStopped
        /// Data that is damaged, not merely cut short at the end of the file: a CRC-32 that
        /// does not match, compressed data that is corrupt, an archive whose structure is broken,
        /// an archive member or capture of a container that could not be read. What the damage
        /// hides is lost; `analyze` says so in the health section and exits 1.
        case dataDamaged
        /// Something not read because a limit of the configuration stopped it (`limits:` in
        /// hciscope.yml): a member beyond the spool size, a stream past the text scan.
        case limitReached
        /// A byte stream (serial, RTT, H4 file) that ended or broke inside a frame.
        case cutShortStream
        /// A header field (version, flags) with a value the reader does not know.
        case unexpectedHeaderValue
        /// "N more diagnostics not kept".
        case suppressed
        case other
    }

    /// "capture.btsnoop: frame 12, offset 0x1f4: error: truncated record …"
    public var description: String {
        var parts: [String] = []
        if let frame { parts.append("frame \(frame)") }
        if let offset { parts.append("offset \(offset) (\(Hex.prefixed(offset, digits: 1)))") }
        var location = parts.joined(separator: ", ")
        if let file { location = location.isEmpty ? file : file + ": " + location }
        return (location.isEmpty ? "" : location + ": ") + "\(severity.rawValue): \(message)"
    }
}
