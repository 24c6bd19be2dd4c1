import ScopeCore

// Typed views of the events and return parameters the analysis reads (Core v5.4, Vol 4, Part E,
// §7.7, §7.8), each read through the slots of its own layout row (HCIEvent+Table.swift; return
// parameters from the command's row), looked up by parameter name once. Bounds-checked: short
// bytes give nil, never a trap.

/// An event the analysis reads, decoded into its typed view (``HCIEvent/typed``).
public enum TypedEvent: Sendable, Hashable {
    case disconnectionComplete(DisconnectionComplete)
    /// Encryption Change v1 and v2.
    case encryptionChange(EncryptionChange)
    case encryptionKeyRefreshComplete(EncryptionKeyRefreshComplete)
    /// BR/EDR Connection Complete.
    case connectionComplete(ClassicConnectionComplete)
    /// LE Connection Complete and LE Enhanced Connection Complete v1/v2.
    case leConnectionComplete(LEConnectionComplete)
    case leConnectionUpdateComplete(LEConnectionUpdateComplete)
    /// The peer asks for new connection parameters (the controller asks the host to accept).
    case leRemoteConnectionParameterRequest(LERemoteConnectionParameterRequest)
    case lePHYUpdateComplete(LEPHYUpdateComplete)
    case leDataLengthChange(LEDataLengthChange)
    case leAdvertisingSetTerminated(LEAdvertisingSetTerminated)
    /// Command Complete of LE Read Supported States.
    case leReadSupportedStates(LEReadSupportedStatesReturn)
    /// Command Complete of LE Read Maximum Advertising Data Length.
    case leReadMaximumAdvertisingDataLength(LEReadMaximumAdvertisingDataLengthReturn)
    /// Command Complete of Read RSSI.
    case readRSSI(ReadRSSIReturn)
}

extension HCIEvent {
    /// The event's typed view, for the events that have one (nil for the others, and when the
    /// parameters are too short for the fields the view reads). Decided by event code (subevent,
    /// answered opcode) first: other events cost a switch.
    public var typed: TypedEvent? {
        switch code {
        case .commandComplete:
            guard let op = commandOpcode else { return nil }
            switch op {
            case .leReadSupportedStates:
                return LEReadSupportedStatesReturn(returnParameters).map(TypedEvent.leReadSupportedStates)
            case .leReadMaximumAdvertisingDataLength:
                return LEReadMaximumAdvertisingDataLengthReturn(returnParameters).map(TypedEvent.leReadMaximumAdvertisingDataLength)
            case .readRSSI:
                return ReadRSSIReturn(returnParameters).map(TypedEvent.readRSSI)
            default: return nil
            }
        case .leMeta:
            guard let sub = subevent else { return nil }
            let p = parameters.dropFirst()
            switch sub {
            case .connectionComplete: return LEConnectionComplete(p, .legacy).map(TypedEvent.leConnectionComplete)
            case .enhancedConnectionCompleteV1: return LEConnectionComplete(p, .enhancedV1).map(TypedEvent.leConnectionComplete)
            case .enhancedConnectionCompleteV2: return LEConnectionComplete(p, .enhancedV2).map(TypedEvent.leConnectionComplete)
            case .connectionUpdateComplete: return LEConnectionUpdateComplete(p).map(TypedEvent.leConnectionUpdateComplete)
            case .remoteConnectionParameterRequest:
                return LERemoteConnectionParameterRequest(p).map(TypedEvent.leRemoteConnectionParameterRequest)
            case .phyUpdateComplete: return LEPHYUpdateComplete(p).map(TypedEvent.lePHYUpdateComplete)
            case .dataLengthChange: return LEDataLengthChange(p).map(TypedEvent.leDataLengthChange)
            case .advertisingSetTerminated: return LEAdvertisingSetTerminated(p).map(TypedEvent.leAdvertisingSetTerminated)
            default: return nil
            }
        case .disconnectionComplete: return DisconnectionComplete(parameters).map(TypedEvent.disconnectionComplete)
        case .encryptionChangeV1: return EncryptionChange(parameters, v2: false).map(TypedEvent.encryptionChange)
        case .encryptionChangeV2: return EncryptionChange(parameters, v2: true).map(TypedEvent.encryptionChange)
        case .encryptionKeyRefreshComplete:
            return EncryptionKeyRefreshComplete(parameters).map(TypedEvent.encryptionKeyRefreshComplete)
        case .connectionComplete: return ClassicConnectionComplete(parameters).map(TypedEvent.connectionComplete)
        default: return nil
        }
    }

