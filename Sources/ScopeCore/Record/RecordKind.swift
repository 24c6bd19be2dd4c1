/// What a capture record holds. HCI packet kinds plus every Linux monitor opcode
/// (kernel `include/net/bluetooth/hci_mon.h`, docs FORMATS.md §2) and the PacketLogger record
/// types that have no monitor equivalent. Unknown codes are kept with their raw value, tagged
/// by the code space they came from, so nothing is lost.
public enum RecordKind: Sendable, Hashable {
    case command, event, acl, sco, iso
    case newIndex, deleteIndex, openIndex, closeIndex, indexInfo
    case vendorDiagnostic, systemNote, userLogging
    case controlOpen, controlClose, controlCommand, controlEvent
    /// "HCI driver" packets (monitor opcodes 20/21).
    case driver
    /// Copies of socket data (monitor opcodes 22/23, an RFC at the time of writing).
    case socketData
    /// PacketLogger LMP records (types 0x0A/0x0B).
    case lmp
    /// PacketLogger text records other than plain notes: 0xF7 syslog, 0xF8 kernel, 0xF9 kernel
    /// debug, 0xFA error, 0xFB power, 0xFD config, 0xFE new controller.
    case packetLoggerText(UInt8)
    /// A monitor opcode nobody defines yet (btsnoop 2001 / pcap 254).
    case unknownMonitor(UInt16)
    /// An H4 packet type outside 0x01–0x05 (btsnoop 1002 / pcap 187, 201).
    case unknownH4(UInt8)
    /// A PacketLogger record type not listed above.
    case unknownPacketLogger(UInt8)

    public var isHCI: Bool {
        switch self {
        case .command, .event, .acl, .sco, .iso: return true
        default: return false
        }
    }

    /// The JSON `kind` value: "command", "event", "acl", "sco", "iso", or the monitor opcode
    /// name in snake case.
    public var jsonName: String {
        switch self {
        case .command: return "command"
        case .event: return "event"
        case .acl: return "acl"
        case .sco: return "sco"
        case .iso: return "iso"
        case .newIndex: return "new_index"
        case .deleteIndex: return "del_index"
        case .openIndex: return "open_index"
        case .closeIndex: return "close_index"
        case .indexInfo: return "index_info"
        case .vendorDiagnostic: return "vendor_diag"
        case .systemNote: return "system_note"
        case .userLogging: return "user_logging"
        case .controlOpen: return "ctrl_open"
        case .controlClose: return "ctrl_close"
        case .controlCommand: return "ctrl_command"
        case .controlEvent: return "ctrl_event"
        case .driver: return "drv"
        case .socketData: return "sock"
        case .lmp: return "lmp"
        case .packetLoggerText(let t): return PacketLoggerText.jsonName(t)
        case .unknownMonitor: return "unknown_monitor"
        case .unknownH4: return "unknown_h4"
        case .unknownPacketLogger: return "unknown_pklg"
        }
    }

    /// Human name in btmon's spirit.
    public var name: String {
        switch self {
        case .command: return "HCI Command"
        case .event: return "HCI Event"
        case .acl: return "ACL Data"
        case .sco: return "SCO Data"
        case .iso: return "ISO Data"
        case .newIndex: return "New Index"
        case .deleteIndex: return "Delete Index"
        case .openIndex: return "Open Index"
        case .closeIndex: return "Close Index"
        case .indexInfo: return "Index Info"
        case .vendorDiagnostic: return "Vendor Diagnostic"
        case .systemNote: return "Note"
        case .userLogging: return "User Logging"
        case .controlOpen: return "Control Open"
        case .controlClose: return "Control Close"
        case .controlCommand: return "Control Command"
        case .controlEvent: return "Control Event"
        case .driver: return "Driver Packet"
        case .socketData: return "Socket Data"
        case .lmp: return "LMP"
        case .packetLoggerText(let t): return PacketLoggerText.name(t)
        case .unknownMonitor(let o): return "Unknown monitor opcode \(o)"
        case .unknownH4(let t): return "Unknown H4 packet type " + Hex.prefixed(t, digits: 2)
        case .unknownPacketLogger(let t): return "Unknown PacketLogger type " + Hex.prefixed(t, digits: 2)
        }
    }
}

/// PacketLogger text record types (FORMATS.md §4).
public enum PacketLoggerText {
    public static func name(_ type: UInt8) -> String {
        switch type {
        case 0xF7: return "Syslog"
        case 0xF8: return "Kernel"
        case 0xF9: return "Kernel Debug"
        case 0xFA: return "Error"
        case 0xFB: return "Power"
        case 0xFC: return "Note"
        case 0xFD: return "Config"
        case 0xFE: return "New Controller"
        default: return "Text " + Hex.prefixed(type, digits: 2)
        }
    }

