import ScopeCore

/// Typed accessors for analysis. Each scans the structures (a handful) and decodes only the ones
/// of its type; structures that break their size contract are skipped.
extension ADParseResult {
    /// The structures of one AD type, in order.
    public func structures(of type: ADType) -> [ADStructure] {
        structures.filter { $0.type == type.rawValue }
    }

    /// The Flags (CSS Part A §1.3), first occurrence; nil when absent.
    public var flags: ADFlags? {
        for s in structures where s.type == ADType.flags.rawValue {
            if case .flags(let f, _) = s.value { return f }
        }
        return nil
    }

    /// The Complete Local Name, else the Shortened Local Name (CSS Part A §1.2); nil when neither
    /// is present. UTF-8 decoded lossily, trailing NULs dropped.
    public var localName: String? {
        var shortened: String?
        for s in structures where s.type == 0x09 || s.type == 0x08 {
            guard case .localName(let name, let complete) = s.value else { continue }
            if complete { return name }
            if shortened == nil { shortened = name }
        }
        return shortened
    }

    /// True when ``localName`` comes from a Complete Local Name, false when from a Shortened one,
    /// nil when there is no name.
    public var isLocalNameComplete: Bool? {
        if structures.contains(where: { $0.type == 0x09 }) { return true }
        if structures.contains(where: { $0.type == 0x08 }) { return false }
        return nil
    }

    /// Service UUIDs from every 16/32/128-bit list, complete or incomplete (CSS Part A §1.1), in
    /// order of appearance, duplicates removed.
    public var serviceUUIDs: [BluetoothUUID] { collectUUIDs(types: 0x02...0x07) }

    /// Solicited service UUIDs (0x14, 0x15, 0x1F; CSS Part A §1.10), duplicates removed.
    public var solicitedServiceUUIDs: [BluetoothUUID] {
        var seen = Set<BluetoothUUID>()
        var out: [BluetoothUUID] = []
        for s in structures where s.type == 0x14 || s.type == 0x15 || s.type == 0x1F {
            if case .solicitationUUIDs(let list) = s.value {
                for u in list where seen.insert(u).inserted { out.append(u) }
            }
        }
        return out
    }

    private func collectUUIDs(types: ClosedRange<UInt8>) -> [BluetoothUUID] {
        var seen = Set<BluetoothUUID>()
        var out: [BluetoothUUID] = []
        for s in structures where types.contains(s.type) {
            if case .serviceUUIDs(let list, _) = s.value {
                for u in list where seen.insert(u).inserted { out.append(u) }
            }
        }
        return out
    }

    /// Every Service Data structure (16, 32 and 128-bit UUID forms), in order.
    public var serviceData: [ServiceData] {
        structures.compactMap { s in
            guard s.type == 0x16 || s.type == 0x20 || s.type == 0x21, case .serviceData(let d) = s.value else { return nil }
            return d
        }
    }

    /// Every Manufacturer Specific Data structure, in order (CSS Part A §1.4).
    public var manufacturerData: [ManufacturerData] {
        structures.compactMap { s in
            guard s.type == 0xFF, case .manufacturerData(let m) = s.value else { return nil }
            return m
        }
    }

    /// Tx Power Level in dBm (CSS Part A §1.5), first occurrence.
    public var txPower: Int8? {
        for s in structures where s.type == 0x0A {
            if case .txPowerLevel(let p) = s.value { return p }
        }
        return nil
    }

    /// Appearance (CSS Part A §1.12), first occurrence.
    public var appearance: Appearance? {
        for s in structures where s.type == 0x19 {
            if case .appearance(let a) = s.value { return a }
        }
        return nil
    }

    /// Advertising Interval or Advertising Interval - long, in units of 0.625 ms.
    public var advertisingInterval: UInt32? {
        for s in structures where s.type == 0x1A || s.type == 0x2F {
            if case .advertisingInterval(let v) = s.value { return v }
        }
        return nil
    }

    /// LE Role (CSS Part A §1.17), first occurrence.
    public var leRole: LERole? {
        for s in structures where s.type == 0x1C {
            if case .leRole(let r) = s.value { return r }
        }
        return nil
    }

    /// The URI (CSS Part A §1.18), first occurrence.
    public var uri: ADURI? {
        for s in structures where s.type == 0x24 {
            if case .uri(let u) = s.value { return u }
        }
        return nil
    }

    /// One field per structure (name, value, detail lines) for verbose output.
    public var fields: [Field] { structures.map(\.field) }
}
