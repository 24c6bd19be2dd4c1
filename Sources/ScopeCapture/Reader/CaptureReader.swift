import ScopeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads any supported capture, record by record, in constant memory.
///
/// ```swift
/// var reader = try CaptureReader.open(path: "trace.btsnoop")
/// while let record = reader.next() { … }
/// for d in reader.drainDiagnostics() { print(d) }
/// exit(reader.summary.exitClass.rawValue)
/// ```
///
/// The format is recognised from the file's content (``CaptureFormat/sniff(_:)``), never its
/// name. Problems inside the file never stop delivery of what is readable: they become
/// ``diagnostics`` (each with file, frame and byte offset), and the reader goes on where the
/// format allows it (btsnoop and PacketLogger resynchronise after a bad record header; libpcap
/// stops at its first error).
///
/// Frame numbers are 1-based and assigned once, in file order, to every *framed* record: a
/// record whose header and body were read is a frame even when it cannot be normalised (for
/// example a btsnoop 1002 record with no H4 byte, reported and not delivered), so numbers stay
/// those of Wireshark. Bytes that cannot be framed (a corrupt header and whatever is skipped to
/// the next plausible one, a truncated last record) are not frames; their diagnostics name the
/// frame number the next record gets.
///
/// Timestamps are checked as records pass (per controller index): going backwards is a warning (the record is
/// delivered), years outside 1990–2100 are a warning (once, then counted), and a jump of 378
/// days — what a writer that counts btsnoop time from 0001-01-01 produces — is named as such.
public struct CaptureReader {
    public struct Options: Sendable {
        /// Diagnostics kept between drains; beyond it they are only counted.
        public var diagnosticLimit: Int
        /// Backward timestamp steps reported one by one before they are only counted.
        public var backwardStepsReported: Int
        /// When set, timestamps more than a day after it are reported (e.g. pass "now").
        public var referenceTime: Timestamp?
        /// What reading the input may cost at most (members open at once, decoder memory,
        /// temporary files, text searched).
        public var limits: CaptureLimits

        public init(
            diagnosticLimit: Int = 1000, backwardStepsReported: Int = 20, referenceTime: Timestamp? = nil,
            limits: CaptureLimits = CaptureLimits()
        ) {
            self.diagnosticLimit = diagnosticLimit
            self.backwardStepsReported = backwardStepsReported
            self.referenceTime = referenceTime
            self.limits = limits
        }
    }

    /// 378 days: the difference between the btsnoop epoch constant and a calendar
    /// 0001-01-01 epoch (FORMATS.md §1).
    public static let epochSkew: Int64 = 378 * 86_400 * 1_000_000

    /// The file as named in diagnostics ("<stdin>" for standard input).
    public let name: String
    public let format: CaptureFormat
    public let sniffed: Sniffed
    /// What the input was when it was not a bare capture: compression, archive, bug report,
    /// sysdiagnose, btsnooz; the files merged into this capture and those left out.
    public var origin: CaptureOrigin {
        var o = baseOrigin
        if case .merged(let m) = source {
            for i in o.members.indices where i < m.delivered.count { o.members[i].records = m.delivered[i] }
        } else if o.members.count == 1 {
            o.members[0].records = delivered
        }
        return o
    }
    private let baseOrigin: CaptureOrigin
    private let source: Source
    private var log: DiagnosticLog
    private let options: Options
    private var nextFrame: FrameNumber = 1
    private var delivered = 0
    private var ended = false

    // Timestamp checks.
    /// Last timestamp per controller index: the Linux monitor interleaves controllers whose
    /// records are stamped independently, so order is only meaningful within one controller.
    /// The adapter of the last record checked and its timestamp are kept out of the dictionary
    /// (almost every capture has one adapter): ``previousByAdapter`` holds the others.
    private var previousByAdapter: [AdapterIndex: Timestamp] = [:]
    private var lastAdapter: AdapterIndex = 0
    private var lastTimestamp: Timestamp?
    private var backwardSteps = 0
    private var implausible = 0
    private var future = 0
    private var firstImplausibleReported = false

