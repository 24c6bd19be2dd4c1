import ScopeCore

/// An L2CAP channel identifier (Core v5.4, Vol 3, Part A, §2.1, Tables 2.1 and 2.2).
///
/// Fixed channels have names; 0x0040 and above are dynamically allocated (on LE-U only
/// 0x0040–0x007F) and describe themselves as "Dynamic (0x0041)". Everything else is
/// "Unknown (0xNNNN)".
public struct ChannelID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// 0x0000: never used as a destination.
    public static let null = ChannelID(0x0000)
    /// 0x0001: BR/EDR L2CAP signaling channel (ACL-U).
    public static let signaling = ChannelID(0x0001)
    /// 0x0002: connectionless channel (G-frames, ACL-U).
    public static let connectionless = ChannelID(0x0002)
    /// 0x0003: AMP Manager Protocol (withdrawn with AMP in Core v5.3; still seen in old logs).
    public static let ampManager = ChannelID(0x0003)
    /// 0x0004: Attribute Protocol (LE-U; on BR/EDR ATT runs over a dynamic channel, PSM 0x001F).
    public static let att = ChannelID(0x0004)
    /// 0x0005: LE L2CAP signaling channel (LE-U).
    public static let leSignaling = ChannelID(0x0005)
    /// 0x0006: Security Manager Protocol (LE-U).
    public static let smp = ChannelID(0x0006)
    /// 0x0007: BR/EDR Security Manager (ACL-U, cross-transport key derivation).
    public static let bredrSMP = ChannelID(0x0007)
    /// 0x003F: AMP Test Manager (withdrawn with AMP).
    public static let ampTestManager = ChannelID(0x003F)

    /// First dynamically allocated CID (both transports).
    public static let firstDynamic: UInt16 = 0x0040
    /// Last dynamically allocated CID on LE-U.
    public static let lastLEDynamic: UInt16 = 0x007F

    /// Names of the fixed channels, in the Core spec's words.
    static let names: [UInt16: String] = [
        0x0000: "Null Identifier",
        0x0001: "L2CAP Signaling Channel",
        0x0002: "Connectionless Channel",
        0x0003: "AMP Manager Protocol",
        0x0004: "Attribute Protocol",
        0x0005: "LE L2CAP Signaling Channel",
        0x0006: "Security Manager Protocol",
        0x0007: "BR/EDR Security Manager",
        0x003F: "AMP Test Manager",
    ]

    /// The fixed channel's name, or nil (dynamic or reserved CIDs).
    public var name: String? { ChannelID.names[rawValue] }

    /// True for 0x0040 and above (dynamically allocated on ACL-U; on LE-U 0x0040–0x007F).
    public var isDynamic: Bool { rawValue >= ChannelID.firstDynamic }

    /// True for the two signaling channels (0x0001 BR/EDR, 0x0005 LE).
    public var isSignaling: Bool { rawValue == 0x0001 || rawValue == 0x0005 }

    public var description: String {
        if let name { return named(name, rawValue, digits: 4) }
        if isDynamic { return named("Dynamic", rawValue, digits: 4) }
        return named(nil, rawValue, digits: 4)
    }
}

/// A Protocol/Service Multiplexer (BR/EDR PSM) or LE SPSM, as carried in L2CAP connection
/// requests (Core v5.4, Vol 3, Part A, §4.2 and §4.22; values from Assigned Numbers §2.4
/// "Protocol and Service Multiplexers"). Open value set; dynamic PSMs (≥ 0x1001 on BR/EDR,
/// ≥ 0x0080 on LE) have no name.
public struct PSM: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let sdp = PSM(0x0001)
    public static let rfcomm = PSM(0x0003)
    public static let tcsBIN = PSM(0x0005)
    public static let tcsBINCordless = PSM(0x0007)
    public static let bnep = PSM(0x000F)
    public static let hidControl = PSM(0x0011)
    public static let hidInterrupt = PSM(0x0013)
    public static let upnp = PSM(0x0015)
    public static let avctp = PSM(0x0017)
    public static let avdtp = PSM(0x0019)
    public static let avctpBrowsing = PSM(0x001B)
    public static let udiCPlane = PSM(0x001D)
    public static let att = PSM(0x001F)
    public static let threeDSP = PSM(0x0021)
    public static let ipsp = PSM(0x0023)
    public static let ots = PSM(0x0025)
    public static let eatt = PSM(0x0027)

    static let names: [UInt16: String] = [
        0x0001: "SDP",
        0x0003: "RFCOMM",
        0x0005: "TCS-BIN",
        0x0007: "TCS-BIN-CORDLESS",
        0x000F: "BNEP",
        0x0011: "HID Control",
        0x0013: "HID Interrupt",
        0x0015: "UPnP",
        0x0017: "AVCTP",
        0x0019: "AVDTP",
        0x001B: "AVCTP Browsing",
        0x001D: "UDI_C-Plane",
        0x001F: "ATT",
        0x0021: "3DSP",
        0x0023: "LE_PSM_IPSP",
        0x0025: "OTS",
        0x0027: "EATT",
    ]

    public var name: String? { PSM.names[rawValue] }
    public var description: String { named(name, rawValue, digits: 4) }
}
