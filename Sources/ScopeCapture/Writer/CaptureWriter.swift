import ScopeCore

/// Records a writer left out because the target format cannot hold them, counted by kind and
/// reason so that the caller can report them ("12 records skipped: 10 New Index …").
public struct SkippedRecords: Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable, CaseIterable, Comparable {
        /// The format has no place for this kind (a monitor New Index in btsnoop 1002, an LMP
        /// record in pcap 201, …).
        case kind = "kind not representable"
        /// The kind fits but the direction would change (an ACL packet of unknown direction
        /// into a format that always records one; a received command into PacketLogger).
        case direction = "direction not representable"
        /// The timestamp is outside the format's range (PacketLogger: unsigned 32-bit
        /// seconds; pcap: signed 32-bit seconds).
        case timestamp = "timestamp out of range"
        /// Longer than the format allows (pcap snap length 262,144).
        case length = "too long"

        public static func < (a: Reason, b: Reason) -> Bool { a.rawValue < b.rawValue }
    }

    public struct Key: Sendable, Hashable {
        public var kind: RecordKind
        public var reason: Reason

        public init(kind: RecordKind, reason: Reason) {
            self.kind = kind
            self.reason = reason
        }
    }

    public private(set) var counts: [Key: Int] = [:]
    public private(set) var total = 0

    public init() {}

    mutating func add(_ kind: RecordKind, _ reason: Reason) {
        counts[Key(kind: kind, reason: reason), default: 0] += 1
        total += 1
    }

    public var byKind: [RecordKind: Int] {
        counts.reduce(into: [:]) { $0[$1.key.kind, default: 0] += $1.value }
    }

    public var byReason: [Reason: Int] {
        counts.reduce(into: [:]) { $0[$1.key.reason, default: 0] += $1.value }
    }

    /// "3 records skipped: 2 New Index (kind not representable), 1 ACL Data (direction not
    /// representable)", or "no records skipped".
    public var description: String {
        guard total > 0 else { return "no records skipped" }
        let parts = counts.sorted { a, b in
            a.value != b.value ? a.value > b.value : (a.key.kind.name, a.key.reason) < (b.key.kind.name, b.key.reason)
        }.map { "\(grouped($0.value)) \($0.key.kind.name) (\($0.key.reason.rawValue))" }
        return "\(plural(total, "record")) skipped: " + parts.joined(separator: ", ")
    }
}

/// The format-specific half of a writer.
protocol RecordSink: AnyObject {
    /// Writes `record`, or returns why it was left out.
    func write(_ record: CaptureRecord) throws(CaptureError) -> SkippedRecords.Reason?
    /// Pushes everything written so far to the file (live capture: each record reaches the
    /// disk before anything else is done with it).
    func flush() throws(CaptureError)
    func close() throws(CaptureError)
    /// Closes the file and removes what was written (an atomic output leaves nothing).
    func discard()
}

/// Writes records to a capture file: btsnoop 1002 and 2001, pcap 201 and 254 (through
/// libpcap's dumper, microsecond precision), PacketLogger (big-endian, or little-endian).
///
/// ```swift
/// var writer = try CaptureWriter.make(format: .pcapH4PHDR, path: "out.pcap")
/// while let r = reader.next() { try writer.write(r) }
/// try writer.close()
/// if writer.skipped.total > 0 { print(writer.skipped) }
/// ```
///
/// Files are created with mode 0600: captures can hold link keys. Records the format cannot
/// hold (``CaptureFormat/canRepresent(_:direction:)``, or a timestamp out of its range) are
/// skipped and counted in ``skipped``; the caller reports them. Also lost without being
/// counted: the adapter index in formats that have none (btsnoop 1002, pcap 201,
/// PacketLogger: read back as 0), the drop counter outside btsnoop, and the original length
/// in PacketLogger (which has none).
public struct CaptureWriter {
    public let format: CaptureFormat
    /// The output as named in errors ("<stdout>" for standard output).
    public let name: String
    public private(set) var written = 0
    public private(set) var skipped = SkippedRecords()
    private let sink: any RecordSink
    private var closed = false

    /// Creates `path` ("-" for standard output) in `format`, which must be writable. `atomic`:
    /// the records go to a new file beside `path` that ``close()`` renames to it and
    /// ``discard()`` removes, so that a failure leaves no half file and an existing file is only
    /// ever replaced by a complete one (`convert`, `redact`); a live recording writes `path`
    /// itself, so that what was recorded is on disk whatever stops it.
    public static func make(format: CaptureFormat, path: String, atomic: Bool = false) throws(CaptureError) -> CaptureWriter {
        let name = path == "-" ? "<stdout>" : path
        guard format.isWritable else {
            throw CaptureError(
                .usage, file: name,
                message: "cannot write \(format.rawValue): writable formats are "
                    + CaptureFormat.allCases.filter(\.isWritable).map(\.rawValue).joined(separator: ", "))
        }
        let sink: any RecordSink
        switch format.container {
        case .btsnoop:
            sink = try BTSnoopSink(path: path, datalink: format.btsnoopDatalink ?? 1002, atomic: atomic)
        case .packetLogger:
            sink = try PacketLoggerSink(path: path, bigEndian: format == .pklgBE, atomic: atomic)
        case .pcap, .pcapng:
            sink = try PcapSink(path: path, format: format, atomic: atomic)
        }
        return CaptureWriter(format: format, name: name, sink: sink)
    }

