import ScopeCore

extension ADStructure {
    /// The AD type's Assigned Numbers name ("Complete Local Name"), or "Unknown (0x4c)".
    /// For 0x10 the length picks "Device ID" (8 octets) or "Security Manager TK Value" (16).
    public var name: String {
        if type == 0x10 {
            if data.count == 8 { return "Device ID" }
            if data.count == 16 { return "Security Manager TK Value" }
        }
        return adType.name ?? "Unknown (\(Hex.prefixed(type, digits: 2)))"
    }

    /// The value rendered for people and for JSON `value`, on one line. Raw data is lowercase
    /// hex without separators. Structures that break their size contract render as hex.
    public var valueDescription: String {
        switch value {
        case .flags(let flags, let extra):
            return extra.isEmpty ? flags.description : "\(flags.description), extra octets \(Hex.string(extra))"
        case .serviceUUIDs(let uuids, _), .solicitationUUIDs(let uuids):
            return uuids.isEmpty ? "(none)" : uuids.map(\.description).joined(separator: ", ")
        case .localName(let name, _), .broadcastName(let name):
            return ADText.escaped(name)
        case .txPowerLevel(let dBm):
            return "\(dBm) dBm"
        case .classOfDevice(let cod):
            return "\(cod) (\(cod.majorDeviceClassName ?? "reserved major device class"))"
        case .deviceID(let id):
            return id.description
        case .securityManagerOOBFlags(let flags):
            return flags.description
        case .peripheralConnectionIntervalRange(let min, let max):
            return "\(ADFormat.connectionInterval(min)) to \(ADFormat.connectionInterval(max))"
        case .serviceData(let serviceData):
            return serviceData.description
        case .targetAddresses(let addresses):
            return addresses.map(\.description).joined(separator: ", ")
        case .appearance(let appearance):
            return appearance.description
        case .advertisingInterval(let units):
            return ADFormat.advertisingInterval(units, digits: type == 0x2F ? 6 : 4)
        case .leBluetoothDeviceAddress(let address, let isRandom):
            let reserved = data.count == 7 ? data[6] & 0xFE : 0
            let extra = reserved == 0 ? "" : ", reserved bits \(Hex.prefixed(reserved, digits: 2))"
            return "\(address) (\(isRandom ? "Random" : "Public")\(extra))"
        case .leRole(let role):
            return role.description
        case .uri(let uri):
            return uri.description
        case .channelMapUpdate(let channelMap, let instant):
            return "channel map \(Hex.string(channelMap)), instant \(instant)"
        case .meshBeacon(let beaconType, let rest):
            let typeText = named(ADFormat.meshBeaconName(beaconType), beaconType, digits: 2)
            return rest.isEmpty ? typeText : "\(typeText): \(Hex.string(rest))"
        case .manufacturerData(let manufacturerData):
            return manufacturerData.description
        case .bytes(let bytes):
            return Hex.string(bytes)
        }
    }

