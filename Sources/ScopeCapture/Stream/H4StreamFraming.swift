import ScopeCore

/// A raw UART H4 byte stream (Core v5.4 Vol 4 Part A §2): a type byte, then the HCI packet.
///
/// ```
/// type  header                         length field
/// 0x01  command  opcode(2) len(1)      [2]          (3-byte header)   host → controller
/// 0x02  ACL      handle(2) len(2)      LE16 [2..3]  (4-byte header)   either way
/// 0x03  SCO      handle(2) len(1)      [2]          (3-byte header)   either way
/// 0x04  event    code(1)   len(1)      [1]          (2-byte header)   controller → host
/// 0x05  ISO      handle(2) len(2)      LE16 [2..3] & 0x3FFF (4-byte header; top bits RFU)
/// ```
///
/// Resynchronisation after garbage works (a packet is believed when the bytes after it start a
/// plausible packet), but a packet that lost bytes on the line takes the next packet's first bytes
/// with it.
///
/// The stream says nothing of direction: commands are sent, events received, and ACL, SCO and ISO
/// data take ``dataDirection`` (unknown unless the caller knows the line: a tap on one UART wire
/// carries one direction). There are no timestamps: records take the host receive time.
/// Headers must also look like real ones (an event code other than 0, a connection handle up to
/// 0x0EFF), in step or not; commands are not checked (real captures hold vendor and odd command
/// groups). That is a weak test: resynchronisation in H4 rests mostly on a packet being followed
/// by a plausible one.
public struct H4StreamFraming: StreamFraming {
    /// A lost byte inside a packet cannot be told from garbage after it: the packet is kept whole.
    public static var findsFramesCutShort: Bool { false }

    /// The direction given to ACL, SCO and ISO packets.
    public var dataDirection: Direction

    public init(dataDirection: Direction = .unknown) {
        self.dataDirection = dataDirection
    }

    public func check(_ bytes: ArraySlice<UInt8>, strict: Bool) -> FrameCheck {
        guard let type = bytes.first else { return .needMore }
        let header: Int
        switch type {
        case H4PacketType.command, H4PacketType.sco: header = 3
        case H4PacketType.acl, H4PacketType.iso: header = 4
        case H4PacketType.event: header = 2
        default: return .invalid(.h4PacketType(type))
        }
        guard bytes.count >= 1 + header else { return .needMore }
        let h = bytes.startIndex + 1
        let length: Int
        switch type {
        case H4PacketType.command, H4PacketType.sco: length = Int(bytes[h + 2])
        case H4PacketType.event: length = Int(bytes[h + 1])
        case H4PacketType.acl: length = Int(bytes[h + 2]) | Int(bytes[h + 3]) << 8
        default: length = (Int(bytes[h + 2]) | Int(bytes[h + 3]) << 8) & 0x3FFF
        }
        switch type {
        case H4PacketType.command:
            break  // real captures hold vendor and odd command groups: any opcode goes
        case H4PacketType.event:
            guard bytes[h] != 0 else { return .invalid(.eventCodeZero) }
        default:
            let handle = (Int(bytes[h]) | Int(bytes[h + 1]) << 8) & 0x0FFF
            guard handle <= 0x0EFF else { return .invalid(.connectionHandle(handle)) }
        }
        return .frame(length: 1 + header + length)
    }

    public mutating func record(
        _ bytes: ArraySlice<UInt8>, claimedLength: Int, frame: FrameNumber, offset: Int, receivedAt: Timestamp,
        source: String?, diagnostics: inout [Diagnostic]
    ) -> CaptureRecord {
        let type = bytes.first ?? 0
        let kind = H4PacketType.kind(for: type)
        let direction: Direction = kind == .command ? .sent : kind == .event ? .received : dataDirection
        let payload = Array(bytes.dropFirst())
        return CaptureRecord(
            frame: frame, timestamp: receivedAt, adapter: 0, direction: direction, kind: kind,
            originalLength: max(payload.count, claimedLength - 1), payload: payload)
    }
}

/// A raw H4 byte stream (file, FIFO) → records.
public typealias H4StreamDecoder = StreamDeframer<H4StreamFraming>

extension StreamDeframer where Framing == H4StreamFraming {
    public init(source: String? = nil, dataDirection: Direction = .unknown) {
        self.init(framing: H4StreamFraming(dataDirection: dataDirection), source: source)
    }
}
