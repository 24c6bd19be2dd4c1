import ScopeCore

/// btsnoop constants (FORMATS.md §1; RFC 1761 "snoop" with Bluetooth datalinks).
enum BTSnoop {
    static let fileHeaderLength = 16
    static let recordHeaderLength = 24
    /// btsnoop timestamps count microseconds from a nominal year 0; this is what Wireshark,
    /// BlueZ and Bumble subtract to reach the Unix epoch (a convention, not calendar-exact).
    static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    /// Largest included length of a plausible record per datalink: an H4 packet is at most
    /// 1 + 4 + 65,535 bytes (ACL header + data); H1 has no type byte; a monitor payload is at
    /// most 65,535 bytes (6 bytes of slack for the socket header some writers keep).
    static func maximumIncludedLength(datalink: UInt32) -> Int {
        switch datalink {
        case 1001: return 65_539
        case 1002: return 65_540
        default: return 65_541
        }
    }

    /// The header every btsnoop file starts with.
    static func fileHeader(datalink: UInt32) -> [UInt8] {
        var w = ByteWriter(capacity: 16)
        w.append("btsnoop".utf8)
        w.u8(0)
        w.be32(1)
        w.be32(datalink)
        return w.bytes
    }
}

/// btsnoop records:
/// ```
/// 0          4          8       12      16           24
/// +----------+----------+-------+-------+------------+------------------+
/// | original | included | flags | drops | timestamp  | included bytes … |   big-endian
/// +----------+----------+-------+-------+------------+------------------+
/// ```
/// flags: 1001/1002 bit0 direction (1 = received), bit1 command/event; 2001 index << 16 |
/// opcode.
struct BTSnoopLayout: FramedLayout {
    let datalink: UInt32
    let headerLength = BTSnoop.recordHeaderLength
    let maximumBodyLength: Int
    /// Raw timestamp of the last record delivered.
    private(set) var reference: Int64?
    private var warnedFlags = false

    init(datalink: UInt32) {
        self.datalink = datalink
        self.maximumBodyLength = BTSnoop.maximumIncludedLength(datalink: datalink)
    }

    var name: String { "btsnoop \(datalink)" }

    /// A record header's fields, read with one pointer (the per-record path reads each field
    /// once, not once per check through the window).
    struct Header {
        var original: Int
        var included: Int
        var flags: UInt32
        var drops: UInt32
        var timestamp: Int64

