import ScopeCore

/// An HCI command opcode: a 6-bit Opcode Group Field and a 10-bit Opcode Command Field, sent
/// little-endian as the first two bytes of every HCI Command packet
/// (Core v5.4, Vol 4, Part E, §5.4.1). An open value set: any 16-bit value is a valid opcode,
/// and unknown ones render as "Unknown (0x08|0x00ff)" — or "Vendor (0x3f|0x0157)" in the
/// vendor-specific group 0x3F.
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// From OGF (6 bits) and OCF (10 bits); extra bits are masked off.
    public init(ogf: UInt8, ocf: UInt16) {
        self.rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    /// Opcode Group Field (bits 15–10).
    public var ogf: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 10) }
    /// Opcode Command Field (bits 9–0).
    public var ocf: UInt16 { rawValue & 0x03FF }
    /// OGF 0x3F is reserved for vendor-specific debug commands (Core v5.4, Vol 4, Part E, §5.4.1).
    public var isVendor: Bool { ogf == 0x3F }

    /// The spec name ("LE Set Scan Enable"), or nil when the opcode is not in the table.
    /// Opcode 0x0000 is named "NOP": it only appears in Command Complete/Status events that
    /// hand out command credits (Core v5.4, Vol 4, Part E, §7.7.14).
    public var name: String? {
        if rawValue == 0 { return "NOP" }
        return Self.names[rawValue]
    }

    /// btmon style: "LE Set Scan Enable (0x08|0x000c)", "Vendor (0x3f|0x0157)",
    /// "Unknown (0x08|0x00ff)".
    public var description: String {
        let label = name ?? (isVendor ? "Vendor" : "Unknown")
        return "\(label) (\(Hex.prefixed(ogf, digits: 2))|\(Hex.prefixed(ocf, digits: 4)))"
    }

    public static func < (a: HCIOpcode, b: HCIOpcode) -> Bool { a.rawValue < b.rawValue }

    /// Opcode → name, built once from ``table``.
    static let names: [UInt16: String] = {
        var out: [UInt16: String] = [:]
        out.reserveCapacity(table.count)
        for row in table {
            let key = UInt16(row.ogf) << 10 | row.ocf
            if out[key] == nil { out[key] = row.name }
        }
        return out
    }()
}

// MARK: - Well-known opcodes (the ones the decoder and analysis refer to by name)

extension HCIOpcode {
    public static let nop = HCIOpcode(rawValue: 0x0000)

    // Link Control (OGF 0x01)
    public static let inquiry = HCIOpcode(ogf: 0x01, ocf: 0x0001)
    public static let inquiryCancel = HCIOpcode(ogf: 0x01, ocf: 0x0002)
    public static let createConnection = HCIOpcode(ogf: 0x01, ocf: 0x0005)
    public static let disconnect = HCIOpcode(ogf: 0x01, ocf: 0x0006)
    public static let createConnectionCancel = HCIOpcode(ogf: 0x01, ocf: 0x0008)
    public static let acceptConnectionRequest = HCIOpcode(ogf: 0x01, ocf: 0x0009)
    public static let rejectConnectionRequest = HCIOpcode(ogf: 0x01, ocf: 0x000A)
    public static let authenticationRequested = HCIOpcode(ogf: 0x01, ocf: 0x0011)
    public static let setConnectionEncryption = HCIOpcode(ogf: 0x01, ocf: 0x0013)
    public static let remoteNameRequest = HCIOpcode(ogf: 0x01, ocf: 0x0019)
    public static let readRemoteSupportedFeatures = HCIOpcode(ogf: 0x01, ocf: 0x001B)
    public static let readRemoteVersionInformation = HCIOpcode(ogf: 0x01, ocf: 0x001D)

    // Controller & Baseband (OGF 0x03)
    public static let setEventMask = HCIOpcode(ogf: 0x03, ocf: 0x0001)
    public static let reset = HCIOpcode(ogf: 0x03, ocf: 0x0003)
    public static let setEventFilter = HCIOpcode(ogf: 0x03, ocf: 0x0005)
    public static let writeLocalName = HCIOpcode(ogf: 0x03, ocf: 0x0013)
    public static let readLocalName = HCIOpcode(ogf: 0x03, ocf: 0x0014)
    public static let writeScanEnable = HCIOpcode(ogf: 0x03, ocf: 0x001A)
    public static let writeClassOfDevice = HCIOpcode(ogf: 0x03, ocf: 0x0024)
    public static let hostBufferSize = HCIOpcode(ogf: 0x03, ocf: 0x0033)
    public static let setEventMaskPage2 = HCIOpcode(ogf: 0x03, ocf: 0x0063)
    public static let writeLEHostSupport = HCIOpcode(ogf: 0x03, ocf: 0x006D)

