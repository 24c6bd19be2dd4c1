import ScopeCore

// A small declarative language for HCI parameter layouts, in the spirit of btmon's
// opcode_table rows: each command, event and LE subevent names its parameters in wire order,
// and one generic interpreter (``ParamLayout``) turns bytes into `[Field]` and malformations.
// Parameter names follow the Core spec with underscores written as spaces.

/// One parameter (or group of parameters) in wire order. All integers are little-endian
/// (Core v5.4, Vol 4, Part E, §5.2).
public indirect enum ParamField: Sendable {
    case u8(String, ParamRender)
    case u16(String, ParamRender)
    case u24(String, ParamRender)
    case u32(String, ParamRender)
    case u64(String, ParamRender)
    /// A 6-byte BD_ADDR. `.peer` addresses name another device and feed `--address` filters.
    case address(String, AddressRole)
    /// Exactly `count` bytes.
    case bytes(String, Int, BytesRender)
    /// As many bytes as an earlier integer parameter says (e.g. Data_Length, then Data).
    case data(String, lengthFrom: String, BytesRender)
    /// A fixed-size block of which only the first `lengthFrom` bytes are significant
    /// (LE Set Advertising Data: 31 bytes, Advertising_Data_Length of them used).
    case padded(String, lengthFrom: String, size: Int, BytesRender)
    /// Whatever is left (possibly nothing).
    case rest(String, BytesRender)
    /// `count` repetitions of the element layout. The Core spec lists array parameters as
    /// `Param[i]`; on the wire each element's parameters are contiguous (as every stack and
    /// controller sends them, e.g. Number Of Completed Packets' handle/count pairs).
    case array(String, count: ArrayCount, [ParamField])
    /// The rest of the parameters laid out by the variant an earlier integer selects (a vendor
    /// command with sub-commands, such as Android's LE Multi-Advertising). A value no variant
    /// names leaves the rest undescribed (shown as hex, opaque to the redactor).
    case variant(String, selector: String, [ParamVariant])

    /// "Status", rendered as an error code.
    public static let status: ParamField = .u8("Status", .status)
    /// "Connection Handle" (12 significant bits).
    public static let handle: ParamField = .u16("Connection Handle", .handle)
    /// A named connection (or CIS/sync) handle.
    public static func handle(_ name: String) -> ParamField { .u16(name, .handle) }
    /// A signed 8-bit power or RSSI in dBm (127 = not available).
    public static func dBm(_ name: String) -> ParamField { .u8(name, .dBm) }
    /// An 8-bit Reason parameter, rendered as an error code.
    public static let reason: ParamField = .u8("Reason", .status)

    /// The parameter's name.
    public var name: String {
        switch self {
        case .u8(let n, _), .u16(let n, _), .u24(let n, _), .u32(let n, _), .u64(let n, _): return n
        case .address(let n, _), .bytes(let n, _, _), .data(let n, _, _), .padded(let n, _, _, _): return n
        case .rest(let n, _), .array(let n, _, _), .variant(let n, _, _): return n
        }
    }

    /// True when the field takes its length or count from the integer named `name`.
    func refersTo(_ name: String) -> Bool {
        switch self {
        case .data(_, let n, _), .padded(_, let n, _, _): return n == name
        case .array(_, .field(let n), _), .array(_, .bitsIn(let n), _): return n == name
        case .variant(_, let n, _): return n == name
        default: return false
        }
    }

    /// Size on the wire when it does not depend on the data.
    public var fixedSize: Int? {
        switch self {
        case .u8: return 1
        case .u16: return 2
        case .u24: return 3
        case .u32: return 4
        case .u64: return 8
        case .address: return 6
        case .bytes(_, let n, _): return n
        case .padded(_, _, let n, _): return n
        case .data, .rest, .array, .variant: return nil
        }
    }
}

/// One variant of a ``ParamField/variant``: the selector value that picks it, its name, and its
/// parameters in wire order.
public struct ParamVariant: Sendable {
    public let value: UInt64
    public let name: String
    public let fields: [ParamField]
    public init(_ value: UInt64, _ name: String, _ fields: [ParamField]) {
        self.value = value
        self.name = name
        self.fields = fields
    }
}

/// Where an array's element count comes from.
public enum ArrayCount: Sendable {
    /// The value of an earlier integer parameter (Num_Reports, Num_Handles, Num_Sets).
    case field(String)
    /// The number of bits set in an earlier parameter (Scanning_PHYs, Initiating_PHYs: one
    /// element per PHY bit).
    case bitsIn(String)
}

/// Whether an address names the other device (peer, target, advertiser) or this controller.
public enum AddressRole: Sendable {
    case peer, local
}

/// How a run of bytes is shown.
public enum BytesRender: Sendable {
    /// "01 02 03".
    case hex
    /// Advertising/scan response/EIR data, split into AD structures as children.
    case advertisingData
    /// UTF-8 text up to the first NUL (Local_Name, Remote_Name).
    case text
}

/// One named bit (or multi-bit value under `mask`) of a flag set.
public struct ParamFlag: Sendable {
    public let mask: UInt64
    public let name: String
    public init(_ mask: UInt64, _ name: String) {
        self.mask = mask
        self.name = name
    }
}

/// How an integer parameter is shown.
public enum ParamRender: Sendable {
    /// "0x1a" (two digits per byte).
    case hex
    /// "26".
    case decimal
    /// Signed decimal of the field's width ("-3").
    case signed
    /// An error code: "Remote User Terminated Connection (0x13)".
    case status
    /// A 12-bit connection handle: "0x0040".
    case handle
    /// Units of 0.625 ms (advertising/scan intervals, CE lengths, page timeouts):
    /// "100.000 ms (0x00a0)".
    case slots
    /// Units of 1.25 ms (connection intervals): "30.00 ms (0x0018)".
    case connInterval
    /// Units of 10 ms (supervision and sync timeouts, durations): "420 ms (0x002a)".
    case tenMillis
    /// Units of 1.28 s (inquiry length, extended scan period).
    case units1_28s
    /// Microseconds ("328 µs").
    case micros
    /// Seconds ("900 s").
    case seconds
    /// Signed 8-bit dBm; 127 (0x7f) means "not available".
    case dBm
    /// Single PHY value: 0 none, 1 LE 1M, 2 LE 2M, 3 LE Coded.
    case phy
    /// PHY bit set: bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded.
    case phyMask
    /// LE address type (Public, Random, Public Identity, Random Identity, ...).
    case addressType
    /// Own_Address_Type (Public, Random, RPA-or-Public, RPA-or-Random).
    case ownAddressType
    /// A Bluetooth SIG company identifier.
    case companyID
    /// HCI/LMP/LL version number ("Bluetooth 5.3 (0x0c)").
    case coreVersion
    /// A command opcode.
    case opcode
    /// LE extended advertising Event_Type bits (§7.7.65.13).
    case extendedAdvertisingEventType
    /// Named values; others render as "Unknown (0x05)".
    case values([UInt64: String])
    /// Named bits; set bits are listed and any unnamed remainder is shown as a mask.
    case flags([ParamFlag])
}