    /// Opens `path` ("-" for standard input) and recognises its format.
    ///
    /// Containers are opened on the way, recognised by content: gzip, xz, zstd and bzip2 (read
    /// through, streaming), zip archives (an Android bug report: its snoop logs, rotations
    /// merged in time order, or the btsnooz summary of its text), tar archives and folders (an
    /// iOS sysdiagnose: its PacketLogger logs, merged), text holding a btsnooz summary, and
    /// btsnooz records after a btsnoop header. ``origin`` says what was opened.
    ///
    /// A path that is not a regular file (a FIFO, `/dev/stdin`, process substitution's
    /// `/dev/fd/N`) is read once, as a stream: it is never opened a second time by name, so
    /// containers that need to seek (zip) are spooled first, within the limits.
    public static func open(path: String, options: Options = Options()) throws(CaptureError) -> CaptureReader {
        let context = OpenContext(options: options)
        if path != "-", CaptureFiles.isDirectory(path) {
            return try Containers.openFolder(path, name: SafeText.escaped(path), context: context)
        }
        let input = try BufferedFileReader.open(path: path)
        if path == "-" {
            // Its first bytes, for CaptureFiles.recognition (a pipe cannot be read twice).
            _ = try? input.fill(atLeast: 8)
            StandardInput.head = Array(input.windowBytes().prefix(8))
        }
        let regular = path != "-" && Containers.isRegularFile(path)
        return try Containers.open(input, path: regular ? path : nil, context: context, origin: CaptureOrigin(), depth: 0,
                                   modified: path == "-" ? StandardInput.modified : Containers.modificationTime(path))
    }

    /// Reads from an open descriptor (a pipe, a socket, standard input). The descriptor is
    /// duplicated, so the caller keeps ownership of its own.
    public static func open(fileDescriptor: Int32, name: String, options: Options = Options()) throws(CaptureError) -> CaptureReader {
        let input = try BufferedFileReader(duplicating: fileDescriptor, name: name)
        return try Containers.open(input, path: nil, context: OpenContext(options: options), origin: CaptureOrigin(), depth: 0, modified: nil)
    }

    /// A bare capture: `input` holds one of the capture formats (containers are already open).
    static func openCapture(_ input: BufferedFileReader, path: String?, options: Options, origin: CaptureOrigin) throws(CaptureError) -> CaptureReader {
        let name = input.name
        let sniffed: Sniffed
        do {
            sniffed = try sniff(input)
        } catch {
            input.close()
            throw error.with(file: name)
        }
        let source: Source
        switch sniffed.format.container {
        case .btsnoop:
            input.consume(BTSnoop.fileHeaderLength)
            source = .btsnoop(
                FramedSource(input: input, layout: BTSnoopLayout(datalink: sniffed.format.btsnoopDatalink ?? 1002)))
        case .packetLogger:
            source = .packetLogger(FramedSource(input: input, layout: PacketLoggerLayout(bigEndian: sniffed.format == .pklgBE)))
        case .pcap, .pcapng:
            if let path {
                input.close()
                source = .pcap(try PcapSource.open(path: path, sniffed: sniffed))
            } else if let (stream, _) = input.pushBackForStream() {
                source = .pcap(try PcapSource.open(stream: stream, name: name, sniffed: sniffed))
            } else if let (stream, _) = StreamBridge.open(input) {
                // A descriptor read as a stream (a FIFO named on the command line): libpcap reads
                // it through the reader, which still holds the bytes looked at.
                source = .pcap(try PcapSource.open(stream: stream, name: name, sniffed: sniffed))
            } else {
                input.close()
                throw CaptureError(.usage, file: name, offset: 0, message: "pcap input must be a path or a stream")
            }
        }
        var reader = CaptureReader(name: name, sniffed: sniffed, source: source, options: options, origin: origin)
        if sniffed.format.container == .btsnoop, let v = sniffed.btsnoopVersion, v != 1 {
            reader.log.warning(frame: nil, offset: 8, code: .unexpectedHeaderValue, "btsnoop version \(v) (expected 1); reading as version 1")
        }
        return reader
    }