    /// The slots of an event's layout row.
    static func slots(event code: HCIEventCode) -> ParamSlots { ParamSlots(layouts[code.rawValue]?.parameters) }
    /// The slots of an LE subevent's layout row (parameters after the subevent code).
    static func slots(subevent sub: LESubevent) -> ParamSlots { ParamSlots(leLayouts[sub.rawValue]?.parameters) }
}

/// Slots of a Status and a Connection Handle, the head of many events.
struct StatusHandleSlots: Sendable {
    var status = ParamSlot.unresolved, handle = ParamSlot.unresolved
    init() {}
    init(_ s: inout ParamSlots) {
        status = s.int("Status")
        handle = s.int("Connection Handle")
    }
}

// MARK: - Connections

/// Disconnection Complete (§7.7.5).
public struct DisconnectionComplete: Sendable, Hashable {
    public var status: UInt8
    public var handle: UInt16
    public var reason: UInt8

    struct Table: Sendable {
        var head = StatusHandleSlots(), reason = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCIEvent.slots(event: .disconnectionComplete)
        var t = Table()
        t.head = StatusHandleSlots(&s)
        t.reason = s.int("Reason")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let st = t.head.status.u8(p), let h = t.head.handle.handle(p), let r = t.reason.u8(p) else { return nil }
        (status, handle, reason) = (st, h, r)
    }
}

/// Encryption Change v1 (§7.7.8) and v2 (§7.7.8.2).
public struct EncryptionChange: Sendable, Hashable {
    public var status: UInt8
    public var handle: UInt16
    /// Encryption_Enabled: 0 off, 1 E0 / AES-CCM, 2 AES-CCM (BR/EDR).
    public var enabled: UInt8

    struct Table: Sendable {
        var head = StatusHandleSlots(), enabled = ParamSlot.unresolved
    }
    static let v1Table = table(.encryptionChangeV1)
    static let v2Table = table(.encryptionChangeV2)
    private static func table(_ code: HCIEventCode) -> Built<Table> {
        var s = HCIEvent.slots(event: code)
        var t = Table()
        t.head = StatusHandleSlots(&s)
        t.enabled = s.int("Encryption Enabled")
        return Built(t, s.missing)
    }

    init?(_ p: ArraySlice<UInt8>, v2: Bool) {
        let t = v2 ? Self.v2Table.table : Self.v1Table.table
        guard let st = t.head.status.u8(p), let h = t.head.handle.handle(p), let e = t.enabled.u8(p) else { return nil }
        (status, handle, enabled) = (st, h, e)
    }
}

/// Encryption Key Refresh Complete (§7.7.39).
public struct EncryptionKeyRefreshComplete: Sendable, Hashable {
    public var status: UInt8
    public var handle: UInt16

    struct Table: Sendable {
        var head = StatusHandleSlots()
    }
    static let built: Built<Table> = {
        var s = HCIEvent.slots(event: .encryptionKeyRefreshComplete)
        var t = Table()
        t.head = StatusHandleSlots(&s)
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let st = t.head.status.u8(p), let h = t.head.handle.handle(p) else { return nil }
        (status, handle) = (st, h)
    }
}

/// BR/EDR Connection Complete (§7.7.3).
public struct ClassicConnectionComplete: Sendable, Hashable {
    public var status: UInt8
    public var handle: UInt16
    public var peer: BDAddr
    /// Link_Type: 0 SCO, 1 ACL, 2 eSCO.
    public var linkType: UInt8

    struct Table: Sendable {
        var head = StatusHandleSlots(), peer = ParamSlot.unresolved, linkType = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCIEvent.slots(event: .connectionComplete)
        var t = Table()
        t.head = StatusHandleSlots(&s)
        t.peer = s.address("BD_ADDR")
        t.linkType = s.int("Link Type")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let st = t.head.status.u8(p), let h = t.head.handle.handle(p), let a = t.peer.address(p),
            let l = t.linkType.u8(p)
        else { return nil }
        (status, handle, peer, linkType) = (st, h, a, l)
    }
}

