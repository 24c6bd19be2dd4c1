import ScopeCore

/// Writes a capture as pcapng (IETF draft-ietf-opsawg-pcapng) with comments on its packets:
/// one Section Header Block, one Interface Description Block, then one Enhanced Packet Block
/// per frame, in frame order, so that Wireshark's `frame.number` is the frame number of the
/// capture it came from. Comments are `opt_comment` options (code 1), which Wireshark shows as
/// `frame.comment` in the packet tree and under "Comment" in Expert Info.
///
/// ```swift
/// var writer = try PcapngWriter(path: "out.pcapng", linkType: PcapngWriter.linkType(for: reader.format))
/// while let r = reader.next() { try writer.write(r, comments: notes[r.frame] ?? []) }
/// try writer.close()
/// ```
///
/// Every call writes exactly one packet, so numbering never shifts: a record the interface's
/// link type has no place for, and a frame the reader could not deliver
/// (``writeUnreadable(timestamp:comments:)``), become a packet with nothing but the link
/// type's pseudo-header (``LinkTypeEncoding/placeholder(linkType:)``) and a comment saying so.
/// Under LINKTYPE 254 the PacketLogger records without a monitor opcode travel as the nearest
/// monitor record, bytes unchanged: text records (syslog, kernel, power, …) as System Notes,
/// LMP and unknown types as Vendor Diagnostic (BlueZ maps PacketLogger 0x0B the same way).
/// Blocks are little-endian; the file is created with mode 0600.
public struct PcapngWriter {
    /// Wireshark's largest packet for these link types (`WTAP_MAX_PACKET_SIZE_STANDARD`); a
    /// longer record is written cut to it, with its original length and a comment.
    public static let snapshotLength = 262_144

    /// The link type that carries every record of a capture in `format` with its kind and
    /// direction: 254 for the monitor formats and PacketLogger (notes and text records become
    /// monitor records), 187 for H4 without direction, 201 for the other H4 and H1 formats.
    public static func linkType(for format: CaptureFormat) -> UInt32 {
        switch format {
        case .btsnoopMonitor, .pcapMonitor, .pcapngMonitor, .pklgBE, .pklgLE: return LinkType.bluetoothLinuxMonitor
        case .pcapH4, .pcapngH4: return LinkType.bluetoothHCIH4
        case .btsnoopH1, .btsnoopH4, .pcapH4PHDR, .pcapngH4PHDR: return LinkType.bluetoothHCIH4WithPHDR
        }
    }

    /// The output as named in errors.
    public let name: String
    public let linkType: UInt32
    /// Packets written (records and placeholders).
    public private(set) var written = 0
    /// Of them, packets of nothing but the pseudo-header, standing for a record the link type
    /// cannot carry or a frame that could not be read.
    public private(set) var placeholders = 0
    private let out: BufferedFileWriter
    private var closed = false
    /// `if_tsoffset` in seconds, chosen at the first packet (nil until the interface is written).
    private var timeOffset: Int64?

    /// Creates `path` and writes the section header (with `sectionComment` and `application`
    /// as `opt_comment` and `shb_userappl`, when given); the interface description follows at
    /// the first packet (or at ``close()``).
    /// `atomic`: written beside `path` and renamed to it by ``close()`` (``discard()`` leaves
    /// nothing).
    public init(
        path: String, linkType: UInt32, sectionComment: String? = nil, application: String? = nil, atomic: Bool = false
    ) throws(CaptureError) {
        guard [LinkType.bluetoothHCIH4, LinkType.bluetoothHCIH4WithPHDR, LinkType.bluetoothLinuxMonitor].contains(linkType) else {
            throw CaptureError(.usage, file: path, message: "pcapng: cannot write link type \(linkType)")
        }
        out = try BufferedFileWriter(path: path, atomic: atomic)
        name = out.name
        self.linkType = linkType
        out.append(PcapngBlock.sectionHeader(comment: sectionComment, application: application))
    }

    /// Writes the interface description before the first packet: pcapng time is unsigned, so a
    /// capture that starts before 1970 (btsnoop files with relative or skewed clocks exist) gets
    /// an `if_tsoffset` a year before its first timestamp, which Wireshark adds back.
    private mutating func describeInterface(firstPacket: Timestamp) {
        guard timeOffset == nil else { return }
        var offset: Int64 = 0
        if firstPacket.microseconds < 0 {
            let seconds = firstPacket.microseconds / 1_000_000 - (firstPacket.microseconds % 1_000_000 == 0 ? 0 : 1)
            offset = seconds.subtractingReportingOverflow(Self.offsetMargin).partialValue
        }
        timeOffset = offset
        out.append(
            PcapngBlock.interfaceDescription(
                linkType: UInt16(linkType), snapLength: UInt32(Self.snapshotLength), timeOffset: offset == 0 ? nil : offset))
    }

