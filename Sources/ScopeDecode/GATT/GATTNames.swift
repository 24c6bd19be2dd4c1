/// Names of GATT attribute types (Core v5.4, Vol 3, Part G, §3: service, include and
/// characteristic declarations, §3.3.3: characteristic descriptors). These few are needed to
/// interpret discovery whatever the assigned-numbers tables hold; every other 16-bit UUID is
/// looked up in ``AssignedNumbers``.
public enum GATTNames {
    public static let primaryService: UInt16 = 0x2800
    public static let secondaryService: UInt16 = 0x2801
    public static let include: UInt16 = 0x2802
    public static let characteristic: UInt16 = 0x2803
    public static let extendedProperties: UInt16 = 0x2900
    public static let userDescription: UInt16 = 0x2901
    public static let clientCharacteristicConfiguration: UInt16 = 0x2902
    public static let serverCharacteristicConfiguration: UInt16 = 0x2903
    public static let presentationFormat: UInt16 = 0x2904
    public static let aggregateFormat: UInt16 = 0x2905

    static let core: [UInt16: String] = [
        0x2800: "Primary Service",
        0x2801: "Secondary Service",
        0x2802: "Include",
        0x2803: "Characteristic",
        0x2900: "Characteristic Extended Properties",
        0x2901: "Characteristic User Description",
        0x2902: "Client Characteristic Configuration",
        0x2903: "Server Characteristic Configuration",
        0x2904: "Characteristic Presentation Format",
        0x2905: "Characteristic Aggregate Format",
    ]

    /// Assigned name of a 16-bit UUID, falling back to the GATT declaration/descriptor names.
    public static func uuid16(_ uuid: UInt16) -> String? {
        AssignedNumbers.uuid16Name(uuid) ?? core[uuid]
    }
}