/// LE Connection Complete (§7.7.65.1) and LE Enhanced Connection Complete v1/v2 (§7.7.65.10).
/// A failed connection may carry zeros; the fields are still present.
public struct LEConnectionComplete: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case legacy, enhancedV1, enhancedV2
    }

    public var kind: Kind
    public var status: UInt8
    public var handle: UInt16
    /// Role: 0 central, 1 peripheral.
    public var role: UInt8
    public var peerAddressType: UInt8
    public var peer: BDAddr
    public var intervalMicros: Int64
    public var peripheralLatency: UInt16
    public var supervisionTimeoutMicros: Int64

    struct Table: Sendable {
        var head = StatusHandleSlots(), role = ParamSlot.unresolved, type = ParamSlot.unresolved
        var peer = ParamSlot.unresolved, interval = ParamSlot.unresolved, latency = ParamSlot.unresolved
        var timeout = ParamSlot.unresolved
    }
    static let legacyTable = table(.connectionComplete)
    static let enhancedV1Table = table(.enhancedConnectionCompleteV1)
    static let enhancedV2Table = table(.enhancedConnectionCompleteV2)
    private static func table(_ sub: LESubevent) -> Built<Table> {
        var s = HCIEvent.slots(subevent: sub)
        var t = Table()
        t.head = StatusHandleSlots(&s)
        t.role = s.int("Role")
        t.type = s.int("Peer Address Type")
        t.peer = s.address("Peer Address")
        t.interval = s.int("Connection Interval")
        t.latency = s.int("Peripheral Latency")
        t.timeout = s.int("Supervision Timeout")
        return Built(t, s.missing)
    }

    init?(_ p: ArraySlice<UInt8>, _ kind: Kind) {
        let t: Table
        switch kind {
        case .legacy: t = Self.legacyTable.table
        case .enhancedV1: t = Self.enhancedV1Table.table
        case .enhancedV2: t = Self.enhancedV2Table.table
        }
        guard let st = t.head.status.u8(p), let h = t.head.handle.handle(p), let r = t.role.u8(p), let ty = t.type.u8(p),
            let a = t.peer.address(p), let i = t.interval.micros(p), let l = t.latency.u16(p),
            let to = t.timeout.micros(p)
        else { return nil }
        (self.kind, status, handle, role, peerAddressType, peer) = (kind, st, h, r, ty, a)
        (intervalMicros, peripheralLatency, supervisionTimeoutMicros) = (i, l, to)
    }
}

/// LE Connection Update Complete (§7.7.65.3).
public struct LEConnectionUpdateComplete: Sendable, Hashable {
    public var status: UInt8
    public var handle: UInt16
    public var intervalMicros: Int64
    public var peripheralLatency: UInt16
    public var supervisionTimeoutMicros: Int64

    struct Table: Sendable {
        var head = StatusHandleSlots(), interval = ParamSlot.unresolved, latency = ParamSlot.unresolved
        var timeout = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCIEvent.slots(subevent: .connectionUpdateComplete)
        var t = Table()
        t.head = StatusHandleSlots(&s)
        t.interval = s.int("Connection Interval")
        t.latency = s.int("Peripheral Latency")
        t.timeout = s.int("Supervision Timeout")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let st = t.head.status.u8(p), let h = t.head.handle.handle(p),
            let i = t.interval.micros(p), let l = t.latency.u16(p),
            let to = t.timeout.micros(p)
        else { return nil }
        (status, handle, intervalMicros, peripheralLatency, supervisionTimeoutMicros) = (st, h, i, l, to)
    }
}

/// LE PHY Update Complete (§7.7.65.12): 1 LE 1M, 2 LE 2M, 3 LE Coded.
public struct LEPHYUpdateComplete: Sendable, Hashable {
    public var status: UInt8
    public var handle: UInt16
    public var txPHY: UInt8
    public var rxPHY: UInt8

    struct Table: Sendable {
        var head = StatusHandleSlots(), tx = ParamSlot.unresolved, rx = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCIEvent.slots(subevent: .phyUpdateComplete)
        var t = Table()
        t.head = StatusHandleSlots(&s)
        t.tx = s.int("TX PHY")
        t.rx = s.int("RX PHY")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let st = t.head.status.u8(p), let h = t.head.handle.handle(p), let tx = t.tx.u8(p), let rx = t.rx.u8(p)
        else { return nil }
        (status, handle, txPHY, rxPHY) = (st, h, tx, rx)
    }
}

