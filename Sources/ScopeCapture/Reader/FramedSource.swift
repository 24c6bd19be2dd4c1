import ScopeCore

/// A record layout of "fixed header, then a body whose length the header gives" (btsnoop,
/// PacketLogger), read in constant memory with resynchronisation after a bad header.
protocol FramedLayout {
    /// "btsnoop 1002", "PacketLogger" (for messages).
    var name: String { get }
    var headerLength: Int { get }
    /// Largest body a plausible record has.
    var maximumBodyLength: Int { get }
    /// The body length announced by the header that starts `i` bytes into the window.
    func bodyLength(_ input: BufferedFileReader, at i: Int) -> Int
    /// A strict check used while resynchronising: could a record header start `i` bytes into
    /// the window? (`headerLength` bytes are available there; more may be.)
    func isPlausibleHeader(_ input: BufferedFileReader, at i: Int) -> Bool
    /// Builds the record whose header starts at the front of the window and whose body is
    /// fully available; nil when it is framed but cannot be normalised (after logging why).
    mutating func record(
        _ input: BufferedFileReader, bodyLength: Int, frame: FrameNumber, offset: Int, log: inout DiagnosticLog
    ) -> CaptureRecord?
    /// Why the header at `i` cannot start a record regardless of its length, or nil.
    func invalidHeaderReason(_ input: BufferedFileReader, at i: Int) -> String?
}

extension FramedLayout {
    func invalidHeaderReason(_ input: BufferedFileReader, at i: Int) -> String? { nil }
}

/// Reads a ``FramedLayout`` record by record.
///
/// - A header whose body length is impossible (beyond the format's maximum) is accepted only
///   when the record is well framed anyway (the bytes after it start a plausible header, or
///   the file ends exactly there), and reported as an error; otherwise the reader scans
///   forward byte by byte for the next plausible header, checked together with the header
///   that follows it, and reports how many bytes it skipped.
/// - A record cut short by the end of the file is reported and not delivered, unless a
///   plausible record follows inside the missing bytes (then the header was corrupt, and the
///   reader resynchronises there).
/// - Bytes that cannot be framed are not frames: frame numbers count records only.
final class FramedSource<Layout: FramedLayout>: RecordSource {
    let input: BufferedFileReader
    var layout: Layout
    private var finished = false
    private(set) var reachedEnd = true

    init(input: BufferedFileReader, layout: Layout) {
        self.input = input
        self.layout = layout
    }

    var bytesRead: Int { input.offset }

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
            log.error(frame: frame, offset: error.offset ?? input.offset, "\(error.message); reading stopped")
            finished = true
            reachedEnd = false
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
                    frame: frame, offset: start,
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
                if total + h <= BufferedFileReader.maximumWindow {
                    let have = try input.fill(atLeast: total + h)
                    let framed = (have == total && input.inputEnded)
                        || (have >= total + h && layout.isPlausibleHeader(input, at: total))
                    if framed {
                        log.error(
                            frame: frame, offset: start,
                            "record of \(plural(body, "byte")) exceeds the largest \(layout.name) record "
                                + "(\(grouped(layout.maximumBodyLength)) bytes); delivered as it is framed")
                        return deliver(body: body, frame: frame, start: start, log: &log)
                    }
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
                    after: "record header announces \(plural(body, "byte")) but the next plausible record starts sooner",
                    frame: frame, start: start, log: &log, quietWhenNoneFound: true)
                {
                    continue
                }
                log.error(
                    frame: frame, offset: start,
                    "truncated record at end of file: header announces \(plural(body, "byte")), only \(grouped(remaining)) remain; not delivered")
                finished = true
                return .end
            }
            return deliver(body: body, frame: frame, start: start, log: &log)
        }
        return .end
    }

    private func deliver(body: Int, frame: FrameNumber, start: Int, log: inout DiagnosticLog) -> SourceStep {
        let record = layout.record(input, bodyLength: body, frame: frame, offset: start, log: &log)
        input.consume(layout.headerLength + body)
        guard let record else { return .notDelivered }
        return .record(record, offset: start)
    }

    /// Scans forward from `start + 1` for a plausible header followed by another plausible
    /// header (or by the exact end of the file). Logs what was skipped. Returns true when it
    /// found one (the window then starts there); false at the end of the file, where
    /// everything was consumed — and nothing is logged when `quietWhenNoneFound` (the caller
    /// then reports a truncated record instead).
    @discardableResult
    private func resynchronise(
        after problem: String, frame: FrameNumber, start: Int, log: inout DiagnosticLog,
        quietWhenNoneFound: Bool = false
    ) throws(CaptureError) -> Bool {
        let h = layout.headerLength
        if quietWhenNoneFound {
            // Look without consuming, so that a truncated record can still be reported as one.
            if let distance = try findCandidate(startingAt: 1) {
                input.consume(distance)
                log.error(
                    frame: frame, offset: start,
                    "\(problem): skipped \(plural(distance, "byte")) to the next plausible record header at offset \(start + distance)")
                return true
            }
            let rest = input.available
            input.consume(rest)
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
                    frame: frame, offset: start,
                    "\(problem); no plausible record header follows: \(plural(skipped, "byte")) ignored to end of file")
                finished = true
                return false
            }
            if isCandidate(at: 0, available: available) {
                log.error(
                    frame: frame, offset: start,
                    "\(problem); skipped \(plural(skipped, "byte")) to the next plausible record header at offset \(start + skipped)")
                return true
            }
            input.consume(1)
            skipped += 1
        }
    }

    /// Distance from the front of the window to the first candidate inside the bytes that
    /// are already (or can be) in the window, without consuming; nil when none.
    private func findCandidate(startingAt first: Int) throws(CaptureError) -> Int? {
        let available = try input.fill(atLeast: BufferedFileReader.maximumWindow)
        var i = first
        while i + layout.headerLength <= available {
            if isCandidate(at: i, available: available) { return i }
            i += 1
        }
        return nil
    }

    private func isCandidate(at i: Int, available: Int) -> Bool {
        let h = layout.headerLength
        guard i + h <= available, layout.isPlausibleHeader(input, at: i) else { return false }
        let body = layout.bodyLength(input, at: i)
        let next = i + h + body
        if next == available && input.inputEnded { return true }
        guard next + h <= available else { return false }
        return layout.isPlausibleHeader(input, at: next)
    }
}