    // Informational (OGF 0x04)
    public static let readLocalVersionInformation = HCIOpcode(ogf: 0x04, ocf: 0x0001)
    public static let readLocalSupportedCommands = HCIOpcode(ogf: 0x04, ocf: 0x0002)
    public static let readLocalSupportedFeatures = HCIOpcode(ogf: 0x04, ocf: 0x0003)
    public static let readBufferSize = HCIOpcode(ogf: 0x04, ocf: 0x0005)
    public static let readBDADDR = HCIOpcode(ogf: 0x04, ocf: 0x0009)

    // Status (OGF 0x05)
    public static let readRSSI = HCIOpcode(ogf: 0x05, ocf: 0x0005)
    public static let readEncryptionKeySize = HCIOpcode(ogf: 0x05, ocf: 0x0008)

    // LE Controller (OGF 0x08)
    public static let leSetEventMask = HCIOpcode(ogf: 0x08, ocf: 0x0001)
    public static let leReadBufferSize = HCIOpcode(ogf: 0x08, ocf: 0x0002)
    public static let leReadLocalSupportedFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0003)
    public static let leSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0005)
    public static let leSetAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0006)
    public static let leSetAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0008)
    public static let leSetScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0009)
    public static let leSetAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x000A)
    public static let leSetScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x000B)
    public static let leSetScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x000C)
    public static let leCreateConnection = HCIOpcode(ogf: 0x08, ocf: 0x000D)
    public static let leCreateConnectionCancel = HCIOpcode(ogf: 0x08, ocf: 0x000E)
    public static let leReadFilterAcceptListSize = HCIOpcode(ogf: 0x08, ocf: 0x000F)
    public static let leClearFilterAcceptList = HCIOpcode(ogf: 0x08, ocf: 0x0010)
    public static let leAddDeviceToFilterAcceptList = HCIOpcode(ogf: 0x08, ocf: 0x0011)
    public static let leRemoveDeviceFromFilterAcceptList = HCIOpcode(ogf: 0x08, ocf: 0x0012)
    public static let leConnectionUpdate = HCIOpcode(ogf: 0x08, ocf: 0x0013)
    public static let leReadRemoteFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0016)
    /// Called "LE Start Encryption" before Core v5.3.
    public static let leEnableEncryption = HCIOpcode(ogf: 0x08, ocf: 0x0019)
    public static let leLongTermKeyRequestReply = HCIOpcode(ogf: 0x08, ocf: 0x001A)
    public static let leLongTermKeyRequestNegativeReply = HCIOpcode(ogf: 0x08, ocf: 0x001B)
    public static let leReadSupportedStates = HCIOpcode(ogf: 0x08, ocf: 0x001C)
    public static let leSetDataLength = HCIOpcode(ogf: 0x08, ocf: 0x0022)
    public static let leReadLocalP256PublicKey = HCIOpcode(ogf: 0x08, ocf: 0x0025)
    public static let leGenerateDHKeyV1 = HCIOpcode(ogf: 0x08, ocf: 0x0026)
    public static let leAddDeviceToResolvingList = HCIOpcode(ogf: 0x08, ocf: 0x0027)
    public static let leSetAddressResolutionEnable = HCIOpcode(ogf: 0x08, ocf: 0x002D)
    public static let leReadMaximumDataLength = HCIOpcode(ogf: 0x08, ocf: 0x002F)
    public static let leReadPHY = HCIOpcode(ogf: 0x08, ocf: 0x0030)
    public static let leSetDefaultPHY = HCIOpcode(ogf: 0x08, ocf: 0x0031)
    public static let leSetPHY = HCIOpcode(ogf: 0x08, ocf: 0x0032)
    public static let leSetExtendedAdvertisingParametersV1 = HCIOpcode(ogf: 0x08, ocf: 0x0036)
    public static let leSetExtendedAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0037)
    public static let leSetExtendedScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0038)
    public static let leSetExtendedAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x0039)
    public static let leReadMaximumAdvertisingDataLength = HCIOpcode(ogf: 0x08, ocf: 0x003A)
    public static let leSetExtendedScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x0041)
    public static let leSetExtendedScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x0042)
    public static let leExtendedCreateConnectionV1 = HCIOpcode(ogf: 0x08, ocf: 0x0043)
    public static let lePeriodicAdvertisingCreateSync = HCIOpcode(ogf: 0x08, ocf: 0x0044)
    public static let leReadBufferSizeV2 = HCIOpcode(ogf: 0x08, ocf: 0x0060)
    public static let leSetExtendedAdvertisingParametersV2 = HCIOpcode(ogf: 0x08, ocf: 0x007F)
    public static let leExtendedCreateConnectionV2 = HCIOpcode(ogf: 0x08, ocf: 0x0085)
    /// Android's vendor command LE Advertising Packet Content Filter (APCF, OGF 0x3F OCF 0x157):
    /// the stack's scan filters offloaded to the controller. Not in the name table (btmon and
    /// tshark print it as a vendor command).
    public static let androidAdvertisingPacketContentFilter = HCIOpcode(ogf: 0x3F, ocf: 0x0157)
    /// Android's vendor command LE Extended Scan Parameters (OGF 0x3F OCF 0x15A; AOSP
    /// `btm_ble_set_extended_scan_params`): the scan parameters the stack sets instead of LE Set
    /// Scan Parameters on controllers that support it (intervals past 10.24 s). Not in the name
    /// table (btmon and tshark print it as a vendor command).
    public static let androidExtendedScanParameters = HCIOpcode(ogf: 0x3F, ocf: 0x015A)
    /// Android's vendor command LE Multi-Advertising (OGF 0x3F OCF 0x154; AOSP
    /// `btm_ble_multi_adv`, Broadcom's and Qualcomm's controllers before LE extended advertising):
    /// advertising instances set up and enabled by sub-command (parameters, data, scan response,
    /// random address, enable). Not in the name table (btmon and tshark print it as a vendor command).
    public static let androidMultiAdvertising = HCIOpcode(ogf: 0x3F, ocf: 0x0154)
}

