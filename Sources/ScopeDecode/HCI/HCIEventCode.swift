import ScopeCore

/// An HCI event code, the first byte of every HCI Event packet (Core v5.4, Vol 4, Part E,
/// §5.4.4 and §7.7). An open value set: unknown codes render as "Unknown (0x4a)"; 0xFF is
/// reserved for vendor-specific events.
public struct HCIEventCode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The spec name ("Disconnection Complete"), or nil when unknown.
    public var name: String? { Self.names[rawValue] }

    /// "Disconnection Complete (0x05)" or "Unknown (0x4a)".
    public var description: String { named(name, rawValue, digits: 2) }

    public static func < (a: HCIEventCode, b: HCIEventCode) -> Bool { a.rawValue < b.rawValue }

    static let names: [UInt8: String] = {
        var out: [UInt8: String] = [:]
        for (code, name) in table where out[code] == nil { out[code] = name }
        return out
    }()
}

extension HCIEventCode {
    public static let inquiryComplete = HCIEventCode(rawValue: 0x01)
    public static let inquiryResult = HCIEventCode(rawValue: 0x02)
    public static let connectionComplete = HCIEventCode(rawValue: 0x03)
    public static let connectionRequest = HCIEventCode(rawValue: 0x04)
    public static let disconnectionComplete = HCIEventCode(rawValue: 0x05)
    public static let authenticationComplete = HCIEventCode(rawValue: 0x06)
    public static let remoteNameRequestComplete = HCIEventCode(rawValue: 0x07)
    public static let encryptionChangeV1 = HCIEventCode(rawValue: 0x08)
    public static let readRemoteSupportedFeaturesComplete = HCIEventCode(rawValue: 0x0B)
    public static let readRemoteVersionInformationComplete = HCIEventCode(rawValue: 0x0C)
    public static let commandComplete = HCIEventCode(rawValue: 0x0E)
    public static let commandStatus = HCIEventCode(rawValue: 0x0F)
    public static let hardwareError = HCIEventCode(rawValue: 0x10)
    public static let roleChange = HCIEventCode(rawValue: 0x12)
    public static let numberOfCompletedPackets = HCIEventCode(rawValue: 0x13)
    public static let modeChange = HCIEventCode(rawValue: 0x14)
    public static let dataBufferOverflow = HCIEventCode(rawValue: 0x1A)
    public static let inquiryResultWithRSSI = HCIEventCode(rawValue: 0x22)
    public static let extendedInquiryResult = HCIEventCode(rawValue: 0x2F)
    public static let encryptionKeyRefreshComplete = HCIEventCode(rawValue: 0x30)
    public static let leMeta = HCIEventCode(rawValue: 0x3E)
    public static let numberOfCompletedDataBlocks = HCIEventCode(rawValue: 0x48)
    public static let authenticatedPayloadTimeoutExpired = HCIEventCode(rawValue: 0x57)
    public static let encryptionChangeV2 = HCIEventCode(rawValue: 0x59)
    /// Vendor-specific debug event (Core v5.4, Vol 4, Part E, §5.4.4).
    public static let vendor = HCIEventCode(rawValue: 0xFF)

    /// Every event of Core v5.4, Vol 4, Part E, §7.7 (AMP events, removed in v5.3, are not
    /// listed), plus 0xFF for vendor-specific events.
    static let table: [(UInt8, String)] = [
        (0x01, "Inquiry Complete"),
        (0x02, "Inquiry Result"),
        (0x03, "Connection Complete"),
        (0x04, "Connection Request"),
        (0x05, "Disconnection Complete"),
        (0x06, "Authentication Complete"),
        (0x07, "Remote Name Request Complete"),
        (0x08, "Encryption Change [v1]"),
        (0x09, "Change Connection Link Key Complete"),
        (0x0A, "Link Key Type Changed"),
        (0x0B, "Read Remote Supported Features Complete"),
        (0x0C, "Read Remote Version Information Complete"),
        (0x0D, "QoS Setup Complete"),
        (0x0E, "Command Complete"),
        (0x0F, "Command Status"),
        (0x10, "Hardware Error"),
        (0x11, "Flush Occurred"),
        (0x12, "Role Change"),
        (0x13, "Number Of Completed Packets"),
        (0x14, "Mode Change"),
        (0x15, "Return Link Keys"),
        (0x16, "PIN Code Request"),
        (0x17, "Link Key Request"),
        (0x18, "Link Key Notification"),
        (0x19, "Loopback Command"),
        (0x1A, "Data Buffer Overflow"),
        (0x1B, "Max Slots Change"),
        (0x1C, "Read Clock Offset Complete"),
        (0x1D, "Connection Packet Type Changed"),
        (0x1E, "QoS Violation"),
        (0x20, "Page Scan Repetition Mode Change"),
        (0x21, "Flow Specification Complete"),
        (0x22, "Inquiry Result with RSSI"),
        (0x23, "Read Remote Extended Features Complete"),
        (0x2C, "Synchronous Connection Complete"),
        (0x2D, "Synchronous Connection Changed"),
        (0x2E, "Sniff Subrating"),
        (0x2F, "Extended Inquiry Result"),
        (0x30, "Encryption Key Refresh Complete"),
        (0x31, "IO Capability Request"),
        (0x32, "IO Capability Response"),
        (0x33, "User Confirmation Request"),
        (0x34, "User Passkey Request"),
        (0x35, "Remote OOB Data Request"),
        (0x36, "Simple Pairing Complete"),
        (0x38, "Link Supervision Timeout Changed"),
        (0x39, "Enhanced Flush Complete"),
        (0x3B, "User Passkey Notification"),
        (0x3C, "Keypress Notification"),
        (0x3D, "Remote Host Supported Features Notification"),
        (0x3E, "LE Meta"),
        (0x48, "Number Of Completed Data Blocks"),
        (0x4E, "Triggered Clock Capture"),
        (0x4F, "Synchronization Train Complete"),
        (0x50, "Synchronization Train Received"),
        (0x51, "Connectionless Peripheral Broadcast Receive"),
        (0x52, "Connectionless Peripheral Broadcast Timeout"),
        (0x53, "Truncated Page Complete"),
        (0x54, "Peripheral Page Response Timeout"),
        (0x55, "Connectionless Peripheral Broadcast Channel Map Change"),
        (0x56, "Inquiry Response Notification"),
        (0x57, "Authenticated Payload Timeout Expired"),
        (0x58, "SAM Status Change"),
        (0x59, "Encryption Change [v2]"),
        (0xFF, "Vendor"),
    ]
}
