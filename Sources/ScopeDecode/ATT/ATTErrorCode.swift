import ScopeCore

/// An ATT Error Response error code (Core v5.4, Vol 3, Part F, §3.4.1.1, Table 3.4; common
/// profile and service error codes from the Core Specification Supplement, Part B, §1.2).
///
/// 0x80–0x9F are application errors (named "Application Error"); 0xE0–0xFB are reserved for
/// common profile errors and render as unknown; 0x14–0x7F and 0xA0–0xDF are reserved.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let invalidHandle = ATTErrorCode(0x01)
    public static let readNotPermitted = ATTErrorCode(0x02)
    public static let writeNotPermitted = ATTErrorCode(0x03)
    public static let invalidPDU = ATTErrorCode(0x04)
    public static let insufficientAuthentication = ATTErrorCode(0x05)
    public static let requestNotSupported = ATTErrorCode(0x06)
    public static let invalidOffset = ATTErrorCode(0x07)
    public static let insufficientAuthorization = ATTErrorCode(0x08)
    public static let prepareQueueFull = ATTErrorCode(0x09)
    public static let attributeNotFound = ATTErrorCode(0x0A)
    public static let attributeNotLong = ATTErrorCode(0x0B)
    public static let insufficientEncryptionKeySize = ATTErrorCode(0x0C)
    public static let invalidAttributeValueLength = ATTErrorCode(0x0D)
    public static let unlikelyError = ATTErrorCode(0x0E)
    public static let insufficientEncryption = ATTErrorCode(0x0F)
    public static let unsupportedGroupType = ATTErrorCode(0x10)
    public static let insufficientResources = ATTErrorCode(0x11)
    public static let databaseOutOfSync = ATTErrorCode(0x12)
    public static let valueNotAllowed = ATTErrorCode(0x13)
    public static let writeRequestRejected = ATTErrorCode(0xFC)
    public static let cccdImproperlyConfigured = ATTErrorCode(0xFD)
    public static let procedureAlreadyInProgress = ATTErrorCode(0xFE)
    public static let outOfRange = ATTErrorCode(0xFF)

    /// The one table of individually named codes.
    static let table: [UInt8: String] = [
        0x01: "Invalid Handle",
        0x02: "Read Not Permitted",
        0x03: "Write Not Permitted",
        0x04: "Invalid PDU",
        0x05: "Insufficient Authentication",
        0x06: "Request Not Supported",
        0x07: "Invalid Offset",
        0x08: "Insufficient Authorization",
        0x09: "Prepare Queue Full",
        0x0A: "Attribute Not Found",
        0x0B: "Attribute Not Long",
        0x0C: "Insufficient Encryption Key Size",
        0x0D: "Invalid Attribute Value Length",
        0x0E: "Unlikely Error",
        0x0F: "Insufficient Encryption",
        0x10: "Unsupported Group Type",
        0x11: "Insufficient Resources",
        0x12: "Database Out Of Sync",
        0x13: "Value Not Allowed",
        0xFC: "Write Request Rejected",
        0xFD: "Client Characteristic Configuration Descriptor Improperly Configured",
        0xFE: "Procedure Already in Progress",
        0xFF: "Out of Range",
    ]

    /// Every individually named code, in numeric order.
    public static var allNamed: [ATTErrorCode] { table.keys.sorted().map { ATTErrorCode($0) } }

    /// 0x80–0x9F: defined by the higher-layer application.
    public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }
    /// 0xE0–0xFF: common profile and service error codes.
    public var isCommonProfileError: Bool { rawValue >= 0xE0 }
    /// The security-related codes that pairing or encryption would cure (0x05, 0x08, 0x0C, 0x0F).
    public var isSecurityError: Bool { [0x05, 0x08, 0x0C, 0x0F].contains(rawValue) }

    public var name: String? {
        if let n = ATTErrorCode.table[rawValue] { return n }
        return isApplicationError ? "Application Error" : nil
    }

    public var description: String { named(name, rawValue, digits: 2) }
}
