import ScopeCore

/// Every capture format hciscope reads, named by container and link type / datalink
/// (FORMATS.md §1, §3, §4). The raw value is the spelling used on the command line.
public enum CaptureFormat: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    /// btsnoop, datalink 1001 (H1: bare HCI packets, kind from the flags).
    case btsnoopH1 = "btsnoop-1001"
    /// btsnoop, datalink 1002 (H4: UART type byte + HCI packet). Android's default.
    case btsnoopH4 = "btsnoop-1002"
    /// btsnoop, datalink 2001 (Linux monitor; index and opcode in the flags). `btmon -w`.
    case btsnoopMonitor = "btsnoop-2001"
    /// pcap, LINKTYPE_BLUETOOTH_HCI_H4 (187): H4, no direction.
    case pcapH4 = "pcap-187"
    /// pcap, LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR (201): 4-byte direction word + H4.
    case pcapH4PHDR = "pcap-201"
    /// pcap, LINKTYPE_BLUETOOTH_LINUX_MONITOR (254): {adapter, opcode} big-endian + payload.
    case pcapMonitor = "pcap-254"
    case pcapngH4 = "pcapng-187"
    case pcapngH4PHDR = "pcapng-201"
    case pcapngMonitor = "pcapng-254"
    /// Apple PacketLogger, classic big-endian records.
    case pklgBE = "pklg-be"
    /// Apple PacketLogger, little-endian records (newer PacketLogger / iOS).
    case pklgLE = "pklg-le"

    public enum Container: String, Sendable, Hashable {
        case btsnoop, pcap, pcapng, packetLogger = "pklg"
    }

    /// How the payload of a record is framed, independent of the container.
    enum Encapsulation: Sendable, Hashable {
        /// btsnoop 1001: bare packets, kind and direction in the flags.
        case h1
        /// btsnoop 1002: H4 type byte + packet, direction in the flags.
        case h4
        /// pcap/pcapng 187: H4 type byte + packet, no direction anywhere.
        case h4WithoutDirection
        /// pcap/pcapng 201: direction word + H4 type byte + packet.
        case h4WithDirection
        case monitor, packetLogger
    }

    public var container: Container {
        switch self {
        case .btsnoopH1, .btsnoopH4, .btsnoopMonitor: return .btsnoop
        case .pcapH4, .pcapH4PHDR, .pcapMonitor: return .pcap
        case .pcapngH4, .pcapngH4PHDR, .pcapngMonitor: return .pcapng
        case .pklgBE, .pklgLE: return .packetLogger
        }
    }

    var encapsulation: Encapsulation {
        switch self {
        case .btsnoopH1: return .h1
        case .btsnoopH4: return .h4
        case .pcapH4, .pcapngH4: return .h4WithoutDirection
        case .pcapH4PHDR, .pcapngH4PHDR: return .h4WithDirection
        case .btsnoopMonitor, .pcapMonitor, .pcapngMonitor: return .monitor
        case .pklgBE, .pklgLE: return .packetLogger
        }
    }

    /// The btsnoop datalink (1001, 1002, 2001), or nil.
    public var btsnoopDatalink: UInt32? {
        switch self {
        case .btsnoopH1: return 1001
        case .btsnoopH4: return 1002
        case .btsnoopMonitor: return 2001
        default: return nil
        }
    }

    /// The pcap/pcapng LINKTYPE (187, 201, 254), or nil.
    public var linkType: UInt32? {
        switch self {
        case .pcapH4, .pcapngH4: return LinkType.bluetoothHCIH4
        case .pcapH4PHDR, .pcapngH4PHDR: return LinkType.bluetoothHCIH4WithPHDR
        case .pcapMonitor, .pcapngMonitor: return LinkType.bluetoothLinuxMonitor
        default: return nil
        }
    }

    /// "btsnoop 1002 (HCI UART H4)", "pcap LINKTYPE 201 (BLUETOOTH_HCI_H4_WITH_PHDR)", …
    public var description: String {
        switch self {
        case .btsnoopH1: return "btsnoop 1001 (HCI H1)"
        case .btsnoopH4: return "btsnoop 1002 (HCI UART H4)"
        case .btsnoopMonitor: return "btsnoop 2001 (Linux monitor)"
        case .pcapH4, .pcapH4PHDR, .pcapMonitor, .pcapngH4, .pcapngH4PHDR, .pcapngMonitor:
            let t = linkType ?? 0
            return "\(container.rawValue) LINKTYPE \(t) (\(LinkType.name(t) ?? "?"))"
        case .pklgBE: return "PacketLogger (big-endian)"
        case .pklgLE: return "PacketLogger (little-endian)"
        }
    }

    /// Formats hciscope can write: btsnoop 1002 and 2001, pcap 201 and 254 (through libpcap's
    /// dumper), PacketLogger in both byte orders.
    public var isWritable: Bool {
        switch self {
        case .btsnoopH4, .btsnoopMonitor, .pcapH4PHDR, .pcapMonitor, .pklgBE, .pklgLE: return true
        default: return false
        }
    }

    /// The usual file name extension when writing this format.
    public var fileExtension: String {
        switch container {
        case .btsnoop: return "btsnoop"
        case .pcap: return "pcap"
        case .pcapng: return "pcapng"
        case .packetLogger: return "pklg"
        }
    }

    /// Whether a record of `kind` travelling in `direction` survives a round trip through this
    /// format: it reads back with the same kind, and with the same direction when the
    /// direction was known. Commands and events carry their direction implicitly (a command is
    /// sent, an event received), so `.unknown` is fine for them, but an explicit contrary
    /// direction is not representable where the format has no direction of its own. Data
    /// packets (ACL, SCO, ISO, …) with an unknown direction are not representable in formats
    /// that always record one (the writer would have to invent it).
    public func canRepresent(_ kind: RecordKind, direction: Direction) -> Bool {
        // Formats whose direction is implied by the kind: a command is sent, an event received.
        func impliedOK() -> Bool {
            switch kind {
            case .command: return direction != .received
            case .event: return direction != .sent
            default: return direction != .unknown
            }
        }
        switch encapsulation {
        case .h1:
            switch kind {
            case .command, .event: return impliedOK()
            case .acl: return direction != .unknown
            default: return false
            }
        case .h4WithoutDirection:
            // pcap 187 records no direction: only commands and events come back with one.
            guard H4PacketType.type(for: kind) != nil else { return false }
            switch kind {
            case .command: return direction != .received
            case .event: return direction != .sent
            default: return direction == .unknown
            }
        case .h4, .h4WithDirection:
            guard H4PacketType.type(for: kind) != nil else { return false }
            switch kind {
            case .command, .event: return true
            default: return direction != .unknown
            }
        case .monitor:
            guard MonitorOpcode.opcode(for: kind, direction: direction) != nil else { return false }
            switch kind {
            case .command, .event: return impliedOK()
            case .acl, .sco, .iso, .driver, .socketData: return direction != .unknown
            default: return true
            }
        case .packetLogger:
            switch kind {
            case .command, .event, .acl, .sco, .iso, .lmp: return impliedOK()
            case .systemNote, .packetLoggerText, .unknownPacketLogger: return true
            default: return false
            }
        }
    }
}

