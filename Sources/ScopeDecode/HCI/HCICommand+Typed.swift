import ScopeCore

// Typed views of the commands the analysis reads (Core v5.4, Vol 4, Part E, §7.1, §7.8), each
// read through the slots of its own layout row (HCICommand+Table.swift, HCICommand+LETable.swift),
// looked up by parameter name once. Every view is bounds-checked: short bytes give nil, never a trap.
// Times come converted by the unit the row renders them in (`.slots`, `.connInterval`, `.tenMillis`).

/// A command the analysis reads, decoded into its typed view (``HCICommand/typed``).
public enum TypedCommand: Sendable, Hashable {
    case leSetScanParameters(LESetScanParameters)
    case leSetExtendedScanParameters(LESetExtendedScanParameters)
    /// LE Set Scan Enable and LE Set Extended Scan Enable (``LESetScanEnable/extended``).
    case leSetScanEnable(LESetScanEnable)
    case leCreateConnection(LECreateConnection)
    /// v1 and v2 (``LEExtendedCreateConnection/v2``).
    case leExtendedCreateConnection(LEExtendedCreateConnection)
    case leCreateConnectionCancel
    case disconnect(Disconnect)
    case leSetAdvertisingParameters(LESetAdvertisingParameters)
    /// v1 and v2.
    case leSetExtendedAdvertisingParameters(LESetExtendedAdvertisingParameters)
    /// LE Set Advertising Data and LE Set Scan Response Data (``LESetAdvertisingData/scanResponse``).
    case leSetAdvertisingData(LESetAdvertisingData)
    /// LE Set Extended Advertising Data and LE Set Extended Scan Response Data.
    case leSetExtendedAdvertisingData(LESetExtendedAdvertisingData)
    case leSetAdvertisingEnable(LESetAdvertisingEnable)
    case leSetExtendedAdvertisingEnable(LESetExtendedAdvertisingEnable)
}

extension HCICommand {
    /// The command's typed view, for the commands that have one (nil for the others, and when
    /// the parameters are too short for the fields the view reads). Decided by opcode first:
    /// other commands cost one switch.
    public var typed: TypedCommand? {
        let p = parameters[...]
        switch opcode {
        case .leSetScanParameters: return LESetScanParameters(p).map(TypedCommand.leSetScanParameters)
        case .leSetExtendedScanParameters: return LESetExtendedScanParameters(p).map(TypedCommand.leSetExtendedScanParameters)
        case .leSetScanEnable: return LESetScanEnable(p, extended: false).map(TypedCommand.leSetScanEnable)
        case .leSetExtendedScanEnable: return LESetScanEnable(p, extended: true).map(TypedCommand.leSetScanEnable)
        case .leCreateConnection: return LECreateConnection(p).map(TypedCommand.leCreateConnection)
        case .leExtendedCreateConnectionV1:
            return LEExtendedCreateConnection(p, v2: false).map(TypedCommand.leExtendedCreateConnection)
        case .leExtendedCreateConnectionV2:
            return LEExtendedCreateConnection(p, v2: true).map(TypedCommand.leExtendedCreateConnection)
        case .leCreateConnectionCancel: return .leCreateConnectionCancel
        case .disconnect: return Disconnect(p).map(TypedCommand.disconnect)
        case .leSetAdvertisingParameters: return LESetAdvertisingParameters(p).map(TypedCommand.leSetAdvertisingParameters)
        case .leSetExtendedAdvertisingParametersV1:
            return LESetExtendedAdvertisingParameters(p, v2: false).map(TypedCommand.leSetExtendedAdvertisingParameters)
        case .leSetExtendedAdvertisingParametersV2:
            return LESetExtendedAdvertisingParameters(p, v2: true).map(TypedCommand.leSetExtendedAdvertisingParameters)
        case .leSetAdvertisingData: return LESetAdvertisingData(p, scanResponse: false).map(TypedCommand.leSetAdvertisingData)
        case .leSetScanResponseData: return LESetAdvertisingData(p, scanResponse: true).map(TypedCommand.leSetAdvertisingData)
        case .leSetExtendedAdvertisingData:
            return LESetExtendedAdvertisingData(p, scanResponse: false).map(TypedCommand.leSetExtendedAdvertisingData)
        case .leSetExtendedScanResponseData:
            return LESetExtendedAdvertisingData(p, scanResponse: true).map(TypedCommand.leSetExtendedAdvertisingData)
        case .leSetAdvertisingEnable: return LESetAdvertisingEnable(p).map(TypedCommand.leSetAdvertisingEnable)
        case .leSetExtendedAdvertisingEnable:
            return LESetExtendedAdvertisingEnable(p).map(TypedCommand.leSetExtendedAdvertisingEnable)
        default: return nil
        }
    }