    /// Detail lines below the structure's own line, for verbose output. Empty when the one-line
    /// ``valueDescription`` says everything.
    public var fields: [Field] {
        switch value {
        case .flags(let flags, let extra):
            var out = ADFlags.names.filter { flags.contains($0.flag) }.map { Field($0.name, "1") }
            if flags.reservedBits != 0 { out.append(Field("Reserved bits", Hex.prefixed(flags.reservedBits, digits: 2))) }
            if !extra.isEmpty { out.append(Field("Additional octets", Hex.string(extra))) }
            return out
        case .serviceUUIDs(let uuids, _), .solicitationUUIDs(let uuids):
            return uuids.map { Field("UUID", $0.description) }
        case .localName, .broadcastName, .txPowerLevel, .leRole, .advertisingInterval:
            return []
        case .appearance(let a):
            return [
                Field("Category", named(a.categoryName, a.category, digits: 3)),
                Field("Sub-category", Hex.prefixed(a.subcategory, digits: 2)),
            ]
        case .classOfDevice(let cod):
            var out = [
                Field("Major device class", named(cod.majorDeviceClassName, cod.majorDeviceClass, digits: 2)),
                Field("Minor device class", Hex.prefixed(cod.minorDeviceClass, digits: 2)),
            ]
            out += cod.majorServiceClassNames.map { Field("Major service class", $0) }
            if cod.reservedServiceBits != 0 { out.append(Field("Reserved service bits", Hex.prefixed(cod.reservedServiceBits, digits: 6))) }
            return out
        case .deviceID(let id):
            return [
                Field("Vendor ID source", named(id.vendorIDSourceName, id.vendorIDSource, digits: 4)),
                Field("Vendor ID", id.vendorName.map { named($0, id.vendorID, digits: 4) } ?? Hex.prefixed(id.vendorID, digits: 4)),
                Field("Product ID", Hex.prefixed(id.productID, digits: 4)),
                Field("Version", Hex.prefixed(id.version, digits: 4)),
            ]
        case .securityManagerOOBFlags(let flags):
            return flags.setNames.map { Field($0, "1") }
        case .peripheralConnectionIntervalRange(let min, let max):
            return [Field("Minimum", ADFormat.connectionInterval(min)), Field("Maximum", ADFormat.connectionInterval(max))]
        case .serviceData(let serviceData):
            return [Field("UUID", serviceData.uuid.description), Field("Data", Hex.string(serviceData.data))]
        case .targetAddresses(let addresses):
            return addresses.map { Field("Address", $0.description) }
        case .leBluetoothDeviceAddress(let address, let isRandom):
            var out = [Field("Address", address.description), Field("Address type", isRandom ? "Random" : "Public")]
            if data.count == 7, data[6] & 0xFE != 0 { out.append(Field("Reserved bits", Hex.prefixed(data[6] & 0xFE, digits: 2))) }
            return out
        case .uri(let uri):
            let scheme: String
            if let code = uri.schemeCode {
                let codeText = "U+" + String(code, radix: 16, uppercase: true).leftPadded(to: 4)
                scheme = code == 1 ? "empty scheme name (\(codeText))" : "\(uri.scheme ?? "Unknown") (\(codeText))"
            } else {
                scheme = "none"
            }
            return [Field("Scheme", scheme), Field("URI", ADText.escaped(uri.uri))]
        case .channelMapUpdate(let channelMap, let instant):
            return [Field("Channel map", Hex.string(channelMap)), Field("Instant", "\(instant)")]
        case .meshBeacon(let beaconType, let rest):
            return [Field("Beacon type", named(ADFormat.meshBeaconName(beaconType), beaconType, digits: 2)), Field("Data", Hex.string(rest))]
        case .manufacturerData(let m):
            var out = [Field("Company", named(m.companyName, m.companyID, digits: 4)), Field("Data", Hex.string(m.data))]
            if let beacon = m.iBeacon {
                out.append(Field("iBeacon", "", children: [
                    Field("Proximity UUID", beacon.proximityUUID.uuidString),
                    Field("Major", "\(beacon.major)"),
                    Field("Minor", "\(beacon.minor)"),
                    Field("Measured power", "\(beacon.measuredPower) dBm"),
                ]))
            }
            return out
        case .bytes(let bytes):
            return bytes.isEmpty ? [] : [Field("Data", Hex.string(bytes))]
        }
    }

    /// One field for the whole structure: name, value and detail lines.
    public var field: Field { Field(name, valueDescription, children: fields) }
}

/// Formatting of AD time units, in integer arithmetic (no floating point).
enum ADFormat {
    /// "0x0800 (1280 ms)": units of 0.625 ms (CSS Part A §1.15).
    static func advertisingInterval(_ units: UInt32, digits: Int) -> String {
        "\(Hex.prefixed(units, digits: digits)) (\(milliseconds(microseconds: UInt64(units) * 625)))"
    }

    /// "0x0006 (7.5 ms)": units of 1.25 ms; 0xFFFF = "no specific value" (CSS Part A §1.9).
    static func connectionInterval(_ units: UInt16) -> String {
        if units == 0xFFFF { return "0xffff (no specific value)" }
        return "\(Hex.prefixed(units, digits: 4)) (\(milliseconds(microseconds: UInt64(units) * 1250)))"
    }

    /// "7.5 ms", "1280 ms".
    static func milliseconds(microseconds us: UInt64) -> String {
        let whole = us / 1000
        var frac = String(us % 1000).leftPadded(to: 3)
        while frac.hasSuffix("0") { frac.removeLast() }
        return frac.isEmpty ? "\(whole) ms" : "\(whole).\(frac) ms"
    }

    /// Mesh beacon types (Mesh Protocol §3.10; Assigned Numbers §4.3.1).
    static func meshBeaconName(_ type: UInt8) -> String? {
        switch type {
        case 0x00: "Unprovisioned Device beacon"
        case 0x01: "Secure Network beacon"
        case 0x02: "Mesh Private beacon"
        default: nil
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
