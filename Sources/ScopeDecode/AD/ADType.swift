import ScopeCore

/// An AD type — the "Common Data Type" code of an advertising, scan response, EIR or OOB data
/// structure (Assigned Numbers §2.3; Core Specification Supplement, Part A, §1; Core v5.4, Vol 3,
/// Part C, §11). An open value set: codes without a name render as "Unknown (0xNN)".
public struct ADType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// CSS Part A §1.3.
    public static let flags = ADType(0x01)
    /// CSS Part A §1.1.
    public static let incompleteList16BitServiceUUIDs = ADType(0x02)
    public static let completeList16BitServiceUUIDs = ADType(0x03)
    public static let incompleteList32BitServiceUUIDs = ADType(0x04)
    public static let completeList32BitServiceUUIDs = ADType(0x05)
    public static let incompleteList128BitServiceUUIDs = ADType(0x06)
    public static let completeList128BitServiceUUIDs = ADType(0x07)
    /// CSS Part A §1.2.
    public static let shortenedLocalName = ADType(0x08)
    public static let completeLocalName = ADType(0x09)
    /// CSS Part A §1.5.
    public static let txPowerLevel = ADType(0x0A)
    /// CSS Part A §1.6.
    public static let classOfDevice = ADType(0x0D)
    public static let simplePairingHashC192 = ADType(0x0E)
    public static let simplePairingRandomizerR192 = ADType(0x0F)
    /// Device ID (Device ID Profile, in EIR) or Security Manager TK Value (CSS Part A §1.8, in
    /// OOB data blocks): the same code, told apart by the length (8 vs 16 octets).
    public static let deviceID = ADType(0x10)
    public static let securityManagerTKValue = ADType(0x10)
    /// CSS Part A §1.7.
    public static let securityManagerOutOfBandFlags = ADType(0x11)
    /// CSS Part A §1.9.
    public static let peripheralConnectionIntervalRange = ADType(0x12)
    /// CSS Part A §1.10.
    public static let list16BitServiceSolicitationUUIDs = ADType(0x14)
    public static let list128BitServiceSolicitationUUIDs = ADType(0x15)
    /// CSS Part A §1.11.
    public static let serviceData16BitUUID = ADType(0x16)
    /// CSS Part A §1.13.
    public static let publicTargetAddress = ADType(0x17)
    /// CSS Part A §1.14.
    public static let randomTargetAddress = ADType(0x18)
    /// CSS Part A §1.12.
    public static let appearance = ADType(0x19)
    /// CSS Part A §1.15.
    public static let advertisingInterval = ADType(0x1A)
    /// CSS Part A §1.16.
    public static let leBluetoothDeviceAddress = ADType(0x1B)
    /// CSS Part A §1.17.
    public static let leRole = ADType(0x1C)
    /// CSS Part A §1.6.
    public static let simplePairingHashC256 = ADType(0x1D)
    public static let simplePairingRandomizerR256 = ADType(0x1E)
    /// CSS Part A §1.10.
    public static let list32BitServiceSolicitationUUIDs = ADType(0x1F)
    /// CSS Part A §1.11.
    public static let serviceData32BitUUID = ADType(0x20)
    public static let serviceData128BitUUID = ADType(0x21)
    /// CSS Part A §1.6.
    public static let leSecureConnectionsConfirmationValue = ADType(0x22)
    public static let leSecureConnectionsRandomValue = ADType(0x23)
    /// CSS Part A §1.18.
    public static let uri = ADType(0x24)
    /// Indoor Positioning Service.
    public static let indoorPositioning = ADType(0x25)
    /// Transport Discovery Service.
    public static let transportDiscoveryData = ADType(0x26)
    /// CSS Part A §1.19.
    public static let leSupportedFeatures = ADType(0x27)
    /// CSS Part A §1.20.
    public static let channelMapUpdateIndication = ADType(0x28)
    /// Mesh Profile §5.2.1.
    public static let pbADV = ADType(0x29)
    /// Mesh Profile §3.3.1.
    public static let meshMessage = ADType(0x2A)
    /// Mesh Profile §3.9.
    public static let meshBeacon = ADType(0x2B)
    /// CSS Part A §1.21.
    public static let bigInfo = ADType(0x2C)
    /// CSS Part A §1.22.
    public static let broadcastCode = ADType(0x2D)
    /// Coordinated Set Identification Profile.
    public static let resolvableSetIdentifier = ADType(0x2E)
    /// CSS Part A §1.15.
    public static let advertisingIntervalLong = ADType(0x2F)
    /// Public Broadcast Profile.
    public static let broadcastName = ADType(0x30)
    /// CSS Part A §1.23.
    public static let encryptedAdvertisingData = ADType(0x31)
    /// CSS Part A §1.24.
    public static let periodicAdvertisingResponseTimingInformation = ADType(0x32)
    /// ESL Profile.
    public static let electronicShelfLabel = ADType(0x34)
    /// 3D Synchronization Profile.
    public static let threeDInformationData = ADType(0x3D)
    /// CSS Part A §1.4.
    public static let manufacturerSpecificData = ADType(0xFF)

    /// The Assigned Numbers spelling ("Complete Local Name"), or nil for an unassigned code.
    /// 0x10 has two assigned names; this returns both ("Device ID / Security Manager TK Value"),
    /// and ``ADStructure/name`` picks one by length.
    public var name: String? {
        switch rawValue {
        case 0x01: "Flags"
        case 0x02: "Incomplete List of 16-bit Service or Service Class UUIDs"
        case 0x03: "Complete List of 16-bit Service or Service Class UUIDs"
        case 0x04: "Incomplete List of 32-bit Service or Service Class UUIDs"
        case 0x05: "Complete List of 32-bit Service or Service Class UUIDs"
        case 0x06: "Incomplete List of 128-bit Service or Service Class UUIDs"
        case 0x07: "Complete List of 128-bit Service or Service Class UUIDs"
        case 0x08: "Shortened Local Name"
        case 0x09: "Complete Local Name"
        case 0x0A: "Tx Power Level"
        case 0x0D: "Class of Device"
        case 0x0E: "Simple Pairing Hash C-192"
        case 0x0F: "Simple Pairing Randomizer R-192"
        case 0x10: "Device ID / Security Manager TK Value"
        case 0x11: "Security Manager Out of Band Flags"
        case 0x12: "Peripheral Connection Interval Range"
        case 0x14: "List of 16-bit Service Solicitation UUIDs"
        case 0x15: "List of 128-bit Service Solicitation UUIDs"
        case 0x16: "Service Data - 16-bit UUID"
        case 0x17: "Public Target Address"
        case 0x18: "Random Target Address"
        case 0x19: "Appearance"
        case 0x1A: "Advertising Interval"
        case 0x1B: "LE Bluetooth Device Address"
        case 0x1C: "LE Role"
        case 0x1D: "Simple Pairing Hash C-256"
        case 0x1E: "Simple Pairing Randomizer R-256"
        case 0x1F: "List of 32-bit Service Solicitation UUIDs"
        case 0x20: "Service Data - 32-bit UUID"
        case 0x21: "Service Data - 128-bit UUID"
        case 0x22: "LE Secure Connections Confirmation Value"
        case 0x23: "LE Secure Connections Random Value"
        case 0x24: "URI"
        case 0x25: "Indoor Positioning"
        case 0x26: "Transport Discovery Data"
        case 0x27: "LE Supported Features"
        case 0x28: "Channel Map Update Indication"
        case 0x29: "PB-ADV"
        case 0x2A: "Mesh Message"
        case 0x2B: "Mesh Beacon"
        case 0x2C: "BIGInfo"
        case 0x2D: "Broadcast_Code"
        case 0x2E: "Resolvable Set Identifier"
        case 0x2F: "Advertising Interval - long"
        case 0x30: "Broadcast_Name"
        case 0x31: "Encrypted Advertising Data"
        case 0x32: "Periodic Advertising Response Timing Information"
        case 0x34: "Electronic Shelf Label"
        case 0x3D: "3D Information Data"
        case 0xFF: "Manufacturer Specific Data"
        default: nil
        }
    }

    /// Every assigned code, ascending (Assigned Numbers §2.3, 2024-06-13 revision of
    /// ad_types.yaml; unchanged in the 2026-06-23 document).
    public static let allAssigned: [ADType] = (0...255).map { ADType(UInt8($0)) }.filter { $0.name != nil }

    /// "Complete Local Name (0x09)" or "Unknown (0x4c)".
    public var description: String { named(name, rawValue, digits: 2) }

    public static func < (a: ADType, b: ADType) -> Bool { a.rawValue < b.rawValue }
}
