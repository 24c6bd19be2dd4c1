import ScopeCore

/// HCI Synchronous Data packet header (Core v5.4, Vol 4, Part E, §5.4.3).
public struct SCOHeader: Sendable, Hashable {
    public var handle: UInt16
    /// Packet_Status_Flag (2 bits): 0 correctly received, 1 possibly invalid, 2 no data, 3 partially lost.
    public var packetStatus: UInt8
    public var dataLength: Int

    public static func decode(_ payload: [UInt8]) -> (SCOHeader?, [Malformation]) {
        var r = ByteReader(payload, layer: .sco)
        do {
            let word = try r.readLE16()
            let length = Int(try r.readU8())
            let header = SCOHeader(handle: word & 0x0FFF, packetStatus: UInt8((word >> 12) & 0x3), dataLength: length)
            var problems: [Malformation] = []
            if r.remaining != length {
                problems.append(Malformation(layer: .sco, offset: 3, message: "data length \(length) but \(r.remaining) bytes present"))
            }
            return (header, problems)
        } catch {
            return (nil, [Malformation(error)])
        }
    }

    public var summary: String { "Handle \(handle) flags \(Hex.prefixed(packetStatus, digits: 2)) dlen \(dataLength)" }
}

/// HCI ISO Data packet header (Core v5.4, Vol 4, Part E, §5.4.5).
public struct ISOHeader: Sendable, Hashable {
    public var handle: UInt16
    /// PB_Flag: 0 first fragment, 1 continuation, 2 complete SDU, 3 last fragment.
    public var packetBoundary: UInt8
    /// TS_Flag: a Time_Stamp field is present.
    public var hasTimestamp: Bool
    public var dataLength: Int

    public static func decode(_ payload: [UInt8]) -> (ISOHeader?, [Malformation]) {
        var r = ByteReader(payload, layer: .iso)
        do {
            let word = try r.readLE16()
            let length = Int(try r.readLE16() & 0x3FFF)
            let header = ISOHeader(
                handle: word & 0x0FFF, packetBoundary: UInt8((word >> 12) & 0x3), hasTimestamp: (word >> 14) & 1 == 1,
                dataLength: length)
            var problems: [Malformation] = []
            if r.remaining != length {
                problems.append(Malformation(layer: .iso, offset: 4, message: "data length \(length) but \(r.remaining) bytes present"))
            }
            return (header, problems)
        } catch {
            return (nil, [Malformation(error)])
        }
    }

    public var summary: String {
        "Handle \(handle) flags \(Hex.prefixed(packetBoundary | (hasTimestamp ? 4 : 0), digits: 2)) dlen \(dataLength)"
    }
}
