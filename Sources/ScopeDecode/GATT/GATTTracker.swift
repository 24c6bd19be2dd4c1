import ScopeCore

/// Per-connection GATT state, fed every ATT PDU of that connection in capture order (Core v5.4,
/// Vol 3, Part G, §4 procedures; Part F, §3.3.2 sequential protocol).
///
/// It remembers the outstanding request of each direction (a request sent in one direction is
/// answered in the other; one outstanding request per bearer, and an indication awaits its
/// confirmation), interprets responses through their request — primary/secondary services from
/// Read By Group Type, characteristic declarations and includes from Read By Type, descriptors
/// from Find Information, services from Find By Type Value — and keeps a handle → attribute map
/// so later reads, writes, notifications and indications are named. It also follows the ATT_MTU
/// exchange and Client Characteristic Configuration writes.
///
/// Owned by the dissector, one per (adapter, handle, generation): a new generation gets a new
/// tracker, which is how a reused handle starts with an empty database.
///
/// It is the one GATT database of a connection: each annotation reports what changed in it
/// (``GATTAnnotation/procedure``, ``GATTAnnotation/discovered``,
/// ``GATTAnnotation/clientConfigurationWrite``, ``GATTAnnotation/effectiveMTU``,
/// ``GATTAnnotation/requestFrame``). The analysis holds the same database: a
/// ``GATTServerDatabase`` per server that learns each annotation's ``GATTAnnotation/discovered``
/// through ``GATTServerDatabase/learn(_:)``, as this tracker does, with no rules of its own.
///
/// With ``DecodeDetail/analysis`` the annotations carry only those changes and what else the
/// analysis reads (the inferred handle, CCCD values): no handle names, fields or request handle
/// lists are built. What the tracker learns is the same.
public struct GATTTracker: Sendable {
    public let connection: GATTConnectionKey
    /// Whether annotations get the display-only parts (names, fields, request handle lists).
    public let detail: DecodeDetail
    /// The database of the server the PDU being annotated is about, ``side``'s
    /// (``GATTServerSide/init(opcode:direction:)``): each side of a connection may run a GATT
    /// server, with handles that overlap the other's, and each has its own database.
    var db = GATTServerDatabase()
    /// The other server's database.
    var otherDB = GATTServerDatabase()
    /// Whose database ``db`` is.
    var side = GATTServerSide.remote
    /// ATT_MTU of the fixed ATT bearer (CID 0x0004).
    public private(set) var mtu = GATTMTUState()

    /// The remote device's GATT server as the local client discovered it: what requests the
    /// local host sent, and notifications and indications it received, are about.
    public var remote: GATTServerDatabase { side == .remote ? db : otherDB }
    /// The local device's GATT server as the remote client discovered it (a phone serving, say,
    /// ANCS or an LE Audio service to the accessory on the same connection): requests received
    /// and notifications sent are about it.
    public var local: GATTServerDatabase { side == .local ? db : otherDB }

    /// The database of one server.
    public func server(_ side: GATTServerSide) -> GATTServerDatabase { side == .local ? local : remote }

    /// Makes ``db`` the database of `server` (the two are swapped, not copied: a connection's
    /// PDUs are mostly about one server, so this seldom does anything).
    mutating func select(_ server: GATTServerSide) {
        guard server != side else { return }
        swap(&db, &otherDB)
        side = server
    }

    struct BearerKey: Hashable, Sendable {
        /// Direction the request/indication travelled.
        var direction: Direction
        var cid: UInt16
    }

    /// What the response to a request (or the confirmation of an indication) reads of it,
    /// taken from the PDU when it is observed: plain values, so keeping one, taking it back and
    /// dropping it copies and frees no part of the PDU.
    struct Outstanding: Sendable {
        var opcode: ATTOpcode
        var frame: FrameNumber
        var handle: UInt16?
        /// Exchange MTU Request: the Client Rx MTU.
        var mtu: UInt16?
        /// The value, when it is two bytes long (what a CCCD write carries).
        var value16: UInt16?
        /// Read By Type, Read By Group Type, Find By Type Value: the attribute type.
        var attributeType: ATTUUID?
        /// Find By Type Value: the value searched for, read as a UUID (the service UUID when
        /// the type is a service declaration); nil when it is no 2- or 16-byte UUID.
        var searchedUUID: ATTUUID?
        /// The discovery procedure the request belongs to.
        var procedure: GATTDiscoveryKind?