/// LE Remote Connection Parameter Request (§7.7.65.6): the peer asks for new parameters.
public struct LERemoteConnectionParameterRequest: Sendable, Hashable {
    public var handle: UInt16

    struct Table: Sendable {
        var handle = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCIEvent.slots(subevent: .remoteConnectionParameterRequest)
        var t = Table()
        t.handle = s.int("Connection Handle")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        guard let h = Self.built.table.handle.handle(p) else { return nil }
        handle = h
    }
}

/// LE Data Length Change (§7.7.65.7).
public struct LEDataLengthChange: Sendable, Hashable {
    public var handle: UInt16
    public var maxTXOctets: UInt16
    public var maxRXOctets: UInt16

    struct Table: Sendable {
        var handle = ParamSlot.unresolved, tx = ParamSlot.unresolved, rx = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCIEvent.slots(subevent: .dataLengthChange)
        var t = Table()
        t.handle = s.int("Connection Handle")
        t.tx = s.int("Max TX Octets")
        t.rx = s.int("Max RX Octets")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let h = t.handle.handle(p), let tx = t.tx.u16(p), let rx = t.rx.u16(p) else { return nil }
        (handle, maxTXOctets, maxRXOctets) = (h, tx, rx)
    }
}

// MARK: - Advertising

/// LE Advertising Set Terminated (§7.7.65.18).
public struct LEAdvertisingSetTerminated: Sendable, Hashable {
    public var status: UInt8
    public var advertisingHandle: UInt8
    /// The connection that ended the set (status 0).
    public var connectionHandle: UInt16

    struct Table: Sendable {
        var head = StatusHandleSlots(), advertisingHandle = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCIEvent.slots(subevent: .advertisingSetTerminated)
        var t = Table()
        t.head = StatusHandleSlots(&s)
        t.advertisingHandle = s.int("Advertising Handle")
        return Built(t, s.missing)
    }()

    init?(_ p: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard let st = t.head.status.u8(p), let a = t.advertisingHandle.u8(p), let h = t.head.handle.handle(p)
        else { return nil }
        (status, advertisingHandle, connectionHandle) = (st, a, h)
    }
}

/// LE Read Supported States return parameters (§7.8.27): Status, LE_States. Nil when the
/// command failed (a failure carries only the status).
public struct LEReadSupportedStatesReturn: Sendable, Hashable {
    public var states: UInt64

    struct Table: Sendable {
        var status = ParamSlot.unresolved, states = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCICommand.returnSlots(.leReadSupportedStates)
        var t = Table()
        t.status = s.int("Status")
        t.states = s.int("LE States")
        return Built(t, s.missing)
    }()

    init?(_ r: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard t.status.u8(r) == 0, let v = t.states.uint(r) else { return nil }
        states = v
    }
}

/// LE Read Maximum Advertising Data Length return parameters (§7.8.57). Nil when the command failed.
public struct LEReadMaximumAdvertisingDataLengthReturn: Sendable, Hashable {
    public var maxLength: Int

    struct Table: Sendable {
        var status = ParamSlot.unresolved, length = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCICommand.returnSlots(.leReadMaximumAdvertisingDataLength)
        var t = Table()
        t.status = s.int("Status")
        t.length = s.int("Max Advertising Data Length")
        return Built(t, s.missing)
    }()

    init?(_ r: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard t.status.u8(r) == 0, let v = t.length.u16(r) else { return nil }
        maxLength = Int(v)
    }
}

/// Read RSSI return parameters (§7.5.4). Nil when the command failed or the controller had no
/// value (127: "RSSI is not available", as in advertising reports).
public struct ReadRSSIReturn: Sendable, Hashable {
    public var handle: UInt16
    /// On an LE link the received signal strength in dBm (-127…20); on BR/EDR the difference
    /// from the controller's golden receive power range.
    public var rssi: Int8

