import ScopeCore

/// Apple PacketLogger (.pklg) constants and record types (FORMATS.md §4). There is no file
/// header; every record is
/// ```
/// 0        4         8              12     13
/// +--------+---------+--------------+------+-------------+
/// | length | seconds | microseconds | type | payload …   |   both big- or both little-endian
/// +--------+---------+--------------+------+-------------+
/// ```
/// where `length` counts everything after itself (payload = length − 9).
enum PacketLogger {
    static let headerLength = 13
    /// Seconds + microseconds + type.
    static let lengthOverhead = 9
    /// Largest payload of a plausible record: an H4-sized HCI packet (65,539 without the type
    /// byte) plus slack for text records.
    static let maximumPayload = 65_541
    static var maximumLength: Int { lengthOverhead + maximumPayload }

    static let hciCommand: UInt8 = 0x00, hciEvent: UInt8 = 0x01
    static let aclSent: UInt8 = 0x02, aclReceived: UInt8 = 0x03
    static let scoSent: UInt8 = 0x08, scoReceived: UInt8 = 0x09
    static let lmpSent: UInt8 = 0x0A, lmpReceived: UInt8 = 0x0B
    static let isoSent: UInt8 = 0x12, isoReceived: UInt8 = 0x13
    static let note: UInt8 = 0xFC

    /// Types seen in real files (used to recognise the format and to resynchronise).
    static func isKnownType(_ t: UInt8) -> Bool {
        switch t {
        case 0x00...0x03, 0x08...0x0B, 0x12, 0x13, 0xF7...0xFE: return true
        default: return false
        }
    }

    static func isPlausible(length: UInt32, micros: UInt32, type: UInt8) -> Bool {
        length >= UInt32(lengthOverhead) && length <= UInt32(maximumLength) && micros < 1_000_000 && isKnownType(type)
    }

    /// Record type → kind and direction. 0xFC notes become system notes (as BlueZ does); the
    /// other 0xF7–0xFE text records keep their type; anything else is kept as unknown.
    static func kind(for type: UInt8) -> (RecordKind, Direction) {
        switch type {
        case hciCommand: return (.command, .sent)
        case hciEvent: return (.event, .received)
        case aclSent: return (.acl, .sent)
        case aclReceived: return (.acl, .received)
        case scoSent: return (.sco, .sent)
        case scoReceived: return (.sco, .received)
        case lmpSent: return (.lmp, .sent)
        case lmpReceived: return (.lmp, .received)
        case isoSent: return (.iso, .sent)
        case isoReceived: return (.iso, .received)
        case note: return (.systemNote, .unknown)
        case 0xF7...0xFE: return (.packetLoggerText(type), .unknown)
        default: return (.unknownPacketLogger(type), .unknown)
        }
    }

    /// Kind and direction → record type, or nil when PacketLogger has none.
    static func type(for kind: RecordKind, direction: Direction) -> UInt8? {
        let received = direction == .received
        switch kind {
        case .command: return hciCommand
        case .event: return hciEvent
        case .acl: return received ? aclReceived : aclSent
        case .sco: return received ? scoReceived : scoSent
        case .iso: return received ? isoReceived : isoSent
        case .lmp: return received ? lmpReceived : lmpSent
        case .systemNote: return note
        case .packetLoggerText(let t), .unknownPacketLogger(let t): return t
        default: return nil
        }
    }
}

struct PacketLoggerLayout: FramedLayout {
    let bigEndian: Bool
    let headerLength = PacketLogger.headerLength
    let maximumBodyLength = PacketLogger.maximumPayload
    /// Timestamp (µs) of the last record delivered.
    private(set) var reference: Int64?

    init(bigEndian: Bool) { self.bigEndian = bigEndian }

    var name: String { bigEndian ? "PacketLogger" : "PacketLogger (little-endian)" }

    @inline(__always) func u32(_ input: BufferedFileReader, _ i: Int) -> UInt32 {
        bigEndian ? input.be32(at: i) : input.le32(at: i)
    }

    /// The body is everything after the 13-byte header; the length field counts 9 bytes of
    /// header too.
    func bodyLength(_ input: BufferedFileReader, at i: Int) -> Int {
        max(0, Int(u32(input, i)) - PacketLogger.lengthOverhead)
    }

    func invalidHeaderReason(_ input: BufferedFileReader, at i: Int) -> String? {
        let length = u32(input, i)
        guard length >= UInt32(PacketLogger.lengthOverhead) else {
            return "record length \(length) is shorter than the 9 bytes of timestamp and type it must count"
        }
        return nil
    }

    /// ``invalidHeaderReason(_:at:)`` and ``implausibility(_:at:reference:strict:)`` strict,
    /// as a test with no message.
    func isCandidateHeader(_ input: BufferedFileReader, at i: Int, reference: Int64?) -> Bool {
        let length = u32(input, i)
        guard length >= UInt32(PacketLogger.lengthOverhead), length <= UInt32(PacketLogger.maximumLength),
              u32(input, i + 8) < 1_000_000, PacketLogger.isKnownType(input.byte(at: i + 12))
        else { return false }
        if let reference, Self.isFarApart(timestampKey(input, at: i), reference) { return false }
        return true
    }

    func timestampKey(_ input: BufferedFileReader, at i: Int) -> Int64 {
        Int64(u32(input, i + 4)) * 1_000_000 + Int64(u32(input, i + 8))
    }

    func implausibility(_ input: BufferedFileReader, at i: Int, reference: Int64?, strict: Bool) -> String? {
        let length = u32(input, i)
        let micros = u32(input, i + 8)
        let type = input.byte(at: i + 12)
        if length < UInt32(PacketLogger.lengthOverhead) || length > UInt32(PacketLogger.maximumLength) {
            return "record length \(length) is impossible"
        }
        if micros >= 1_000_000 { return "microseconds field \(grouped(Int(micros))) is not below 1,000,000" }
        if strict, !PacketLogger.isKnownType(type) { return "record type \(Hex.prefixed(type, digits: 2)) is unknown" }
        if let reference, Self.isFarApart(timestampKey(input, at: i), reference) {
            return "timestamp more than a year away from the previous record's"
        }
        return nil
    }

    mutating func record(
        _ input: BufferedFileReader, bodyLength: Int, frame: FrameNumber, offset: Int, log: inout DiagnosticLog
    ) -> CaptureRecord? {
        let seconds = u32(input, 4)
        let micros = u32(input, 8)
        let type = input.byte(at: 12)
        reference = Int64(seconds) * 1_000_000 + Int64(micros)
        if micros >= 1_000_000 {
            log.warning(frame: frame, offset: offset + 8, code: .unexpectedHeaderValue, "microseconds field \(grouped(Int(micros))) is not below 1,000,000")
        }
        let (kind, direction) = PacketLogger.kind(for: type)
        return CaptureRecord(
            frame: frame, timestamp: Timestamp(microseconds: Int64(seconds) * 1_000_000 + Int64(micros)),
            direction: direction, kind: kind, payload: input.payload(at: PacketLogger.headerLength, count: bodyLength))
    }
}
