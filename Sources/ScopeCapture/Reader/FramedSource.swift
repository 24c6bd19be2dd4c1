import ScopeCore

/// A record layout of "fixed header, then a body whose length the header gives" (btsnoop,
/// PacketLogger), read in constant memory with resynchronisation after a bad header.
protocol FramedLayout {
    /// "btsnoop 1002", "PacketLogger" (for messages).
    var name: String { get }
    var headerLength: Int { get }
    /// Largest body a plausible record has.
    var maximumBodyLength: Int { get }
    /// The timestamp of the last record delivered, in the unit ``timestampKey(_:at:)`` uses.
    var reference: Int64? { get }
    /// The body length announced by the header that starts `i` bytes into the window.
    func bodyLength(_ input: BufferedFileReader, at i: Int) -> Int
    /// The header's timestamp in microseconds on the format's own scale (for comparisons).
    func timestampKey(_ input: BufferedFileReader, at i: Int) -> Int64
    /// Why the header at `i` (`headerLength` bytes available there, maybe more) does not look
    /// like a record header, or nil when it does. Timestamps are compared with `reference`
    /// (more than a year away is implausible). `strict` adds the checks that only serve to
    /// find a header in the middle of garbage (flags, known types).
    func implausibility(_ input: BufferedFileReader, at i: Int, reference: Int64?, strict: Bool) -> String?
    /// `implausibility(input, at: i, reference: reference, strict: false) == nil`, as cheaply as
    /// the layout can tell (asked of every record; the message is built only when it says no).
    func isPlausible(_ input: BufferedFileReader, at i: Int, reference: Int64?) -> Bool
    /// Why the header at `i` cannot start a record at all, regardless of what follows, or nil.
    func invalidHeaderReason(_ input: BufferedFileReader, at i: Int) -> String?
    /// `invalidHeaderReason(input, at: i) == nil && implausibility(input, at: i, reference:
    /// reference, strict: true) == nil`, with no message built: asked at every byte offset while
    /// resynchronising (a megabyte of garbage is a million questions).
    func isCandidateHeader(_ input: BufferedFileReader, at i: Int, reference: Int64?) -> Bool
    /// Builds the record whose header starts at the front of the window and whose body is
    /// fully available; nil when it is framed but cannot be normalised (after logging why).
    mutating func record(
        _ input: BufferedFileReader, bodyLength: Int, frame: FrameNumber, offset: Int, log: inout DiagnosticLog
    ) -> CaptureRecord?
}

extension FramedLayout {
    func invalidHeaderReason(_ input: BufferedFileReader, at i: Int) -> String? { nil }

    func isCandidateHeader(_ input: BufferedFileReader, at i: Int, reference: Int64?) -> Bool {
        invalidHeaderReason(input, at: i) == nil && implausibility(input, at: i, reference: reference, strict: true) == nil
    }

    func isPlausible(_ input: BufferedFileReader, at i: Int, reference: Int64?) -> Bool {
        implausibility(input, at: i, reference: reference, strict: false) == nil
    }

    /// A difference of more than a year between two timestamps in microseconds.
    static func isFarApart(_ a: Int64, _ b: Int64) -> Bool {
        let (delta, overflow) = a.subtractingReportingOverflow(b)
        return overflow || delta.magnitude > 366 * 86_400 * 1_000_000
    }
}

/// Reads a ``FramedLayout`` record by record.
///
/// - Every header is checked for plausibility (lengths consistent, timestamp within a year of
///   the previous record, an H4 type byte for btsnoop 1002, …). A header that fails is still
///   accepted when the header after it is plausible (or the file ends exactly there): the
///   record is well framed, and its oddities are reported by the layout.
/// - A header whose body length is beyond the format's maximum is accepted only when it is
///   well framed in the same sense, and reported as an error.
/// - Otherwise the reader scans forward byte by byte for the next plausible header, checked
///   together with the header that follows it (or the exact end of the file), and reports how
///   many bytes it skipped.
/// - A record cut short by the end of the file is reported and not delivered, unless a
///   plausible record starts inside the missing bytes (then the header was corrupt, and the
///   reader resynchronises there).
/// - Bytes that cannot be framed are not frames: frame numbers count framed records only.
final class FramedSource<Layout: FramedLayout>: RecordSource {
    let input: BufferedFileReader
    // Touched on every record; one owner, never passed inout where it could overlap.
    @exclusivity(unchecked) var layout: Layout
    @exclusivity(unchecked) private var finished = false
    private(set) var reachedEnd = true

