import ScopeCore

/// The pseudo-header that precedes a record's payload under a pcap/pcapng Bluetooth link type
/// (FORMATS.md §2, §3) — written by the pcap writer (through libpcap) and the pcapng writer.
///
/// ```
/// 187 BLUETOOTH_HCI_H4            | H4 type u8 | packet …
/// 201 BLUETOOTH_HCI_H4_WITH_PHDR  | direction u32 BE (bit0 set = received) | H4 type u8 | packet …
/// 254 BLUETOOTH_LINUX_MONITOR     | adapter u16 BE | opcode u16 BE | payload …
/// ```
enum LinkTypeEncoding {
    /// The bytes to put before `record.payload` under `linkType`, or nil when the link type has
    /// no place for the record's kind (or is not one of the three above). For 254, `opcode`
    /// names the monitor opcode to use (default: ``MonitorOpcode/opcode(for:direction:)``).
    static func header(
        for record: CaptureRecord, linkType: UInt32,
        opcode: (RecordKind, Direction) -> UInt16? = MonitorOpcode.opcode(for:direction:)
    ) -> [UInt8]? {
        switch linkType {
        case LinkType.bluetoothLinuxMonitor:
            guard let op = opcode(record.kind, record.direction) else { return nil }
            return [UInt8(record.adapter >> 8), UInt8(record.adapter & 0xFF), UInt8(op >> 8), UInt8(op & 0xFF)]
        case LinkType.bluetoothHCIH4WithPHDR:
            guard let type = H4PacketType.type(for: record.kind) else { return nil }
            // An event comes from the controller unless the record says otherwise; everything
            // else is received only when the record says so.
            let received = record.kind == .event ? record.direction != .sent : record.direction == .received
            return [0, 0, 0, received ? 1 : 0, type]
        case LinkType.bluetoothHCIH4:
            guard let type = H4PacketType.type(for: record.kind) else { return nil }
            return [type]
        default:
            return nil
        }
    }

    /// The shortest packet Wireshark accepts under `linkType` (it refuses one too short for
    /// the pseudo-header): what stands for a frame with nothing to show. 201: a direction word
    /// and no H4 type (Wireshark: malformed; hciscope: not delivered, like the frame it stands
    /// for); 254: an empty System Note of no controller; 187: nothing.
    static func placeholder(linkType: UInt32) -> [UInt8] {
        switch linkType {
        case LinkType.bluetoothHCIH4WithPHDR: return [0, 0, 0, 0]
        case LinkType.bluetoothLinuxMonitor: return [0xFF, 0xFF, 0x00, UInt8(MonitorOpcode.systemNote)]
        default: return []
        }
    }
}
