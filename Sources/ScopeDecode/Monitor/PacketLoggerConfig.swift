import ScopeCore

/// PacketLogger type 0xFD ("config") records, as iOS bluetoothd writes them at the start of a
/// log. Apple documents none of this; the layout below is what the records of a real iOS 27
/// log show (`havvk__even-g2-smart-classroom__bt3.pklg` of the corpus: three records whose
/// lengths the layout accounts for exactly, one of whose addresses the log's own scan filter
/// note repeats). Sub-type 0x01 describes a paired device:
///
/// ```
///  0      1          3           4              4+n            10+n               26+n
///  +------+----------+-----------+--------------+--------------+------------------+
///  | 0x01 | flags LE16 | name len n | name (UTF-8) | BD_ADDR (LE) | 16 opaque bytes  |
///  +------+----------+-----------+--------------+--------------+------------------+
/// ```
///
/// The 16 opaque bytes are treated as a secret (their size is that of an IRK or a link key).
/// Other sub-types (0x02 a service list, 0x05 GATT attributes, a lone 0xFF closing a block)
/// are not described.
public enum PacketLoggerConfig {
    public static let recordType: UInt8 = 0xFD

    static let pairedDevice: [ParamField] = [
        .u8("Type", .hex), .u16("Flags", .hex), .u8("Name Length", .decimal),
        .data("Name", lengthFrom: "Name Length", .text), .address("Address", .peer), .bytes("Opaque", 16, .hex),
    ]

    /// The layout of `p` when it is a paired-device record whose lengths add up, else nil.
    static func layout(_ p: [UInt8]) -> [ParamField]? {
        guard p.count >= 4, p[0] == 0x01, p.count == 4 + Int(p[3]) + 6 + 16 else { return nil }
        return pairedDevice
    }

    /// The spans of a 0xFD record payload: a paired-device record's name, address and opaque
    /// (secret) bytes; anything else `.opaque` (a lone sub-type byte is left alone).
    public static func spans(_ p: [UInt8]) -> [FieldSpan] {
        if let layout = layout(p) { return ParamLayout.spans(layout, p[...], baseOffset: 0, secretNames: ["Opaque"]) }
        return p.count <= 1 ? [] : [FieldSpan(0..<p.count, .opaque)]
    }

    /// The decoded fields of a 0xFD record (raw hex when it is not a paired-device record).
    public static func fields(_ p: [UInt8]) -> [Field] {
        if let layout = layout(p) { return ParamLayout.decode(layout, p[...], baseOffset: 0, layer: .monitor).fields }
        return p.isEmpty ? [] : [Field("Data", Hex.string(p, separator: " "))]
    }
}