    init(input: BufferedFileReader, layout: Layout) {
        self.input = input
        self.layout = layout
    }

    var bytesRead: Int { input.offset }

    var bufferedInput: BufferedFileReader? { input }

    func close() { input.close() }

    /// How far ahead a resynchronisation candidate is checked: its header, the largest body
    /// and the next header.
    private var lookahead: Int {
        min(BufferedFileReader.maximumWindow, 2 * layout.headerLength + layout.maximumBodyLength)
    }

    func next(_ log: inout DiagnosticLog, frame: FrameNumber) -> SourceStep {
        do {
            return try step(&log, frame: frame)
        } catch {
            // A file cut short at its end is a truncated record; damage, limits and system
            // errors stop reading before the end (`CaptureError.stoppingCode`).
            let code = error.stoppingCode
            log.error(
                frame: frame, offset: error.offset ?? input.offset, code: code,
                "\(error.message); " + (code == .truncatedRecord ? "what came before is kept" : "reading stopped"))
            finished = true
            reachedEnd = code == .truncatedRecord
            return .end
        }
    }

    private func step(_ log: inout DiagnosticLog, frame: FrameNumber) throws(CaptureError) -> SourceStep {
        let h = layout.headerLength
        while !finished {
            let start = input.offset
            let available = try input.fill(atLeast: h)
            if available == 0 {
                finished = true
                return .end
            }
            if available < h {
                log.error(
                    frame: frame, offset: start, code: .truncatedRecord,
                    "truncated record header at end of file: \(available) of \(h) bytes; not delivered")
                input.consume(available)
                finished = true
                return .end
            }
            if let reason = layout.invalidHeaderReason(input, at: 0) {
                try resynchronise(after: "bad record header: \(reason)", frame: frame, start: start, log: &log)
                continue
            }
            let body = layout.bodyLength(input, at: 0)
            let total = h + body
            if body > layout.maximumBodyLength {
                // Impossible for HCI, but maybe well framed anyway (a tool that wrote something
                // bigger): accept it when the next header is where this one says.
                if total + h <= BufferedFileReader.maximumWindow, try isFramed(total: total) {
                    log.error(
                        frame: frame, offset: start, code: .badRecordLength,
                        "record of \(plural(body, "byte")) exceeds the largest \(layout.name) record "
                            + "(\(grouped(layout.maximumBodyLength)) bytes); delivered as it is framed")
                    return deliver(body: body, frame: frame, start: start, log: &log)
                }
                let problem = "bad record header: record length \(grouped(body)) exceeds the largest \(layout.name) record "
                    + "(\(grouped(layout.maximumBodyLength)) bytes)"
                try resynchronise(after: problem, frame: frame, start: start, log: &log)
                continue
            }
            let have = try input.fill(atLeast: total)
            if have < total {
                // Either the file was cut inside this record, or the header is corrupt and
                // real records follow.
                let remaining = have - h
                if try resynchronise(
                    after: "bad record header: it announces \(plural(body, "byte")) but a plausible record starts sooner",
                    frame: frame, start: start, log: &log, quietWhenNoneFound: true)
                {
                    continue
                }
                log.error(
                    frame: frame, offset: start, code: .truncatedRecord,
                    "truncated record at end of file: header announces \(plural(body, "byte")), only \(grouped(remaining)) remain; not delivered")
                finished = true
                return .end
            }
            if !layout.isPlausible(input, at: 0, reference: layout.reference),
               let oddity = layout.implausibility(input, at: 0, reference: layout.reference, strict: false),
               try !isFramed(total: total)
            {
                try resynchronise(
                    after: "bad record header (\(oddity), and no record header follows it)", frame: frame, start: start,
                    log: &log)
                continue
            }
            return deliver(body: body, frame: frame, start: start, log: &log)
        }
        return .end
    }

