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
    public var message: String

    public init(
        _ severity: Severity, layer: Layer, file: String? = nil, frame: FrameNumber? = nil, offset: Int? = nil,
        message: String
    ) {
        self.severity = severity
        self.layer = layer
        self.file = file
        self.frame = frame
        self.offset = offset
        self.message = message
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