    /// How far before the first packet the time offset goes (for captures whose clock steps back).
    static let offsetMargin: Int64 = 366 * 86_400

    /// Writes `record` as the next packet, with `comments`.
    public mutating func write(_ record: CaptureRecord, comments: [String]) throws(CaptureError) {
        guard !closed else { throw CaptureError(.usage, file: name, message: "write after close") }
        var notes = comments
        describeInterface(firstPacket: record.timestamp)
        let time = packetTime(record.timestamp, notes: &notes)
        guard let prefix = LinkTypeEncoding.header(for: record, linkType: linkType, opcode: Self.carriedOpcode) else {
            notes.append("hciscope: \(record.kind.name) record (frame \(record.frame)) has no place in LINKTYPE \(linkType); its bytes are left out")
            try emitPlaceholder(time: time, comments: notes)
            return
        }
        var data = prefix
        let room = Self.snapshotLength - prefix.count
        let original = prefix.count + max(record.originalLength, record.payload.count)
        if record.payload.count > room {
            data.append(contentsOf: record.payload.prefix(room))
            notes.append("hciscope: record of \(grouped(record.payload.count)) bytes cut to the \(grouped(Self.snapshotLength))-byte packet limit")
        } else {
            data.append(contentsOf: record.payload)
        }
        try emit(time: time, data: data, originalLength: original, comments: notes)
    }

    /// Writes a packet of nothing but the pseudo-header, standing for a frame the reader framed
    /// but could not deliver (its numbering stays that of the source), with `comments`.
    public mutating func writeUnreadable(timestamp: Timestamp, comments: [String]) throws(CaptureError) {
        guard !closed else { throw CaptureError(.usage, file: name, message: "write after close") }
        var notes = comments
        describeInterface(firstPacket: timestamp)
        let time = packetTime(timestamp, notes: &notes)
        try emitPlaceholder(time: time, comments: notes)
    }

    /// Flushes and closes the file. Calling it again does nothing.
    public mutating func close() throws(CaptureError) {
        guard !closed else { return }
        describeInterface(firstPacket: Timestamp(microseconds: 0))
        closed = true
        try out.close()
    }

    /// Closes the file and removes what was written (an atomic output leaves nothing).
    public mutating func discard() {
        guard !closed else { return }
        closed = true
        out.discard()
    }

    private mutating func emitPlaceholder(time: UInt64, comments: [String]) throws(CaptureError) {
        let data = LinkTypeEncoding.placeholder(linkType: linkType)
        try emit(time: time, data: data, originalLength: data.count, comments: comments)
        placeholders += 1
    }

    private mutating func emit(time: UInt64, data: [UInt8], originalLength: Int, comments: [String]) throws(CaptureError) {
        out.append(
            PcapngBlock.enhancedPacket(
                interface: 0, timestamp: time, data: data,
                originalLength: UInt32(clamping: originalLength), comments: comments))
        written += 1
        try out.flushIfFull()
    }

    /// Microseconds since 1970 plus the interface's time offset (the IDB's default resolution
    /// is microseconds). A timestamp before the offset is written as the offset, with a comment.
    private func packetTime(_ t: Timestamp, notes: inout [String]) -> UInt64 {
        let base = (timeOffset ?? 0).multipliedReportingOverflow(by: 1_000_000)
        let (time, overflow) = t.microseconds.subtractingReportingOverflow(base.partialValue)
        guard !overflow, !base.overflow, time >= 0 else {
            notes.append("hciscope: timestamp \(t.microseconds) µs is before the file's time base; written as \(base.partialValue) µs")
            return 0
        }
        return UInt64(time)
    }

    /// The monitor opcode a record travels under in LINKTYPE 254: its own, else the nearest
    /// monitor record for PacketLogger's own kinds (see the type's documentation).
    static func carriedOpcode(_ kind: RecordKind, _ direction: Direction) -> UInt16? {
        if let op = MonitorOpcode.opcode(for: kind, direction: direction) { return op }
        switch kind {
        case .packetLoggerText: return MonitorOpcode.systemNote
        case .lmp, .unknownPacketLogger: return MonitorOpcode.vendorDiag
        default: return nil
        }
    }
}

