import ScopeCore

/// The decoded value of one AD structure (Core Specification Supplement, Part A, §1).
///
/// Types with an opaque or not-yet-decoded payload (keys, hashes, mesh PDUs, BIGInfo, …),
/// unknown types, and structures that break their size contract decode as ``bytes(_:)``.
public enum ADValue: Sendable, Hashable {
    /// 0x01 (CSS §1.3). `extra` holds octets after the first (reserved for future flags).
    case flags(ADFlags, extra: [UInt8])
    /// 0x02–0x07 (CSS §1.1).
    case serviceUUIDs([BluetoothUUID], complete: Bool)
    /// 0x14, 0x15, 0x1F (CSS §1.10).
    case solicitationUUIDs([BluetoothUUID])
    /// 0x08, 0x09 (CSS §1.2); decoded as UTF-8 with invalid sequences replaced (U+FFFD), and
    /// trailing NUL octets (C-string terminators some stacks send) dropped.
    case localName(String, complete: Bool)
    /// 0x0A (CSS §1.5), dBm.
    case txPowerLevel(Int8)
    /// 0x0D (CSS §1.6).
    case classOfDevice(ClassOfDevice)
    /// 0x10 with 8 octets (Device ID Profile, EIR).
    case deviceID(DeviceID)
    /// 0x11 (CSS §1.7).
    case securityManagerOOBFlags(SecurityManagerOOBFlags)
    /// 0x12 (CSS §1.9), both in units of 1.25 ms; 0xFFFF means "no specific value".
    case peripheralConnectionIntervalRange(min: UInt16, max: UInt16)
    /// 0x16, 0x20, 0x21 (CSS §1.11).
    case serviceData(ServiceData)
    /// 0x17, 0x18 (CSS §1.13, §1.14).
    case targetAddresses([BDAddr])
    /// 0x19 (CSS §1.12).
    case appearance(Appearance)
    /// 0x1A, 0x2F (CSS §1.15), in units of 0.625 ms.
    case advertisingInterval(UInt32)
    /// 0x1B (CSS §1.16).
    case leBluetoothDeviceAddress(BDAddr, isRandom: Bool)
    /// 0x1C (CSS §1.17).
    case leRole(LERole)
    /// 0x24 (CSS §1.18).
    case uri(ADURI)
    /// 0x28 (CSS §1.20): ChM (5 octets) and Instant.
    case channelMapUpdate(channelMap: [UInt8], instant: UInt16)
    /// 0x2B (Mesh Protocol §3.10): beacon type and the rest.
    case meshBeacon(type: UInt8, data: [UInt8])
    /// 0x30 (Public Broadcast Profile), UTF-8.
    case broadcastName(String)
    /// 0xFF (CSS §1.4).
    case manufacturerData(ManufacturerData)
    /// Anything else: the raw data.
    case bytes([UInt8])
}