        @inline(__always) init(_ input: BufferedFileReader, at i: Int) {
            let p = input.pointer(at: i)
            original = Int(UInt32(bigEndian: p.loadUnaligned(as: UInt32.self)))
            included = Int(UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            flags = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            drops = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
            timestamp = Int64(bitPattern: UInt64(bigEndian: p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
        }
    }

    func bodyLength(_ input: BufferedFileReader, at i: Int) -> Int { Int(input.be32(at: i + 4)) }

    func timestampKey(_ input: BufferedFileReader, at i: Int) -> Int64 { Int64(bitPattern: input.be64(at: i + 16)) }

    /// The header at `i` when it passes the checks of ``implausibility(_:at:reference:strict:)``
    /// (not strict), nil when that finds something: the common case as a plain test, read once
    /// and checked once for every record, with no message built.
    @inline(__always)
    func plausibleHeader(_ input: BufferedFileReader, at i: Int, reference: Int64?) -> Header? {
        let h = Header(input, at: i)
        guard h.included <= maximumBodyLength, h.included <= h.original else { return nil }
        if datalink == 1002 {
            guard h.included > 0 else { return nil }
            if i + headerLength < input.available {
                let type = input.byte(at: i + headerLength)
                guard type >= 1 && type <= 5 else { return nil }
            }
        }
        if let reference, Self.isFarApart(h.timestamp, reference) { return nil }
        return h
    }

    @inline(__always)
    func isPlausible(_ input: BufferedFileReader, at i: Int, reference: Int64?) -> Bool {
        plausibleHeader(input, at: i, reference: reference) != nil
    }

    /// The record at the front of the window and its length when its header is plausible
    /// (``plausibleHeader(_:at:reference:)`` against ``reference``) and the whole record is in
    /// the window; nil, with nothing logged, otherwise. A plausible header always gives a
    /// record ``record(_:bodyLength:frame:offset:log:)`` delivers (a 1002 one has its type byte).
    @inline(__always)
    mutating func usualRecord(
        _ input: BufferedFileReader, frame: FrameNumber, offset: Int, log: inout DiagnosticLog
    ) -> (record: CaptureRecord, length: Int)? {
        let available = input.available
        guard available >= headerLength, let h = plausibleHeader(input, at: 0, reference: reference) else { return nil }
        let length = headerLength + h.included
        guard length <= available else { return nil }
        guard let record = record(h, input, frame: frame, offset: offset, log: &log) else {
            preconditionFailure("a plausible btsnoop record was not delivered")
        }
        return (record, length)
    }

    /// ``implausibility(_:at:reference:strict:)`` strict, as a test with no message.
    func isCandidateHeader(_ input: BufferedFileReader, at i: Int, reference: Int64?) -> Bool {
        let h = Header(input, at: i)
        guard h.included <= maximumBodyLength, h.included <= h.original, h.original <= maximumBodyLength else { return false }
        switch datalink {
        case 2001:
            if h.flags & 0xFFFF > 0xFF || (h.flags >> 16 >= 0x100 && h.flags >> 16 != 0xFFFF) { return false }
        case 1002:
            if h.included == 0 { return false }
            if i + headerLength < input.available {
                let type = input.byte(at: i + headerLength)
                if type < 1 || type > 5 { return false }
            }
            if h.flags > 3 { return false }
        default:
            if h.flags > 3 { return false }
        }
        if let reference, Self.isFarApart(h.timestamp, reference) { return false }
        return true
    }

    func implausibility(_ input: BufferedFileReader, at i: Int, reference: Int64?, strict: Bool) -> String? {
        let h = Header(input, at: i)
        let original = h.original
        let included = h.included
        let flags = h.flags
        if included > maximumBodyLength { return "included length \(grouped(included)) is impossible" }
        if included > original {
            return "included length \(grouped(included)) is greater than original length \(grouped(original))"
        }
        if strict, original > maximumBodyLength { return "original length \(grouped(original)) is impossible" }
        switch datalink {
        case 2001:
            if strict, flags & 0xFFFF > 0xFF || (flags >> 16 >= 0x100 && flags >> 16 != 0xFFFF) {
                return "flags \(Hex.prefixed(flags, digits: 8)) hold no plausible index and opcode"
            }
        case 1002:
            if included == 0 { return "included length 0 leaves no H4 packet type byte" }
            if i + headerLength < input.available {
                let type = input.byte(at: i + headerLength)
                if type < 1 || type > 5 { return "H4 packet type \(Hex.prefixed(type, digits: 2)) is not 0x01–0x05" }
            }
            if strict, flags > 3 { return "flags \(Hex.prefixed(flags, digits: 8)) have unknown bits" }
        default:
            if strict, flags > 3 { return "flags \(Hex.prefixed(flags, digits: 8)) have unknown bits" }
        }
        if let reference, Self.isFarApart(h.timestamp, reference) {
            return "timestamp more than a year away from the previous record's"
        }
        return nil
    }

    @inline(__always)
    mutating func record(
        _ input: BufferedFileReader, bodyLength included: Int, frame: FrameNumber, offset: Int,
        log: inout DiagnosticLog
    ) -> CaptureRecord? {
        record(Header(input, at: 0), input, frame: frame, offset: offset, log: &log)
    }

    /// The record whose header `h` starts at the front of the window (its body is there).
    @inline(__always)
    private mutating func record(
        _ h: Header, _ input: BufferedFileReader, frame: FrameNumber, offset: Int, log: inout DiagnosticLog
    ) -> CaptureRecord? {
        let included = h.included
        let raw = h.timestamp
        reference = raw
        let (micros, overflow) = raw.subtractingReportingOverflow(BTSnoop.unixEpochOffset)
        let timestamp: Timestamp
        if overflow {
            log.error(frame: frame, offset: offset + 16, code: .unconvertibleTimestamp, "timestamp \(raw) cannot be converted to Unix time")
            timestamp = Timestamp(microseconds: raw < 0 ? .min : .max)
        } else {
            timestamp = Timestamp(microseconds: micros)
        }
        var originalLength = h.original
        // Both checks fail on ordinary records: one comparison each.
        if included > h.original {
            log.error(
                frame: frame, offset: offset, code: .badRecordLength,
                "included length \(grouped(included)) is greater than original length \(grouped(h.original)); original length taken as \(grouped(included))")
            originalLength = included
        } else if h.original > maximumBodyLength && included <= maximumBodyLength {
            log.warning(
                frame: frame, offset: offset, code: .badRecordLength,
                "original length \(grouped(h.original)) exceeds the largest \(name) record (\(grouped(maximumBodyLength)) bytes)")
        }
        let flags = h.flags
        let body = BTSnoop.recordHeaderLength

        switch datalink {
        case 1002:
            guard included >= 1 else {
                log.error(frame: frame, offset: offset, code: .badRecordLength, "record has no H4 packet type byte (included length 0); not delivered")
                return nil
            }
            if flags > 3, !warnedFlags {
                warnedFlags = true
                log.warning(frame: frame, offset: offset + 8, code: .unexpectedHeaderValue, "unknown flag bits \(Hex.prefixed(flags, digits: 8)) (further ones not reported)")
            }
            let type = input.byte(at: body)
            return CaptureRecord(
                frame: frame, timestamp: timestamp, adapter: 0, direction: flags & 1 != 0 ? .received : .sent,
                kind: Self.kind(h4: type), originalLength: max(originalLength - 1, included - 1),
                payload: input.payload(at: body + 1, count: included - 1), drops: h.drops)
        case 1001:
            if flags > 3, !warnedFlags {
                warnedFlags = true
                log.warning(frame: frame, offset: offset + 8, code: .unexpectedHeaderValue, "unknown flag bits \(Hex.prefixed(flags, digits: 8)) (further ones not reported)")
            }
            let received = flags & 1 != 0
            let kind: RecordKind = flags & 2 != 0 ? (received ? .event : .command) : .acl
            return CaptureRecord(
                frame: frame, timestamp: timestamp, adapter: 0, direction: received ? .received : .sent, kind: kind,
                originalLength: originalLength, payload: input.payload(at: body, count: included), drops: h.drops)
        default:
            let opcode = UInt16(flags & 0xFFFF)
            let (kind, direction) = MonitorOpcode.kind(for: opcode)
            return CaptureRecord(
                frame: frame, timestamp: timestamp, adapter: AdapterIndex(flags >> 16), direction: direction, kind: kind,
                originalLength: originalLength, payload: input.payload(at: body, count: included), drops: h.drops)
        }
    }

    /// `H4PacketType.kind(for:)`, here so that it is inlined (it is a call into ScopeCore).
    @inline(__always)
    private static func kind(h4 type: UInt8) -> RecordKind {
        switch type {
        case 0x01: return .command
        case 0x02: return .acl
        case 0x03: return .sco
        case 0x04: return .event
        case 0x05: return .iso
        default: return .unknownH4(type)
        }
    }
}
