import ScopeCore

/// What a framing says about the bytes at one position of a stream.
public enum FrameCheck: Sendable, Hashable {
    /// Not enough bytes yet to judge the header.
    case needMore
    /// The header is not a plausible frame start (the reason, for diagnostics).
    case invalid(FrameFault)
    /// A plausible frame whose header says it is `length` bytes long (header included); the bytes
    /// may not all have arrived yet.
    case frame(length: Int)
}

/// Why a header is not a plausible frame start. A value, not a message: a stream of garbage (a
/// wrong baud rate) is judged byte by byte, and only the first fault of each skipped run is
/// written out (`description`), in the diagnostic that names the run.
public enum FrameFault: Sendable, Hashable, CustomStringConvertible {
    /// H4: a packet type outside 0x01–0x05.
    case h4PacketType(UInt8)
    /// H4: an event with code 0x00.
    case eventCodeZero
    /// H4: an ACL, SCO or ISO handle above 0x0EFF.
    case connectionHandle(Int)
    /// Monitor: a data length too short for opcode, flags and the extended header.
    case dataLength(Int, extendedHeader: Int)
    /// Monitor: an opcode past the kernel's.
    case unknownOpcode(UInt16)
    /// Monitor: flags not 0, while searching.
    case flags(UInt8)
    /// Monitor: an extended header item of an unknown type, while searching.
    case extendedHeaderType(UInt8)
    /// Monitor: an extended header item running past the extended header.
    case extendedHeaderItem(type: UInt8, extendedHeader: Int)
    /// Monitor, while searching: an HCI payload shorter than its packet header…
    case payloadShorterThanHeader(RecordKind, payload: Int, header: Int)
    /// …or whose packet header's length does not fill the payload exactly.
    case packetLength(RecordKind, says: Int, holds: Int)
    /// Monitor, while searching: a fixed-size record of another size…
    case fixedPayload(RecordKind, payload: Int, fixed: Int)
    /// …or a text record longer than any sender writes.
    case longText(RecordKind, payload: Int)

    public var description: String {
        switch self {
        case .h4PacketType(let type): "H4 packet type 0x\(Hex.string([type])) (expected 0x01–0x05)"
        case .eventCodeZero: "event code 0x00"
        case .connectionHandle(let handle): "connection handle 0x\(String(handle, radix: 16)) (at most 0x0EFF)"
        case .dataLength(let length, let ext): "data length \(length) is shorter than opcode, flags and a \(ext)-byte extended header"
        case .unknownOpcode(let opcode): "unknown opcode \(opcode)"
        case .flags(let flags): "flags 0x\(Hex.string([flags])) (senders write 0)"
        case .extendedHeaderType(let type): "unknown extended header type \(type)"
        case .extendedHeaderItem(let type, let ext): "extended header item of type \(type) runs past the \(ext)-byte extended header"
        case .payloadShorterThanHeader(let kind, let payload, let header):
            "\(kind.name) payload of \(payload) bytes is shorter than its \(header)-byte header"
        case .packetLength(let kind, let says, let holds): "\(kind.name) says \(says) bytes follow its header, the frame holds \(holds)"
        case .fixedPayload(let kind, let payload, let fixed): "\(kind.name) payload of \(payload) bytes (it is \(fixed))"
        case .longText(let kind, let payload): "\(kind.name) of \(payload) bytes"
        }
    }
}

/// A framing of a byte stream into frames (the monitor TTY framing, UART H4), checked header first
/// and turned into records once whole. Used by ``StreamDeframer``, which does the buffering,
/// the resynchronisation and the bookkeeping of offsets.
public protocol StreamFraming: Sendable {
    /// Whether a plausible frame start inside a frame that is followed by garbage means the frame
    /// was cut short. Only for framings whose headers are hard to fake (the monitor framing's
    /// opcode, flags, extended header and HCI length must all agree); an H4 header is a type byte
    /// and a length, and turns up inside ordinary packets all the time.
    static var findsFramesCutShort: Bool { get }

    /// Judges the frame starting at `bytes.startIndex` from its header alone. `strict` is asked
    /// while searching for a frame boundary (at the start, or after garbage): it should accept only
    /// what real senders emit, so that garbage is unlikely to pass. Once in step, the checks may be
    /// looser (what a reader such as btmon would still record).
    func check(_ bytes: ArraySlice<UInt8>, strict: Bool) -> FrameCheck

    /// The record of a whole frame (`bytes` is exactly the frame), or of a frame cut short by the
    /// start of the next one (`bytes` is what arrived, `claimedLength` what its header said).
    /// `offset` is the stream offset of its first byte, `receivedAt` when its last byte arrived
    /// (not when the deframer decided to believe it).
    mutating func record(
        _ bytes: ArraySlice<UInt8>, claimedLength: Int, frame: FrameNumber, offset: Int, receivedAt: Timestamp,
        source: String?, diagnostics: inout [Diagnostic]
    ) -> CaptureRecord
}

/// What a push of bytes produced: records in stream order and the problems noticed.
public struct StreamOutput: Sendable {
    public var records: [CaptureRecord] = []
    public var diagnostics: [Diagnostic] = []