// MARK: - Name table

extension HCIOpcode {
    /// One row of the opcode name table.
    struct Row: Sendable {
        let ogf: UInt8
        let ocf: UInt16
        let name: String
        init(_ ogf: UInt8, _ ocf: UInt16, _ name: String) {
            self.ogf = ogf
            self.ocf = ocf
            self.name = name
        }
    }

    /// Every command of Core v5.4, Vol 4, Part E, §7.1–§7.8, in section order, then the LE
    /// commands added by Core v6.0 (marked). Names drop the "HCI_" prefix and underscores;
    /// commands that exist in several versions carry the spec's "[vN]" suffix.
    static let table: [Row] = linkControl + linkPolicy + controllerAndBaseband + informational
        + statusParameters + testing + leController + leControllerV6

    /// §7.1 Link Control commands (OGF 0x01).
    static let linkControl: [Row] = [
        Row(0x01, 0x0001, "Inquiry"),
        Row(0x01, 0x0002, "Inquiry Cancel"),
        Row(0x01, 0x0003, "Periodic Inquiry Mode"),
        Row(0x01, 0x0004, "Exit Periodic Inquiry Mode"),
        Row(0x01, 0x0005, "Create Connection"),
        Row(0x01, 0x0006, "Disconnect"),
        Row(0x01, 0x0008, "Create Connection Cancel"),
        Row(0x01, 0x0009, "Accept Connection Request"),
        Row(0x01, 0x000A, "Reject Connection Request"),
        Row(0x01, 0x000B, "Link Key Request Reply"),
        Row(0x01, 0x000C, "Link Key Request Negative Reply"),
        Row(0x01, 0x000D, "PIN Code Request Reply"),
        Row(0x01, 0x000E, "PIN Code Request Negative Reply"),
        Row(0x01, 0x000F, "Change Connection Packet Type"),
        Row(0x01, 0x0011, "Authentication Requested"),
        Row(0x01, 0x0013, "Set Connection Encryption"),
        Row(0x01, 0x0015, "Change Connection Link Key"),
        Row(0x01, 0x0017, "Link Key Selection"),
        Row(0x01, 0x0019, "Remote Name Request"),
        Row(0x01, 0x001A, "Remote Name Request Cancel"),
        Row(0x01, 0x001B, "Read Remote Supported Features"),
        Row(0x01, 0x001C, "Read Remote Extended Features"),
        Row(0x01, 0x001D, "Read Remote Version Information"),
        Row(0x01, 0x001F, "Read Clock Offset"),
        Row(0x01, 0x0020, "Read LMP Handle"),
        Row(0x01, 0x0028, "Setup Synchronous Connection"),
        Row(0x01, 0x0029, "Accept Synchronous Connection Request"),
        Row(0x01, 0x002A, "Reject Synchronous Connection Request"),
        Row(0x01, 0x002B, "IO Capability Request Reply"),
        Row(0x01, 0x002C, "User Confirmation Request Reply"),
        Row(0x01, 0x002D, "User Confirmation Request Negative Reply"),
        Row(0x01, 0x002E, "User Passkey Request Reply"),
        Row(0x01, 0x002F, "User Passkey Request Negative Reply"),
        Row(0x01, 0x0030, "Remote OOB Data Request Reply"),
        Row(0x01, 0x0033, "Remote OOB Data Request Negative Reply"),
        Row(0x01, 0x0034, "IO Capability Request Negative Reply"),
        Row(0x01, 0x003D, "Enhanced Setup Synchronous Connection"),
        Row(0x01, 0x003E, "Enhanced Accept Synchronous Connection Request"),
        Row(0x01, 0x003F, "Truncated Page"),
        Row(0x01, 0x0040, "Truncated Page Cancel"),
        Row(0x01, 0x0041, "Set Connectionless Peripheral Broadcast"),
        Row(0x01, 0x0042, "Set Connectionless Peripheral Broadcast Receive"),
        Row(0x01, 0x0043, "Start Synchronization Train"),
        Row(0x01, 0x0044, "Receive Synchronization Train"),
        Row(0x01, 0x0045, "Remote OOB Extended Data Request Reply"),
    ]