        init(_ pdu: borrowing ATTPDU, frame: FrameNumber, procedure: GATTDiscoveryKind?) {
            opcode = pdu.opcode
            self.frame = frame
            handle = pdu.handle
            mtu = pdu.mtu
            value16 = GATTTracker.le16(pdu.value)
            attributeType = pdu.attributeType
            searchedUUID = nil
            if pdu.opcode == .findByTypeValueRequest, pdu.value.count != 4 { searchedUUID = ATTUUID(littleEndian: pdu.value) }
            self.procedure = procedure
        }
    }

    /// The outstanding request or indication of each bearer and direction. A connection has
    /// one bearer or a few (the fixed channel, EATT channels), so the entries are searched in
    /// order, which costs less than hashing the key; an answered one leaves its entry empty.
    struct Pending: Sendable {
        private var entries: [(key: BearerKey, value: Outstanding?)] = []

        subscript(key: BearerKey) -> Outstanding? {
            get {
                for e in entries where e.key == key { return e.value }
                return nil
            }
            set {
                for i in entries.indices where entries[i].key == key {
                    entries[i].value = newValue
                    return
                }
                if newValue != nil { entries.append((key, newValue)) }
            }
        }

        /// The entry of `key`, which is left empty.
        mutating func take(_ key: BearerKey) -> Outstanding? {
            for i in entries.indices where entries[i].key == key {
                defer { entries[i].value = nil }
                return entries[i].value
            }
            return nil
        }
    }

    var requests = Pending()
    var indications = Pending()
    /// Read Multiple (Variable) Requests outstanding, with ``DecodeDetail/display``: the handles
    /// they list (their responses show them).
    var requestedHandles: [BearerKey: [UInt16]] = [:]
    var mtuByBearer: [UInt16: GATTMTUState] = [:]
    public init(connection: GATTConnectionKey, detail: DecodeDetail = .display) {
        self.connection = connection
        self.detail = detail
    }

    /// Whether annotations are for display (names and fields) rather than for analysis only.
    var displays: Bool { detail == .display }

    /// ``GATTServerDatabase/cachedName(ofHandle:)`` of the current server when annotating for
    /// display; nil for analysis, which never reads names.
    mutating func displayName(ofHandle handle: UInt16) -> String? {
        displays ? db.cachedName(ofHandle: handle) : nil
    }

    /// Adds a display field to `note`; the field is not even built for analysis. (Fields that
    /// name handles go through the name cache: `if displays { … handleField(…) }`.)
    func show(_ field: @autoclosure () -> Field, in note: inout GATTAnnotation) {
        if displays { note.fields.append(field()) }
    }

    /// ATT_MTU of a bearer: the fixed channel 0x0004 or an EATT channel.
    public func mtu(cid: UInt16) -> GATTMTUState {
        cid == ChannelID.att.rawValue ? mtu : mtuByBearer[cid] ?? GATTMTUState()
    }

    static func isClientConfiguration(_ a: GATTAttribute) -> Bool {
        a.kind == .descriptor && a.uuid?.uuid16 == GATTNames.clientCharacteristicConfiguration
    }

    static func opposite(_ d: Direction) -> Direction {
        switch d {
        case .sent: return .received
        case .received: return .sent
        case .unknown: return .unknown
        }
    }

    static func h(_ v: UInt16) -> String { Hex.prefixed(v, digits: 4) }

    mutating func handleField(_ label: String, _ handle: UInt16) -> Field {
        Field(label, GATTTracker.h(handle) + (db.cachedName(ofHandle: handle).map { " (\($0))" } ?? ""))
    }

    static func le16(_ v: ArraySlice<UInt8>) -> UInt16? {
        v.count == 2 ? UInt16(v[v.startIndex]) | UInt16(v[v.startIndex + 1]) << 8 : nil
    }

    /// Feeds one ATT PDU of this connection.
    ///
    /// - Parameters:
    ///   - pdu: the decoded PDU.
    ///   - direction: the record's direction (`.sent` host → controller).
    ///   - frame: the frame that completed the PDU.
    ///   - cid: the bearer (0x0004, or an EATT channel); outstanding requests and MTU are per bearer.
    /// - Returns: what the tracker can say about the PDU, or nil when it knows nothing to add.
    public mutating func observe(
        _ pdu: ATTPDU, direction: Direction, frame: FrameNumber, cid: UInt16 = ChannelID.att.rawValue
    ) -> GATTAnnotation? {
        guard let kind = pdu.opcode.kind else { return nil }
        select(GATTServerSide(opcode: pdu.opcode, direction: direction))
        if !displays {
            // Most PDUs of a connection are notifications and write commands: for analysis they
            // teach nothing and get no annotation, except a command writing a CCCD.
            switch kind {
            case .notification:
                return nil
            case .command:
                guard pdu.opcode == .writeCommand, let handle = pdu.handle, db.isClientConfiguration(handle) else { return nil }
            default:
                break
            }
        }
        var note = GATTAnnotation()
        annotate(pdu, kind: kind, direction: direction, frame: frame, cid: cid, note: &note)
        if note.isEmpty { return nil }
        return consume note
    }