/// pcap/pcapng LINKTYPE values that concern Bluetooth (FORMATS.md §3).
public enum LinkType {
    public static let bluetoothHCIH4: UInt32 = 187
    public static let bluetoothHCIH4WithPHDR: UInt32 = 201
    public static let bluetoothLELL: UInt32 = 251
    public static let bluetoothLinuxMonitor: UInt32 = 254
    public static let bluetoothBREDRBB: UInt32 = 255
    public static let bluetoothLELLWithPHDR: UInt32 = 256
    public static let nordicBLE: UInt32 = 272

    /// The LINKTYPE_ name without its prefix, for the Bluetooth link types.
    public static func name(_ linkType: UInt32) -> String? {
        switch linkType {
        case bluetoothHCIH4: return "BLUETOOTH_HCI_H4"
        case bluetoothHCIH4WithPHDR: return "BLUETOOTH_HCI_H4_WITH_PHDR"
        case bluetoothLELL: return "BLUETOOTH_LE_LL"
        case bluetoothLinuxMonitor: return "BLUETOOTH_LINUX_MONITOR"
        case bluetoothBREDRBB: return "BLUETOOTH_BREDR_BB"
        case bluetoothLELLWithPHDR: return "BLUETOOTH_LE_LL_WITH_PHDR"
        case nordicBLE: return "NORDIC_BLE"
        default: return nil
        }
    }

    /// True for the air-interface sniffer link types (their records are radio PDUs, not HCI).
    public static func isLinkLayerSniffer(_ linkType: UInt32) -> Bool {
        switch linkType {
        case bluetoothLELL, bluetoothBREDRBB, bluetoothLELLWithPHDR, nordicBLE: return true
        default: return false
        }
    }

    /// The format for an HCI link type in the given container, or a ``CaptureError`` that
    /// names the link type.
    static func format(_ linkType: UInt32, pcapng: Bool, file: String? = nil) throws(CaptureError) -> CaptureFormat {
        switch linkType {
        case bluetoothHCIH4: return pcapng ? .pcapngH4 : .pcapH4
        case bluetoothHCIH4WithPHDR: return pcapng ? .pcapngH4PHDR : .pcapH4PHDR
        case bluetoothLinuxMonitor: return pcapng ? .pcapngMonitor : .pcapMonitor
        default:
            let container = pcapng ? "pcapng" : "pcap"
            if let name = name(linkType), isLinkLayerSniffer(linkType) {
                throw CaptureError(
                    .notHCI(linkType: linkType), file: file, offset: nil,
                    message: "link type \(linkType) (\(name)) is a link-layer sniffer capture, not HCI")
            }
            throw CaptureError(
                .notHCI(linkType: linkType), file: file, offset: nil,
                message: "\(container) link type \(linkType) is not a Bluetooth HCI link type "
                    + "(readable: 187 BLUETOOTH_HCI_H4, 201 BLUETOOTH_HCI_H4_WITH_PHDR, 254 BLUETOOTH_LINUX_MONITOR)")
        }
    }
}