    /// The slots of `opcode`'s parameter layout row.
    static func slots(_ opcode: HCIOpcode) -> ParamSlots { ParamSlots(parameterLayout(opcode.rawValue)) }
    /// The slots of `opcode`'s return-parameter layout row.
    static func returnSlots(_ opcode: HCIOpcode) -> ParamSlots { ParamSlots(returnLayout(opcode.rawValue)) }
}

// MARK: - Scanning

/// LE Set Scan Parameters (§7.8.10).
public struct LESetScanParameters: Sendable, Hashable {
    /// LE_Scan_Type: 0 passive, 1 active.
    public var scanType: UInt8
    public var intervalMicros: Int64
    public var windowMicros: Int64
    public var active: Bool { scanType == 0x01 }

    struct Table: Sendable {
        var type = ParamSlot.unresolved, interval = ParamSlot.unresolved, window = ParamSlot.unresolved
        var missing: [String] = []
    }
    static let table: Table = {
        var s = HCICommand.slots(.leSetScanParameters)
        var t = Table()
        t.type = s.int("LE Scan Type")
        t.interval = s.int("LE Scan Interval")
        t.window = s.int("LE Scan Window")
        t.missing = s.missing
        return t
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.table
        guard let type = t.type.u8(p), let i = t.interval.uint(p).flatMap(t.interval.micros),
            let w = t.window.uint(p).flatMap(t.window.micros)
        else { return nil }
        (scanType, intervalMicros, windowMicros) = (type, i, w)
    }
}

/// LE Set Extended Scan Parameters (§7.8.64): one Scanning PHY block per bit set in Scanning_PHYs.
public struct LESetExtendedScanParameters: Sendable, Hashable {
    /// One block of scanning parameters.
    public struct PHY: Sendable, Hashable {
        /// The Scanning_PHYs bit this block belongs to (0 LE 1M, 2 LE Coded).
        public var bit: Int
        public var scanType: UInt8
        public var intervalMicros: Int64
        public var windowMicros: Int64
        public var active: Bool { scanType == 0x01 }
    }

    public var scanningPHYs: UInt8
    /// The blocks in wire order (ascending bit order), as the row's array describes them.
    public var phys: [PHY]

    struct Table: Sendable {
        var mask = ParamSlot.unresolved
        var array = ArraySlot.unresolved
        var type = ParamSlot.unresolved, interval = ParamSlot.unresolved, window = ParamSlot.unresolved
        var missing: [String] = []
    }
    static let table: Table = {
        var s = HCICommand.slots(.leSetExtendedScanParameters)
        var t = Table()
        t.mask = s.int("Scanning PHYs")
        t.array = s.array("Scanning PHY")
        var e = t.array.element
        t.type = e.int("Scan Type")
        t.interval = e.int("Scan Interval")
        t.window = e.int("Scan Window")
        s.absorb(e, prefix: "Scanning PHY")
        t.missing = s.missing
        return t
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.table
        guard let mask = t.mask.u8(p), let elements = t.array.elements(p) else { return nil }
        var phys: [PHY] = []
        phys.reserveCapacity(elements.count)
        var bits = mask
        for element in elements {
            // The element's PHY is the next set bit of the mask (the array has one per set bit).
            let bit = bits.trailingZeroBitCount
            bits &= bits &- 1
            guard let type = t.type.u8(element), let i = t.interval.uint(element).flatMap(t.interval.micros),
                let w = t.window.uint(element).flatMap(t.window.micros)
            else { return nil }
            phys.append(PHY(bit: bit, scanType: type, intervalMicros: i, windowMicros: w))
        }
        (scanningPHYs, self.phys) = (mask, phys)
    }
}