    /// ``observe(_:direction:frame:cid:)`` of a PDU of `kind`, writing what it can say into
    /// `note` (left empty when it knows nothing to add).
    mutating func annotate(
        _ pdu: ATTPDU, kind: ATTPDUKind, direction: Direction, frame: FrameNumber, cid: UInt16, note: inout GATTAnnotation
    ) {
        switch kind {
        case .request, .command:
            if kind == .request {
                let key = BearerKey(direction: direction, cid: cid)
                if displays {
                    if let old = requests[key] {
                        note.fields.append(
                            Field("Unanswered request", "\(old.opcode.name ?? old.opcode.description) in frame \(old.frame)"))
                    }
                    if case .handles(let hs) = pdu.parameters { requestedHandles[key] = hs } else { requestedHandles[key] = nil }
                }
                let procedure = GATTDiscoveryKind(request: pdu)
                requests[key] = Outstanding(pdu, frame: frame, procedure: procedure)
                note.procedure = procedure
            }
            if pdu.opcode == .exchangeMTURequest, let m = pdu.mtu {
                var state = mtu(cid: cid)
                state.clientRxMTU = m
                state.serverRxMTU = nil
                state.requestFrame = frame
                state.responseFrame = nil
                setMTU(state, cid: cid)
            }
            if let handle = pdu.handle {
                note.handleName = displayName(ofHandle: handle)
                if (pdu.opcode == .writeRequest || pdu.opcode == .writeCommand), db.isClientConfiguration(handle),
                    let v = GATTTracker.le16(pdu.value)
                {
                    let config = GATTClientConfiguration(rawValue: v)
                    note.clientConfiguration = config
                    note.clientConfigurationWrite = GATTClientConfigurationWrite(
                        handle: handle, characteristicValueHandle: db.characteristic(owning: handle)?.handle, value: config)
                    show(Field("Client Characteristic Configuration", config.description), in: &note)
                    if pdu.opcode == .writeCommand { db.clientConfigurations[handle] = config }
                }
            }
        case .notification, .indication:
            if kind == .indication {
                indications[BearerKey(direction: direction, cid: cid)] = Outstanding(pdu, frame: frame, procedure: nil)
            }
            if let handle = pdu.handle { note.handleName = displayName(ofHandle: handle) }
            if displays, case .handleValueList(let list) = pdu.parameters {
                for entry in list { note.fields.append(handleField("Handle", entry.handle)) }
            }
        case .confirmation:
            let key = BearerKey(direction: GATTTracker.opposite(direction), cid: cid)
            if let ind = indications.take(key) {
                note.requestFrame = ind.frame
                note.requestOpcode = ind.opcode
                if let handle = ind.handle {
                    note.inferredHandle = handle
                    note.handleName = displayName(ofHandle: handle)
                    if displays { note.fields.append(handleField("Handle (from indication in frame \(ind.frame))", handle)) }
                }
            } else {
                show(Field("Indication", "none outstanding"), in: &note)
            }
        case .response:
            respond(pdu, direction: direction, frame: frame, cid: cid, note: &note)
        }
    }

    /// An Exchange MTU Response no outstanding request matches (its request was not captured,
    /// or another request came between): the bearer's ATT_MTU is taken from it and the last
    /// Client Rx MTU seen (``GATTMTUState/effective``).
    mutating func unmatchedMTUResponse(_ pdu: ATTPDU, cid: UInt16, frame: FrameNumber, note: inout GATTAnnotation) {
        guard pdu.opcode == .exchangeMTUResponse, let m = pdu.mtu else { return }
        var state = mtu(cid: cid)
        state.serverRxMTU = m
        state.responseFrame = frame
        setMTU(state, cid: cid)
        note.effectiveMTU = state.effective
    }

    mutating func setMTU(_ state: GATTMTUState, cid: UInt16) {
        if cid == ChannelID.att.rawValue { mtu = state } else { mtuByBearer[cid] = state }
    }

