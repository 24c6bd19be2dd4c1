import ScopeCore

/// One complete H4 packet: the type byte and the HCI packet that follows it (header and
/// parameters or data, without the type byte).
package struct H4Packet: Sendable, Hashable {
    package var type: UInt8
    package var bytes: [UInt8]

    package init(type: UInt8, bytes: [UInt8]) {
        self.type = type
        self.bytes = bytes
    }

    package var kind: RecordKind { H4PacketType.kind(for: type) }
}

/// Splits an H4 (UART transport, Core v5.4 Vol 4 Part A §2) byte stream into packets,
/// whatever the chunking: bytes are pushed as they arrive and each complete packet comes out
/// once, in order.
///
/// ```
/// type  header                         length field
/// 0x01  command  opcode(2) len(1)      [2]          (3-byte header)
/// 0x02  ACL      handle(2) len(2)      LE16 [2..3]  (4-byte header)
/// 0x03  SCO      handle(2) len(1)      [2]          (3-byte header)
/// 0x04  event    code(1)   len(1)      [1]          (2-byte header)
/// 0x05  ISO      handle(2) len(2)      LE16 [2..3] & 0x3FFF (4-byte header; top bits RFU)
/// ```
///
/// A type byte outside 0x01–0x05 cannot be framed past (the length is unknowable): the framer
/// records the failure in ``failure`` and from then on takes bytes without producing packets.
package struct H4Framer: Sendable {
    /// Why framing stopped: the unknown type byte and its offset in the stream.
    package struct Failure: Sendable, Hashable, CustomStringConvertible {
        package var typeByte: UInt8
        package var offset: Int

        package init(typeByte: UInt8, offset: Int) {
            self.typeByte = typeByte
            self.offset = offset
        }

        package var description: String {
            "unknown H4 packet type 0x\(hex2(typeByte)) at byte \(offset) of the stream (expected 0x01–0x05)"
        }
    }

    package private(set) var failure: Failure?
    /// Bytes pushed so far.
    package private(set) var consumed = 0
    private var pending: [UInt8] = []
    private var start = 0

    package init() {}

    /// Bytes of an incomplete packet held for the next push.
    package var buffered: Int { pending.count - start }

    /// Adds `bytes` and returns the packets they complete (none after a failure).
    package mutating func push(_ bytes: some Collection<UInt8>) -> [H4Packet] {
        let streamOffsetOfPending = consumed - buffered
        consumed += bytes.count
        guard failure == nil else { return [] }
        pending.append(contentsOf: bytes)
        var packets: [H4Packet] = []
        while let total = packetLength(at: start) {
            guard pending.count - start >= total else { break }
            packets.append(H4Packet(type: pending[start], bytes: Array(pending[(start + 1)..<(start + total)])))
            start += total
        }
        if failure == nil, start < pending.count, Self.headerLength(pending[start]) == nil {
            failure = Failure(typeByte: pending[start], offset: streamOffsetOfPending + start)
        }
        if failure != nil {
            pending = []
            start = 0
        } else if start > 0 && (start >= pending.count || start >= 65_536) {
            pending.removeFirst(start)
            start = 0
        }
        return packets
    }

    /// The whole packet's length (type byte included) at `i`, when its header has arrived.
    private func packetLength(at i: Int) -> Int? {
        guard i < pending.count, let header = Self.headerLength(pending[i]) else { return nil }
        guard pending.count - i >= 1 + header else { return nil }
        let h = i + 1
        let length: Int
        switch pending[i] {
        case H4PacketType.command, H4PacketType.sco: length = Int(pending[h + 2])
        case H4PacketType.event: length = Int(pending[h + 1])
        case H4PacketType.acl: length = Int(pending[h + 2]) | Int(pending[h + 3]) << 8
        default: length = (Int(pending[h + 2]) | Int(pending[h + 3]) << 8) & 0x3FFF
        }
        return 1 + header + length
    }

    static func headerLength(_ type: UInt8) -> Int? {
        switch type {
        case H4PacketType.command, H4PacketType.sco: return 3
        case H4PacketType.acl, H4PacketType.iso: return 4
        case H4PacketType.event: return 2
        default: return nil
        }
    }
}

private func hex2(_ v: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(v >> 4)], digits[Int(v & 0xF)]])
}
