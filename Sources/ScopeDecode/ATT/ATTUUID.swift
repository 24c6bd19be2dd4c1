import ScopeCore

/// A UUID as carried in ATT PDUs: 16-bit or 128-bit on the wire, little-endian (Core v5.4,
/// Vol 3, Part F, §3.2.1). ATT uses the one UUID type of the decoder, ``BluetoothUUID``, which
/// compares by 128-bit value and names UUIDs from the assigned-numbers tables.
public typealias ATTUUID = BluetoothUUID

extension BluetoothUUID {
    /// A 16-bit UUID (an alias into the Base UUID).
    public init(_ uuid16: UInt16) { self.init(uuid16: uuid16) }

    /// "0x2a37" for 16-bit aliases, "0x12345678" for 32-bit ones, otherwise the canonical
    /// "6e400001-b5a3-f393-e0a9-e50e24dcca9e".
    public var string: String {
        if let u = uuid16 { return Hex.prefixed(u, digits: 4) }
        if let u = uuid32 { return Hex.prefixed(u, digits: 8) }
        return uuidString
    }
}
