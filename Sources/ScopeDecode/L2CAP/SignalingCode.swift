import ScopeCore

/// An L2CAP signaling command code (Core v5.4, Vol 3, Part A, §4, Table 4.2).
///
/// Codes 0x0C–0x11 belonged to AMP (Create/Move Channel) and were withdrawn in Core v5.3; they
/// keep their names so old BR/EDR logs still read well.
public struct SignalingCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let commandReject = SignalingCode(0x01)
    public static let connectionRequest = SignalingCode(0x02)
    public static let connectionResponse = SignalingCode(0x03)
    public static let configurationRequest = SignalingCode(0x04)
    public static let configurationResponse = SignalingCode(0x05)
    public static let disconnectionRequest = SignalingCode(0x06)
    public static let disconnectionResponse = SignalingCode(0x07)
    public static let echoRequest = SignalingCode(0x08)
    public static let echoResponse = SignalingCode(0x09)
    public static let informationRequest = SignalingCode(0x0A)
    public static let informationResponse = SignalingCode(0x0B)
    public static let createChannelRequest = SignalingCode(0x0C)
    public static let createChannelResponse = SignalingCode(0x0D)
    public static let moveChannelRequest = SignalingCode(0x0E)
    public static let moveChannelResponse = SignalingCode(0x0F)
    public static let moveChannelConfirmationRequest = SignalingCode(0x10)
    public static let moveChannelConfirmationResponse = SignalingCode(0x11)
    public static let connectionParameterUpdateRequest = SignalingCode(0x12)
    public static let connectionParameterUpdateResponse = SignalingCode(0x13)
    public static let leCreditBasedConnectionRequest = SignalingCode(0x14)
    public static let leCreditBasedConnectionResponse = SignalingCode(0x15)
    public static let flowControlCreditIndication = SignalingCode(0x16)
    public static let creditBasedConnectionRequest = SignalingCode(0x17)
    public static let creditBasedConnectionResponse = SignalingCode(0x18)
    public static let creditBasedReconfigureRequest = SignalingCode(0x19)
    public static let creditBasedReconfigureResponse = SignalingCode(0x1A)

    /// The one name table, indexed by code (0x00 unused).
    static let table: [String] = [
        "",
        "Command Reject",
        "Connection Request",
        "Connection Response",
        "Configuration Request",
        "Configuration Response",
        "Disconnection Request",
        "Disconnection Response",
        "Echo Request",
        "Echo Response",
        "Information Request",
        "Information Response",
        "Create Channel Request",
        "Create Channel Response",
        "Move Channel Request",
        "Move Channel Response",
        "Move Channel Confirmation Request",
        "Move Channel Confirmation Response",
        "Connection Parameter Update Request",
        "Connection Parameter Update Response",
        "LE Credit Based Connection Request",
        "LE Credit Based Connection Response",
        "Flow Control Credit Indication",
        "Credit Based Connection Request",
        "Credit Based Connection Response",
        "Credit Based Reconfigure Request",
        "Credit Based Reconfigure Response",
    ]

    /// Every defined code, for completeness tests and listings.
    public static let allKnown: [SignalingCode] = (1...0x1A).map { SignalingCode(UInt8($0)) }

    public var name: String? {
        let i = Int(rawValue)
        return i >= 1 && i < SignalingCode.table.count ? SignalingCode.table[i] : nil
    }

    /// True when Table 4.2 allows the code on the LE signaling channel (CID 0x0005).
    public var isAllowedOnLE: Bool {
        switch rawValue {
        case 0x01, 0x06, 0x07, 0x12...0x1A: return true
        default: return false
        }
    }

    /// True when Table 4.2 allows the code on the BR/EDR signaling channel (CID 0x0001).
    public var isAllowedOnBREDR: Bool {
        switch rawValue {
        case 0x01...0x11, 0x16...0x1A: return true
        default: return false
        }
    }

    public var description: String { named(name, rawValue, digits: 2) }
}

/// Names for the 16-bit result, reason and type fields of signaling commands
/// (Core v5.4, Vol 3, Part A, §4.1–§4.26). Each table is looked up by value; unknown values
/// render as "Unknown (0xNNNN)".
public enum SignalingValueNames {
    /// Command Reject reasons (§4.1, Table 4.3).
    public static let rejectReason: [UInt16: String] = [
        0x0000: "Command not understood",
        0x0001: "Signaling MTU exceeded",
        0x0002: "Invalid CID in request",
    ]

    /// Connection Response / Create Channel Response results (§4.3, Table 4.6).
    public static let connectionResult: [UInt16: String] = [
        0x0000: "Connection successful",
        0x0001: "Connection pending",
        0x0002: "Connection refused - PSM not supported",
        0x0003: "Connection refused - security block",
        0x0004: "Connection refused - no resources available",
        0x0005: "Connection refused - Controller ID not supported",
        0x0006: "Connection refused - invalid Source CID",
        0x0007: "Connection refused - Source CID already allocated",
    ]

    /// Connection Response status when the result is "pending" (§4.3, Table 4.7).
    public static let connectionStatus: [UInt16: String] = [
        0x0000: "No further information available",
        0x0001: "Authentication pending",
        0x0002: "Authorization pending",
    ]

    /// Configuration Response results (§4.5, Table 4.9).
    public static let configurationResult: [UInt16: String] = [
        0x0000: "Success",
        0x0001: "Failure - unacceptable parameters",
        0x0002: "Failure - rejected (no reason provided)",
        0x0003: "Failure - unknown options",
        0x0004: "Pending",
        0x0005: "Failure - flow spec rejected",
    ]