/// LE Set Scan Enable (§7.8.11) and LE Set Extended Scan Enable (§7.8.65): Enable, Filter_Duplicates.
public struct LESetScanEnable: Sendable, Hashable {
    public var extended: Bool
    public var enable: Bool
    /// Filter_Duplicates: 0 off, 1 on, 2 (extended) reset each scan period.
    public var filterDuplicates: UInt8

    struct Table: Sendable {
        var enable = ParamSlot.unresolved, filter = ParamSlot.unresolved
        var missing: [String] = []
    }
    static let legacyTable = table(.leSetScanEnable, enable: "LE Scan Enable")
    static let extendedTable = table(.leSetExtendedScanEnable, enable: "Enable")
    private static func table(_ opcode: HCIOpcode, enable: String) -> Table {
        var s = HCICommand.slots(opcode)
        var t = Table()
        t.enable = s.int(enable)
        t.filter = s.int("Filter Duplicates")
        t.missing = s.missing
        return t
    }

    init?(_ p: ArraySlice<UInt8>, extended: Bool) {
        let t = extended ? Self.extendedTable : Self.legacyTable
        guard let e = t.enable.u8(p), let f = t.filter.u8(p) else { return nil }
        (self.extended, enable, filterDuplicates) = (extended, e != 0, f)
    }
}

// MARK: - Connections

/// LE Create Connection (§7.8.12): who the host asks to connect to.
public struct LECreateConnection: Sendable, Hashable {
    /// Initiator_Filter_Policy: bit 0 set means the Filter Accept List, not the peer address.
    public var initiatorFilterPolicy: UInt8
    public var peerAddressType: UInt8
    public var peer: BDAddr
    public var scanIntervalMicros: Int64
    public var scanWindowMicros: Int64

    struct Table: Sendable {
        var policy = ParamSlot.unresolved, type = ParamSlot.unresolved, peer = ParamSlot.unresolved
        var interval = ParamSlot.unresolved, window = ParamSlot.unresolved
        var missing: [String] = []
    }
    static let table: Table = {
        var s = HCICommand.slots(.leCreateConnection)
        var t = Table()
        t.interval = s.int("LE Scan Interval")
        t.window = s.int("LE Scan Window")
        t.policy = s.int("Initiator Filter Policy")
        t.type = s.int("Peer Address Type")
        t.peer = s.address("Peer Address")
        t.missing = s.missing
        return t
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.table
        guard let i = t.interval.uint(p).flatMap(t.interval.micros), let w = t.window.uint(p).flatMap(t.window.micros),
            let policy = t.policy.u8(p), let type = t.type.u8(p), let peer = t.peer.address(p)
        else { return nil }
        (scanIntervalMicros, scanWindowMicros, initiatorFilterPolicy, peerAddressType, self.peer) = (i, w, policy, type, peer)
    }
}

/// LE Extended Create Connection v1 (§7.8.66) and v2 (Advertising_Handle and Subevent first):
/// who the host asks to connect to, then one block of scan and connection parameters per bit set
/// in Initiating_PHYs.
public struct LEExtendedCreateConnection: Sendable, Hashable {
    /// One Initiating PHY block.
    public struct PHY: Sendable, Hashable {
        /// The Initiating_PHYs bit this block belongs to (0 LE 1M, 1 LE 2M, 2 LE Coded).
        public var bit: Int
        public var scanIntervalMicros: Int64
        public var scanWindowMicros: Int64
        public var connectionIntervalMinMicros: Int64
        public var connectionIntervalMaxMicros: Int64
        public var maxLatency: UInt16
        public var supervisionTimeoutMicros: Int64
    }

    public var v2: Bool
    public var initiatorFilterPolicy: UInt8
    public var peerAddressType: UInt8
    public var peer: BDAddr
    public var initiatingPHYs: UInt8
    /// The blocks in wire order (ascending bit order); nil when they are cut short (the view
    /// still says who was asked for).
    public var phys: [PHY]?