    public static func jsonName(_ type: UInt8) -> String {
        switch type {
        case 0xF7: return "pklg_syslog"
        case 0xF8: return "pklg_kernel"
        case 0xF9: return "pklg_kernel_debug"
        case 0xFA: return "pklg_error"
        case 0xFB: return "pklg_power"
        case 0xFD: return "pklg_config"
        case 0xFE: return "pklg_new_controller"
        default: return "pklg_text"
        }
    }
}

/// Linux monitor opcodes (FORMATS.md §2) and their mapping to ``RecordKind`` + ``Direction``.
public enum MonitorOpcode {
    public static let newIndex: UInt16 = 0, deleteIndex: UInt16 = 1, commandPacket: UInt16 = 2, eventPacket: UInt16 = 3
    public static let aclTX: UInt16 = 4, aclRX: UInt16 = 5, scoTX: UInt16 = 6, scoRX: UInt16 = 7
    public static let openIndex: UInt16 = 8, closeIndex: UInt16 = 9, indexInfo: UInt16 = 10, vendorDiag: UInt16 = 11
    public static let systemNote: UInt16 = 12, userLogging: UInt16 = 13
    public static let ctrlOpen: UInt16 = 14, ctrlClose: UInt16 = 15, ctrlCommand: UInt16 = 16, ctrlEvent: UInt16 = 17
    public static let isoTX: UInt16 = 18, isoRX: UInt16 = 19, drvTX: UInt16 = 20, drvRX: UInt16 = 21
    public static let sockTX: UInt16 = 22, sockRX: UInt16 = 23

    public static func kind(for opcode: UInt16) -> (RecordKind, Direction) {
        switch opcode {
        case newIndex: return (.newIndex, .unknown)
        case deleteIndex: return (.deleteIndex, .unknown)
        case commandPacket: return (.command, .sent)
        case eventPacket: return (.event, .received)
        case aclTX: return (.acl, .sent)
        case aclRX: return (.acl, .received)
        case scoTX: return (.sco, .sent)
        case scoRX: return (.sco, .received)
        case openIndex: return (.openIndex, .unknown)
        case closeIndex: return (.closeIndex, .unknown)
        case indexInfo: return (.indexInfo, .unknown)
        case vendorDiag: return (.vendorDiagnostic, .unknown)
        case systemNote: return (.systemNote, .unknown)
        case userLogging: return (.userLogging, .unknown)
        case ctrlOpen: return (.controlOpen, .unknown)
        case ctrlClose: return (.controlClose, .unknown)
        case ctrlCommand: return (.controlCommand, .unknown)
        case ctrlEvent: return (.controlEvent, .unknown)
        case isoTX: return (.iso, .sent)
        case isoRX: return (.iso, .received)
        case drvTX: return (.driver, .sent)
        case drvRX: return (.driver, .received)
        case sockTX: return (.socketData, .sent)
        case sockRX: return (.socketData, .received)
        default: return (.unknownMonitor(opcode), .unknown)
        }
    }

    /// The monitor opcode for a kind and direction, or nil when the monitor format has none
    /// (PacketLogger-only kinds, foreign unknowns).
    public static func opcode(for kind: RecordKind, direction: Direction) -> UInt16? {
        let rx = direction == .received
        switch kind {
        case .command: return commandPacket
        case .event: return eventPacket
        case .acl: return rx ? aclRX : aclTX
        case .sco: return rx ? scoRX : scoTX
        case .iso: return rx ? isoRX : isoTX
        case .newIndex: return newIndex
        case .deleteIndex: return deleteIndex
        case .openIndex: return openIndex
        case .closeIndex: return closeIndex
        case .indexInfo: return indexInfo
        case .vendorDiagnostic: return vendorDiag
        case .systemNote: return systemNote
        case .userLogging: return userLogging
        case .controlOpen: return ctrlOpen
        case .controlClose: return ctrlClose
        case .controlCommand: return ctrlCommand
        case .controlEvent: return ctrlEvent
        case .driver: return rx ? drvRX : drvTX
        case .socketData: return rx ? sockRX : sockTX
        case .unknownMonitor(let o): return o
        case .lmp, .packetLoggerText, .unknownH4, .unknownPacketLogger: return nil
        }
    }
}

/// H4 (UART) packet type bytes (Core v5.4, Vol 4, Part A, §2).
public enum H4PacketType {
    public static let command: UInt8 = 0x01, acl: UInt8 = 0x02, sco: UInt8 = 0x03, event: UInt8 = 0x04, iso: UInt8 = 0x05

    public static func kind(for type: UInt8) -> RecordKind {
        switch type {
        case command: return .command
        case acl: return .acl
        case sco: return .sco
        case event: return .event
        case iso: return .iso
        default: return .unknownH4(type)
        }
    }

    public static func type(for kind: RecordKind) -> UInt8? {
        switch kind {
        case .command: return command
        case .acl: return acl
        case .sco: return sco
        case .event: return event
        case .iso: return iso
        case .unknownH4(let t): return t
        default: return nil
        }
    }
}