    mutating func respond(
        _ pdu: ATTPDU, direction: Direction, frame: FrameNumber, cid: UInt16, note: inout GATTAnnotation
    ) {
        let key = BearerKey(direction: GATTTracker.opposite(direction), cid: cid)
        // Taken out; put back when the response does not answer it.
        guard let request = requests.take(key) else {
            if let h = pdu.handle { note.handleName = displayName(ofHandle: h) }
            show(Field("Request", "none outstanding"), in: &note)
            unmatchedMTUResponse(pdu, cid: cid, frame: frame, note: &note)
            return
        }
        let matches =
            pdu.opcode == .errorResponse
            ? pdu.requestOpcodeInError == request.opcode
            : pdu.opcode.answeredRequest == request.opcode
        guard matches else {
            if let h = pdu.handle { note.handleName = displayName(ofHandle: h) }
            unmatchedMTUResponse(pdu, cid: cid, frame: frame, note: &note)
            show(
                Field(
                    "Request",
                    "outstanding \(request.opcode.name ?? request.opcode.description) in frame \(request.frame) does not match"
                ), in: &note)
            requests[key] = request
            return
        }
        let req = request
        note.requestFrame = request.frame
        note.requestOpcode = req.opcode
        note.procedure = req.procedure
        show(Field("Request in frame", String(request.frame)), in: &note)
        let handles = displays ? requestedHandles.removeValue(forKey: key) : nil

        if pdu.opcode == .errorResponse {
            if let h = pdu.handle { note.handleName = displayName(ofHandle: h) }
            return
        }
        switch req.opcode {
        case .exchangeMTURequest:
            guard let m = pdu.mtu else { return }
            var state = mtu(cid: cid)
            if state.clientRxMTU == nil { state.clientRxMTU = req.mtu }
            state.serverRxMTU = m
            state.responseFrame = frame
            setMTU(state, cid: cid)
            note.effectiveMTU = state.effective
            show(
                Field(
                    "Effective ATT_MTU",
                    "\(state.effective) (client \(state.clientRxMTU.map(String.init) ?? "?"), server \(m))"),
                in: &note)
        case .readRequest, .readBlobRequest, .writeRequest:
            guard let h = req.handle else { return }
            note.inferredHandle = h
            note.handleName = displayName(ofHandle: h)
            if displays { note.fields.append(handleField("Handle (from request)", h)) }
            if db.isClientConfiguration(h) {
                let v: UInt16?
                if req.opcode == .writeRequest {
                    v = req.value16
                } else if req.opcode == .readRequest {
                    v = GATTTracker.le16(pdu.value)
                } else {
                    v = nil
                }
                if let v {
                    let config = GATTClientConfiguration(rawValue: v)
                    db.clientConfigurations[h] = config
                    note.clientConfiguration = config
                    show(Field("Client Characteristic Configuration", config.description), in: &note)
                }
            }
        case .readMultipleRequest, .readMultipleVariableRequest:
            if let hs = handles {
                note.requestHandles = hs
                for h in hs { note.fields.append(handleField("Handle (from request)", h)) }
            }
        case .readByGroupTypeRequest:
            learnServices(pdu, request: req, frame: frame, note: &note)
        case .readByTypeRequest:
            learnByType(pdu, request: req, frame: frame, note: &note)
        case .findInformationRequest:
            learnDescriptors(pdu, frame: frame, note: &note)
        case .findByTypeValueRequest:
            learnServicesByUUID(pdu, request: req, frame: frame, note: &note)
        default:
            break
        }
    }

    mutating func remember(_ a: GATTAttribute, note: inout GATTAnnotation) {
        remember(a, at: db.slot(of: a.handle), note: &note)
    }

    /// ``remember(_:note:)`` with the attribute's ``GATTServerDatabase/slot(of:)``, looked up already.
    mutating func remember(_ a: GATTAttribute, at slot: (index: Int, found: Bool), note: inout GATTAnnotation) {
        db.learn(a, at: slot)
        note.discovered.append(a)
    }

    mutating func learnServices(_ pdu: ATTPDU, request: Outstanding, frame: FrameNumber, note: inout GATTAnnotation) {
        guard case .attributeDataList(_, let entries) = pdu.parameters,
            let type = request.attributeType?.uuid16,
            type == GATTNames.primaryService || type == GATTNames.secondaryService
        else { return }
        let primary = type == GATTNames.primaryService
        note.discovered.reserveCapacity(note.discovered.count + entries.count)
        for e in entries {
            guard let uuid = ATTUUID(littleEndian: e.value), e.value.count != 4, let end = e.endGroupHandle else {
                continue
            }
            let range = ATTHandleRange(start: e.handle, end: end)
            remember(
                GATTAttribute(
                    handle: e.handle, kind: primary ? .primaryService : .secondaryService, uuid: uuid, groupEnd: end,
                    learnedIn: frame),
                note: &note)
            show(Field(primary ? "Primary Service" : "Secondary Service", "\(range): \(uuid)"), in: &note)
        }
    }

