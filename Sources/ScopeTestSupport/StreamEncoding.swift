import ScopeCore

/// Test-side encoders for the byte streams embedded stacks send, written from the layouts in
/// BlueZ's monitor/tty.h and Zephyr's subsys/bluetooth/host/monitor.{c,h} (independently of the
/// decoder under test): real frames go in, a stream comes out.
package enum StreamEncoding {
    /// One monitor-protocol frame as Zephyr's `encode_hdr` lays it out: data_len (counting
    /// everything after itself), opcode, flags 0, hdr_len, then TS32 first (type 8, 1/10 ms), then
    /// `{type, count}` drop items, then the payload.
    package static func monitorFrame(opcode: UInt16, payload: [UInt8], ts32: UInt32?, drops: [(type: UInt8, count: UInt8)] = []) -> [UInt8] {
        var ext: [UInt8] = []
        if let ts32 { ext += [8, UInt8(ts32 & 0xFF), UInt8(ts32 >> 8 & 0xFF), UInt8(ts32 >> 16 & 0xFF), UInt8(ts32 >> 24)] }
        for d in drops { ext += [d.type, d.count] }
        let dataLength = 4 + ext.count + payload.count
        return [UInt8(dataLength & 0xFF), UInt8(dataLength >> 8), UInt8(opcode & 0xFF), UInt8(opcode >> 8), 0, UInt8(ext.count)]
            + ext + payload
    }

    /// One H4 packet: the type byte, then the HCI packet.
    package static func h4Packet(kind: RecordKind, payload: [UInt8]) -> [UInt8]? {
        guard let type = H4PacketType.type(for: kind) else { return nil }
        return [type] + payload
    }
}