extension ADStructure {
    /// The decoded value. Structures that break their size contract (``sizeProblem`` non-nil)
    /// decode as `.bytes(data)`; decoding never traps.
    public var value: ADValue {
        guard sizeProblem == nil else { return .bytes(data) }
        let d = data
        switch type {
        case 0x01:
            return .flags(ADFlags(rawValue: d.first ?? 0), extra: Array(d.dropFirst()))
        case 0x02, 0x03:
            return .serviceUUIDs(uuids(d, width: .bits16), complete: type == 0x03)
        case 0x04, 0x05:
            return .serviceUUIDs(uuids(d, width: .bits32), complete: type == 0x05)
        case 0x06, 0x07:
            return .serviceUUIDs(uuids(d, width: .bits128), complete: type == 0x07)
        case 0x14:
            return .solicitationUUIDs(uuids(d, width: .bits16))
        case 0x1F:
            return .solicitationUUIDs(uuids(d, width: .bits32))
        case 0x15:
            return .solicitationUUIDs(uuids(d, width: .bits128))
        case 0x08, 0x09:
            return .localName(ADText.decode(d, droppingTrailingNULs: true), complete: type == 0x09)
        case 0x0A:
            return .txPowerLevel(Int8(bitPattern: d[0]))
        case 0x0D:
            return ClassOfDevice(littleEndian: d).map(ADValue.classOfDevice) ?? .bytes(d)
        case 0x10:
            return d.count == 8 ? .deviceID(DeviceID(d)) : .bytes(d)
        case 0x11:
            return .securityManagerOOBFlags(SecurityManagerOOBFlags(rawValue: d[0]))
        case 0x12:
            return .peripheralConnectionIntervalRange(min: le16(d, 0), max: le16(d, 2))
        case 0x16, 0x20, 0x21:
            let width: BluetoothUUID.Width = type == 0x16 ? .bits16 : type == 0x20 ? .bits32 : .bits128
            guard let uuid = BluetoothUUID(littleEndian: d.prefix(width.byteCount)) else { return .bytes(d) }
            return .serviceData(ServiceData(uuid: uuid, data: Array(d.dropFirst(width.byteCount))))
        case 0x17, 0x18:
            return .targetAddresses(stride(from: 0, to: d.count, by: 6).map { BDAddr(littleEndian: d[$0..<($0 + 6)]) })
        case 0x19:
            return .appearance(Appearance(rawValue: le16(d, 0)))
        case 0x1A:
            return .advertisingInterval(UInt32(le16(d, 0)))
        case 0x2F:
            return .advertisingInterval(d.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) })
        case 0x1B:
            return .leBluetoothDeviceAddress(BDAddr(littleEndian: d[0..<6]), isRandom: d[6] & 0x01 != 0)
        case 0x1C:
            return .leRole(LERole(rawValue: d[0]))
        case 0x24:
            return .uri(ADURI(d))
        case 0x28:
            return .channelMapUpdate(channelMap: Array(d[0..<5]), instant: le16(d, 5))
        case 0x2B:
            return .meshBeacon(type: d[0], data: Array(d.dropFirst()))
        case 0x30:
            return .broadcastName(ADText.decode(d, droppingTrailingNULs: false))
        case 0xFF:
            return .manufacturerData(ManufacturerData(companyID: le16(d, 0), data: Array(d.dropFirst(2))))
        default:
            return .bytes(d)
        }
    }

    private func uuids(_ d: [UInt8], width: BluetoothUUID.Width) -> [BluetoothUUID] {
        stride(from: 0, to: d.count - d.count % width.byteCount, by: width.byteCount).compactMap {
            BluetoothUUID(littleEndian: d[$0..<($0 + width.byteCount)])
        }
    }

    /// Little-endian UInt16 at `i`; callers have checked the size contract.
    private func le16(_ d: [UInt8], _ i: Int) -> UInt16 {
        guard i + 1 < d.count else { return 0 }
        return UInt16(d[i]) | UInt16(d[i + 1]) << 8
    }
}

// MARK: - Value types

/// The Flags AD type's first octet (CSS Part A §1.3.2). Bits 5–7 are reserved.
public struct ADFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let leLimitedDiscoverableMode = ADFlags(rawValue: 1 << 0)
    public static let leGeneralDiscoverableMode = ADFlags(rawValue: 1 << 1)
    public static let brEdrNotSupported = ADFlags(rawValue: 1 << 2)
    public static let simultaneousLEAndBREDRController = ADFlags(rawValue: 1 << 3)
    /// Listed as "Previously Used" since CSS v10; older devices still set it.
    public static let simultaneousLEAndBREDRHost = ADFlags(rawValue: 1 << 4)

    /// Bit names in bit order.
    public static let names: [(flag: ADFlags, name: String)] = [
        (.leLimitedDiscoverableMode, "LE Limited Discoverable Mode"),
        (.leGeneralDiscoverableMode, "LE General Discoverable Mode"),
        (.brEdrNotSupported, "BR/EDR Not Supported"),
        (.simultaneousLEAndBREDRController, "Simultaneous LE and BR/EDR to Same Device Capable (Controller)"),
        (.simultaneousLEAndBREDRHost, "Simultaneous LE and BR/EDR to Same Device Capable (Host)"),
    ]

    /// Names of the set bits, lowest first.
    public var setNames: [String] { Self.names.filter { contains($0.flag) }.map(\.name) }
    /// Set bits without a name (bits 5–7).
    public var reservedBits: UInt8 { rawValue & 0xE0 }

    /// "0x06 (LE General Discoverable Mode, BR/EDR Not Supported)"; reserved bits are listed as
    /// "reserved 0x20".
    public var description: String {
        var parts = setNames
        if reservedBits != 0 { parts.append("reserved \(Hex.prefixed(reservedBits, digits: 2))") }
        let code = Hex.prefixed(rawValue, digits: 2)
        return parts.isEmpty ? code : "\(code) (\(parts.joined(separator: ", ")))"
    }
}