    mutating func learnServicesByUUID(_ pdu: ATTPDU, request: Outstanding, frame: FrameNumber, note: inout GATTAnnotation) {
        guard case .findByTypeValueResponse(let ranges) = pdu.parameters,
            let type = request.attributeType?.uuid16,
            type == GATTNames.primaryService || type == GATTNames.secondaryService,
            let uuid = request.searchedUUID
        else { return }
        let primary = type == GATTNames.primaryService
        note.discovered.reserveCapacity(note.discovered.count + ranges.count)
        for range in ranges {
            remember(
                GATTAttribute(
                    handle: range.start, kind: primary ? .primaryService : .secondaryService, uuid: uuid,
                    groupEnd: range.end, learnedIn: frame), note: &note)
            show(Field(primary ? "Primary Service" : "Secondary Service", "\(range): \(uuid)"), in: &note)
        }
    }

    mutating func learnByType(_ pdu: ATTPDU, request: Outstanding, frame: FrameNumber, note: inout GATTAnnotation) {
        guard case .attributeDataList(_, let entries) = pdu.parameters, let type = request.attributeType else { return }
        // A characteristic declaration teaches two attributes, every other entry at most one.
        let learned = type.uuid16 == GATTNames.characteristic ? 2 * entries.count : entries.count
        note.discovered.reserveCapacity(note.discovered.count + learned)
        switch type.uuid16 {
        case GATTNames.characteristic?:
            for e in entries {
                let v = e.value, i = v.startIndex
                guard v.count == 5 || v.count == 19, let uuid = ATTUUID(littleEndian: v[(i + 3)...]) else { continue }
                let props = GATTCharacteristicProperties(rawValue: v[i])
                let valueHandle = UInt16(v[i + 1]) | UInt16(v[i + 2]) << 8
                remember(
                    GATTAttribute(
                        handle: e.handle, kind: .characteristicDeclaration, uuid: uuid, properties: props,
                        relatedHandle: valueHandle, learnedIn: frame), note: &note)
                remember(
                    GATTAttribute(
                        handle: valueHandle, kind: .characteristicValue, uuid: uuid, properties: props,
                        relatedHandle: e.handle, learnedIn: frame), note: &note)
                show(
                    Field(
                        "Characteristic", "\(GATTTracker.h(e.handle)): \(uuid)",
                        children: [
                            Field("Properties", "\(Hex.prefixed(props.rawValue, digits: 2)): \(props)"),
                            Field("Value Handle", GATTTracker.h(valueHandle)),
                            Field("UUID", uuid.description),
                        ]), in: &note)
            }
        case GATTNames.include?:
            for e in entries {
                let v = e.value, i = v.startIndex
                guard v.count == 4 || v.count == 6 else { continue }
                let start = UInt16(v[i]) | UInt16(v[i + 1]) << 8
                let end = UInt16(v[i + 2]) | UInt16(v[i + 3]) << 8
                let uuid = v.count == 6 ? ATTUUID(littleEndian: v[(i + 4)...]) : nil
                remember(
                    GATTAttribute(handle: e.handle, kind: .include, uuid: uuid, relatedHandle: start, learnedIn: frame),
                    note: &note)
                show(
                    Field(
                        "Include",
                        "\(GATTTracker.h(e.handle)): \(ATTHandleRange(start: start, end: end))"
                            + (uuid.map { " \($0)" } ?? "")), in: &note)
            }
        case GATTNames.primaryService?, GATTNames.secondaryService?:
            break
        default:
            // Read Using Characteristic UUID: every handle returned holds a value of that type.
            for e in entries {
                if db.attribute(at: e.handle) == nil {
                    remember(
                        GATTAttribute(handle: e.handle, kind: .characteristicValue, uuid: type, learnedIn: frame),
                        note: &note)
                }
                if displays { note.fields.append(handleField("Value of", e.handle)) }
            }
        }
    }