    /// §7.2 Link Policy commands (OGF 0x02).
    static let linkPolicy: [Row] = [
        Row(0x02, 0x0001, "Hold Mode"),
        Row(0x02, 0x0003, "Sniff Mode"),
        Row(0x02, 0x0004, "Exit Sniff Mode"),
        Row(0x02, 0x0007, "QoS Setup"),
        Row(0x02, 0x0009, "Role Discovery"),
        Row(0x02, 0x000B, "Switch Role"),
        Row(0x02, 0x000C, "Read Link Policy Settings"),
        Row(0x02, 0x000D, "Write Link Policy Settings"),
        Row(0x02, 0x000E, "Read Default Link Policy Settings"),
        Row(0x02, 0x000F, "Write Default Link Policy Settings"),
        Row(0x02, 0x0010, "Flow Specification"),
        Row(0x02, 0x0011, "Sniff Subrating"),
    ]

    /// §7.3 Controller & Baseband commands (OGF 0x03).
    static let controllerAndBaseband: [Row] = [
        Row(0x03, 0x0001, "Set Event Mask"),
        Row(0x03, 0x0003, "Reset"),
        Row(0x03, 0x0005, "Set Event Filter"),
        Row(0x03, 0x0008, "Flush"),
        Row(0x03, 0x0009, "Read PIN Type"),
        Row(0x03, 0x000A, "Write PIN Type"),
        Row(0x03, 0x000D, "Read Stored Link Key"),
        Row(0x03, 0x0011, "Write Stored Link Key"),
        Row(0x03, 0x0012, "Delete Stored Link Key"),
        Row(0x03, 0x0013, "Write Local Name"),
        Row(0x03, 0x0014, "Read Local Name"),
        Row(0x03, 0x0015, "Read Connection Accept Timeout"),
        Row(0x03, 0x0016, "Write Connection Accept Timeout"),
        Row(0x03, 0x0017, "Read Page Timeout"),
        Row(0x03, 0x0018, "Write Page Timeout"),
        Row(0x03, 0x0019, "Read Scan Enable"),
        Row(0x03, 0x001A, "Write Scan Enable"),
        Row(0x03, 0x001B, "Read Page Scan Activity"),
        Row(0x03, 0x001C, "Write Page Scan Activity"),
        Row(0x03, 0x001D, "Read Inquiry Scan Activity"),
        Row(0x03, 0x001E, "Write Inquiry Scan Activity"),
        Row(0x03, 0x001F, "Read Authentication Enable"),
        Row(0x03, 0x0020, "Write Authentication Enable"),
        Row(0x03, 0x0023, "Read Class Of Device"),
        Row(0x03, 0x0024, "Write Class Of Device"),
        Row(0x03, 0x0025, "Read Voice Setting"),
        Row(0x03, 0x0026, "Write Voice Setting"),
        Row(0x03, 0x0027, "Read Automatic Flush Timeout"),
        Row(0x03, 0x0028, "Write Automatic Flush Timeout"),
        Row(0x03, 0x0029, "Read Num Broadcast Retransmissions"),
        Row(0x03, 0x002A, "Write Num Broadcast Retransmissions"),
        Row(0x03, 0x002B, "Read Hold Mode Activity"),
        Row(0x03, 0x002C, "Write Hold Mode Activity"),
        Row(0x03, 0x002D, "Read Transmit Power Level"),
        Row(0x03, 0x002E, "Read Synchronous Flow Control Enable"),
        Row(0x03, 0x002F, "Write Synchronous Flow Control Enable"),
        Row(0x03, 0x0031, "Set Controller To Host Flow Control"),
        Row(0x03, 0x0033, "Host Buffer Size"),
        Row(0x03, 0x0035, "Host Number Of Completed Packets"),
        Row(0x03, 0x0036, "Read Link Supervision Timeout"),
        Row(0x03, 0x0037, "Write Link Supervision Timeout"),
        Row(0x03, 0x0038, "Read Number Of Supported IAC"),
        Row(0x03, 0x0039, "Read Current IAC LAP"),
        Row(0x03, 0x003A, "Write Current IAC LAP"),
        Row(0x03, 0x003F, "Set AFH Host Channel Classification"),
        Row(0x03, 0x0042, "Read Inquiry Scan Type"),
        Row(0x03, 0x0043, "Write Inquiry Scan Type"),
        Row(0x03, 0x0044, "Read Inquiry Mode"),
        Row(0x03, 0x0045, "Write Inquiry Mode"),
        Row(0x03, 0x0046, "Read Page Scan Type"),
        Row(0x03, 0x0047, "Write Page Scan Type"),
        Row(0x03, 0x0048, "Read AFH Channel Assessment Mode"),
        Row(0x03, 0x0049, "Write AFH Channel Assessment Mode"),
        Row(0x03, 0x0051, "Read Extended Inquiry Response"),
        Row(0x03, 0x0052, "Write Extended Inquiry Response"),
        Row(0x03, 0x0053, "Refresh Encryption Key"),
        Row(0x03, 0x0055, "Read Simple Pairing Mode"),
        Row(0x03, 0x0056, "Write Simple Pairing Mode"),
        Row(0x03, 0x0057, "Read Local OOB Data"),
        Row(0x03, 0x0058, "Read Inquiry Response Transmit Power Level"),
        Row(0x03, 0x0059, "Write Inquiry Transmit Power Level"),
        Row(0x03, 0x005A, "Read Default Erroneous Data Reporting"),
        Row(0x03, 0x005B, "Write Default Erroneous Data Reporting"),
        Row(0x03, 0x005F, "Enhanced Flush"),
        Row(0x03, 0x0060, "Send Keypress Notification"),
        Row(0x03, 0x0063, "Set Event Mask Page 2"),
        Row(0x03, 0x0066, "Read Flow Control Mode"),
        Row(0x03, 0x0067, "Write Flow Control Mode"),
        Row(0x03, 0x0068, "Read Enhanced Transmit Power Level"),
        Row(0x03, 0x006C, "Read LE Host Support"),
        Row(0x03, 0x006D, "Write LE Host Support"),
        Row(0x03, 0x006E, "Set MWS Channel Parameters"),
        Row(0x03, 0x006F, "Set External Frame Configuration"),
        Row(0x03, 0x0070, "Set MWS Signaling"),
        Row(0x03, 0x0071, "Set MWS Transport Layer"),
        Row(0x03, 0x0072, "Set MWS Scan Frequency Table"),
        Row(0x03, 0x0073, "Set MWS_PATTERN Configuration"),
        Row(0x03, 0x0074, "Set Reserved LT_ADDR"),
        Row(0x03, 0x0075, "Delete Reserved LT_ADDR"),
        Row(0x03, 0x0076, "Set Connectionless Peripheral Broadcast Data"),
        Row(0x03, 0x0077, "Read Synchronization Train Parameters"),
        Row(0x03, 0x0078, "Write Synchronization Train Parameters"),
        Row(0x03, 0x0079, "Read Secure Connections Host Support"),
        Row(0x03, 0x007A, "Write Secure Connections Host Support"),
        Row(0x03, 0x007B, "Read Authenticated Payload Timeout"),
        Row(0x03, 0x007C, "Write Authenticated Payload Timeout"),
        Row(0x03, 0x007D, "Read Local OOB Extended Data"),
        Row(0x03, 0x007E, "Read Extended Page Timeout"),
        Row(0x03, 0x007F, "Write Extended Page Timeout"),
        Row(0x03, 0x0080, "Read Extended Inquiry Length"),
        Row(0x03, 0x0081, "Write Extended Inquiry Length"),
        Row(0x03, 0x0082, "Set Ecosystem Base Interval"),
        Row(0x03, 0x0083, "Configure Data Path"),
        Row(0x03, 0x0084, "Set Min Encryption Key Size"),
    ]