    struct Table: Sendable {
        var policy = ParamSlot.unresolved, type = ParamSlot.unresolved, peer = ParamSlot.unresolved
        var mask = ParamSlot.unresolved
        var array = ArraySlot.unresolved
        var scanInterval = ParamSlot.unresolved, scanWindow = ParamSlot.unresolved
        var intervalMin = ParamSlot.unresolved, intervalMax = ParamSlot.unresolved
        var latency = ParamSlot.unresolved, timeout = ParamSlot.unresolved
        var missing: [String] = []
    }
    static let v1Table = table(.leExtendedCreateConnectionV1)
    static let v2Table = table(.leExtendedCreateConnectionV2)
    private static func table(_ opcode: HCIOpcode) -> Table {
        var s = HCICommand.slots(opcode)
        var t = Table()
        t.policy = s.int("Initiator Filter Policy")
        t.type = s.int("Peer Address Type")
        t.peer = s.address("Peer Address")
        t.mask = s.int("Initiating PHYs")
        t.array = s.array("Initiating PHY")
        var e = t.array.element
        t.scanInterval = e.int("Scan Interval")
        t.scanWindow = e.int("Scan Window")
        t.intervalMin = e.int("Connection Interval Min")
        t.intervalMax = e.int("Connection Interval Max")
        t.latency = e.int("Max Latency")
        t.timeout = e.int("Supervision Timeout")
        s.absorb(e, prefix: "Initiating PHY")
        t.missing = s.missing
        return t
    }

    init?(_ p: ArraySlice<UInt8>, v2: Bool) {
        let t = v2 ? Self.v2Table : Self.v1Table
        guard let policy = t.policy.u8(p), let type = t.type.u8(p), let peer = t.peer.address(p) else { return nil }
        (self.v2, initiatorFilterPolicy, peerAddressType, self.peer) = (v2, policy, type, peer)
        let mask = t.mask.u8(p) ?? 0
        initiatingPHYs = mask
        phys = t.array.elements(p).flatMap { elements in
            var out: [PHY] = []
            var bits = mask
            for element in elements {
                // The element's PHY is the next set bit of the mask (one element per set bit).
                let bit = bits.trailingZeroBitCount
                bits &= bits &- 1
                guard let si = t.scanInterval.uint(element).flatMap(t.scanInterval.micros),
                    let sw = t.scanWindow.uint(element).flatMap(t.scanWindow.micros),
                    let lo = t.intervalMin.uint(element).flatMap(t.intervalMin.micros),
                    let hi = t.intervalMax.uint(element).flatMap(t.intervalMax.micros),
                    let latency = t.latency.u16(element),
                    let timeout = t.timeout.uint(element).flatMap(t.timeout.micros)
                else { return nil }
                out.append(
                    PHY(bit: bit, scanIntervalMicros: si, scanWindowMicros: sw, connectionIntervalMinMicros: lo,
                        connectionIntervalMaxMicros: hi, maxLatency: latency, supervisionTimeoutMicros: timeout))
            }
            return out
        }
    }
}

/// Disconnect (§7.1.6).
public struct Disconnect: Sendable, Hashable {
    public var handle: UInt16
    public var reason: UInt8

    struct Table: Sendable {
        var handle = ParamSlot.unresolved, reason = ParamSlot.unresolved
        var missing: [String] = []
    }
    static let table: Table = {
        var s = HCICommand.slots(.disconnect)
        var t = Table()
        t.handle = s.int("Connection Handle")
        t.reason = s.int("Reason")
        t.missing = s.missing
        return t
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.table
        guard let h = t.handle.handle(p), let r = t.reason.u8(p) else { return nil }
        (handle, reason) = (h, r)
    }
}

// MARK: - Advertising