/// pcapng block encodings (little-endian). Every block is
///
/// ```
/// | block type u32 | block total length u32 | body … (padded to 32 bits) | block total length u32 |
/// ```
///
/// and options are `| code u16 | length u16 | value … (padded to 32 bits) |`, closed by
/// `opt_endofopt` (code 0, length 0) when there are any.
enum PcapngBlock {
    static let sectionHeaderType: UInt32 = 0x0A0D_0D0A
    static let interfaceDescriptionType: UInt32 = 0x0000_0001
    static let enhancedPacketType: UInt32 = 0x0000_0006
    static let byteOrderMagic: UInt32 = 0x1A2B_3C4D
    static let optionComment: UInt16 = 1
    /// `shb_userappl`: the application that wrote the section.
    static let optionUserApplication: UInt16 = 4
    /// `if_tsoffset`: seconds added to every timestamp of the interface.
    static let optionTimeOffset: UInt16 = 14
    /// Option values are at most 65,535 bytes (16-bit length).
    static let maximumOptionLength = 65_535

    /// Section Header Block:
    /// ```
    /// | 0x0A0D0D0A | length | byte-order magic 0x1A2B3C4D | major u16 = 1 | minor u16 = 0 |
    /// | section length i64 = -1 (not given) | options | length |
    /// ```
    static func sectionHeader(comment: String?, application: String?) -> [UInt8] {
        var body = ByteWriter(capacity: 64)
        body.le32(byteOrderMagic)
        body.le16(1)
        body.le16(0)
        body.le64(UInt64.max)  // -1: section length not given
        var options: [(UInt16, [UInt8])] = []
        if let comment { options.append((optionComment, Array(comment.utf8))) }
        if let application { options.append((optionUserApplication, Array(application.utf8))) }
        appendOptions(options, to: &body)
        return block(sectionHeaderType, body.bytes)
    }

    /// Interface Description Block:
    /// ```
    /// | 0x00000001 | length | link type u16 | reserved u16 = 0 | snap length u32 | options | length |
    /// ```
    /// No `if_tsresol`: the default resolution is microseconds. `if_tsoffset` (code 14, i64
    /// seconds) when `timeOffset` is given.
    static func interfaceDescription(linkType: UInt16, snapLength: UInt32, timeOffset: Int64? = nil) -> [UInt8] {
        var body = ByteWriter(capacity: 24)
        body.le16(linkType)
        body.le16(0)
        body.le32(snapLength)
        if let timeOffset {
            var value = ByteWriter(capacity: 8)
            value.le64(UInt64(bitPattern: timeOffset))
            appendOptions([(optionTimeOffset, value.bytes)], to: &body)
        }
        return block(interfaceDescriptionType, body.bytes)
    }

    /// Enhanced Packet Block:
    /// ```
    /// | 0x00000006 | length | interface id u32 | timestamp high u32 | timestamp low u32 |
    /// | captured length u32 | original length u32 | packet data … (padded) | options | length |
    /// ```
    /// One `opt_comment` per comment, in order.
    static func enhancedPacket(interface: UInt32, timestamp: UInt64, data: [UInt8], originalLength: UInt32, comments: [String]) -> [UInt8] {
        var body = ByteWriter(capacity: 20 + data.count + 4 + comments.reduce(0) { $0 + $1.utf8.count + 8 })
        body.le32(interface)
        body.le32(UInt32(truncatingIfNeeded: timestamp >> 32))
        body.le32(UInt32(truncatingIfNeeded: timestamp))
        body.le32(UInt32(clamping: data.count))
        body.le32(max(originalLength, UInt32(clamping: data.count)))
        body.append(data)
        pad(&body, data.count)
        appendOptions(comments.map { (optionComment, Array($0.utf8)) }, to: &body)
        return block(enhancedPacketType, body.bytes)
    }

    private static func appendOptions(_ options: [(UInt16, [UInt8])], to body: inout ByteWriter) {
        guard !options.isEmpty else { return }
        for (code, value) in options {
            let v = utf8Prefix(value, maximum: maximumOptionLength)
            body.le16(code)
            body.le16(UInt16(v.count))
            body.append(v)
            pad(&body, v.count)
        }
        body.le16(0)  // opt_endofopt
        body.le16(0)
    }

    /// At most `maximum` bytes of UTF-8 text, cut before a continuation byte so that the value
    /// stays valid UTF-8.
    static func utf8Prefix(_ bytes: [UInt8], maximum: Int) -> ArraySlice<UInt8> {
        guard bytes.count > maximum else { return bytes[...] }
        var end = maximum
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return bytes[..<end]
    }

    private static func pad(_ body: inout ByteWriter, _ count: Int) {
        let padding = (4 - count % 4) % 4
        for _ in 0..<padding { body.u8(0) }
    }

    private static func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
        let total = UInt32(clamping: 12 + body.count)
        var b = ByteWriter(capacity: body.count + 12)
        b.le32(type)
        b.le32(total)
        b.append(body)
        b.le32(total)
        return b.bytes
    }
}