    /// §7.4 Informational parameters (OGF 0x04).
    static let informational: [Row] = [
        Row(0x04, 0x0001, "Read Local Version Information"),
        Row(0x04, 0x0002, "Read Local Supported Commands"),
        Row(0x04, 0x0003, "Read Local Supported Features"),
        Row(0x04, 0x0004, "Read Local Extended Features"),
        Row(0x04, 0x0005, "Read Buffer Size"),
        Row(0x04, 0x0009, "Read BD_ADDR"),
        Row(0x04, 0x000A, "Read Data Block Size"),
        Row(0x04, 0x000B, "Read Local Supported Codecs [v1]"),
        Row(0x04, 0x000C, "Read Local Simple Pairing Options"),
        Row(0x04, 0x000D, "Read Local Supported Codecs [v2]"),
        Row(0x04, 0x000E, "Read Local Supported Codec Capabilities"),
        Row(0x04, 0x000F, "Read Local Supported Controller Delay"),
    ]

    /// §7.5 Status parameters (OGF 0x05).
    static let statusParameters: [Row] = [
        Row(0x05, 0x0001, "Read Failed Contact Counter"),
        Row(0x05, 0x0002, "Reset Failed Contact Counter"),
        Row(0x05, 0x0003, "Read Link Quality"),
        Row(0x05, 0x0005, "Read RSSI"),
        Row(0x05, 0x0006, "Read AFH Channel Map"),
        Row(0x05, 0x0007, "Read Clock"),
        Row(0x05, 0x0008, "Read Encryption Key Size"),
        Row(0x05, 0x000C, "Get MWS Transport Layer Configuration"),
        Row(0x05, 0x000D, "Set Triggered Clock Capture"),
    ]