    struct Table: Sendable {
        var head = StatusHandleSlots(), rssi = ParamSlot.unresolved
    }
    static let built: Built<Table> = {
        var s = HCICommand.returnSlots(.readRSSI)
        var t = Table()
        t.head = StatusHandleSlots(&s)
        t.rssi = s.int("RSSI")
        return Built(t, s.missing)
    }()

    init?(_ r: ArraySlice<UInt8>) {
        let t = Self.built.table
        guard t.head.status.u8(r) == 0, let h = t.head.handle.handle(r), let v = t.rssi.u8(r) else { return nil }
        let value = Int8(bitPattern: v)
        guard value != 127 else { return nil }
        (handle, rssi) = (h, value)
    }
}

// MARK: - Every table, for the test

/// Each typed view's table and the names it looked for but did not find in its layout row
/// (empty for every table: a test checks, so renaming a layout field cannot silently break a view).
enum TypedViewTables {
    static var missing: [(view: String, missing: [String])] {
        [
            ("LESetScanParameters", LESetScanParameters.built.missing),
            ("LESetExtendedScanParameters", LESetExtendedScanParameters.built.missing),
            ("LESetScanEnable", LESetScanEnable.legacyTable.missing),
            ("LESetScanEnable (extended)", LESetScanEnable.extendedTable.missing),
            ("LECreateConnection", LECreateConnection.built.missing),
            ("LEExtendedCreateConnection v1", LEExtendedCreateConnection.v1Table.missing),
            ("LEExtendedCreateConnection v2", LEExtendedCreateConnection.v2Table.missing),
            ("LEFilterAcceptListDevice (add)", LEFilterAcceptListDevice.addTable.missing),
            ("LEFilterAcceptListDevice (remove)", LEFilterAcceptListDevice.removeTable.missing),
            ("Disconnect", Disconnect.built.missing),
            ("LEConnectionUpdate", LEConnectionUpdate.built.missing),
            ("LESetAdvertisingParameters", LESetAdvertisingParameters.built.missing),
            ("LESetExtendedAdvertisingParameters v1", LESetExtendedAdvertisingParameters.v1Table.missing),
            ("LESetExtendedAdvertisingParameters v2", LESetExtendedAdvertisingParameters.v2Table.missing),
            ("LESetAdvertisingData", LESetAdvertisingData.built.missing),
            ("LESetExtendedAdvertisingData", LESetExtendedAdvertisingData.advertisingTable.missing),
            ("LESetExtendedAdvertisingData (scan response)", LESetExtendedAdvertisingData.scanResponseTable.missing),
            ("LESetAdvertisingEnable", LESetAdvertisingEnable.built.missing),
            ("LESetExtendedAdvertisingEnable", LESetExtendedAdvertisingEnable.built.missing),
            ("AndroidMultiAdvertising", AndroidMultiAdvertising.built.missing),
            ("DisconnectionComplete", DisconnectionComplete.built.missing),
            ("EncryptionChange v1", EncryptionChange.v1Table.missing),
            ("EncryptionChange v2", EncryptionChange.v2Table.missing),
            ("EncryptionKeyRefreshComplete", EncryptionKeyRefreshComplete.built.missing),
            ("ClassicConnectionComplete", ClassicConnectionComplete.built.missing),
            ("LEConnectionComplete", LEConnectionComplete.legacyTable.missing),
            ("LEConnectionComplete (enhanced v1)", LEConnectionComplete.enhancedV1Table.missing),
            ("LEConnectionComplete (enhanced v2)", LEConnectionComplete.enhancedV2Table.missing),
            ("LEConnectionUpdateComplete", LEConnectionUpdateComplete.built.missing),
            ("LERemoteConnectionParameterRequest", LERemoteConnectionParameterRequest.built.missing),
            ("LEPHYUpdateComplete", LEPHYUpdateComplete.built.missing),
            ("LEDataLengthChange", LEDataLengthChange.built.missing),
            ("LEAdvertisingSetTerminated", LEAdvertisingSetTerminated.built.missing),
            ("LEReadSupportedStatesReturn", LEReadSupportedStatesReturn.built.missing),
            ("LEReadMaximumAdvertisingDataLengthReturn", LEReadMaximumAdvertisingDataLengthReturn.built.missing),
            ("ReadRSSIReturn", ReadRSSIReturn.built.missing),
        ]
    }
}