    mutating func learnDescriptors(_ pdu: ATTPDU, frame: FrameNumber, note: inout GATTAnnotation) {
        guard case .findInformationResponse(_, let entries) = pdu.parameters else { return }
        note.discovered.reserveCapacity(note.discovered.count + entries.count)
        for e in entries {
            let kind: GATTAttributeKind
            switch e.uuid.uuid16 {
            case GATTNames.primaryService?: kind = .primaryService
            case GATTNames.secondaryService?: kind = .secondaryService
            case GATTNames.include?: kind = .include
            case GATTNames.characteristic?: kind = .characteristicDeclaration
            default: kind = .descriptor
            }
            // What Read By Type / Read By Group Type taught is more specific (Find Information
            // lists only the declaration *types* 0x2800/0x2803): keep it.
            let at = db.slot(of: e.handle)
            if at.found { continue }
            if kind != .descriptor {
                remember(GATTAttribute(handle: e.handle, kind: kind, uuid: nil, learnedIn: frame), at: at, note: &note)
                continue
            }
            // The handle right after a characteristic declaration is its value (Find Information
            // then lists the characteristic UUID, not a descriptor type). The attribute before the
            // slot is the one at the handle below, if that is known.
            if e.handle > 0, at.index > 0, db.attributes[at.index - 1].handle == e.handle - 1,
                db.attributes[at.index - 1].kind == .characteristicDeclaration
            {
                remember(
                    GATTAttribute(
                        handle: e.handle, kind: .characteristicValue, uuid: e.uuid, relatedHandle: e.handle - 1,
                        learnedIn: frame),
                    at: at, note: &note)
                continue
            }
            remember(GATTAttribute(handle: e.handle, kind: .descriptor, uuid: e.uuid, learnedIn: frame), at: at, note: &note)
            if displays { note.fields.append(handleField("Descriptor", e.handle)) }
        }
    }
}

/// A set of ``GATTTracker``s keyed by connection, for a dissector that sees every connection.
public struct GATTTrackerSet: Sendable {
    public private(set) var trackers: [GATTConnectionKey: GATTTracker] = [:]
    /// Given to every tracker the set creates.
    public let detail: DecodeDetail
    /// Where the last connection's tracker is in ``trackers`` (ATT traffic comes in runs on
    /// one connection). An index stays valid while no tracker is added or removed (updating
    /// one in place does not move it): both places that do so set or forget it.
    private var last: (connection: GATTConnectionKey, index: Dictionary<GATTConnectionKey, GATTTracker>.Index)?

    public init(detail: DecodeDetail = .display) {
        self.detail = detail
    }

    /// Feeds a PDU to the tracker of `connection`, creating it on first use.
    public mutating func observe(
        _ pdu: ATTPDU, connection: GATTConnectionKey, direction: Direction, frame: FrameNumber,
        cid: UInt16 = ChannelID.att.rawValue
    ) -> GATTAnnotation? {
        let index: Dictionary<GATTConnectionKey, GATTTracker>.Index
        if let last, last.connection == connection {
            index = last.index
        } else {
            if let found = trackers.index(forKey: connection) {
                index = found
            } else {
                trackers[connection] = GATTTracker(connection: connection, detail: detail)
                index = trackers.index(forKey: connection)!
            }
            last = (connection, index)
        }
        return trackers.values[index].observe(pdu, direction: direction, frame: frame, cid: cid)
    }

    public subscript(connection: GATTConnectionKey) -> GATTTracker? { trackers[connection] }

    /// Drops a connection's state (after its Disconnection Complete, once reports are built).
    @discardableResult
    public mutating func remove(_ connection: GATTConnectionKey) -> GATTTracker? {
        last = nil
        return trackers.removeValue(forKey: connection)
    }
}

/// Which GATT server of a connection an ATT PDU is about: each side of a connection may run one,
/// with handles of its own.
public enum GATTServerSide: String, Sendable, Hashable {
    /// The remote device's server: the local host is its client.
    case remote
    /// The local device's server: the remote device is its client.
    case local

    /// The server a PDU with `opcode` travelling in `direction` is about: a client's PDU
    /// (request, command, confirmation) goes to the server, a server's (response, notification,
    /// indication) comes from it. A PDU of unknown direction is taken as the remote server's
    /// (the local host as client is the common case).
    @inlinable public init(opcode: ATTOpcode, direction: Direction) {
        let fromClient: Bool
        switch opcode.kind {
        case .request?, .command?, .confirmation?: fromClient = true
        default: fromClient = false
        }
        switch direction {
        case .sent: self = fromClient ? .remote : .local
        case .received: self = fromClient ? .local : .remote
        case .unknown: self = .remote
        }
    }
}

