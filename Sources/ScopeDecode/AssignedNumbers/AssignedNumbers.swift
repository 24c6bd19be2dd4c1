// PLACEHOLDER API — the assigned-numbers work replaces the bodies with lookups into generated tables.

/// Names from the Bluetooth Assigned Numbers (company identifiers, GATT UUIDs, appearance).
public enum AssignedNumbers {
    /// Company name for a Bluetooth SIG company identifier ("Apple, Inc." for 0x004C).
    public static func companyName(_ id: UInt16) -> String? { nil }
    /// Name of a 16-bit GATT service, characteristic, descriptor or declaration UUID
    /// ("Heart Rate" for 0x180D, "Client Characteristic Configuration" for 0x2902).
    public static func uuid16Name(_ uuid: UInt16) -> String? { nil }
    /// Appearance name ("Generic Watch" for 0x00C0).
    public static func appearanceName(_ value: UInt16) -> String? { nil }
}
