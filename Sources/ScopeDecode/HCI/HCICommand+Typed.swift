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
    /// LE Connection Update: the host asks for new connection parameters.
    case leConnectionUpdate(LEConnectionUpdate)
    case leSetAdvertisingParameters(LESetAdvertisingParameters)
    /// v1 and v2.
    case leSetExtendedAdvertisingParameters(LESetExtendedAdvertisingParameters)
    /// LE Set Advertising Data and LE Set Scan Response Data (``LESetAdvertisingData/scanResponse``).
    case leSetAdvertisingData(LESetAdvertisingData)
    /// LE Set Extended Advertising Data and LE Set Extended Scan Response Data.
    case leSetExtendedAdvertisingData(LESetExtendedAdvertisingData)
    case leSetAdvertisingEnable(LESetAdvertisingEnable)
    case leSetExtendedAdvertisingEnable(LESetExtendedAdvertisingEnable)
    /// Android's vendor LE Multi-Advertising (``HCIOpcode/androidMultiAdvertising``).
    case androidMultiAdvertising(AndroidMultiAdvertising)
    /// LE Add Device To / Remove Device From Filter Accept List.
    case leFilterAcceptListDevice(LEFilterAcceptListDevice)
    case leClearFilterAcceptList
}

extension HCICommand {
    /// The command's typed view, for the commands that have one (nil for the others, and when
    /// the parameters are too short for the fields the view reads). Decided by opcode first:
    /// other commands cost one switch.
    public var typed: TypedCommand? {
        let p = parameters[...]
        switch opcode {
        case .leSetScanParameters: return LESetScanParameters(p).map(TypedCommand.leSetScanParameters)
        case .androidExtendedScanParameters: return LESetScanParameters(androidVendor: p).map(TypedCommand.leSetScanParameters)
        case .androidMultiAdvertising: return AndroidMultiAdvertising(p).map(TypedCommand.androidMultiAdvertising)
        case .leSetExtendedScanParameters: return LESetExtendedScanParameters(p).map(TypedCommand.leSetExtendedScanParameters)
        case .leSetScanEnable: return LESetScanEnable(p, extended: false).map(TypedCommand.leSetScanEnable)
        case .leSetExtendedScanEnable: return LESetScanEnable(p, extended: true).map(TypedCommand.leSetScanEnable)
        case .leCreateConnection: return LECreateConnection(p).map(TypedCommand.leCreateConnection)
        case .leExtendedCreateConnectionV1:
            return LEExtendedCreateConnection(p, v2: false).map(TypedCommand.leExtendedCreateConnection)
        case .leExtendedCreateConnectionV2:
            return LEExtendedCreateConnection(p, v2: true).map(TypedCommand.leExtendedCreateConnection)
        case .leCreateConnectionCancel: return .leCreateConnectionCancel
        case .leAddDeviceToFilterAcceptList:
            return LEFilterAcceptListDevice(p, added: true).map(TypedCommand.leFilterAcceptListDevice)
        case .leRemoveDeviceFromFilterAcceptList:
            return LEFilterAcceptListDevice(p, added: false).map(TypedCommand.leFilterAcceptListDevice)
        case .leClearFilterAcceptList: return .leClearFilterAcceptList
        case .disconnect: return Disconnect(p).map(TypedCommand.disconnect)
        case .leConnectionUpdate: return LEConnectionUpdate(p).map(TypedCommand.leConnectionUpdate)
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
    /// Scanning_Filter_Policy (§7.8.10): bit 0 set reports only Filter Accept List devices.
    public var filterPolicy: UInt8
    public var active: Bool { scanType == 0x01 }

    struct Table: Sendable {
        var type = ParamSlot.unresolved, interval = ParamSlot.unresolved, window = ParamSlot.unresolved
        var policy = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCICommand.slots(.leSetScanParameters)
        var t = Table()
        t.type = s.int("LE Scan Type")
        t.interval = s.int("LE Scan Interval")
        t.window = s.int("LE Scan Window")
        t.policy = s.int("Scanning Filter Policy")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let type = t.type.u8(p), let i = t.interval.micros(p),
            let w = t.window.micros(p), let policy = t.policy.u8(p)
        else { return nil }
        (scanType, intervalMicros, windowMicros, filterPolicy) = (type, i, w, policy)
    }

    /// Android's vendor LE Extended Scan Parameters (``HCIOpcode/androidExtendedScanParameters``),
    /// the same parameters with 32-bit interval and window: Scan_Type (1), Scan_Interval (4),
    /// Scan_Window (4, both in 0.625 ms slots, little-endian), Own_Address_Type (1),
    /// Scanning_Filter_Policy (1). aleksamarkoni's corpus log: `01 401f0000 20030000 01 00`,
    /// active 8000/800 slots (5 s / 0.5 s).
    init?(androidVendor p: ArraySlice<UInt8>) {
        guard p.count >= 11 else { return nil }
        let b = p.startIndex
        func u32(_ at: Int) -> Int64 { (0..<4).reduce(Int64(0)) { $0 | Int64(p[b + at + $1]) << (8 * $1) } }
        (scanType, intervalMicros, windowMicros, filterPolicy) = (p[b], u32(1) * 625, u32(5) * 625, p[b + 10])
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
    /// Scanning_Filter_Policy (§7.8.64): bit 0 set reports only Filter Accept List devices.
    public var filterPolicy: UInt8
    /// The blocks in wire order (ascending bit order), as the row's array describes them.
    public var phys: [PHY]

    struct Table: Sendable {
        var policy = ParamSlot.unresolved
        var mask = ParamSlot.unresolved
        var array = ArraySlot.unresolved
        var type = ParamSlot.unresolved, interval = ParamSlot.unresolved, window = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCICommand.slots(.leSetExtendedScanParameters)
        var t = Table()
        t.policy = s.int("Scanning Filter Policy")
        t.mask = s.int("Scanning PHYs")
        var e: ParamSlots
        (t.array, e) = s.array("Scanning PHY")
        t.type = e.int("Scan Type")
        t.interval = e.int("Scan Interval")
        t.window = e.int("Scan Window")
        s.absorb(e, prefix: "Scanning PHY")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let policy = t.policy.u8(p), let mask = t.mask.u8(p), let count = t.array.count(p) else { return nil }
        var phys: [PHY] = []
        phys.reserveCapacity(count)
        var bits = mask
        for k in 0..<count {
            // The element's PHY is the next set bit of the mask (the array has one per set bit).
            let bit = bits.trailingZeroBitCount
            bits &= bits &- 1
            let at = t.array.start(k)
            guard let type = t.type.u8(p, at: at), let i = t.interval.micros(p, at: at), let w = t.window.micros(p, at: at)
            else { return nil }
            phys.append(PHY(bit: bit, scanType: type, intervalMicros: i, windowMicros: w))
        }
        (filterPolicy, scanningPHYs, self.phys) = (policy, mask, phys)
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
    }
    static let legacyTable = table(.leSetScanEnable, enable: "LE Scan Enable")
    static let extendedTable = table(.leSetExtendedScanEnable, enable: "Enable")
    private static func table(_ opcode: HCIOpcode, enable: String) -> Built<Table> {
        var s = HCICommand.slots(opcode)
        var t = Table()
        t.enable = s.int(enable)
        t.filter = s.int("Filter Duplicates")
        return Built(t, s.missing)
    }

    init?(_ p: ArraySlice<UInt8>, extended: Bool) {
        let t = extended ? Self.extendedTable.table : Self.legacyTable.table
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
    }
    static let built: Built<Table> = {
        var s = HCICommand.slots(.leCreateConnection)
        var t = Table()
        t.interval = s.int("LE Scan Interval")
        t.window = s.int("LE Scan Window")
        t.policy = s.int("Initiator Filter Policy")
        t.type = s.int("Peer Address Type")
        t.peer = s.address("Peer Address")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let i = t.interval.micros(p), let w = t.window.micros(p),
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
    }
    static let v1Table = table(.leExtendedCreateConnectionV1)
    static let v2Table = table(.leExtendedCreateConnectionV2)
    private static func table(_ opcode: HCIOpcode) -> Built<Table> {
        var s = HCICommand.slots(opcode)
        var t = Table()
        t.policy = s.int("Initiator Filter Policy")
        t.type = s.int("Peer Address Type")
        t.peer = s.address("Peer Address")
        t.mask = s.int("Initiating PHYs")
        var e: ParamSlots
        (t.array, e) = s.array("Initiating PHY")
        t.scanInterval = e.int("Scan Interval")
        t.scanWindow = e.int("Scan Window")
        t.intervalMin = e.int("Connection Interval Min")
        t.intervalMax = e.int("Connection Interval Max")
        t.latency = e.int("Max Latency")
        t.timeout = e.int("Supervision Timeout")
        s.absorb(e, prefix: "Initiating PHY")
        return Built(t, s.missing)
    }

    init?(_ p: ArraySlice<UInt8>, v2: Bool) {
        let t = v2 ? Self.v2Table.table : Self.v1Table.table
        guard let policy = t.policy.u8(p), let type = t.type.u8(p), let peer = t.peer.address(p) else { return nil }
        (self.v2, initiatorFilterPolicy, peerAddressType, self.peer) = (v2, policy, type, peer)
        let mask = t.mask.u8(p) ?? 0
        initiatingPHYs = mask
        phys = t.array.count(p).flatMap { count in
            var out: [PHY] = []
            out.reserveCapacity(count)
            var bits = mask
            for k in 0..<count {
                // The element's PHY is the next set bit of the mask (one element per set bit).
                let bit = bits.trailingZeroBitCount
                bits &= bits &- 1
                let at = t.array.start(k)
                guard let si = t.scanInterval.micros(p, at: at), let sw = t.scanWindow.micros(p, at: at),
                    let lo = t.intervalMin.micros(p, at: at), let hi = t.intervalMax.micros(p, at: at),
                    let latency = t.latency.u16(p, at: at), let timeout = t.timeout.micros(p, at: at)
                else { return nil }
                out.append(
                    PHY(bit: bit, scanIntervalMicros: si, scanWindowMicros: sw, connectionIntervalMinMicros: lo,
                        connectionIntervalMaxMicros: hi, maxLatency: latency, supervisionTimeoutMicros: timeout))
            }
            return out
        }
    }
}

/// LE Add Device To Filter Accept List (§7.8.16) and LE Remove Device From Filter Accept List
/// (§7.8.17): the device a connection request "to the accept list" may then connect to.
public struct LEFilterAcceptListDevice: Sendable, Hashable {
    /// Added (true) or removed.
    public var added: Bool
    /// Address_Type: 0 public, 1 random, 0xFF anonymous advertisements.
    public var addressType: UInt8
    public var address: BDAddr

    struct Table: Sendable {
        var type = ParamSlot.unresolved, address = ParamSlot.unresolved
    }
    static let addTable = table(.leAddDeviceToFilterAcceptList)
    static let removeTable = table(.leRemoveDeviceFromFilterAcceptList)
    private static func table(_ opcode: HCIOpcode) -> Built<Table> {
        var s = HCICommand.slots(opcode)
        var t = Table()
        t.type = s.int("Address Type")
        t.address = s.address("Address")
        return Built(t, s.missing)
    }

    init?(_ p: ArraySlice<UInt8>, added: Bool) {
        let t = added ? Self.addTable.table : Self.removeTable.table
        guard let type = t.type.u8(p), let a = t.address.address(p) else { return nil }
        (self.added, addressType, address) = (added, type, a)
    }
}

/// Disconnect (§7.1.6).
public struct Disconnect: Sendable, Hashable {
    public var handle: UInt16
    public var reason: UInt8

    struct Table: Sendable {
        var handle = ParamSlot.unresolved, reason = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCICommand.slots(.disconnect)
        var t = Table()
        t.handle = s.int("Connection Handle")
        t.reason = s.int("Reason")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let h = t.handle.handle(p), let r = t.reason.u8(p) else { return nil }
        (handle, reason) = (h, r)
    }
}

/// LE Connection Update (§7.8.18): the connection whose parameters the host asks to change.
public struct LEConnectionUpdate: Sendable, Hashable {
    public var handle: UInt16

    struct Table: Sendable {
        var handle = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCICommand.slots(.leConnectionUpdate)
        var t = Table()
        t.handle = s.int("Connection Handle")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        guard let h = Self.built.table.handle.handle(p) else { return nil }
        handle = h
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
    }
    static let built: Built<Table> = {
        var s = HCICommand.slots(.leSetAdvertisingParameters)
        var t = Table()
        t.min = s.int("Advertising Interval Min")
        t.max = s.int("Advertising Interval Max")
        t.type = s.int("Advertising Type")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let lo = t.min.micros(p), let hi = t.max.micros(p),
            let type = t.type.u8(p)
        else { return nil }
        (intervalMinMicros, intervalMaxMicros, advertisingType) = (lo, hi, type)
    }

    init(intervalMinMicros: Int64, intervalMaxMicros: Int64, advertisingType: UInt8) {
        (self.intervalMinMicros, self.intervalMaxMicros, self.advertisingType) = (intervalMinMicros, intervalMaxMicros, advertisingType)
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
    }
    static let v1Table = table(.leSetExtendedAdvertisingParametersV1)
    static let v2Table = table(.leSetExtendedAdvertisingParametersV2)
    private static func table(_ opcode: HCIOpcode) -> Built<Table> {
        var s = HCICommand.slots(opcode)
        var t = Table()
        t.handle = s.int("Advertising Handle")
        t.properties = s.int("Advertising Event Properties")
        t.min = s.int("Primary Advertising Interval Min")
        return Built(t, s.missing)
    }

    init?(_ p: ArraySlice<UInt8>, v2: Bool) {
        let t = v2 ? Self.v2Table.table : Self.v1Table.table
        guard let h = t.handle.u8(p), let props = t.properties.u16(p), let lo = t.min.micros(p)
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
    }
    static let built: Built<Table> = {
        var a = HCICommand.slots(.leSetAdvertisingData)
        var r = HCICommand.slots(.leSetScanResponseData)
        var t = Table()
        t.advertising = a.run("Advertising Data")
        t.scanResponse = r.run("Scan Response Data")
        a.absorb(r, prefix: "LE Set Scan Response Data")
        return Built(t, a.missing)
    }()

    init?(_ p: ArraySlice<UInt8>, scanResponse: Bool) {
        let t = Self.built.table
        guard let (length, data) = (scanResponse ? t.scanResponse : t.advertising).read(p) else { return nil }
        (self.scanResponse, self.length, self.data) = (scanResponse, length, data)
    }

    init(scanResponse: Bool, length: Int, data: ArraySlice<UInt8>) {
        (self.scanResponse, self.length, self.data) = (scanResponse, length, data)
    }
}

/// Android's vendor LE Multi-Advertising (``HCIOpcode/androidMultiAdvertising``): one
/// instance's parameters, data or enable, read through the slots of the sub-command's variant
/// of the layout row. Nil for the random address sub-command (nothing the analysis reads), an
/// unknown sub-command, or bytes too short.
public enum AndroidMultiAdvertising: Sendable, Hashable {
    /// Set Parameters: the instance's interval and advertising type, as LE Set Advertising
    /// Parameters gives them.
    case parameters(instance: UInt8, LESetAdvertisingParameters)
    /// Write Advertising Data or Write Scan Response Data (``LESetAdvertisingData/scanResponse``).
    case data(instance: UInt8, LESetAdvertisingData)
    case enable(instance: UInt8, enabled: Bool)

    /// The advertising instance the command is about.
    public var instance: UInt8 {
        switch self {
        case .parameters(let i, _), .data(let i, _), .enable(let i, _): return i
        }
    }

    struct Table: Sendable {
        var subcommand = ParamSlot.unresolved
        var min = ParamSlot.unresolved, max = ParamSlot.unresolved, type = ParamSlot.unresolved, parametersInstance = ParamSlot.unresolved
        var advertising = RunSlot.unresolved, advertisingInstance = ParamSlot.unresolved
        var scanResponse = RunSlot.unresolved, scanResponseInstance = ParamSlot.unresolved
        var enable = ParamSlot.unresolved, enableInstance = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCICommand.slots(.androidMultiAdvertising)
        var t = Table()
        t.subcommand = s.int("Sub-command")
        var p = s.variant("Multi-Advertising", 0x01)
        t.min = p.int("Advertising Interval Min")
        t.max = p.int("Advertising Interval Max")
        t.type = p.int("Advertising Type")
        t.parametersInstance = p.int("Instance")
        var a = s.variant("Multi-Advertising", 0x02)
        t.advertising = a.run("Advertising Data")
        t.advertisingInstance = a.int("Instance")
        var r = s.variant("Multi-Advertising", 0x03)
        t.scanResponse = r.run("Scan Response Data")
        t.scanResponseInstance = r.int("Instance")
        var e = s.variant("Multi-Advertising", 0x05)
        t.enable = e.int("Advertising Enable")
        t.enableInstance = e.int("Instance")
        s.absorb(p, prefix: "Set Parameters")
        s.absorb(a, prefix: "Write Advertising Data")
        s.absorb(r, prefix: "Write Scan Response Data")
        s.absorb(e, prefix: "Enable")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        switch t.subcommand.u8(p) {
        case 0x01:
            guard let lo = t.min.micros(p), let hi = t.max.micros(p), let type = t.type.u8(p), let i = t.parametersInstance.u8(p)
            else { return nil }
            self = .parameters(instance: i, LESetAdvertisingParameters(intervalMinMicros: lo, intervalMaxMicros: hi, advertisingType: type))
        case 0x02, 0x03:
            let scanResponse = t.subcommand.u8(p) == 0x03
            guard let (length, data) = (scanResponse ? t.scanResponse : t.advertising).read(p),
                let i = (scanResponse ? t.scanResponseInstance : t.advertisingInstance).u8(p)
            else { return nil }
            self = .data(instance: i, LESetAdvertisingData(scanResponse: scanResponse, length: length, data: data))
        case 0x05:
            guard let enable = t.enable.u8(p), let i = t.enableInstance.u8(p) else { return nil }
            self = .enable(instance: i, enabled: enable != 0)
        default:
            return nil
        }
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
    }
    static let advertisingTable = table(.leSetExtendedAdvertisingData, "Advertising Data")
    static let scanResponseTable = table(.leSetExtendedScanResponseData, "Scan Response Data")
    private static func table(_ opcode: HCIOpcode, _ data: String) -> Built<Table> {
        var s = HCICommand.slots(opcode)
        var t = Table()
        t.handle = s.int("Advertising Handle")
        t.operation = s.int("Operation")
        t.run = s.run(data)
        return Built(t, s.missing)
    }

    init?(_ p: ArraySlice<UInt8>, scanResponse: Bool) {
        let t = scanResponse ? Self.scanResponseTable.table : Self.advertisingTable.table
        guard let h = t.handle.u8(p), let op = t.operation.u8(p), let (length, data) = t.run.read(p) else { return nil }
        (self.scanResponse, advertisingHandle, operation, self.length, self.data) = (scanResponse, h, op, length, data)
    }
}

/// LE Set Advertising Enable (§7.8.9).
public struct LESetAdvertisingEnable: Sendable, Hashable {
    public var enable: Bool

    struct Table: Sendable {
        var enable = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCICommand.slots(.leSetAdvertisingEnable)
        var t = Table()
        t.enable = s.int("Advertising Enable")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        guard let e = Self.built.table.enable.u8(p) else { return nil }
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
    }
    static let built: Built<Table> = {
        var s = HCICommand.slots(.leSetExtendedAdvertisingEnable)
        var t = Table()
        t.enable = s.int("Enable")
        var e: ParamSlots
        (t.array, e) = s.array("Set")
        t.handle = e.int("Advertising Handle")
        t.duration = e.int("Duration")
        t.events = e.int("Max Extended Advertising Events")
        s.absorb(e, prefix: "Set")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let e = t.enable.u8(p), let count = t.array.count(p) else { return nil }
        var sets: [Set] = []
        sets.reserveCapacity(count)
        for k in 0..<count {
            let at = t.array.start(k)
            guard let h = t.handle.u8(p, at: at), let d = t.duration.micros(p, at: at), let n = t.events.u8(p, at: at)
            else { return nil }
            sets.append(Set(advertisingHandle: h, durationMicros: d, maxExtendedAdvertisingEvents: n))
        }
        (enable, self.sets) = (e != 0, sets)
    }
}
