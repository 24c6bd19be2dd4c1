import ScopeCore

/// The subevent code carried as the first parameter of the HCI LE Meta event (0x3E)
/// (Core v5.4, Vol 4, Part E, §7.7.65). An open value set: unknown codes render as
/// "Unknown (0x4a)".
public struct LESubevent: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The spec name ("LE Connection Complete"), or nil when unknown.
    public var name: String? { Self.names[rawValue] }

    /// "LE Extended Advertising Report (0x0d)".
    public var description: String { named(name, rawValue, digits: 2) }

    public static func < (a: LESubevent, b: LESubevent) -> Bool { a.rawValue < b.rawValue }

    static let names: [UInt8: String] = {
        var out: [UInt8: String] = [:]
        for (code, name) in table + tableV6 where out[code] == nil { out[code] = name }
        return out
    }()
}

extension LESubevent {
    public static let connectionComplete = LESubevent(rawValue: 0x01)
    public static let advertisingReport = LESubevent(rawValue: 0x02)
    public static let connectionUpdateComplete = LESubevent(rawValue: 0x03)
    public static let readRemoteFeaturesComplete = LESubevent(rawValue: 0x04)
    public static let longTermKeyRequest = LESubevent(rawValue: 0x05)
    public static let remoteConnectionParameterRequest = LESubevent(rawValue: 0x06)
    public static let dataLengthChange = LESubevent(rawValue: 0x07)
    public static let readLocalP256PublicKeyComplete = LESubevent(rawValue: 0x08)
    public static let generateDHKeyComplete = LESubevent(rawValue: 0x09)
    public static let enhancedConnectionCompleteV1 = LESubevent(rawValue: 0x0A)
    public static let directedAdvertisingReport = LESubevent(rawValue: 0x0B)
    public static let phyUpdateComplete = LESubevent(rawValue: 0x0C)
    public static let extendedAdvertisingReport = LESubevent(rawValue: 0x0D)
    public static let periodicAdvertisingSyncEstablishedV1 = LESubevent(rawValue: 0x0E)
    public static let periodicAdvertisingReportV1 = LESubevent(rawValue: 0x0F)
    public static let periodicAdvertisingSyncLost = LESubevent(rawValue: 0x10)
    public static let scanTimeout = LESubevent(rawValue: 0x11)
    public static let advertisingSetTerminated = LESubevent(rawValue: 0x12)
    public static let scanRequestReceived = LESubevent(rawValue: 0x13)
    public static let channelSelectionAlgorithm = LESubevent(rawValue: 0x14)
    public static let cisEstablished = LESubevent(rawValue: 0x19)
    public static let cisRequest = LESubevent(rawValue: 0x1A)
    public static let subrateChange = LESubevent(rawValue: 0x23)
    public static let enhancedConnectionCompleteV2 = LESubevent(rawValue: 0x29)

    /// Every LE Meta subevent of Core v5.4, Vol 4, Part E, §7.7.65 (0x01–0x29).
    static let table: [(UInt8, String)] = [
        (0x01, "LE Connection Complete"),
        (0x02, "LE Advertising Report"),
        (0x03, "LE Connection Update Complete"),
        (0x04, "LE Read Remote Features Complete"),
        (0x05, "LE Long Term Key Request"),
        (0x06, "LE Remote Connection Parameter Request"),
        (0x07, "LE Data Length Change"),
        (0x08, "LE Read Local P-256 Public Key Complete"),
        (0x09, "LE Generate DHKey Complete"),
        (0x0A, "LE Enhanced Connection Complete [v1]"),
        (0x0B, "LE Directed Advertising Report"),
        (0x0C, "LE PHY Update Complete"),
        (0x0D, "LE Extended Advertising Report"),
        (0x0E, "LE Periodic Advertising Sync Established [v1]"),
        (0x0F, "LE Periodic Advertising Report [v1]"),
        (0x10, "LE Periodic Advertising Sync Lost"),
        (0x11, "LE Scan Timeout"),
        (0x12, "LE Advertising Set Terminated"),
        (0x13, "LE Scan Request Received"),
        (0x14, "LE Channel Selection Algorithm"),
        (0x15, "LE Connectionless IQ Report"),
        (0x16, "LE Connection IQ Report"),
        (0x17, "LE CTE Request Failed"),
        (0x18, "LE Periodic Advertising Sync Transfer Received [v1]"),
        (0x19, "LE CIS Established"),
        (0x1A, "LE CIS Request"),
        (0x1B, "LE Create BIG Complete"),
        (0x1C, "LE Terminate BIG Complete"),
        (0x1D, "LE BIG Sync Established"),
        (0x1E, "LE BIG Sync Lost"),
        (0x1F, "LE Request Peer SCA Complete"),
        (0x20, "LE Path Loss Threshold"),
        (0x21, "LE Transmit Power Reporting"),
        (0x22, "LE BIGInfo Advertising Report"),
        (0x23, "LE Subrate Change"),
        (0x24, "LE Periodic Advertising Sync Established [v2]"),
        (0x25, "LE Periodic Advertising Report [v2]"),
        (0x26, "LE Periodic Advertising Sync Transfer Received [v2]"),
        (0x27, "LE Periodic Advertising Subevent Data Request"),
        (0x28, "LE Periodic Advertising Response Report"),
        (0x29, "LE Enhanced Connection Complete [v2]"),
    ]

    /// Subevents added by Core v6.0 (0x2A–0x35). Named for newer controllers; not part of the
    /// v5.4 completeness count.
    static let tableV6: [(UInt8, String)] = [
        (0x2A, "LE Read All Remote Features Complete"),
        (0x2B, "LE CIS Established [v2]"),
        (0x2C, "LE CS Read Remote Supported Capabilities Complete"),
        (0x2D, "LE CS Read Remote FAE Table Complete"),
        (0x2E, "LE CS Security Enable Complete"),
        (0x2F, "LE CS Config Complete"),
        (0x30, "LE CS Procedure Enable Complete"),
        (0x31, "LE CS Subevent Result"),
        (0x32, "LE CS Subevent Result Continue"),
        (0x33, "LE CS Test End Complete"),
        (0x34, "LE Monitored Advertisers Report"),
        (0x35, "LE Frame Space Update Complete"),
    ]
}
