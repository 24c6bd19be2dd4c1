import ScopeCore

/// The Packet_Boundary_Flag of an HCI ACL Data packet (Core v5.4, Vol 4, Part E, §5.4.2).
/// Two bits; every value has a name, but the type stays open like every wire code.
public struct ACLPacketBoundary: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0b11 }

    /// 0b00: first fragment of a non-automatically-flushable L2CAP PDU (host → controller; LE).
    public static let firstNonFlushable = ACLPacketBoundary(rawValue: 0b00)
    /// 0b01: continuing fragment.
    public static let continuing = ACLPacketBoundary(rawValue: 0b01)
    /// 0b10: first fragment of an automatically flushable L2CAP PDU.
    public static let firstFlushable = ACLPacketBoundary(rawValue: 0b10)
    /// 0b11: a complete automatically-flushable L2CAP PDU (AMP only; deprecated). Treated as a start.
    public static let complete = ACLPacketBoundary(rawValue: 0b11)

    public var name: String? {
        switch rawValue {
        case 0b00: return "First Non-automatically-flushable Packet"
        case 0b01: return "Continuing Fragment"
        case 0b10: return "First Automatically Flushable Packet"
        default: return "Complete L2CAP PDU"
        }
    }

    /// True for every value that begins an L2CAP PDU (0b00, 0b10 and 0b11).
    public var isStart: Bool { rawValue != 0b01 }

    public var description: String { named(name, rawValue, digits: 1) }
}

/// The Broadcast_Flag of an HCI ACL Data packet (Core v5.4, Vol 4, Part E, §5.4.2).
public struct ACLBroadcastFlag: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0b11 }

    /// 0b00: point-to-point (ACL-U or LE-U).
    public static let pointToPoint = ACLBroadcastFlag(rawValue: 0b00)
    /// 0b01: BR/EDR broadcast (APB-U).
    public static let bredrBroadcast = ACLBroadcastFlag(rawValue: 0b01)

    /// nil for the two reserved values.
    public var name: String? {
        switch rawValue {
        case 0b00: return "Point-to-point"
        case 0b01: return "BR/EDR Broadcast"
        default: return nil
        }
    }

    public var description: String { named(name, rawValue, digits: 1) }
}

/// The 4-byte header of an HCI ACL Data packet (Core v5.4, Vol 4, Part E, §5.4.2).
///
///     bit 0          12    14    16                32
///         | Handle   | PB  | BC  | Data_Total_Length |   (two little-endian 16-bit words)
///
/// Record payloads of kind `.acl` start with this header (no H4 type byte).
public struct ACLHeader: Sendable, Hashable {
    /// Size of the header in bytes.
    public static let size = 4
    /// The connection handle that Android, Broadcom and Qualcomm controllers use for vendor
    /// debug traffic (controller logs, "HCI snoop" of LMP/LL state) carried as ACL data.
    public static let vendorDebugHandle: UInt16 = 0x0EDC

    /// Connection handle, 12 bits (0x000–0xEFF valid; 0xF00–0xFFF reserved).
    public var handle: UInt16
    public var packetBoundary: ACLPacketBoundary
    public var broadcast: ACLBroadcastFlag
    /// Data_Total_Length: bytes of data announced after the header.
    public var dataLength: UInt16

    public init(handle: UInt16, packetBoundary: ACLPacketBoundary, broadcast: ACLBroadcastFlag, dataLength: UInt16) {
        self.handle = handle & 0x0FFF
        self.packetBoundary = packetBoundary
        self.broadcast = broadcast
        self.dataLength = dataLength
    }

    /// Reads the header from the first 4 bytes of `payload`. Throws `.truncated` (offset 0,
    /// layer `.acl`) when fewer than 4 bytes are present; never looks past them.
    public static func parse(_ payload: [UInt8]) throws(DecodeError) -> ACLHeader {
        var reader = ByteReader(payload, layer: .acl)
        let word = try reader.readLE16()
        let length = try reader.readLE16()
        return ACLHeader(
            handle: word & 0x0FFF,
            packetBoundary: ACLPacketBoundary(rawValue: UInt8(truncatingIfNeeded: word >> 12)),
            broadcast: ACLBroadcastFlag(rawValue: UInt8(truncatingIfNeeded: word >> 14)),
            dataLength: length)
    }

    /// True when the handle is 0x0EDC, which Android/Broadcom/Qualcomm controllers use for
    /// vendor debug data rather than a real connection. Its content is not L2CAP: tshark decodes
    /// it as L2CAP anyway and reports bogus signaling/SMP/ATT (e.g. zabbits, Swastik36, wangdalian
    /// files in the corpus). This type only flags the handle; the dissector decides whether to
    /// skip reassembly for it (a real connection could in principle be given 0x0EDC, so the
    /// decision belongs where connection setup is known).
    public var isLikelyVendorDebug: Bool { ACLHeader.isVendorHandle(handle) }

    /// The largest connection handle the Core specification gives a connection (Vol 4, Part E,
    /// 5.4.2: 0x0000–0x0EFF; 0x0F00–0x0FFF are reserved).
    public static let maximumConnectionHandle: UInt16 = 0x0EFF