    /// Feeds the sniffer until it decides, reading at most 64 KiB.
    static func sniff(_ input: BufferedFileReader) throws(CaptureError) -> Sniffed {
        var want = 16
        while true {
            let have = try input.peek(atLeast: want)
            let noMore = have < want || want >= Sniffer.maximumLook
            switch try Sniffer.step(input.windowBytes(), noMore: noMore) {
            case .done(let s): return s
            case .needMore(let n):
                guard n > have else {
                    // The sniffer asked for bytes it already has: treat them as all there is.
                    if case .done(let s) = try Sniffer.step(input.windowBytes(), noMore: true) { return s }
                    throw CaptureError(.notACapture, offset: 0, message: "not a capture file")
                }
                want = min(n, Sniffer.maximumLook)
            }
        }
    }

    init(name: String, sniffed: Sniffed, source: Source, options: Options, origin: CaptureOrigin, format: CaptureFormat? = nil) {
        self.name = name
        self.sniffed = sniffed
        self.baseOrigin = origin
        if let format {
            self.format = format
        } else if case .pcap(let pcap) = source {
            self.format = pcap.format
        } else {
            self.format = sniffed.format
        }
        self.source = source
        self.options = options
        self.log = DiagnosticLog(file: name, limit: options.diagnosticLimit)
    }

    /// The next record, or nil at the end of the input (or after an error that stops reading;
    /// see ``diagnostics``).
    public mutating func next() -> CaptureRecord? {
        nextRecord()
    }

    /// Reads up to `capacity` records into `buffer`, initialising `buffer[0..<n]` in file
    /// order, and returns n: 0 only at the end of the input. Stops early, after the record
    /// that brought them there, once ``diagnosticCount`` reaches `diagnosticThreshold` (for
    /// the caller to drain them between the same records as a ``next()`` loop would).
    ///
    /// For a consumer that takes records in batches: each record is built where it is kept,
    /// with no call, copy of the reader or look at its diagnostics per record.
    public mutating func read(
        into buffer: UnsafeMutablePointer<CaptureRecord>, capacity: Int, diagnosticThreshold: Int
    ) -> Int {
        var n = 0
        if case .btsnoop(let btsnoop) = source {
            // The usual record read straight into its slot (``FramedSource/nextUsual(_:frame:)``),
            // any other through the full step.
            while n < capacity {
                if let (record, offset) = btsnoop.nextUsual(&log, frame: nextFrame) {
                    nextFrame += 1
                    delivered += 1
                    check(record.timestamp, adapter: record.adapter, frame: record.frame, offset: offset)
                    (buffer + n).initialize(to: record)
                } else if let record = nextRecord() {
                    (buffer + n).initialize(to: record)
                } else {
                    break
                }
                n += 1
                if log.stored.count >= diagnosticThreshold { break }
            }
            return n
        }
        while n < capacity, let record = nextRecord() {
            (buffer + n).initialize(to: record)
            n += 1
            if log.stored.count >= diagnosticThreshold { break }
        }
        return n
    }

    @inline(__always)
    private mutating func nextRecord() -> CaptureRecord? {
        while !ended {
            switch source.next(&log, frame: nextFrame) {
            case .end:
                finish()
                return nil
            case .notDelivered:
                nextFrame += 1
            case .record(var record, let offset):
                record.frame = nextFrame
                nextFrame += 1
                delivered += 1
                check(record.timestamp, adapter: record.adapter, frame: record.frame, offset: offset)
                return record
            }
        }
        return nil
    }

    /// Gives emptied payload arrays back for the next records to reuse (leaves `buffers`
    /// empty): the reader refills one instead of allocating a new payload. For a consumer on
    /// another thread, where the allocation and the free would each cost more than the copy.
    /// Arrays something else still refers to are not overwritten (copy-on-write). A reader
    /// that does not copy payloads out of its own buffer (pcap, pcapng) drops them, and at most
    /// 4,096 are kept.
    public mutating func reusePayloadBuffers(_ buffers: inout [[UInt8]]) {
        if let spares = sparePayloads {
            for buffer in buffers { spares.keep(buffer) }
        }
        buffers.removeAll(keepingCapacity: true)
    }

