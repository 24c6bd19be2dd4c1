import ScopeCore

/// A Security Manager Protocol command code (Core v5.4, Vol 3, Part H, §3.3, Table 3.3).
public struct SMPCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let pairingRequest = SMPCode(0x01)
    public static let pairingResponse = SMPCode(0x02)
    public static let pairingConfirm = SMPCode(0x03)
    public static let pairingRandom = SMPCode(0x04)
    public static let pairingFailed = SMPCode(0x05)
    public static let encryptionInformation = SMPCode(0x06)
    /// Called "Master Identification" before Core v5.3.
    public static let centralIdentification = SMPCode(0x07)
    public static let identityInformation = SMPCode(0x08)
    public static let identityAddressInformation = SMPCode(0x09)
    public static let signingInformation = SMPCode(0x0A)
    public static let securityRequest = SMPCode(0x0B)
    public static let pairingPublicKey = SMPCode(0x0C)
    public static let pairingDHKeyCheck = SMPCode(0x0D)
    public static let pairingKeypressNotification = SMPCode(0x0E)

    /// The one table: name and exact PDU size (code byte included), indexed by code.
    static let table: [(name: String, size: Int)] = [
        ("", 0),
        ("Pairing Request", 7),
        ("Pairing Response", 7),
        ("Pairing Confirm", 17),
        ("Pairing Random", 17),
        ("Pairing Failed", 2),
        ("Encryption Information", 17),
        ("Central Identification", 11),
        ("Identity Information", 17),
        ("Identity Address Information", 8),
        ("Signing Information", 17),
        ("Security Request", 2),
        ("Pairing Public Key", 65),
        ("Pairing DHKey Check", 17),
        ("Pairing Keypress Notification", 2),
    ]

    /// Every defined code.
    public static let allKnown: [SMPCode] = (1...0x0E).map { SMPCode(UInt8($0)) }

    public var name: String? {
        let i = Int(rawValue)
        return i >= 1 && i < SMPCode.table.count ? SMPCode.table[i].name : nil
    }

    /// The PDU size in bytes including the code, or nil for unknown codes.
    public var pduSize: Int? {
        let i = Int(rawValue)
        return i >= 1 && i < SMPCode.table.count ? SMPCode.table[i].size : nil
    }

    public var description: String { named(name, rawValue, digits: 2) }
}

/// IO Capability (§3.5.1, Table 3.4).
public struct SMPIOCapability: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let displayOnly = SMPIOCapability(rawValue: 0x00)
    public static let displayYesNo = SMPIOCapability(rawValue: 0x01)
    public static let keyboardOnly = SMPIOCapability(rawValue: 0x02)
    public static let noInputNoOutput = SMPIOCapability(rawValue: 0x03)
    public static let keyboardDisplay = SMPIOCapability(rawValue: 0x04)
    static let table: [String] = ["DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay"]
    public var name: String? {
        Int(rawValue) < SMPIOCapability.table.count ? SMPIOCapability.table[Int(rawValue)] : nil
    }
    public var description: String { named(name, rawValue, digits: 2) }
}

/// The AuthReq field (§3.5.1, Figure 3.3): Bonding_Flags (2 bits), MITM, SC, Keypress, CT2,
/// 2 RFU bits.
public struct SMPAuthReq: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bits 0–1: 0b00 No Bonding, 0b01 Bonding, others reserved.
    public var bondingFlags: UInt8 { rawValue & 0b11 }
    public var bonding: Bool { bondingFlags == 0b01 }
    public var mitm: Bool { rawValue & 0x04 != 0 }
    /// Secure Connections.
    public var secureConnections: Bool { rawValue & 0x08 != 0 }
    public var keypress: Bool { rawValue & 0x10 != 0 }
    /// CT2: supports h7 for cross-transport key derivation (since Core v5.0).
    public var ct2: Bool { rawValue & 0x20 != 0 }
    /// Bits 6–7 (reserved for future use), shifted down; 0 normally.
    public var reservedBits: UInt8 { rawValue >> 6 }

    public var bondingName: String {
        switch bondingFlags {
        case 0b00: return "No Bonding"
        case 0b01: return "Bonding"
        default: return "Reserved (\(bondingFlags))"
        }
    }

    /// "Bonding, MITM, SC, CT2" (+ "reserved 0x40" when RFU bits are set).
    public var description: String {
        var parts = [bondingName]
        if mitm { parts.append("MITM") }
        if secureConnections { parts.append("SC") }
        if keypress { parts.append("Keypress") }
        if ct2 { parts.append("CT2") }
        if reservedBits != 0 { parts.append("reserved " + Hex.prefixed(rawValue & 0xC0, digits: 2)) }
        return parts.joined(separator: ", ")
    }
}

