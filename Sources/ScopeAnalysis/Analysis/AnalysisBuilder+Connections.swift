import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    /// What the ATT analysis reads from one PDU and its GATT annotation, as plain values.
    ///
    /// Taken from the decoded frame in place (`borrowing`, everything inlined, only plain fields
    /// read): binding the PDU or its annotation out of the frame as a whole — to pass it to a
    /// function or to a getter in ScopeDecode — copies it, retaining and releasing every array
    /// and string it holds, for every PDU. What the GATT database learned comes from the
    /// annotation (the decoder's ``GATTTracker`` owns the database; the analysis applies its
    /// changes).
    struct ATTFacts {
        var opcode: ATTOpcode
        /// The PDU's own handle (`ATTPDU.handle`).
        var handle: UInt16?
        /// The handle a response refers to, from its request (`GATTAnnotation.inferredHandle`).
        var inferredHandle: UInt16? = nil
        var valueLength: Int
        var errorCode: UInt8?
        var requestOpcodeInError: ATTOpcode?
        /// Exchange MTU Request/Response: the Rx MTU.
        var mtu: UInt16? = nil
        /// A discovery request's range (`ATTPDU.range`).
        var range: ATTHandleRange? = nil
        var requestFrame: FrameNumber? = nil
        var effectiveMTU: Int? = nil
        /// A discovery request, or the response answering one (`GATTAnnotation.procedure`).
        var procedure: GATTDiscoveryKind? = nil
        var clientConfigurationWrite: GATTClientConfigurationWrite? = nil
        /// What the response taught the connection's GATT database (`GATTAnnotation.discovered`).
        var discovered: [GATTAttribute] = []

        /// nil unless `upper` is ATT.
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
                errorCode = pdu.errorCode
                requestOpcodeInError = pdu.requestOpcodeInError
                // `ATTPDU.mtu` and `.range`, binding only plain payloads.
                switch pdu.parameters {
                case .mtu(let m):
                    mtu = m
                case .findInformationRequest(let r):
                    range = r
                case .findByTypeValueRequest(let r, _, _):
                    range = r
                case .typedRange(let r, _):
                    range = r
                default:
                    break
                }
                if case .some(let note) = note {
                    inferredHandle = note.inferredHandle
                    requestFrame = note.requestFrame
                    effectiveMTU = note.effectiveMTU
                    procedure = note.procedure
                    clientConfigurationWrite = note.clientConfigurationWrite
                    if !note.discovered.isEmpty { discovered = note.discovered }
                }
            default:
                return nil
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
        result.attempts[i].ordinal = result.retired.attempts + i
        pendingAttempt[adapter] = result.attempts[i].ordinal
        itemsSinceCheck += 1
        if let s = activeScanPosition(adapter) {
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

    /// The session in `result.scans` that started at `frame`.
    func scanSession(startingAt frame: FrameNumber) -> ScanSession? {
        result.scans.position(of: frame).map { result.scans[$0] }
    }

    /// The position in `result.attempts` of the request waiting on `adapter`.
    func pendingAttemptPosition(_ adapter: AdapterIndex) -> Int? {
        pendingAttempt[adapter].flatMap { result.attempts.position(of: $0) }
    }

    mutating func finishAttempts() {
        // Still pending attempts keep outcome .pending (bounded by the last frame in reports).
        pendingAttempt = [:]
    }

    // MARK: Connection lifetime

    /// The connection on `key` as the dissector identifies it on this frame (`DecodedFrame.connection`:
    /// its generation counts the handle's connection completes).
    static func connectionID(_ key: HandleKey, frame connection: GATTConnectionKey?) -> ConnectionID {
        let generation = connection.flatMap { $0.adapter == key.adapter && $0.handle == key.handle ? $0.generation : nil }
        return ConnectionID(adapter: key.adapter, handle: key.handle, generation: generation ?? 0)
    }

    mutating func connectionComplete(
        _ c: ConnectionSetup, adapter: AdapterIndex, at: FrameTime, connection frameConnection: GATTConnectionKey?
    ) {
        // The LE attempt this event answers (central role, or a failure of our request).
        var attemptIndex: Int?
        if c.isLE, let i = pendingAttemptPosition(adapter), c.role == 0 || c.status != 0 {
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
        let id = Self.connectionID(key, frame: frameConnection)
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
        noteConnectionArrived(connection, at: at)
        openConnections[key] = HeldRef(id: connection.ordinal, position: result.connections.count - 1)
        if let i = attemptIndex { noteRequestChanged(i) }
        if c.isLE && role == .peripheral { connectionStopsLegacyAdvertising(adapter: adapter, at: at) }
    }

    /// The position in `result.connections` of the open connection on `key` (looked up per ACL
    /// frame: its last position, checked, is the fast path).
    @inline(__always)
    mutating func openConnection(_ key: HandleKey) -> Int? {
        openConnections.position(of: key, in: result.connections)
    }

    /// The connection on `key`, created when its setup was not captured.
    /// `connection`: the frame's (`DecodedFrame.connection`).
    mutating func connectionIndex(_ key: HandleKey, connection frameConnection: GATTConnectionKey?, at: FrameTime) -> Int {
        if let i = openConnection(key) { return i }
        let id = Self.connectionID(key, frame: frameConnection)
        var connection = Connection(id: id, role: .unknown)
        connection.ordinal = result.retired.connections + result.connections.count
        result.connections.append(connection)
        itemsSinceCheck += 1
        let index = result.connections.count - 1
        openConnections[key] = HeldRef(id: connection.ordinal, position: index)
        handlesWithoutSetup.insert(key.handle)
        return index
    }

    mutating func disconnectionComplete(
        _ d: DisconnectionComplete, adapter: AdapterIndex, at: FrameTime, connection: GATTConnectionKey?
    ) {
        guard d.status == 0 else { return }
        let key = HandleKey(adapter: adapter, handle: d.handle)
        let i = connectionIndex(key, connection: connection, at: at)
        result.connections[i].disconnect = at
        result.connections[i].disconnectReason = d.reason
        result.connections[i].disconnectInitiator = result.connections[i].disconnectCommand != nil ? .local : .remote
        noteConnectionEnded(result.connections[i], at: at)
        noteConnectionDown(result.connections[i], at: at)
        closeConnection(key)
    }

    private mutating func closeConnection(_ key: HandleKey) {
        let open = openConnection(key)
        openConnections[key] = nil
        guard let i = open else { return }
        closedWithDetail.append(result.connections[i].ordinal)
        closedDetailEvents += result.connections[i].att.count
        openHeldATT -= result.connections[i].att.count
        // The ATT list stops growing: give back the spare capacity of its last doubling.
        if result.connections[i].att.capacity > result.connections[i].att.count + 16 {
            let att = Array(result.connections[i].att[...])
            result.connections[i].att = att
        }
        // A pairing still open is left incomplete: the link went away before it finished.
        let id = result.connections[i].id
        openPairing[id] = nil
        pendingSecurityRequest[id] = nil
        // Identity keys come over the link: none can follow now.
        if !pendingIRK.isEmpty { pendingIRK = pendingIRK.filter { $0.key.connection != id } }
    }

    mutating func encryption(handle: UInt16, adapter: AdapterIndex, change: EncryptionChange, connection: GATTConnectionKey?) {
        let key = HandleKey(adapter: adapter, handle: handle)
        let i = connectionIndex(key, connection: connection, at: change.at)
        let wasEncrypted = result.connections[i].encryptionChanges.last { !$0.isKeyRefresh }.map { $0.status == 0 && ($0.enabled ?? 0) != 0 } ?? false
        result.connections[i].encryptionChanges.append(change)
        pairingEncryption(connection: i, change: change, wasEncrypted: wasEncrypted)
    }

    // MARK: ACL

    mutating func acl(_ frame: DecodedFrame, header: ACLHeader, adapter: AdapterIndex, at: FrameTime) {
        let key = HandleKey(adapter: adapter, handle: header.handle)
        let i = connectionIndex(key, connection: frame.connection, at: at)
        if header.dataLength > 0 { result.connections[i].lastPayload = at }
        let direction = frame.record.direction
        for p in frame.pdus.indices {
            if let facts = ATTFacts(frame.pdus[p].upper) {
                // In place: a copy of the connection left behind would share its buffers, and
                // every append (one ATT event per PDU) would then copy the whole list —
                // quadratic on long connections.
                let event = Self.att(facts, connection: &result.connections[i], direction: direction, at: at)
                if result.connections[i].holdsATT { openHeldATT += 1 }
                if let follower = attFollower { follower.follow(result.connections[i].step(event), on: result.connections[i].id) }
                if let budget = heldATTBudget, openHeldATT > budget { stopHoldingOpenATT() }
            } else if case .smp(let smp) = frame.pdus[p].upper {
                self.smp(smp, connection: i, direction: direction, at: at)
            }
        }
    }

    // MARK: ATT / GATT

    /// Applies one ATT PDU and what the decoder's GATT tracker reported about it.
    /// The open connections stop holding their ATT PDUs (`heldATTBudget`).
    private mutating func stopHoldingOpenATT() {
        for ref in openConnections.values {
            if let i = result.connections.position(of: ref.id) { result.connections[i].stopHoldingATT() }
        }
        openHeldATT = 0
    }

    @discardableResult
    private static func att(_ pdu: ATTFacts, connection c: inout Connection, direction: Direction, at: FrameTime) -> ATTEvent {
        let kind = pdu.opcode.kind
        if c.firstATT == nil { c.firstATT = at }
        if kind == .request || kind == .command {
            if direction == .sent { c.localIsGATTClient = true } else if direction == .received { c.remoteIsGATTClient = true }
        }
        var event = ATTEvent(
            at: at, direction: direction, opcode: pdu.opcode.rawValue, handle: pdu.handle ?? pdu.inferredHandle,
            valueLength: pdu.valueLength, errorCode: pdu.errorCode, requestOpcodeInError: pdu.requestOpcodeInError?.rawValue,
            requestFrame: pdu.requestFrame, mtu: c.mtu)
        event.writesClientConfiguration = pdu.clientConfigurationWrite != nil
        event.startsDiscovery = kind == .request && pdu.procedure != nil && pdu.range != nil
        c.record(event)
        if let write = pdu.clientConfigurationWrite {
            c.cccdWrites.append(
                CCCDWrite(
                    at: at, direction: direction, handle: write.handle, characteristicValueHandle: write.characteristicValueHandle,
                    value: write.value.rawValue))
        }

        switch kind {
        case .request:
            if pdu.opcode == .exchangeMTURequest, pdu.mtu != nil { c.mtuExchanges.append(at) }
            if let procedure = pdu.procedure, let range = pdu.range {
                c.gatt.discoveryProcedures.append(
                    GATTDatabase.DiscoveryProcedure(
                        kind: procedure, request: at, startHandle: range.start, endHandle: range.end,
                        client: direction == .sent ? .local : direction == .received ? .remote : .unknown))
            }
        case .response:
            if pdu.opcode == .exchangeMTUResponse {
                c.mtuExchanges.append(at)
                if let effective = pdu.effectiveMTU { c.mtu = effective }
            }
            if pdu.opcode == .readResponse || pdu.opcode == .readBlobResponse, pdu.valueLength > 0, c.firstData == nil {
                c.firstData = at
            }
            // A response that answers a discovery request (its results, an error ending it).
            if pdu.procedure != nil {
                c.discoveryEnd = at
                if !pdu.discovered.isEmpty { apply(pdu.discovered, to: &c.gatt, at: at) }
            }
        case .notification, .indication:
            if c.firstData == nil, pdu.valueLength > 0 || pdu.opcode == .multipleHandleValueNotification { c.firstData = at }
        default:
            break
        }
        return event
    }

    /// Records the services and characteristics a discovery response taught the decoder's GATT
    /// tracker (a service or characteristic learned again replaces the earlier one).
    private static func apply(_ discovered: [GATTAttribute], to db: inout GATTDatabase, at: FrameTime) {
        var characteristics = false
        for a in discovered {
            switch a.kind {
            case .primaryService, .secondaryService:
                guard let uuid = a.uuid, let end = a.groupEnd else { continue }
                db.services.removeAll { $0.start == a.handle }
                db.services.append(
                    GATTDatabase.Service(
                        start: a.handle, end: end, uuid: uuid.compactString, name: uuid.name,
                        isPrimary: a.kind == .primaryService, learned: at))
            case .characteristicDeclaration:
                guard let uuid = a.uuid, let valueHandle = a.relatedHandle, let properties = a.properties else { continue }
                db.characteristics.removeAll { $0.declarationHandle == a.handle }
                let service = db.services.first { $0.start <= a.handle && a.handle <= $0.end }?.start
                db.characteristics.append(
                    GATTDatabase.Characteristic(
                        declarationHandle: a.handle, valueHandle: valueHandle, properties: properties.rawValue,
                        uuid: uuid.compactString, name: uuid.name, serviceStart: service, learned: at))
                characteristics = true
            default:
                continue
            }
        }
        if characteristics { db.characteristics.sort { $0.declarationHandle < $1.declarationHandle } }
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