    /// Where payload arrays given back go (``reusePayloadBuffers(_:)`` one at a time), nil for
    /// a reader that does not copy payloads out of its own buffer (pcap, pcapng).
    public var sparePayloads: SparePayloads? { source.base.bufferedInput?.spares }

    /// Diagnostics collected since the last drain.
    public var diagnostics: [Diagnostic] { log.stored }

    /// How many diagnostics ``diagnostics`` holds (asked after every record: no array handed out).
    public var diagnosticCount: Int { log.stored.count }

    /// Returns the diagnostics collected so far and forgets them (counts are kept for
    /// ``summary``).
    public mutating func drainDiagnostics() -> [Diagnostic] { log.drain() }

    /// Bytes of the input consumed so far.
    public var bytesRead: Int { source.base.bytesRead }

    /// For btsnoop and PacketLogger (read through a ``BufferedFileReader``): bytes taken from
    /// the input so far and the largest buffer used — evidence that reading streams. Nil for
    /// pcap/pcapng, which libpcap reads through its own stream buffer.
    public var bufferStatistics: (bytesFromInput: Int, peakBufferSize: Int)? {
        source.base.bufferedInput.map { ($0.bytesFromInput, $0.peakBufferSize) }
    }

    public var summary: ReadSummary {
        ReadSummary(
            records: delivered, frames: nextFrame - 1, errors: log.errors, warnings: log.warnings,
            complete: ended && source.base.reachedEnd, bytesRead: source.base.bytesRead)
    }

    /// Releases the input early (it is also released at the end of the input).
    public mutating func close() {
        source.base.close()
    }

    // MARK: Timestamp checks

    @inline(__always)
    private mutating func check(_ t: Timestamp, adapter: AdapterIndex, frame: FrameNumber, offset: Int?) {
        // The common case, where none of the checks below finds anything: the same adapter as
        // the last record, a plausible time at most 377 days after its time, no reference time.
        if adapter == lastAdapter, let previous = lastTimestamp, options.referenceTime == nil, t.isPlausible {
            let (delta, overflow) = t.microseconds.subtractingReportingOverflow(previous.microseconds)
            if !overflow, delta >= 0, delta < Self.epochSkew - 86_400_000_000 {
                lastTimestamp = t
                return
            }
        }
        checkInDetail(t, adapter: adapter, frame: frame, offset: offset)
    }

    private mutating func checkInDetail(_ t: Timestamp, adapter: AdapterIndex, frame: FrameNumber, offset: Int?) {
        let previous: Timestamp?
        if adapter == lastAdapter {
            previous = lastTimestamp
        } else {
            if let last = lastTimestamp { previousByAdapter[lastAdapter] = last }
            previous = previousByAdapter[adapter]
            lastAdapter = adapter
        }
        lastTimestamp = t
        if let previous {
            let (delta, overflow) = t.microseconds.subtractingReportingOverflow(previous.microseconds)
            if !overflow, isEpochSkew(delta) {
                log.warning(
                    frame: frame, offset: offset, code: .epochSkew,
                    "timestamp jumps by \(delta > 0 ? "+" : "-")378 days (32,659,200 s) from the previous frame: "
                        + "a writer counting btsnoop time from 0001-01-01 is off by exactly this much (FORMATS.md §1)")
            } else if t < previous {
                backwardSteps += 1
                if backwardSteps <= options.backwardStepsReported {
                    log.warning(
                        frame: frame, offset: offset, code: .timestampBackwards,
                        "timestamp goes backwards by \(formatSeconds(overflow ? .max : Int64(clamping: delta.magnitude))) s (\(previous) → \(t)); record delivered")
                }
            }
        }
        if !t.isPlausible {
            implausible += 1
            if !firstImplausibleReported {
                firstImplausibleReported = true
                let skewed = skewFits(t)
                log.warning(
                    frame: frame, offset: offset, code: skewed ? .epochSkew : .implausibleTimestamp,
                    "timestamp \(t) UTC is outside 1990–2100: the capturing clock was wrong"
                        + (skewed ? Self.skewHint : "") + " (further implausible timestamps are counted at the end)")
            }
        } else if let reference = options.referenceTime,
            t.microseconds > reference.microseconds.addingReportingOverflow(86_400_000_000).partialValue
        {
            future += 1
            if future == 1 {
                let skewed = skewFits(t, reference: reference)
                log.warning(
                    frame: frame, offset: offset, code: skewed ? .epochSkew : .futureTimestamp,
                    "timestamp \(t) UTC is later than the reference time \(reference) UTC" + (skewed ? Self.skewHint : ""))
            }
        }
    }