    /// 0x0EDC, or a handle in the reserved range above 0x0EFF: controllers send vendor data there
    /// (the nick0451 corpus log's Samsung phone sends hundreds of 900-byte packets on 0x0FF1,
    /// which tshark shows as bare HCI ACL with no L2CAP).
    public static func isVendorHandle(_ handle: UInt16) -> Bool {
        handle == vendorDebugHandle || handle > maximumConnectionHandle
    }

    /// btmon's spelling: "Handle 0x0040 flags 0x02 dlen 11" (flags = PB | BC << 2); the
    /// packet boundary is spelled out in `fields`.
    public var summary: String {
        "Handle \(Hex.prefixed(handle, digits: 4)) flags \(Hex.prefixed(packetBoundary.rawValue | broadcast.rawValue << 2, digits: 2)) dlen \(dataLength)"
    }

    public var fields: [Field] {
        [
            Field(
                "Connection Handle", Hex.prefixed(handle, digits: 4) + (isLikelyVendorDebug ? " (vendor debug)" : "")),
            Field("Packet Boundary Flag", packetBoundary.description),
            Field("Broadcast Flag", broadcast.description),
            Field("Data Total Length", String(dataLength)),
        ]
    }
}

/// One HCI ACL Data packet as found in a record: its header (when at least 4 bytes are present),
/// the data bytes present, and what is wrong with it.
public struct ACLPacket: Sendable, Hashable {
    public var header: ACLHeader?
    /// The data after the header that is present, at most `dataLength` bytes.
    public var data: [UInt8]
    /// Announced data bytes that are not in the record.
    public var missingBytes: Int
    /// True when the record was cut by the capture (its original length is larger than what was
    /// saved), as Android "filtered" snoop logs do: not the packet's fault.
    public var isCaptureTruncated: Bool
    public var malformed: [Malformation]

    public init(
        header: ACLHeader?, data: [UInt8], missingBytes: Int, isCaptureTruncated: Bool, malformed: [Malformation]
    ) {
        self.header = header
        self.data = data
        self.missingBytes = missingBytes
        self.isCaptureTruncated = isCaptureTruncated
        self.malformed = malformed
    }

    /// Splits an ACL record payload into header and data.
    ///
    /// - Parameters:
    ///   - payload: the record payload (HCI ACL packet without H4 byte).
    ///   - originalLength: the record's original length when known; when it exceeds
    ///     `payload.count` the capture cut the packet and shortness is reported as
    ///     "truncated capture (N of M bytes)" rather than as a malformed packet.
    ///
    /// Shortness (fewer bytes than the header or than Data_Total_Length) and trailing bytes
    /// become malformations at layer `.acl`; nothing traps.
    public static func decode(_ payload: [UInt8], originalLength: Int? = nil) -> ACLPacket {
        let cut = (originalLength ?? payload.count) > payload.count
        return decode(payload, captureTruncated: cut, originalLength: originalLength)
    }

    /// As ``decode(_:originalLength:)`` with only a flag for "the capture cut this record"; the
    /// original length is then taken to be header + Data_Total_Length.
    public static func decode(_ payload: [UInt8], captureTruncated: Bool) -> ACLPacket {
        decode(payload, captureTruncated: captureTruncated, originalLength: nil)
    }

    static func decode(_ payload: [UInt8], captureTruncated: Bool, originalLength: Int?) -> ACLPacket {
        let header: ACLHeader
        do {
            header = try ACLHeader.parse(payload)
        } catch {
            let message: String
            if captureTruncated {
                let of = originalLength.map { " of \($0)" } ?? ""
                message = "truncated capture (\(payload.count)\(of) bytes): ACL header incomplete"
            } else {
                message = "ACL header truncated: \(payload.count) of \(ACLHeader.size) bytes"
            }
            return ACLPacket(
                header: nil, data: [], missingBytes: 0, isCaptureTruncated: captureTruncated,
                malformed: [Malformation(layer: .acl, offset: 0, message: message)])
        }
        let announced = Int(header.dataLength)
        let present = payload.count - ACLHeader.size
        var malformed: [Malformation] = []
        let take = min(announced, present)
        let missing = announced - take
        if missing > 0 {
            if captureTruncated {
                let total = originalLength ?? (ACLHeader.size + announced)
                malformed.append(
                    Malformation(
                        layer: .acl, offset: payload.count,
                        message: "truncated capture (\(payload.count) of \(total) bytes)"))
            } else {
                malformed.append(
                    Malformation(
                        layer: .acl, offset: payload.count,
                        message:
                            "ACL data length \(announced) exceeds the \(present) bytes present (\(missing) missing)"))
            }
        } else if present > announced {
            let extra = present - announced
            malformed.append(
                Malformation(
                    layer: .acl, offset: ACLHeader.size + announced,
                    message: "\(extra) trailing byte\(extra == 1 ? "" : "s") after the ACL data (length \(announced))"))
        }
        let data = Array(payload[ACLHeader.size..<(ACLHeader.size + take)])
        return ACLPacket(
            header: header, data: data, missingBytes: missing, isCaptureTruncated: captureTruncated && missing > 0,
            malformed: malformed)
    }
}