    /// §7.6 Testing commands (OGF 0x06).
    static let testing: [Row] = [
        Row(0x06, 0x0001, "Read Loopback Mode"),
        Row(0x06, 0x0002, "Write Loopback Mode"),
        Row(0x06, 0x0003, "Enable Device Under Test Mode"),
        Row(0x06, 0x0004, "Write Simple Pairing Debug Mode"),
        Row(0x06, 0x000A, "Write Secure Connections Test Mode"),
    ]

    /// §7.8 LE Controller commands (OGF 0x08), Core v5.4.
    static let leController: [Row] = [
        Row(0x08, 0x0001, "LE Set Event Mask"),
        Row(0x08, 0x0002, "LE Read Buffer Size [v1]"),
        Row(0x08, 0x0003, "LE Read Local Supported Features"),
        Row(0x08, 0x0005, "LE Set Random Address"),
        Row(0x08, 0x0006, "LE Set Advertising Parameters"),
        Row(0x08, 0x0007, "LE Read Advertising Physical Channel Tx Power"),
        Row(0x08, 0x0008, "LE Set Advertising Data"),
        Row(0x08, 0x0009, "LE Set Scan Response Data"),
        Row(0x08, 0x000A, "LE Set Advertising Enable"),
        Row(0x08, 0x000B, "LE Set Scan Parameters"),
        Row(0x08, 0x000C, "LE Set Scan Enable"),
        Row(0x08, 0x000D, "LE Create Connection"),
        Row(0x08, 0x000E, "LE Create Connection Cancel"),
        Row(0x08, 0x000F, "LE Read Filter Accept List Size"),
        Row(0x08, 0x0010, "LE Clear Filter Accept List"),
        Row(0x08, 0x0011, "LE Add Device To Filter Accept List"),
        Row(0x08, 0x0012, "LE Remove Device From Filter Accept List"),
        Row(0x08, 0x0013, "LE Connection Update"),
        Row(0x08, 0x0014, "LE Set Host Channel Classification"),
        Row(0x08, 0x0015, "LE Read Channel Map"),
        Row(0x08, 0x0016, "LE Read Remote Features"),
        Row(0x08, 0x0017, "LE Encrypt"),
        Row(0x08, 0x0018, "LE Rand"),
        Row(0x08, 0x0019, "LE Enable Encryption"),
        Row(0x08, 0x001A, "LE Long Term Key Request Reply"),
        Row(0x08, 0x001B, "LE Long Term Key Request Negative Reply"),
        Row(0x08, 0x001C, "LE Read Supported States"),
        Row(0x08, 0x001D, "LE Receiver Test [v1]"),
        Row(0x08, 0x001E, "LE Transmitter Test [v1]"),
        Row(0x08, 0x001F, "LE Test End"),
        Row(0x08, 0x0020, "LE Remote Connection Parameter Request Reply"),
        Row(0x08, 0x0021, "LE Remote Connection Parameter Request Negative Reply"),
        Row(0x08, 0x0022, "LE Set Data Length"),
        Row(0x08, 0x0023, "LE Read Suggested Default Data Length"),
        Row(0x08, 0x0024, "LE Write Suggested Default Data Length"),
        Row(0x08, 0x0025, "LE Read Local P-256 Public Key"),
        Row(0x08, 0x0026, "LE Generate DHKey [v1]"),
        Row(0x08, 0x0027, "LE Add Device To Resolving List"),
        Row(0x08, 0x0028, "LE Remove Device From Resolving List"),
        Row(0x08, 0x0029, "LE Clear Resolving List"),
        Row(0x08, 0x002A, "LE Read Resolving List Size"),
        Row(0x08, 0x002B, "LE Read Peer Resolvable Address"),
        Row(0x08, 0x002C, "LE Read Local Resolvable Address"),
        Row(0x08, 0x002D, "LE Set Address Resolution Enable"),
        Row(0x08, 0x002E, "LE Set Resolvable Private Address Timeout"),
        Row(0x08, 0x002F, "LE Read Maximum Data Length"),
        Row(0x08, 0x0030, "LE Read PHY"),
        Row(0x08, 0x0031, "LE Set Default PHY"),
        Row(0x08, 0x0032, "LE Set PHY"),
        Row(0x08, 0x0033, "LE Receiver Test [v2]"),
        Row(0x08, 0x0034, "LE Transmitter Test [v2]"),
        Row(0x08, 0x0035, "LE Set Advertising Set Random Address"),
        Row(0x08, 0x0036, "LE Set Extended Advertising Parameters [v1]"),
        Row(0x08, 0x0037, "LE Set Extended Advertising Data"),
        Row(0x08, 0x0038, "LE Set Extended Scan Response Data"),
        Row(0x08, 0x0039, "LE Set Extended Advertising Enable"),
        Row(0x08, 0x003A, "LE Read Maximum Advertising Data Length"),
        Row(0x08, 0x003B, "LE Read Number of Supported Advertising Sets"),
        Row(0x08, 0x003C, "LE Remove Advertising Set"),
        Row(0x08, 0x003D, "LE Clear Advertising Sets"),
        Row(0x08, 0x003E, "LE Set Periodic Advertising Parameters [v1]"),
        Row(0x08, 0x003F, "LE Set Periodic Advertising Data"),
        Row(0x08, 0x0040, "LE Set Periodic Advertising Enable"),
        Row(0x08, 0x0041, "LE Set Extended Scan Parameters"),
        Row(0x08, 0x0042, "LE Set Extended Scan Enable"),
        Row(0x08, 0x0043, "LE Extended Create Connection [v1]"),
        Row(0x08, 0x0044, "LE Periodic Advertising Create Sync"),
        Row(0x08, 0x0045, "LE Periodic Advertising Create Sync Cancel"),
        Row(0x08, 0x0046, "LE Periodic Advertising Terminate Sync"),
        Row(0x08, 0x0047, "LE Add Device To Periodic Advertiser List"),
        Row(0x08, 0x0048, "LE Remove Device From Periodic Advertiser List"),
        Row(0x08, 0x0049, "LE Clear Periodic Advertiser List"),
        Row(0x08, 0x004A, "LE Read Periodic Advertiser List Size"),
        Row(0x08, 0x004B, "LE Read Transmit Power"),
        Row(0x08, 0x004C, "LE Read RF Path Compensation"),
        Row(0x08, 0x004D, "LE Write RF Path Compensation"),
        Row(0x08, 0x004E, "LE Set Privacy Mode"),
        Row(0x08, 0x004F, "LE Receiver Test [v3]"),
        Row(0x08, 0x0050, "LE Transmitter Test [v3]"),
        Row(0x08, 0x0051, "LE Set Connectionless CTE Transmit Parameters"),
        Row(0x08, 0x0052, "LE Set Connectionless CTE Transmit Enable"),
        Row(0x08, 0x0053, "LE Set Connectionless IQ Sampling Enable"),
        Row(0x08, 0x0054, "LE Set Connection CTE Receive Parameters"),
        Row(0x08, 0x0055, "LE Set Connection CTE Transmit Parameters"),
        Row(0x08, 0x0056, "LE Connection CTE Request Enable"),
        Row(0x08, 0x0057, "LE Connection CTE Response Enable"),
        Row(0x08, 0x0058, "LE Read Antenna Information"),
        Row(0x08, 0x0059, "LE Set Periodic Advertising Receive Enable"),
        Row(0x08, 0x005A, "LE Periodic Advertising Sync Transfer"),
        Row(0x08, 0x005B, "LE Periodic Advertising Set Info Transfer"),
        Row(0x08, 0x005C, "LE Set Periodic Advertising Sync Transfer Parameters"),
        Row(0x08, 0x005D, "LE Set Default Periodic Advertising Sync Transfer Parameters"),
        Row(0x08, 0x005E, "LE Generate DHKey [v2]"),
        Row(0x08, 0x005F, "LE Modify Sleep Clock Accuracy"),
        Row(0x08, 0x0060, "LE Read Buffer Size [v2]"),
        Row(0x08, 0x0061, "LE Read ISO TX Sync"),
        Row(0x08, 0x0062, "LE Set CIG Parameters"),
        Row(0x08, 0x0063, "LE Set CIG Parameters Test"),
        Row(0x08, 0x0064, "LE Create CIS"),
        Row(0x08, 0x0065, "LE Remove CIG"),
        Row(0x08, 0x0066, "LE Accept CIS Request"),
        Row(0x08, 0x0067, "LE Reject CIS Request"),
        Row(0x08, 0x0068, "LE Create BIG"),
        Row(0x08, 0x0069, "LE Create BIG Test"),
        Row(0x08, 0x006A, "LE Terminate BIG"),
        Row(0x08, 0x006B, "LE BIG Create Sync"),
        Row(0x08, 0x006C, "LE BIG Terminate Sync"),
        Row(0x08, 0x006D, "LE Request Peer SCA"),
        Row(0x08, 0x006E, "LE Setup ISO Data Path"),
        Row(0x08, 0x006F, "LE Remove ISO Data Path"),
        Row(0x08, 0x0070, "LE ISO Transmit Test"),
        Row(0x08, 0x0071, "LE ISO Receive Test"),
        Row(0x08, 0x0072, "LE ISO Read Test Counters"),
        Row(0x08, 0x0073, "LE ISO Test End"),
        Row(0x08, 0x0074, "LE Set Host Feature"),
        Row(0x08, 0x0075, "LE Read ISO Link Quality"),
        Row(0x08, 0x0076, "LE Enhanced Read Transmit Power Level"),
        Row(0x08, 0x0077, "LE Read Remote Transmit Power Level"),
        Row(0x08, 0x0078, "LE Set Path Loss Reporting Parameters"),
        Row(0x08, 0x0079, "LE Set Path Loss Reporting Enable"),
        Row(0x08, 0x007A, "LE Set Transmit Power Reporting Enable"),
        Row(0x08, 0x007B, "LE Transmitter Test [v4]"),
        Row(0x08, 0x007C, "LE Set Data Related Address Changes"),
        Row(0x08, 0x007D, "LE Set Default Subrate"),
        Row(0x08, 0x007E, "LE Subrate Request"),
        Row(0x08, 0x007F, "LE Set Extended Advertising Parameters [v2]"),
        Row(0x08, 0x0082, "LE Set Periodic Advertising Subevent Data"),
        Row(0x08, 0x0083, "LE Set Periodic Advertising Response Data"),
        Row(0x08, 0x0084, "LE Set Periodic Sync Subevent"),
        Row(0x08, 0x0085, "LE Extended Create Connection [v2]"),
        Row(0x08, 0x0086, "LE Set Periodic Advertising Parameters [v2]"),
    ]