    /// Information Request/Response InfoType (§4.10, Table 4.11).
    public static let infoType: [UInt16: String] = [
        0x0001: "Connectionless MTU",
        0x0002: "Extended features supported",
        0x0003: "Fixed channels supported",
    ]

    /// Information Response results (§4.11, Table 4.12).
    public static let infoResult: [UInt16: String] = [
        0x0000: "Success",
        0x0001: "Not supported",
    ]

    /// Extended feature mask bits (§4.12, Table 4.13), by bit number.
    public static let extendedFeatures: [(bit: Int, name: String)] = [
        (0, "Flow control mode"),
        (1, "Retransmission mode"),
        (2, "Bi-directional QoS"),
        (3, "Enhanced Retransmission Mode"),
        (4, "Streaming Mode"),
        (5, "FCS Option"),
        (6, "Extended Flow Specification for BR/EDR"),
        (7, "Fixed Channels"),
        (8, "Extended Window Size"),
        (9, "Unicast Connectionless Data Reception"),
        (10, "Enhanced Credit Based Flow Control Mode"),
    ]

    /// Move Channel Response / Move Channel Confirmation results (§4.15–§4.16, AMP, withdrawn).
    public static let moveResult: [UInt16: String] = [
        0x0000: "Move success",
        0x0001: "Move pending",
        0x0002: "Move refused - Controller ID not supported",
        0x0003: "Move refused - new Controller ID is same as old",
        0x0004: "Move refused - configuration not supported",
        0x0005: "Move refused - move channel collision",
        0x0006: "Move refused - channel not allowed to be moved",
    ]

    /// Move Channel Confirmation results (§4.16).
    public static let moveConfirmationResult: [UInt16: String] = [
        0x0000: "Move success - both sides succeed",
        0x0001: "Move failure - one or both sides refuse",
    ]

    /// Connection Parameter Update Response results (§4.21, Table 4.15).
    public static let parameterUpdateResult: [UInt16: String] = [
        0x0000: "Connection Parameters accepted",
        0x0001: "Connection Parameters rejected",
    ]

    /// LE Credit Based Connection Response results (§4.23, Table 4.16).
    public static let leCreditResult: [UInt16: String] = [
        0x0000: "Connection successful",
        0x0002: "Connection refused - SPSM not supported",
        0x0004: "Connection refused - no resources available",
        0x0005: "Connection refused - insufficient authentication",
        0x0006: "Connection refused - insufficient authorization",
        0x0007: "Connection refused - encryption key size too short",
        0x0008: "Connection refused - insufficient encryption",
        0x0009: "Connection refused - invalid Source CID",
        0x000A: "Connection refused - Source CID already allocated",
        0x000B: "Connection refused - unacceptable parameters",
    ]

    /// Credit Based Connection Response results (§4.26, Table 4.18).
    public static let creditBasedResult: [UInt16: String] = [
        0x0000: "All connections successful",
        0x0002: "All connections refused - SPSM not supported",
        0x0004: "Some connections refused - insufficient resources available",
        0x0005: "All connections refused - insufficient authentication",
        0x0006: "All connections refused - insufficient authorization",
        0x0007: "All connections refused - encryption key size too short",
        0x0008: "All connections refused - insufficient encryption",
        0x0009: "Some connections refused - invalid Source CID",
        0x000A: "Some connections refused - Source CID already allocated",
        0x000B: "All connections refused - unacceptable parameters",
        0x000C: "All connections refused - invalid parameters",
        0x000D: "All connections pending - no further information available",
        0x000E: "All connections pending - authentication pending",
        0x000F: "All connections pending - authorization pending",
    ]

    /// Credit Based Reconfigure Response results (§4.28, Table 4.19).
    public static let reconfigureResult: [UInt16: String] = [
        0x0000: "Reconfiguration successful",
        0x0001: "Reconfiguration failed - reduction in size of MTU not allowed",
        0x0002: "Reconfiguration failed - reduction in size of MPS not allowed for more than one channel at a time",
        0x0003: "Reconfiguration failed - one or more Destination CIDs invalid",
        0x0004: "Reconfiguration failed - other unacceptable parameters",
    ]

    /// Configuration option types (§5, bit 7 = hint), by type with the hint bit cleared.
    public static let optionType: [UInt8: String] = [
        0x01: "MTU",
        0x02: "Flush Timeout",
        0x03: "Quality of Service",
        0x04: "Retransmission and Flow Control",
        0x05: "Frame Check Sequence",
        0x06: "Extended Flow Specification",
        0x07: "Extended Window Size",
    ]

    /// Retransmission and Flow Control option modes (§5.4, Table 5.2).
    public static let mode: [UInt8: String] = [
        0x00: "L2CAP Basic Mode",
        0x01: "Retransmission Mode",
        0x02: "Flow Control Mode",
        0x03: "Enhanced Retransmission Mode",
        0x04: "Streaming Mode",
    ]

    /// QoS / Extended Flow Specification service types (§5.3).
    public static let serviceType: [UInt8: String] = [
        0x00: "No traffic",
        0x01: "Best effort",
        0x02: "Guaranteed",
    ]

    /// "Name (0x0001)" from one of the tables above.
    public static func render(_ value: UInt16, in table: [UInt16: String]) -> String {
        named(table[value], value, digits: 4)
    }
}