/// One GATT server's database as discovery revealed it: what ``GATTTracker`` learned of it.
public struct GATTServerDatabase: Sendable {
    /// Everything learned, one attribute per handle, in handle order. A database holds tens to a
    /// few hundred attributes and discovery learns them mostly in handle order: a sorted array is
    /// appended to and searched for less than a dictionary hashes its keys.
    public private(set) var attributes: [GATTAttribute] = []
    /// Where in ``attributes`` the last attribute learned was stored (``slot(of:)`` looks right
    /// after it first).
    var lastStored = 0
    /// Services in the order they were discovered (one per start handle: one learned again
    /// replaces the earlier).
    public private(set) var services: [GATTService] = []
    /// Last acknowledged value of each CCCD (by CCCD handle).
    public internal(set) var clientConfigurations: [UInt16: GATTClientConfiguration] = [:]
    /// Sorted handles of the Client Characteristic Configuration descriptors: every Write
    /// Command asks whether it writes one, and a database has few.
    var clientConfigurationHandles: [UInt16] = []
    /// ``name(ofHandle:)`` by handle, built once per handle until discovery learns more (naming
    /// a 128-bit UUID builds a string: not something to repeat for every PDU of a connection).
    /// Unknown handles are remembered too (as nil), so they cost one lookup, not two.
    var names: [UInt16: String?] = [:]


    public init() {}

    /// The attribute at `handle`, if discovery has revealed it.
    public func attribute(at handle: UInt16) -> GATTAttribute? {
        let (index, found) = slot(of: handle)
        return found ? attributes[index] : nil
    }

    /// Where the attribute at `handle` is in ``attributes`` (`found`), or where it would go.
    func slot(of handle: UInt16) -> (index: Int, found: Bool) {
        var lo = 0
        var hi = attributes.count
        if let last = attributes.last, last.handle < handle {
            // Discovery mostly learns handles above every one known: no search then.
            lo = hi
        } else if lastStored < hi, attributes[lastStored].handle < handle {
            // Or the handles after one it just learned (a characteristic's declaration, then its
            // value; a run of descriptors), below the services learned before them.
            let next = lastStored + 1
            if next == hi || attributes[next].handle >= handle {
                return (next, next < hi && attributes[next].handle == handle)
            }
            lo = next + 1
        }
        while lo < hi {
            let mid = (lo + hi) / 2
            if attributes[mid].handle < handle { lo = mid + 1 } else { hi = mid }
        }
        return (lo, lo < attributes.count && attributes[lo].handle == handle)
    }

    /// The service whose handle range contains `handle`.
    public func service(containing handle: UInt16) -> GATTService? {
        services.service(containing: handle)
    }

    /// The characteristic value attribute a descriptor belongs to: the nearest characteristic
    /// value below it, with no declaration or service in between, within the same service.
    public func characteristic(owning descriptorHandle: UInt16) -> GATTAttribute? {
        // The nearest attribute below that is not a descriptor: a declaration, service or
        // include ends the descriptor run of the characteristic before it.
        var i = slot(of: descriptorHandle).index
        while i > 0 {
            i -= 1
            switch attributes[i].kind {
            case .descriptor:
                continue
            case .characteristicValue:
                if let start = service(containing: descriptorHandle)?.range.start, attributes[i].handle < start { return nil }
                return attributes[i]
            case .primaryService, .secondaryService, .include, .characteristicDeclaration:
                return nil
            }
        }
        return nil
    }

    /// The database as a tree: the characteristics of `service` (in handle order), each with the
    /// descriptors that belong to it by ``characteristic(owning:)`` and the range from its
    /// declaration (its value, when the declaration is unknown) to its last descriptor.
    public func characteristics(in service: GATTService) -> [GATTCharacteristic] {
        var out: [GATTCharacteristic] = []
        for a in attributes where service.range.contains(a.handle) {
            let h = a.handle
            switch a.kind {
            case .characteristicValue:
                let start = a.relatedHandle.map { min($0, h) } ?? h
                out.append(GATTCharacteristic(value: a, range: ATTHandleRange(start: start, end: h), descriptors: []))
            case .descriptor:
                guard let owner = characteristic(owning: h), let i = out.lastIndex(where: { $0.value.handle == owner.handle })
                else { continue }
                out[i].descriptors.append(a)
                out[i].range.end = h
            default:
                continue
            }
        }
        return out
    }