    public init() {}
}

/// Splits a byte stream (serial port, RTT channel, FIFO) into frames of `Framing`, whatever the
/// chunking, and turns each into a ``CaptureRecord``. Pure: bytes and the time they arrived go in,
/// records and diagnostics come out.
///
/// Unlike a file, a stream can start mid-frame, lose bytes and carry text between frames (a serial
/// console, an RTT server's banner). So:
/// - a frame is only believed when the bytes after it look like the start of the next frame (or
///   nothing more arrived: ``flush(receivedAt:)`` when the line went quiet, ``finish(receivedAt:)``
///   at the end). When they do not, and a plausible frame start lies inside the frame, the frame was
///   cut short (bytes lost, the sender restarted): it is recorded truncated, up to that start. Only
///   a frame announced that way by the one before it is read with the framing's looser checks;
///   every other position must pass the strict ones;
/// - bytes that do not start a plausible frame are skipped one at a time until one does (strict
///   checks while searching); each skipped run becomes one diagnostic naming its offsets;
/// - an incomplete frame at the end of input is reported, not recorded.
///
/// Offsets in diagnostics count bytes from the start of the stream (0-based).
public struct StreamDeframer<Framing: StreamFraming>: Sendable {
    public private(set) var framing: Framing
    /// A name for the stream in diagnostics (device path, `tcp:HOST:PORT`).
    public let source: String?
    /// Bytes pushed so far.
    public private(set) var consumed = 0
    /// Bytes skipped as not belonging to any frame.
    public private(set) var skippedBytes = 0
    /// Records produced so far (also the last frame number given).
    public private(set) var recordCount = 0
    /// Frames recorded cut short.
    public private(set) var truncatedFrames = 0

    private var buffer: [UInt8] = []
    /// Index in `buffer` of the first byte not yet consumed; `buffer[0]` is at stream offset `base`.
    private var start = 0
    private var base = 0
    /// In step with the framing (a frame was just accepted), so checks may be loose.
    private var inStep = false
    /// Stream offset where the current run of skipped bytes began, and why it began.
    private var skipStart: Int?
    private var skipReason = ""
    /// When the bytes up to each stream offset arrived (one entry per push still holding bytes), so
    /// a frame held back to see what follows it keeps the time its own last byte came.
    private var arrivals: [(end: Int, at: Timestamp)] = []
    /// Where `innerStart` stopped inside the frame starting at stream offset `frame`: every start
    /// before stream offset `next` was judged implausible (a judgement more bytes cannot change),
    /// and the one at `next` needed bytes not here yet. The next look inside the same frame resumes
    /// there, so a frame arriving a byte at a time (a serial line) is searched once, not once per
    /// byte.
    private var innerSearch: (frame: Int, next: Int)?

    public init(framing: Framing, source: String? = nil) {
        self.framing = framing
        self.source = source
    }

    /// Bytes waiting for the rest of their frame.
    public var buffered: Int { buffer.count - start }

    /// Adds bytes that arrived at `receivedAt`; returns the records they complete.
    public mutating func push(_ bytes: some Collection<UInt8>, receivedAt: Timestamp) -> StreamOutput {
        consumed += bytes.count
        buffer.append(contentsOf: bytes)
        if !bytes.isEmpty { arrivals.append((consumed, receivedAt)) }
        return process(receivedAt: receivedAt, mode: .streaming)
    }

    /// The line went quiet: a whole frame held back for lack of anything after it is recorded.
    public mutating func flush(receivedAt: Timestamp) -> StreamOutput {
        process(receivedAt: receivedAt, mode: .idle)
    }

    /// The end of input: records what can be, and reports a frame left incomplete and bytes skipped.
    public mutating func finish(receivedAt: Timestamp) -> StreamOutput {
        var out = process(receivedAt: receivedAt, mode: .end)
        closeSkip(at: base + start, into: &out)
        if buffered > 0 {
            let offset = base + start
            let what: String
            if case .frame(let length) = framing.check(buffer[start...], strict: false) {
                what = "an incomplete frame: its header says \(length) bytes, \(buffered) arrived before the end of input"
            } else {
                what = "\(buffered) bytes at the end of input that are not a whole frame header"
            }
            out.diagnostics.append(Diagnostic(.warning, layer: .capture, file: source, offset: offset, code: .cutShortStream, message: what + "; not recorded"))
            skippedBytes += buffered
            start = buffer.count
        }
        compact()
        return out
    }

    private enum Mode { case streaming, idle, end }