    /// True when the record at the front of the window, `total` bytes long, is followed by a
    /// plausible header or by the exact end of the file.
    private func isFramed(total: Int) throws(CaptureError) -> Bool {
        let h = layout.headerLength
        let have = try input.fill(atLeast: total + h)
        if have == total && input.inputEnded { return true }
        guard have >= total + h else { return false }
        return layout.isPlausible(input, at: total, reference: layout.timestampKey(input, at: 0))
    }

    private func deliver(body: Int, frame: FrameNumber, start: Int, log: inout DiagnosticLog) -> SourceStep {
        let record = layout.record(input, bodyLength: body, frame: frame, offset: start, log: &log)
        input.consume(layout.headerLength + body)
        guard let record else { return .notDelivered }
        return .record(record, offset: start)
    }

    /// Scans forward from `start + 1` for a candidate header (see ``isCandidate(at:available:)``).
    /// Logs what was skipped. Returns true when it found one (the window then starts there);
    /// false at the end of the file, where everything was consumed — and nothing is logged
    /// when `quietWhenNoneFound` (the caller then reports a truncated record instead).
    @discardableResult
    private func resynchronise(
        after problem: String, frame: FrameNumber, start: Int, log: inout DiagnosticLog,
        quietWhenNoneFound: Bool = false
    ) throws(CaptureError) -> Bool {
        let h = layout.headerLength
        if quietWhenNoneFound {
            // The rest of the file is in the window (the caller hit its end): look without
            // consuming, so that a truncated record can still be reported as one.
            let available = try input.fill(atLeast: BufferedFileReader.maximumWindow)
            var i = 1
            while i + h <= available {
                if isCandidate(at: i, available: available) {
                    input.consume(i)
                    log.error(
                        frame: frame, offset: start, code: .resynchronised,
                        "\(problem): skipped \(plural(i, "byte")) to the next plausible record header at offset \(start + i)")
                    return true
                }
                i += 1
            }
            input.consume(available)
            return false
        }
        input.consume(1)
        var skipped = 1
        while true {
            let available = try input.fill(atLeast: lookahead)
            if available < h {
                input.consume(available)
                skipped += available
                log.error(
                    frame: frame, offset: start, code: .resynchronised,
                    "\(problem); no plausible record header follows: \(plural(skipped, "byte")) ignored to end of file")
                finished = true
                return false
            }
            if isCandidate(at: 0, available: available) {
                log.error(
                    frame: frame, offset: start, code: .resynchronised,
                    "\(problem); skipped \(plural(skipped, "byte")) to the next plausible record header at offset \(start + skipped)")
                return true
            }
            input.consume(1)
            skipped += 1
        }
    }

    /// A header `i` bytes into the window that passes the strict checks, whose record fits in
    /// the window, and which is followed by another header passing them (or by the exact end
    /// of the file).
    private func isCandidate(at i: Int, available: Int) -> Bool {
        let h = layout.headerLength
        guard i + h <= available, layout.isCandidateHeader(input, at: i, reference: layout.reference) else { return false }
        let next = i + h + layout.bodyLength(input, at: i)
        if next == available && input.inputEnded { return true }
        guard next + h <= available else { return false }
        return layout.isCandidateHeader(input, at: next, reference: layout.timestampKey(input, at: i))
    }
}

extension FramedSource where Layout == BTSnoopLayout {
    /// The usual step on its own: the record at the front of the window, with its header's
    /// offset, when the header is plausible and the record is in the window, delivered as
    /// ``next(_:frame:)`` delivers it; nil, with nothing consumed or logged, in every other case
    /// (``next(_:frame:)`` then takes the record). For a reader taking records in batches: no
    /// step value or error handling per record. (On the concrete layout:
    /// ``BTSnoopLayout/usualRecord(_:frame:offset:log:)`` reads and checks the header once and
    /// builds the record from what it read.)
    @inline(__always)
    func nextUsual(_ log: inout DiagnosticLog, frame: FrameNumber) -> (record: CaptureRecord, offset: Int)? {
        guard !finished else { return nil }
        let start = input.offset
        guard let (record, length) = layout.usualRecord(input, frame: frame, offset: start, log: &log) else { return nil }
        input.consumeAvailable(length)
        return (record, start)
    }
}