    private func isEpochSkew(_ delta: Int64) -> Bool {
        let day: Int64 = 86_400_000_000
        return (delta.magnitude >= UInt64(Self.epochSkew - day)) && (delta.magnitude <= UInt64(Self.epochSkew + day))
    }

    /// Whether moving `t` by 378 days would make it plausible (or no later than the reference
    /// time).
    private func skewFits(_ t: Timestamp, reference: Timestamp? = nil) -> Bool {
        let earlier = t.microseconds.subtractingReportingOverflow(Self.epochSkew)
        let later = t.microseconds.addingReportingOverflow(Self.epochSkew)
        let fits: Bool
        if let reference {
            fits = !earlier.overflow && earlier.partialValue <= reference.microseconds
        } else {
            fits = (!earlier.overflow && Timestamp(microseconds: earlier.partialValue).isPlausible)
                || (!later.overflow && Timestamp(microseconds: later.partialValue).isPlausible)
        }
        return fits
    }

    /// Said of a timestamp that ``skewFits(_:reference:)``.
    private static let skewHint =
        "; shifted by 378 days (32,659,200 s) it would be plausible: a writer counting btsnoop time "
        + "from 0001-01-01 is off by exactly that (FORMATS.md §1)"

    private mutating func finish() {
        guard !ended else { return }
        ended = true
        let frame: FrameNumber? = nil
        if backwardSteps > options.backwardStepsReported {
            log.warning(
                frame: frame, offset: nil, code: .timestampBackwards,
                "timestamps go backwards \(plural(backwardSteps, "time")) in all (\(options.backwardStepsReported) reported individually)")
        }
        if implausible > 1 {
            log.warning(
                frame: frame, offset: nil, code: .implausibleTimestamp,
                "\(plural(implausible, "record")) of \(grouped(delivered)) have timestamps outside 1990–2100")
        }
        if future > 1 {
            log.warning(frame: frame, offset: nil, code: .futureTimestamp, "\(plural(future, "record")) have timestamps after the reference time")
        }
        source.base.close()
    }
}

extension CaptureReader: IteratorProtocol {}

extension CaptureReader {
    /// The format reader, by concrete type: the per-record call is then a direct (specialised)
    /// call rather than a dispatch through `any RecordSource`.
    enum Source {
        case btsnoop(FramedSource<BTSnoopLayout>)
        case packetLogger(FramedSource<PacketLoggerLayout>)
        case pcap(PcapSource)
        case btsnooz(BTSnoozSource)
        case merged(MergedSource)

        var base: any RecordSource {
            switch self {
            case .btsnoop(let s): return s
            case .packetLogger(let s): return s
            case .pcap(let s): return s
            case .btsnooz(let s): return s
            case .merged(let s): return s
            }
        }

        @inline(__always) func next(_ log: inout DiagnosticLog, frame: FrameNumber) -> SourceStep {
            switch self {
            case .btsnoop(let s): return s.next(&log, frame: frame)
            case .packetLogger(let s): return s.next(&log, frame: frame)
            case .pcap(let s): return s.next(&log, frame: frame)
            case .btsnooz(let s): return s.next(&log, frame: frame)
            case .merged(let s): return s.next(&log, frame: frame)
            }
        }
    }
}