    private init(format: CaptureFormat, name: String, sink: any RecordSink) {
        self.format = format
        self.name = name
        self.sink = sink
    }

    /// Writes one record, or counts it in ``skipped`` when the format cannot hold it.
    /// Throws on I/O errors and after ``close()``.
    public mutating func write(_ record: CaptureRecord) throws(CaptureError) {
        guard !closed else { throw CaptureError(.usage, file: name, message: "write after close") }
        guard format.canRepresent(record.kind, direction: record.direction) else {
            let kindFits = [Direction.sent, .received, .unknown].contains { format.canRepresent(record.kind, direction: $0) }
            skipped.add(record.kind, kindFits ? .direction : .kind)
            return
        }
        if let reason = try sink.write(record) {
            skipped.add(record.kind, reason)
        } else {
            written += 1
        }
    }

    /// Writes out everything buffered so far (the file header included), so the file on disk
    /// is a valid capture up to the last record written.
    public mutating func flush() throws(CaptureError) {
        guard !closed else { throw CaptureError(.usage, file: name, message: "write after close") }
        try sink.flush()
    }

    /// Flushes and closes the file (an atomic one gets its name now). Calling it again does
    /// nothing.
    public mutating func close() throws(CaptureError) {
        guard !closed else { return }
        closed = true
        try sink.close()
    }

    /// Closes the file and removes what was written: an atomic output leaves nothing behind
    /// (and an existing file of that name untouched).
    public mutating func discard() {
        guard !closed else { return }
        closed = true
        sink.discard()
    }
}

// MARK: - btsnoop

/// btsnoop 1002 and 2001 (layout in ``BTSnoopLayout``).
final class BTSnoopSink: RecordSink {
    let out: BufferedFileWriter
    let datalink: UInt32

    init(path: String, datalink: UInt32, atomic: Bool) throws(CaptureError) {
        out = try BufferedFileWriter(path: path, atomic: atomic)
        self.datalink = datalink
        out.append(BTSnoop.fileHeader(datalink: datalink))
    }

    func write(_ r: CaptureRecord) throws(CaptureError) -> SkippedRecords.Reason? {
        let (raw, overflow) = r.timestamp.microseconds.addingReportingOverflow(BTSnoop.unixEpochOffset)
        guard !overflow else { return .timestamp }
        let flags: UInt32
        let prefix: UInt8?
        if datalink == 2001 {
            guard let opcode = MonitorOpcode.opcode(for: r.kind, direction: r.direction) else { return .kind }
            flags = UInt32(r.adapter) << 16 | UInt32(opcode)
            prefix = nil
        } else {
            guard let type = H4PacketType.type(for: r.kind) else { return .kind }
            let received: Bool
            switch r.kind {
            case .event: received = r.direction != .sent
            case .command: received = r.direction == .received
            default: received = r.direction == .received
            }
            // bit1 marks commands and events, as Wireshark, Bumble and Android write it.
            flags = (received ? 1 : 0) | (r.kind == .command || r.kind == .event ? 2 : 0)
            prefix = type
        }
        let extra = prefix == nil ? 0 : 1
        let included = r.payload.count + extra
        let original = max(r.originalLength, r.payload.count) + extra
        guard included <= Int(UInt32.max), original <= Int(UInt32.max) else { return .length }
        out.be32(UInt32(original))
        out.be32(UInt32(included))
        out.be32(flags)
        out.be32(r.drops)
        out.be64(UInt64(bitPattern: raw))
        if let prefix { out.u8(prefix) }
        out.append(r.payload)
        try out.flushIfFull()
        return nil
    }

    func flush() throws(CaptureError) { try out.flush() }
    func close() throws(CaptureError) { try out.close() }
    func discard() { out.discard() }
}

// MARK: - PacketLogger

/// PacketLogger records (layout in ``PacketLogger``); no file header.
final class PacketLoggerSink: RecordSink {
    let out: BufferedFileWriter
    let bigEndian: Bool

    init(path: String, bigEndian: Bool, atomic: Bool) throws(CaptureError) {
        out = try BufferedFileWriter(path: path, atomic: atomic)
        self.bigEndian = bigEndian
    }

    func write(_ r: CaptureRecord) throws(CaptureError) -> SkippedRecords.Reason? {
        guard let type = PacketLogger.type(for: r.kind, direction: r.direction) else { return .kind }
        let (seconds, micros) = r.timestamp.secondsAndMicros
        guard seconds >= 0, seconds <= Int64(UInt32.max) else { return .timestamp }
        let length = PacketLogger.lengthOverhead + r.payload.count
        guard length <= Int(UInt32.max) else { return .length }
        let put = bigEndian ? out.be32 : out.le32
        put(UInt32(length))
        put(UInt32(seconds))
        put(UInt32(micros))
        out.u8(type)
        out.append(r.payload)
        try out.flushIfFull()
        return nil
    }

    func flush() throws(CaptureError) { try out.flush() }
    func close() throws(CaptureError) { try out.close() }
    func discard() { out.discard() }
}
