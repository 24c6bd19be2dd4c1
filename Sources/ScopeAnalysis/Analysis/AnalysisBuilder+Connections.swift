import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    /// Per-connection GATT client state used to rebuild the database.
    struct GATTState: Sendable {
        /// The outstanding discovery request per client direction (the side that sent it). Any
        /// other request clears the slot: a response answers only the latest request, and only
        /// an answered discovery request teaches the database anything.
        private var sentRequest: ATTPDU?
        private var receivedRequest: ATTPDU?
        private var unknownRequest: ATTPDU?
        /// Exchange MTU: client's and server's Rx MTU.
        var clientMTU: Int?

        subscript(request direction: Direction) -> ATTPDU? {
            get {
                switch direction {
                case .sent: return sentRequest
                case .received: return receivedRequest
                case .unknown: return unknownRequest
                }
            }
            set {
                switch direction {
                case .sent: sentRequest = newValue
                case .received: receivedRequest = newValue
                case .unknown: unknownRequest = newValue
                }
            }
        }
    }

    /// What the ATT analysis reads from one PDU and its GATT annotation, as plain values.
    ///
    /// Taken from the decoded frame in place (`borrowing`, everything inlined, only plain fields
    /// read): binding the PDU or its annotation out of the frame as a whole — to pass it to a
    /// function or to a getter in ScopeDecode — copies it, retaining and releasing every array
    /// and string it holds, for every PDU. The PDU itself is copied only when it is kept
    /// (``keepsPDU``, see ``keptPDU(_:)``): a discovery request (until its response) and the
    /// responses that discovery learns from.
    struct ATTFacts {
        var opcode: ATTOpcode
        /// The PDU's own handle (`ATTPDU.handle`).
        var handle: UInt16?
        /// The handle a response refers to, from its request (`GATTAnnotation.inferredHandle`).
        var inferredHandle: UInt16? = nil
        var valueLength: Int
        /// The first two value bytes, little-endian, when there are two (a CCCD value).
        var valueLE16: UInt16?
        var errorCode: UInt8?
        var requestOpcodeInError: ATTOpcode?
        /// Exchange MTU Request/Response: the Rx MTU.
        var mtu: UInt16? = nil
        var discovery: GATTDatabase.DiscoveryProcedure.Kind? = nil
        var range: ATTHandleRange? = nil
        var requestFrame: FrameNumber? = nil
        var effectiveMTU: Int? = nil
        /// The tracker recognised a Client Characteristic Configuration value.
        var hasClientConfiguration = false
        /// A response carrying discovery results (which the database may learn from).
        var hasDiscoveryResults = false
        /// `ATTPDU.attributeType`: of a Read By (Group) Type request, of a Find By Type Value request.
        var typedRangeType: BluetoothUUID? = nil
        var findByTypeValueType: UInt16? = nil

        /// The PDU is needed whole: a discovery request, or a response carrying discovery results.
        var keepsPDU: Bool { hasDiscoveryResults || discovery != nil }

        /// nil unless `upper` is ATT. Call ``classify()`` next, in a statement of its own.
        ///
        /// While the PDU is looked at, only its stored fields are read: plain values and no calls
        /// (reading one of `ATTOpcode`'s constants is a call into ScopeDecode). Reading the PDU
        /// from the frame makes a temporary copy that lasts to the end of the statement; the
        /// compiler drops it only when nothing in that statement could write to the frame.
        @inline(__always)
        init?(_ upper: borrowing DecodedPDU.Upper) {
            // (A `switch`: `guard case` would consume the borrowed value.)
            switch upper {
            case .att(let pdu, let note):
                opcode = pdu.opcode
                handle = pdu.handle
                valueLength = pdu.value.count
                // (`value` is a slice of the PDU's bytes: indexed from its startIndex.)
                let v0 = pdu.value.startIndex
                valueLE16 = pdu.value.count >= 2 ? UInt16(pdu.value[v0]) | UInt16(pdu.value[v0 + 1]) << 8 : nil
                errorCode = pdu.errorCode
                requestOpcodeInError = pdu.requestOpcodeInError
                // `ATTPDU.mtu`, `.range` and `.attributeType`, binding only plain payloads.
                switch pdu.parameters {
                case .mtu(let m):
                    mtu = m
                case .findInformationRequest(let r):
                    range = r
                case .findByTypeValueRequest(let r, let t, _):
                    range = r
                    findByTypeValueType = t
                case .typedRange(let r, let t):
                    range = r
                    typedRangeType = t
                case .attributeDataList, .findByTypeValueResponse, .findInformationResponse:
                    hasDiscoveryResults = true
                default:
                    break
                }
                if case .some(let note) = note {
                    inferredHandle = note.inferredHandle
                    requestFrame = note.requestFrame
                    effectiveMTU = note.effectiveMTU
                    hasClientConfiguration = note.clientConfiguration != nil
                }
            default:
                return nil
            }
        }

        /// Works out the discovery procedure a request starts.
        @inline(__always)
        mutating func classify() {
            discovery = AnalysisBuilder.discoveryKind(opcode, attributeType16: findByTypeValueType ?? typedRangeType?.uuid16)
        }

        /// The ATT PDU of `upper`, copied (for ``keepsPDU``).
        static func keptPDU(_ upper: borrowing DecodedPDU.Upper) -> ATTPDU? {
            switch upper {
            case .att(let pdu, _): return copy pdu
            default: return nil
            }
        }
    }

    // MARK: Attempts

    /// LE (Extended) Create Connection sent: Initiator_Filter_Policy bit 0 asks for the Filter
    /// Accept List instead of the peer address.
    mutating func startAttempt(
        filterPolicy: UInt8, peerAddressType: UInt8, peer: BDAddr, api: HCIAPI, adapter: AdapterIndex, at: FrameTime
    ) {
        let usesList = filterPolicy & 0x01 != 0
        result.attempts.append(
            ConnectionAttempt(
                adapter: adapter, request: at, api: api, peer: usesList ? nil : peer, peerAddressType: usesList ? nil : peerAddressType,
                filterPolicy: filterPolicy))
        let i = result.attempts.count - 1
        pendingAttempt[adapter] = i
        result.attempts[i].ordinal = result.retired.attempts + i
        itemsSinceCheck += 1
        result.attempts[i].discoveryTracked = true
        if let s = activeScan[adapter] {
            result.attempts[i].scanReportsAtRequest = result.scans[s].reports
            result.attempts[i].scanStartFrameAtRequest = result.scans[s].start.frame
        }
        if !usesList { result.attempts[i].peerDiscovery = peerDiscovery(peer, adapter: adapter, for: result.attempts[i]) }
        noteRequestInScan(result.attempts[i])
        if !usesList { noteRequest(result.attempts[i], peer: peer) }
    }

    /// The last scan session on `adapter` that reported `peer` before `attempt`'s request, its
    /// first report of it there, and the session as far as the request goes.
    func peerDiscovery(_ peer: BDAddr, adapter: AdapterIndex, for attempt: ConnectionAttempt) -> PeerDiscovery? {
        guard let found = lastDiscovery[AdapterAddress(adapter: adapter, address: peer)],
            found.firstReport.frame < attempt.request.frame
        else { return nil }
        let session = scanSession(startingAt: found.scanStart) ?? retiredDiscoveryScans[found.scanStart]
        return PeerDiscovery(
            scanStartFrame: found.scanStart, firstReport: found.firstReport, scan: session.map { DiscoveryScan($0, for: attempt) })
    }

    /// The session in `result.scans` that started at `frame` (sessions are in start order).
    func scanSession(startingAt frame: FrameNumber) -> ScanSession? {
        let lo = result.scans.partitionPoint { $0.start.frame >= frame }
        return lo < result.scans.count && result.scans[lo].start.frame == frame ? result.scans[lo] : nil
    }

    mutating func finishAttempts() {
        // Still pending attempts keep outcome .pending (bounded by the last frame in reports).
        pendingAttempt = [:]
    }

    // MARK: Connection lifetime

    mutating func connectionComplete(_ c: ConnectionSetup, adapter: AdapterIndex, at: FrameTime) {
        // The LE attempt this event answers (central role, or a failure of our request).
        var attemptIndex: Int?
        if c.isLE, let i = pendingAttempt[adapter], c.role == 0 || c.status != 0 {
            attemptIndex = i
            pendingAttempt[adapter] = nil
            result.attempts[i].complete = at
            result.attempts[i].status = c.status
            if c.status == 0 {
                result.attempts[i].outcome = .connected
            } else if result.attempts[i].cancel != nil && c.status == 0x02 {
                result.attempts[i].outcome = .cancelled
            } else {
                result.attempts[i].outcome = .failed
            }
            if c.status != 0 { noteRequestChanged(i) }
        }
        guard c.status == 0 else { return }
        let key = HandleKey(adapter: adapter, handle: c.handle)
        if openConnections[key] != nil { closeConnection(key) }
        generations[key, default: 0] += 1
        let id = ConnectionID(adapter: adapter, handle: c.handle, generation: generations[key] ?? 1)
        let role: Connection.Role = c.role == 0 ? .central : c.role == 1 ? .peripheral : .unknown
        var connection = Connection(id: id, role: role)
        connection.isLE = c.isLE
        connection.peer = c.peer
        connection.peerAddressType = c.isLE ? c.peerAddressType : nil
        connection.complete = at
        if c.isLE {
            connection.intervalMicros = c.intervalMicros
            connection.peripheralLatency = Int(c.latency)
            connection.supervisionTimeoutMicros = c.timeoutMicros
        }
        connection.ordinal = result.retired.connections + result.connections.count
        if let i = attemptIndex {
            connection.request = result.attempts[i].request
            result.attempts[i].connection = id
            result.attempts[i].connectionPeer = c.peer
            // Filter accept list: the peer is known only now; where it was found before the request.
            if result.attempts[i].peer == nil {
                result.attempts[i].peerDiscovery = peerDiscovery(c.peer, adapter: adapter, for: result.attempts[i])
            }
            keepForDiscovery(result.attempts[i])
        }
        result.connections.append(connection)
        itemsSinceCheck += 1
        let index = result.connections.count - 1
        noteConnectionArrived(connection, at: at)
        openConnections[key] = index
        gattState[ConnectionSlot(index)] = GATTState()
        if let i = attemptIndex { noteRequestChanged(i) }
        if c.isLE && role == .peripheral { connectionStopsLegacyAdvertising(adapter: adapter, at: at) }
    }

    /// The connection on `key`, created when its setup was not captured.
    mutating func connectionIndex(_ key: HandleKey, at: FrameTime) -> Int {
        if let i = openConnections[key] { return i }
        let id = ConnectionID(adapter: key.adapter, handle: key.handle, generation: generations[key] ?? 0)
        var connection = Connection(id: id, role: .unknown)
        connection.ordinal = result.retired.connections + result.connections.count
        result.connections.append(connection)
        itemsSinceCheck += 1
        let index = result.connections.count - 1
        openConnections[key] = index
        gattState[ConnectionSlot(index)] = GATTState()
        handlesWithoutSetup.insert(key.handle)
        return index
    }

    mutating func disconnectionComplete(_ d: DisconnectionComplete, adapter: AdapterIndex, at: FrameTime) {
        guard d.status == 0 else { return }
        let key = HandleKey(adapter: adapter, handle: d.handle)
        let i = connectionIndex(key, at: at)
        result.connections[i].disconnect = at
        result.connections[i].disconnectReason = d.reason
        result.connections[i].disconnectInitiator = result.connections[i].disconnectCommand != nil ? .local : .remote
        noteConnectionEnded(result.connections[i], at: at)
        noteConnectionDown(result.connections[i], at: at)
        closeConnection(key)
    }

    private mutating func closeConnection(_ key: HandleKey) {
        guard let i = openConnections.removeValue(forKey: key) else { return }
        gattState[ConnectionSlot(i)] = nil
        closedWithDetail.append(i)
        closedDetailEvents += result.connections[i].att.count
        // The ATT list stops growing: give back the spare capacity of its last doubling.
        if result.connections[i].att.capacity > result.connections[i].att.count + 16 {
            let att = Array(result.connections[i].att[...])
            result.connections[i].att = att
        }
        if let p = openPairing.removeValue(forKey: i), result.pairings[p].result == .incomplete {
            // Left incomplete: the link went away before the pairing finished.
        }
        pendingSecurityRequest[i] = nil
        // Identity keys come over the link: none can follow now.
        if !pendingIRK.isEmpty { pendingIRK = pendingIRK.filter { $0.key.connection != i } }
    }

    mutating func encryption(handle: UInt16, adapter: AdapterIndex, change: EncryptionChange) {
        let key = HandleKey(adapter: adapter, handle: handle)
        let i = connectionIndex(key, at: change.at)
        let wasEncrypted = result.connections[i].encryptionChanges.last { !$0.isKeyRefresh }.map { $0.status == 0 && ($0.enabled ?? 0) != 0 } ?? false
        result.connections[i].encryptionChanges.append(change)
        pairingEncryption(connection: i, change: change, wasEncrypted: wasEncrypted)
    }

    // MARK: ACL

    mutating func acl(_ frame: DecodedFrame, header: ACLHeader, adapter: AdapterIndex, at: FrameTime) {
        let key = HandleKey(adapter: adapter, handle: header.handle)
        let i = connectionIndex(key, at: at)
        if header.dataLength > 0 { result.connections[i].lastPayload = at }
        let direction = frame.record.direction
        for p in frame.pdus.indices {
            if var facts = ATTFacts(frame.pdus[p].upper) {
                facts.classify()
                let kept = facts.keepsPDU ? ATTFacts.keptPDU(frame.pdus[p].upper) : nil
                // In place: a copy of the connection or its GATT state left behind would share
                // their buffers, and every append (one ATT event per PDU) would then copy the
                // whole list — quadratic on long connections.
                Self.att(
                    facts, kept: kept, connection: &result.connections[i],
                    state: &gattState[ConnectionSlot(i), default: GATTState()], direction: direction, at: at)
            } else if case .smp(let smp) = frame.pdus[p].upper {
                self.smp(smp, connection: i, direction: direction, at: at)
            }
        }
    }

    // MARK: ATT / GATT

    private static func att(
        _ pdu: ATTFacts, kept: ATTPDU?, connection c: inout Connection, state: inout GATTState, direction: Direction, at: FrameTime
    ) {
        let kind = pdu.opcode.kind
        if c.firstATT == nil { c.firstATT = at }
        if kind == .request || kind == .command {
            if direction == .sent { c.localIsGATTClient = true } else if direction == .received { c.remoteIsGATTClient = true }
        }
        // The discovery request a response answers: outstanding on the opposite direction.
        let clientDirection: Direction = direction == .sent ? .received : .sent
        var request: ATTPDU?
        if kind == .response {
            request = state[request: clientDirection]
            state[request: clientDirection] = nil
        }
        let event = ATTEvent(
            at: at, direction: direction, opcode: pdu.opcode.rawValue, handle: pdu.handle ?? pdu.inferredHandle,
            valueLength: pdu.valueLength, errorCode: pdu.errorCode, requestOpcodeInError: pdu.requestOpcodeInError?.rawValue,
            requestFrame: pdu.requestFrame, mtu: c.mtu)
        c.att.append(event)

        switch kind {
        case .request:
            state[request: direction] = pdu.discovery != nil ? kept : nil
            if pdu.opcode == .exchangeMTURequest, let m = pdu.mtu {
                state.clientMTU = Int(m)
                c.mtuExchanges.append(at)
            }
            if let procedure = pdu.discovery, let range = pdu.range {
                c.gatt.discoveryProcedures.append(
                    GATTDatabase.DiscoveryProcedure(
                        kind: procedure, request: at, startHandle: range.start, endHandle: range.end,
                        client: direction == .sent ? .local : direction == .received ? .remote : .unknown))
            }
            cccdWrite(pdu, connection: &c, direction: direction, at: at)
        case .command:
            cccdWrite(pdu, connection: &c, direction: direction, at: at)
        case .response:
            if pdu.opcode == .exchangeMTUResponse {
                c.mtuExchanges.append(at)
                if let effective = pdu.effectiveMTU {
                    c.mtu = effective
                } else if let server = pdu.mtu {
                    c.mtu = max(23, min(Int(server), state.clientMTU ?? Int(server)))
                }
            }
            if pdu.opcode == .readResponse || pdu.opcode == .readBlobResponse, pdu.valueLength > 0, c.firstData == nil {
                c.firstData = at
            }
            if let request {
                c.discoveryEnd = at
                if let response = kept { learn(response, request: request, database: &c.gatt, at: at) }
            }
        case .notification, .indication:
            if c.firstData == nil, pdu.valueLength > 0 || pdu.opcode == .multipleHandleValueNotification { c.firstData = at }
        default:
            break
        }
    }

    /// The discovery procedure a request starts (`attributeType16`: the 16-bit attribute type of
    /// a Read By (Group) Type or Find By Type Value request).
    @inline(__always)
    static func discoveryKind(_ opcode: ATTOpcode, attributeType16 t: UInt16?) -> GATTDatabase.DiscoveryProcedure.Kind? {
        switch opcode {
        case .readByGroupTypeRequest:
            return t == 0x2800 || t == 0x2801 ? .allPrimaryServices : nil
        case .findByTypeValueRequest:
            return t == 0x2800 ? .primaryServiceByUUID : nil
        case .readByTypeRequest:
            switch t {
            case 0x2803: return .characteristics
            case 0x2802: return .includes
            default: return nil
            }
        case .findInformationRequest:
            return .descriptors
        default:
            return nil
        }
    }

    private static func learn(_ pdu: ATTPDU, request: ATTPDU, database db: inout GATTDatabase, at: FrameTime) {
        switch pdu.parameters {
        case .attributeDataList(_, let entries) where request.opcode == .readByGroupTypeRequest:
            let primary = request.attributeType?.uuid16 == 0x2800
            for e in entries {
                guard let end = e.endGroupHandle, let uuid = Self.wireUUID(e.value[...]), e.value.count != 4 else { continue }
                db.services.removeAll { $0.start == e.handle }
                db.services.append(
                    GATTDatabase.Service(start: e.handle, end: end, uuid: Self.uuidString(uuid), name: uuid.name, isPrimary: primary, learned: at))
            }
        case .findByTypeValueResponse(let ranges):
            guard case .findByTypeValueRequest(_, _, let value) = request.parameters,
                let uuid = Self.wireUUID(value[...]), value.count != 4
            else { return }
            for r in ranges {
                db.services.removeAll { $0.start == r.start }
                db.services.append(
                    GATTDatabase.Service(start: r.start, end: r.end, uuid: Self.uuidString(uuid), name: uuid.name, isPrimary: true, learned: at))
            }
        case .attributeDataList(_, let entries) where request.attributeType?.uuid16 == 0x2803:
            for e in entries {
                guard e.value.count >= 5, let uuid = Self.wireUUID(e.value.dropFirst(3)) else { continue }
                let valueHandle = UInt16(e.value[1]) | UInt16(e.value[2]) << 8
                db.characteristics.removeAll { $0.declarationHandle == e.handle }
                let service = db.services.first { $0.start <= e.handle && e.handle <= $0.end }?.start
                db.characteristics.append(
                    GATTDatabase.Characteristic(
                        declarationHandle: e.handle, valueHandle: valueHandle, properties: e.value[0], uuid: Self.uuidString(uuid),
                        name: uuid.name, serviceStart: service, learned: at))
            }
            db.characteristics.sort { $0.declarationHandle < $1.declarationHandle }
        case .findInformationResponse(_, let entries):
            for e in entries {
                let owner = db.characteristics.last { $0.valueHandle < e.handle }
                // Characteristic declarations and values found again here are not descriptors.
                if db.characteristics.contains(where: { $0.valueHandle == e.handle || $0.declarationHandle == e.handle }) { continue }
                if let u = e.uuid.uuid16, u == 0x2800 || u == 0x2801 || u == 0x2803 { continue }
                db.descriptors.removeAll { $0.handle == e.handle }
                db.descriptors.append(
                    GATTDatabase.Descriptor(handle: e.handle, uuid: Self.uuidString(e.uuid), characteristicValueHandle: owner?.valueHandle, learned: at))
            }
        default:
            break
        }
    }

    private static func cccdWrite(_ pdu: ATTFacts, connection c: inout Connection, direction: Direction, at: FrameTime) {
        guard pdu.opcode == .writeRequest || pdu.opcode == .writeCommand, let handle = pdu.handle else { return }
        let known = c.gatt.descriptors.first { $0.handle == handle }
        let isCCCD = pdu.hasClientConfiguration || known?.uuid == "2902"
        guard isCCCD, let value = pdu.valueLE16 else { return }
        let owner = known?.characteristicValueHandle ?? c.gatt.characteristics.last { $0.valueHandle < handle }?.valueHandle
        c.cccdWrites.append(CCCDWrite(at: at, direction: direction, handle: handle, characteristicValueHandle: owner, value: value))
    }
}

/// A connection's setup as the analysis takes it from LE (Enhanced) Connection Complete or from
/// BR/EDR Connection Complete (which has no role, address type or LE parameters).
struct ConnectionSetup: Sendable, Hashable {
    var status: UInt8
    var handle: UInt16
    /// 0 central, 1 peripheral, 0xFF not stated.
    var role: UInt8
    var peerAddressType: UInt8
    var peer: BDAddr
    var intervalMicros: Int64
    var latency: UInt16
    var timeoutMicros: Int64
    var isLE: Bool

    init(_ c: LEConnectionComplete) {
        (status, handle, role, peerAddressType, peer) = (c.status, c.handle, c.role, c.peerAddressType, c.peer)
        (intervalMicros, latency, timeoutMicros, isLE) = (c.intervalMicros, c.peripheralLatency, c.supervisionTimeoutMicros, true)
    }

    init(classic c: ClassicConnectionComplete) {
        (status, handle, role, peerAddressType, peer) = (c.status, c.handle, 0xFF, 0, c.peer)
        (intervalMicros, latency, timeoutMicros, isLE) = (0, 0, 0, false)
    }
}