/// The Security Manager Out of Band Flags octet (CSS Part A §1.7.2). Bits 4–7 are reserved.
public struct SecurityManagerOOBFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let oobDataPresent = SecurityManagerOOBFlags(rawValue: 1 << 0)
    public static let leSupportedHost = SecurityManagerOOBFlags(rawValue: 1 << 1)
    public static let simultaneousLEAndBREDRHost = SecurityManagerOOBFlags(rawValue: 1 << 2)
    /// Set: the address is random; clear: public.
    public static let randomAddress = SecurityManagerOOBFlags(rawValue: 1 << 3)

    public var setNames: [String] {
        var out: [String] = []
        if contains(.oobDataPresent) { out.append("OOB data present") }
        if contains(.leSupportedHost) { out.append("LE supported (Host)") }
        if contains(.simultaneousLEAndBREDRHost) { out.append("Simultaneous LE and BR/EDR to Same Device Capable (Host)") }
        out.append(contains(.randomAddress) ? "Random Address" : "Public Address")
        if rawValue & 0xF0 != 0 { out.append("reserved \(Hex.prefixed(rawValue & 0xF0, digits: 2))") }
        return out
    }

    public var description: String { "\(Hex.prefixed(rawValue, digits: 2)) (\(setNames.joined(separator: ", ")))" }
}

/// LE Role (CSS Part A §1.17.2). Open value set.
public struct LERole: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let onlyPeripheral = LERole(rawValue: 0x00)
    public static let onlyCentral = LERole(rawValue: 0x01)
    public static let bothPeripheralPreferred = LERole(rawValue: 0x02)
    public static let bothCentralPreferred = LERole(rawValue: 0x03)

    public var name: String? {
        switch rawValue {
        case 0x00: "Only Peripheral Role supported"
        case 0x01: "Only Central Role supported"
        case 0x02: "Peripheral and Central Role supported, Peripheral Role preferred for connection establishment"
        case 0x03: "Peripheral and Central Role supported, Central Role preferred for connection establishment"
        default: nil
        }
    }

    public var description: String { named(name, rawValue, digits: 2) }
}

/// Device ID in EIR (Device ID Profile v1.3 §5): four little-endian 16-bit values.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    /// 0x0001: Bluetooth SIG company identifier; 0x0002: USB Implementer's Forum vendor ID.
    public var vendorIDSource: UInt16
    public var vendorID: UInt16
    public var productID: UInt16
    public var version: UInt16

    public init(vendorIDSource: UInt16, vendorID: UInt16, productID: UInt16, version: UInt16) {
        self.vendorIDSource = vendorIDSource
        self.vendorID = vendorID
        self.productID = productID
        self.version = version
    }

    /// From the 8 data octets (fewer give zeros).
    init(_ d: [UInt8]) {
        func at(_ i: Int) -> UInt16 { i + 1 < d.count ? UInt16(d[i]) | UInt16(d[i + 1]) << 8 : 0 }
        self.init(vendorIDSource: at(0), vendorID: at(2), productID: at(4), version: at(6))
    }

    public var vendorIDSourceName: String? {
        switch vendorIDSource {
        case 0x0001: "Bluetooth SIG"
        case 0x0002: "USB Implementer's Forum"
        default: nil
        }
    }

    /// The vendor as a Bluetooth SIG company name when the source is 0x0001.
    public var vendorName: String? { vendorIDSource == 0x0001 ? AssignedNumbers.companyName(vendorID) : nil }

    public var description: String {
        let vendor = vendorName.map { "\($0) (\(Hex.prefixed(vendorID, digits: 4)))" } ?? Hex.prefixed(vendorID, digits: 4)
        return "source \(named(vendorIDSourceName, vendorIDSource, digits: 4)), vendor \(vendor), "
            + "product \(Hex.prefixed(productID, digits: 4)), version \(Hex.prefixed(version, digits: 4))"
    }
}

/// Service Data: a UUID and the data that follows it (CSS Part A §1.11).
public struct ServiceData: Hashable, Sendable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    public var data: [UInt8]

    public init(uuid: BluetoothUUID, data: [UInt8]) {
        self.uuid = uuid
        self.data = data
    }

    /// "Eddystone (0xfeaa): 10e8…"
    public var description: String { data.isEmpty ? uuid.description : "\(uuid): \(Hex.string(data))" }
}