/// LE Set Advertising Parameters (§7.8.5).
public struct LESetAdvertisingParameters: Sendable, Hashable {
    public var intervalMinMicros: Int64
    public var intervalMaxMicros: Int64
    /// Advertising_Type: 0 ADV_IND, 1 ADV_DIRECT_IND (high duty cycle), 2 ADV_SCAN_IND,
    /// 3 ADV_NONCONN_IND, 4 ADV_DIRECT_IND (low duty cycle).
    public var advertisingType: UInt8
    public var connectable: Bool { advertisingType == 0 || advertisingType == 1 || advertisingType == 4 }
    public var directed: Bool { advertisingType == 1 || advertisingType == 4 }

    struct Table: Sendable {
        var min = ParamSlot.unresolved, max = ParamSlot.unresolved, type = ParamSlot.unresolved
        var missing: [String] = []
    }
    static let table: Table = {
        var s = HCICommand.slots(.leSetAdvertisingParameters)
        var t = Table()
        t.min = s.int("Advertising Interval Min")
        t.max = s.int("Advertising Interval Max")
        t.type = s.int("Advertising Type")
        t.missing = s.missing
        return t
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.table
        guard let lo = t.min.uint(p).flatMap(t.min.micros), let hi = t.max.uint(p).flatMap(t.max.micros),
            let type = t.type.u8(p)
        else { return nil }
        (intervalMinMicros, intervalMaxMicros, advertisingType) = (lo, hi, type)
    }
}

/// LE Set Extended Advertising Parameters v1/v2 (§7.8.53).
public struct LESetExtendedAdvertisingParameters: Sendable, Hashable {
    public var advertisingHandle: UInt8
    /// Advertising_Event_Properties: bit 0 connectable, 1 scannable, 2 directed, 3 high duty
    /// cycle, 4 legacy PDUs.
    public var eventProperties: UInt16
    public var primaryIntervalMinMicros: Int64
    public var connectable: Bool { eventProperties & 0x01 != 0 }
    public var directed: Bool { eventProperties & 0x04 != 0 }
    public var legacyPDUs: Bool { eventProperties & 0x10 != 0 }

    struct Table: Sendable {
        var handle = ParamSlot.unresolved, properties = ParamSlot.unresolved, min = ParamSlot.unresolved
        var missing: [String] = []
    }
    static let v1Table = table(.leSetExtendedAdvertisingParametersV1)
    static let v2Table = table(.leSetExtendedAdvertisingParametersV2)
    private static func table(_ opcode: HCIOpcode) -> Table {
        var s = HCICommand.slots(opcode)
        var t = Table()
        t.handle = s.int("Advertising Handle")
        t.properties = s.int("Advertising Event Properties")
        t.min = s.int("Primary Advertising Interval Min")
        t.missing = s.missing
        return t
    }

    init?(_ p: ArraySlice<UInt8>, v2: Bool) {
        let t = v2 ? Self.v2Table : Self.v1Table
        guard let h = t.handle.u8(p), let props = t.properties.u16(p), let lo = t.min.uint(p).flatMap(t.min.micros)
        else { return nil }
        (advertisingHandle, eventProperties, primaryIntervalMinMicros) = (h, props, lo)
    }
}

/// LE Set Advertising Data (§7.8.7) and LE Set Scan Response Data (§7.8.8): a length, then a
/// 31-byte block of which that many bytes are used.
public struct LESetAdvertisingData: Sendable, Hashable {
    public var scanResponse: Bool
    /// The stated length.
    public var length: Int
    /// The used bytes present (at most `length`; fewer when the host trimmed the block).
    public var data: ArraySlice<UInt8>

    struct Table: Sendable {
        var advertising = RunSlot.unresolved, scanResponse = RunSlot.unresolved
        var missing: [String] = []
    }
    static let table: Table = {
        var a = HCICommand.slots(.leSetAdvertisingData)
        var r = HCICommand.slots(.leSetScanResponseData)
        var t = Table()
        t.advertising = a.run("Advertising Data")
        t.scanResponse = r.run("Scan Response Data")
        a.absorb(r, prefix: "LE Set Scan Response Data")
        t.missing = a.missing
        return t
    }()

    init?(_ p: ArraySlice<UInt8>, scanResponse: Bool) {
        let t = Self.table
        guard let (length, data) = (scanResponse ? t.scanResponse : t.advertising).read(p) else { return nil }
        (self.scanResponse, self.length, self.data) = (scanResponse, length, data)
    }
}

