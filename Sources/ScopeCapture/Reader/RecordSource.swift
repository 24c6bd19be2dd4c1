import ScopeCore

/// One step of a format reader.
enum SourceStep {
    /// A record (its `frame` is assigned by ``CaptureReader``) and the file offset of its
    /// header, when known.
    case record(CaptureRecord, offset: Int?)
    /// A record that was framed (so it is a frame, and numbers after it match Wireshark's) but
    /// could not be normalised; the source has logged why.
    case notDelivered
    /// Nothing more.
    case end
}

/// The format-specific half of a reader: turns bytes into records and logs what is wrong.
protocol RecordSource: AnyObject {
    /// The next record. `frame` is the number the next frame will get, for diagnostics.
    func next(_ log: inout DiagnosticLog, frame: FrameNumber) -> SourceStep
    /// Bytes of the input consumed so far.
    var bytesRead: Int { get }
    /// False when an error stopped reading before the end of the input.
    var reachedEnd: Bool { get }
    /// The buffered input, for the readers that parse it themselves (nil for libpcap).
    var bufferedInput: BufferedFileReader? { get }
    func close()
}

/// Collects diagnostics for one file, counting all of them but keeping at most `limit` so
/// that a badly broken file cannot make memory grow without bound.
struct DiagnosticLog {
    let file: String
    let limit: Int
    private(set) var stored: [Diagnostic] = []
    private(set) var errors = 0
    private(set) var warnings = 0
    /// Diagnostics counted but not kept (beyond `limit` since the last drain).
    private(set) var suppressed = 0

    init(file: String, limit: Int) {
        self.file = file
        self.limit = limit
    }

    mutating func error(frame: FrameNumber?, offset: Int?, code: Diagnostic.Code = .other, _ message: String) {
        add(Diagnostic(.error, layer: .capture, file: file, frame: frame, offset: offset, code: code, message: message))
    }

    mutating func warning(frame: FrameNumber?, offset: Int?, code: Diagnostic.Code = .other, _ message: String) {
        add(Diagnostic(.warning, layer: .capture, file: file, frame: frame, offset: offset, code: code, message: message))
    }

    mutating func add(_ d: Diagnostic) {
        switch d.severity {
        case .error: errors += 1
        case .warning: warnings += 1
        }
        if stored.count < limit {
            stored.append(d)
        } else {
            suppressed += 1
        }
    }

    mutating func drain() -> [Diagnostic] {
        defer {
            stored.removeAll(keepingCapacity: true)
            suppressed = 0
        }
        if suppressed > 0 {
            var out = stored
            out.append(Diagnostic(
                .warning, layer: .capture, file: file, code: .suppressed,
                message: "\(suppressed) more diagnostic\(suppressed == 1 ? "" : "s") not kept (limit \(limit))"))
            return out
        }
        return stored
    }
}

/// Numbers written the way diagnostics print them ("65,540").
func grouped(_ n: Int) -> String {
    let digits = String(n.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return (n < 0 ? "-" : "") + out
}

func plural(_ n: Int, _ word: String) -> String {
    "\(grouped(n)) \(word)\(n == 1 ? "" : "s")"
}