/// Manufacturer Specific Data: a company identifier and its data (CSS Part A §1.4).
public struct ManufacturerData: Hashable, Sendable, CustomStringConvertible {
    /// Bluetooth SIG company identifier (the first two octets, little-endian).
    public var companyID: UInt16
    /// The octets after the company identifier.
    public var data: [UInt8]

    public init(companyID: UInt16, data: [UInt8]) {
        self.companyID = companyID
        self.data = data
    }

    /// "Apple, Inc." for 0x004C, or nil when unassigned.
    public var companyName: String? { AssignedNumbers.companyName(companyID) }

    /// The Apple iBeacon frame, when this is one (company 0x004C, type 0x02, length 0x15).
    public var iBeacon: IBeacon? { IBeacon(self) }

    /// "Apple, Inc. (0x004c): 0215…", or the decoded iBeacon.
    public var description: String {
        let company = named(companyName, companyID, digits: 4)
        if let iBeacon { return "\(company): \(iBeacon)" }
        return data.isEmpty ? company : "\(company): \(Hex.string(data))"
    }
}

/// Apple's iBeacon advertisement inside Manufacturer Specific Data of company 0x004C:
///
///     | 0x02 | 0x15 | proximity UUID (16, big-endian) | major (2, BE) | minor (2, BE) | power (1) |
///
/// (Apple "Proximity Beacon Specification" R1.) Not a Bluetooth SIG format: the UUID and numbers
/// are big-endian, unlike everything else in AD data.
public struct IBeacon: Hashable, Sendable, CustomStringConvertible {
    public var proximityUUID: BluetoothUUID
    public var major: UInt16
    public var minor: UInt16
    /// Calibrated RSSI at 1 m, dBm.
    public var measuredPower: Int8

    public init(proximityUUID: BluetoothUUID, major: UInt16, minor: UInt16, measuredPower: Int8) {
        self.proximityUUID = proximityUUID
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
    }

    /// nil unless `m` is an iBeacon frame (company 0x004C, 23 data octets starting 02 15).
    public init?(_ m: ManufacturerData) {
        let d = m.data
        guard m.companyID == 0x004C, d.count == 23, d[0] == 0x02, d[1] == 0x15,
            let uuid = BluetoothUUID(bigEndian: d[2..<18])
        else { return nil }
        self.init(
            proximityUUID: uuid, major: UInt16(d[18]) << 8 | UInt16(d[19]), minor: UInt16(d[20]) << 8 | UInt16(d[21]),
            measuredPower: Int8(bitPattern: d[22]))
    }

    public var description: String {
        "iBeacon \(proximityUUID.uuidString) major \(major) minor \(minor) measured power \(measuredPower) dBm"
    }
}

/// The URI AD type (CSS Part A §1.18): a UTF-8 string whose first code point stands for the
/// scheme (Assigned Numbers §2.7: U+0016 "http:", U+0017 "https:", …; U+0001 means the rest
/// carries its own scheme).
public struct ADURI: Hashable, Sendable, CustomStringConvertible {
    /// The scheme code point (the first character), or nil when the data is empty.
    public var schemeCode: UInt32?
    /// The text after the scheme code point.
    public var rest: String

    public init(_ d: [UInt8]) {
        let text = ADText.decode(d, droppingTrailingNULs: false)
        let scalars = text.unicodeScalars
        schemeCode = scalars.first?.value
        rest = String(String.UnicodeScalarView(scalars.dropFirst()))
    }

    /// "https:", or nil for U+0001 and for unassigned codes.
    public var scheme: String? { schemeCode.flatMap(AssignedNumbers.uriScheme) }

    /// The full URI: scheme + rest; for an unassigned scheme code, the rest alone.
    public var uri: String { (scheme ?? "") + rest }

    /// "https://www.bluetooth.com"; unassigned codes render as "<scheme U+00FF>//…".
    public var description: String {
        guard let code = schemeCode, code != 1, scheme == nil else { return ADText.escaped(uri) }
        return "<scheme U+\(String(code, radix: 16, uppercase: true))>" + ADText.escaped(rest)
    }
}

/// Text helpers for names and URIs.
enum ADText {
    /// UTF-8 with invalid sequences replaced by U+FFFD (never traps).
    static func decode(_ bytes: [UInt8], droppingTrailingNULs: Bool) -> String {
        var end = bytes.count
        if droppingTrailingNULs { while end > 0 && bytes[end - 1] == 0 { end -= 1 } }
        return String(decoding: bytes[0..<end], as: UTF8.self)
    }

    /// Control characters escaped as \u{…}, so one value stays on one line.
    static func escaped(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