/// Initiator/Responder Key Distribution (§3.6.1, Figure 3.11): EncKey, IdKey, SignKey, LinkKey,
/// 4 RFU bits.
public struct SMPKeyDistribution: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// LTK (legacy: + EDIV/Rand); in SC the LTK is not distributed and the bit is ignored.
    public var encKey: Bool { rawValue & 0x01 != 0 }
    /// IRK + identity address.
    public var idKey: Bool { rawValue & 0x02 != 0 }
    /// CSRK.
    public var signKey: Bool { rawValue & 0x04 != 0 }
    /// Derive the BR/EDR link key (cross-transport).
    public var linkKey: Bool { rawValue & 0x08 != 0 }
    /// Bits 4–7 as they were sent (reserved).
    public var reservedMask: UInt8 { rawValue & 0xF0 }

    /// "EncKey, IdKey" / "none".
    public var description: String {
        var parts: [String] = []
        if encKey { parts.append("EncKey") }
        if idKey { parts.append("IdKey") }
        if signKey { parts.append("SignKey") }
        if linkKey { parts.append("LinkKey") }
        if reservedMask != 0 { parts.append("reserved " + Hex.prefixed(reservedMask, digits: 2)) }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}

/// Pairing Failed reason (§3.5.5, Table 3.7).
public struct SMPPairingFailedReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let passkeyEntryFailed = SMPPairingFailedReason(0x01)
    public static let oobNotAvailable = SMPPairingFailedReason(0x02)
    public static let authenticationRequirements = SMPPairingFailedReason(0x03)
    public static let confirmValueFailed = SMPPairingFailedReason(0x04)
    public static let pairingNotSupported = SMPPairingFailedReason(0x05)
    public static let encryptionKeySize = SMPPairingFailedReason(0x06)
    public static let commandNotSupported = SMPPairingFailedReason(0x07)
    public static let unspecifiedReason = SMPPairingFailedReason(0x08)
    public static let repeatedAttempts = SMPPairingFailedReason(0x09)
    public static let invalidParameters = SMPPairingFailedReason(0x0A)
    public static let dhKeyCheckFailed = SMPPairingFailedReason(0x0B)
    public static let numericComparisonFailed = SMPPairingFailedReason(0x0C)
    public static let bredrPairingInProgress = SMPPairingFailedReason(0x0D)
    public static let crossTransportKeyNotAllowed = SMPPairingFailedReason(0x0E)
    public static let keyRejected = SMPPairingFailedReason(0x0F)

    static let table: [String] = [
        "",
        "Passkey Entry Failed",
        "OOB Not Available",
        "Authentication Requirements",
        "Confirm Value Failed",
        "Pairing Not Supported",
        "Encryption Key Size",
        "Command Not Supported",
        "Unspecified Reason",
        "Repeated Attempts",
        "Invalid Parameters",
        "DHKey Check Failed",
        "Numeric Comparison Failed",
        "BR/EDR pairing in progress",
        "Cross-transport Key Derivation/Generation not allowed",
        "Key Rejected",
    ]

    public static let allKnown: [SMPPairingFailedReason] = (1...0x0F).map { SMPPairingFailedReason(UInt8($0)) }

    public var name: String? {
        let i = Int(rawValue)
        return i >= 1 && i < SMPPairingFailedReason.table.count ? SMPPairingFailedReason.table[i] : nil
    }

    public var description: String { named(name, rawValue, digits: 2) }
}

/// Keypress Notification type (§3.5.8, Table 3.9).
public struct SMPKeypressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    static let table: [String] = [
        "Passkey entry started", "Passkey digit entered", "Passkey digit erased", "Passkey cleared",
        "Passkey entry completed",
    ]
    public var name: String? {
        Int(rawValue) < SMPKeypressType.table.count ? SMPKeypressType.table[Int(rawValue)] : nil
    }
    public var description: String { named(name, rawValue, digits: 2) }
}