    private mutating func process(receivedAt: Timestamp, mode: Mode) -> StreamOutput {
        var out = StreamOutput()
        scan: while start < buffer.count {
            switch framing.check(buffer[start...], strict: !inStep) {
            case .needMore:
                break scan
            case .invalid(let reason):
                skip(reason: reason)
            case .frame(let length):
                let end = start + length
                guard end <= buffer.count else { break scan }
                // Believe the frame only when what follows starts a frame too; only then is the
                // next frame read in step (loosely).
                switch end < buffer.count ? framing.check(buffer[end...], strict: false) : .needMore {
                case .frame:
                    accept(length: length, receivedAt: receivedAt, nextInStep: true, into: &out)
                case .needMore:
                    guard mode != .streaming else { break scan }
                    accept(length: length, receivedAt: receivedAt, nextInStep: true, into: &out)
                case .invalid:
                    // Cut short? Look for a frame start inside it.
                    let resume = innerSearch.flatMap { $0.frame == base + start ? $0.next - base : nil } ?? start + 1
                    switch Framing.findsFramesCutShort ? innerStart(from: resume, before: end) : .some(nil) {
                    case .some(.none):
                        accept(length: length, receivedAt: receivedAt, nextInStep: false, into: &out)
                    case .some(.some(let inner)):
                        acceptTruncated(upTo: inner, claimedLength: length, receivedAt: receivedAt, into: &out)
                    case .none:
                        // A candidate needs bytes not here yet.
                        guard mode != .streaming else { break scan }
                        accept(length: length, receivedAt: receivedAt, nextInStep: false, into: &out)
                    }
                }
            }
        }
        compact()
        return out
    }

    /// The first index in `from..<before` where a strictly plausible frame starts whose end is
    /// followed by another plausible frame start (`.some(index)`), `.some(nil)` when there is none,
    /// or nil when a candidate cannot be judged with the bytes here yet.
    private mutating func innerStart(from: Int, before: Int) -> Int?? {
        var i = from
        while i < before {
            switch framing.check(buffer[i...], strict: true) {
            case .frame(let length):
                let end = i + length
                guard end < buffer.count else { return waiting(at: i) }
                switch framing.check(buffer[end...], strict: false) {
                case .frame: return .some(i)
                case .needMore: return waiting(at: i)
                case .invalid: i += 1
                }
            case .needMore: return waiting(at: i)
            case .invalid: i += 1
            }
        }
        return .some(nil)
    }

    /// `innerStart` met a candidate at `i` that needs more bytes: the search resumes there.
    private mutating func waiting(at i: Int) -> Int?? {
        innerSearch = (frame: base + start, next: base + i)
        return nil
    }

    private mutating func skip(reason: FrameFault) {
        if skipStart == nil {
            skipStart = base + start
            skipReason = inStep ? "lost step with the framing (\(reason))" : reason.description
        }
        inStep = false
        start += 1
        skippedBytes += 1
    }

    private mutating func closeSkip(at offset: Int, into out: inout StreamOutput) {
        guard let from = skipStart else { return }
        let count = offset - from
        let place = from == 0 ? "at the start of the stream" : "between frames"
        out.diagnostics.append(Diagnostic(
            .warning, layer: .capture, file: source, frame: recordCount > 0 ? recordCount : nil, offset: from, code: .resynchronised,
            message: "skipped \(count) byte\(count == 1 ? "" : "s") \(place) (offsets \(from)–\(offset - 1)) that are not a frame: \(skipReason)"))
        skipStart = nil
    }

    private mutating func accept(length: Int, receivedAt: Timestamp, nextInStep: Bool, into out: inout StreamOutput) {
        let offset = base + start
        closeSkip(at: offset, into: &out)
        recordCount += 1
        let record = framing.record(
            buffer[start..<(start + length)], claimedLength: length, frame: recordCount, offset: offset,
            receivedAt: arrival(ofBytesBefore: offset + length, otherwise: receivedAt), source: source, diagnostics: &out.diagnostics)
        out.records.append(record)
        start += length
        inStep = nextInStep
    }

    private mutating func acceptTruncated(upTo inner: Int, claimedLength: Int, receivedAt: Timestamp, into out: inout StreamOutput) {
        let offset = base + start
        closeSkip(at: offset, into: &out)
        recordCount += 1
        truncatedFrames += 1
        let arrived = inner - start
        out.diagnostics.append(Diagnostic(
            .warning, layer: .capture, file: source, frame: recordCount, offset: offset, code: .cutShortStream,
            message: "frame cut short: its header says \(claimedLength) bytes, but another frame starts \(arrived) bytes in (offset \(base + inner)); recorded truncated"))
        let record = framing.record(
            buffer[start..<inner], claimedLength: claimedLength, frame: recordCount, offset: offset,
            receivedAt: arrival(ofBytesBefore: base + inner, otherwise: receivedAt), source: source, diagnostics: &out.diagnostics)
        out.records.append(record)
        start = inner
        inStep = false
    }

    /// When the byte just before stream offset `end` arrived; drops what is no longer needed.
    private mutating func arrival(ofBytesBefore end: Int, otherwise: Timestamp) -> Timestamp {
        guard let i = arrivals.firstIndex(where: { $0.end >= end }) else { return otherwise }
        let at = arrivals[i].at
        arrivals.removeFirst(i)
        return at
    }

    private mutating func compact() {
        // Arrival times of bytes already consumed (a long run of garbage: a wrong baud rate) go.
        let done = base + start
        if let first = arrivals.first, first.end <= done {
            arrivals.removeFirst(arrivals.firstIndex { $0.end > done } ?? arrivals.count)
        }
        if start >= buffer.count {
            base += buffer.count
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 65_536 {
            base += start
            buffer.removeFirst(start)
            start = 0
        }
    }
}