/// LE Set Extended Advertising Data (§7.8.54) and LE Set Extended Scan Response Data (§7.8.55).
public struct LESetExtendedAdvertisingData: Sendable, Hashable {
    public var scanResponse: Bool
    public var advertisingHandle: UInt8
    /// Operation: 0 intermediate fragment, 1 first, 2 last, 3 complete, 4 unchanged data.
    public var operation: UInt8
    public var length: Int
    /// The fragment's bytes present (at most `length`).
    public var data: ArraySlice<UInt8>

    struct Table: Sendable {
        var handle = ParamSlot.unresolved, operation = ParamSlot.unresolved, run = RunSlot.unresolved
        var missing: [String] = []
    }
    static let advertisingTable = table(.leSetExtendedAdvertisingData, "Advertising Data")
    static let scanResponseTable = table(.leSetExtendedScanResponseData, "Scan Response Data")
    private static func table(_ opcode: HCIOpcode, _ data: String) -> Table {
        var s = HCICommand.slots(opcode)
        var t = Table()
        t.handle = s.int("Advertising Handle")
        t.operation = s.int("Operation")
        t.run = s.run(data)
        t.missing = s.missing
        return t
    }

    init?(_ p: ArraySlice<UInt8>, scanResponse: Bool) {
        let t = scanResponse ? Self.scanResponseTable : Self.advertisingTable
        guard let h = t.handle.u8(p), let op = t.operation.u8(p), let (length, data) = t.run.read(p) else { return nil }
        (self.scanResponse, advertisingHandle, operation, self.length, self.data) = (scanResponse, h, op, length, data)
    }
}

/// LE Set Advertising Enable (§7.8.9).
public struct LESetAdvertisingEnable: Sendable, Hashable {
    public var enable: Bool

    struct Table: Sendable {
        var enable = ParamSlot.unresolved
        var missing: [String] = []
    }
    static let table: Table = {
        var s = HCICommand.slots(.leSetAdvertisingEnable)
        var t = Table()
        t.enable = s.int("Advertising Enable")
        t.missing = s.missing
        return t
    }()

    init?(_ p: ArraySlice<UInt8>) {
        guard let e = Self.table.enable.u8(p) else { return nil }
        enable = e != 0
    }
}

/// LE Set Extended Advertising Enable (§7.8.56): Enable, Num_Sets, then one block per set.
/// Num_Sets 0 with Enable 0 disables every set.
public struct LESetExtendedAdvertisingEnable: Sendable, Hashable {
    public struct Set: Sendable, Hashable {
        public var advertisingHandle: UInt8
        public var durationMicros: Int64
        public var maxExtendedAdvertisingEvents: UInt8
    }

    public var enable: Bool
    public var sets: [Set]

    struct Table: Sendable {
        var enable = ParamSlot.unresolved
        var array = ArraySlot.unresolved
        var handle = ParamSlot.unresolved, duration = ParamSlot.unresolved, events = ParamSlot.unresolved
        var missing: [String] = []
    }
    static let table: Table = {
        var s = HCICommand.slots(.leSetExtendedAdvertisingEnable)
        var t = Table()
        t.enable = s.int("Enable")
        t.array = s.array("Set")
        var e = t.array.element
        t.handle = e.int("Advertising Handle")
        t.duration = e.int("Duration")
        t.events = e.int("Max Extended Advertising Events")
        s.absorb(e, prefix: "Set")
        t.missing = s.missing
        return t
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.table
        guard let e = t.enable.u8(p), let elements = t.array.elements(p) else { return nil }
        var sets: [Set] = []
        sets.reserveCapacity(elements.count)
        for element in elements {
            guard let h = t.handle.u8(element), let d = t.duration.uint(element).flatMap(t.duration.micros),
                let n = t.events.u8(element)
            else { return nil }
            sets.append(Set(advertisingHandle: h, durationMicros: d, maxExtendedAdvertisingEvents: n))
        }
        (enable, self.sets) = (e != 0, sets)
    }
}