    /// The index of the first element of the sorted `handles` not below `handle`.
    static func lowerBound(_ handle: UInt16, in handles: [UInt16]) -> Int {
        var lo = 0
        var hi = handles.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if handles[mid] < handle { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Whether the sorted `handles` hold `handle`.
    static func contains(_ handle: UInt16, in handles: [UInt16]) -> Bool {
        let lo = lowerBound(handle, in: handles)
        return lo < handles.count && handles[lo] == handle
    }

    /// Inserts into or removes from a sorted handle list.
    static func update(_ handles: inout [UInt16], _ handle: UInt16, present: Bool) {
        // Discovery mostly learns handles above every one known: appended without a search.
        if present, handles.last.map({ $0 < handle }) ?? true {
            handles.append(handle)
            return
        }
        let lo = lowerBound(handle, in: handles)
        let found = lo < handles.count && handles[lo] == handle
        if present && !found { handles.insert(handle, at: lo) }
        if !present && found { handles.remove(at: lo) }
    }

    /// ``name(ofHandle:)``, remembered.
    mutating func cachedName(ofHandle handle: UInt16) -> String? {
        if let n = names[handle] { return n }
        let n = name(ofHandle: handle)
        names[handle] = .some(n)
        return n
    }

    /// A name for the attribute at `handle`, or nil when nothing is known about it.
    public func name(ofHandle handle: UInt16) -> String? {
        guard let a = attribute(at: handle) else { return nil }
        switch a.kind {
        case .characteristicValue:
            return a.uuidName
        case .descriptor:
            if let owner = characteristic(owning: handle) { return "\(a.uuidName) of \(owner.uuidName)" }
            return a.uuidName
        case .characteristicDeclaration:
            return "Characteristic Declaration" + (a.uuid == nil ? "" : " " + a.uuidName)
        case .primaryService:
            return "Primary Service" + (a.uuid == nil ? "" : " " + a.uuidName)
        case .secondaryService:
            return "Secondary Service" + (a.uuid == nil ? "" : " " + a.uuidName)
        case .include:
            return "Include" + (a.uuid == nil ? "" : " " + a.uuidName)
        }
    }

    /// True when `handle` is a Client Characteristic Configuration descriptor.
    public func isClientConfiguration(_ handle: UInt16) -> Bool {
        Self.contains(handle, in: clientConfigurationHandles)
    }

    /// Room made in an empty database for its first attribute.
    static let initialCapacity = 32

    /// Learns an attribute a discovery response taught (``GATTAnnotation/discovered``): stores
    /// it at its handle, replacing what was known there, and a service declaration that names
    /// its UUID and range as a service too (one learned again replaces the earlier). How what a
    /// response taught enters a database, stated once: ``GATTTracker`` learns this way, and so
    /// does a reader that applies the annotations' ``GATTAnnotation/discovered`` in order (the
    /// analysis keeps each server of a connection so, and holds the same database).
    public mutating func learn(_ a: GATTAttribute) { learn(a, at: slot(of: a.handle)) }

    /// ``learn(_:)`` with the attribute's ``slot(of:)``, looked up already.
    mutating func learn(_ a: GATTAttribute, at slot: (index: Int, found: Bool)) {
        if a.kind == .primaryService || a.kind == .secondaryService, let uuid = a.uuid, let end = a.groupEnd {
            learnService(
                GATTService(
                    range: ATTHandleRange(start: a.handle, end: end), uuid: uuid, isPrimary: a.kind == .primaryService,
                    learnedIn: a.learnedIn))
        }
        store(a, at: slot)
    }

    /// Stores `a` at `slot` (``slot(of:)`` of its handle), replacing what was known there.
    mutating func store(_ a: GATTAttribute, at slot: (index: Int, found: Bool)) {
        let (index, found) = slot
        let wasClientConfiguration = found && GATTTracker.isClientConfiguration(attributes[index])
        // A discovery fills a database with tens of attributes: room for them from the first
        // spares the growths on the way (durnerj replay: 5,010 fewer array growths).
        if attributes.isEmpty { attributes.reserveCapacity(Self.initialCapacity) }
        if found {
            attributes[index] = a
        } else if index == attributes.count {
            attributes.append(a)
        } else {
            attributes.insert(a, at: index)
        }
        lastStored = index
        let isClientConfiguration = GATTTracker.isClientConfiguration(a)
        if isClientConfiguration != wasClientConfiguration {
            Self.update(&clientConfigurationHandles, a.handle, present: isClientConfiguration)
        }
        if !names.isEmpty { names.removeAll(keepingCapacity: true) }
    }

    /// A service learned (again: it replaces the one with the same start handle).
    mutating func learnService(_ service: GATTService) {
        services.removeAll { $0.range.start == service.range.start }
        services.append(service)
        names.removeAll(keepingCapacity: true)
    }
}