    /// LE Controller commands added by Core v6.0 (decision-based advertising filtering, channel
    /// sounding, monitoring advertisers, frame space update). Named so that captures from newer
    /// controllers read well; not part of the v5.4 completeness count.
    static let leControllerV6: [Row] = [
        Row(0x08, 0x0080, "LE Set Decision Data"),
        Row(0x08, 0x0081, "LE Set Decision Instructions"),
        Row(0x08, 0x0087, "LE Read All Local Supported Features"),
        Row(0x08, 0x0088, "LE Read All Remote Features"),
        Row(0x08, 0x0089, "LE CS Read Local Supported Capabilities"),
        Row(0x08, 0x008A, "LE CS Read Remote Supported Capabilities"),
        Row(0x08, 0x008B, "LE CS Write Cached Remote Supported Capabilities"),
        Row(0x08, 0x008C, "LE CS Security Enable"),
        Row(0x08, 0x008D, "LE CS Set Default Settings"),
        Row(0x08, 0x008E, "LE CS Read Remote FAE Table"),
        Row(0x08, 0x008F, "LE CS Write Cached Remote FAE Table"),
        Row(0x08, 0x0090, "LE CS Create Config"),
        Row(0x08, 0x0091, "LE CS Remove Config"),
        Row(0x08, 0x0092, "LE CS Set Channel Classification"),
        Row(0x08, 0x0093, "LE CS Set Procedure Parameters"),
        Row(0x08, 0x0094, "LE CS Procedure Enable"),
        Row(0x08, 0x0095, "LE CS Test"),
        Row(0x08, 0x0096, "LE CS Test End"),
        Row(0x08, 0x0097, "LE Set Host Feature [v2]"),
        Row(0x08, 0x0098, "LE Add Device To Monitored Advertisers List"),
        Row(0x08, 0x0099, "LE Remove Device From Monitored Advertisers List"),
        Row(0x08, 0x009A, "LE Clear Monitored Advertisers List"),
        Row(0x08, 0x009B, "LE Read Monitored Advertisers List Size"),
        Row(0x08, 0x009C, "LE Enable Monitoring Advertisers"),
        Row(0x08, 0x009D, "LE Frame Space Update"),
    ]
}
