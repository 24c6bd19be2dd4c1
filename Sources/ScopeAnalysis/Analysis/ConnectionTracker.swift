import ScopeCore
import ScopeDecode

/// Connections: the connection requests (LE Create Connection and what became of it), the
/// connections (from their complete, or their first frame when the setup was not captured, to
/// their Disconnection Complete) and what their ATT PDUs say. Fed by the connection commands and
/// events and by ACL frames; owned by `AnalysisBuilder`.
struct ConnectionTracker: Sendable {
    /// Changed only by the request lifecycle below (`requestSent` … `settleRequest`).
    private(set) var attempts = HeldList<ConnectionAttempt, Int>()
    /// Changed only by the lifecycle methods below (and ATT PDUs, `apply`).
    private(set) var connections = HeldList<Connection, Int>()
    /// The request waiting for its answer on each adapter (its id).
    private var pendingAttempt: [AdapterIndex: Int] = [:]
    /// The request a newer one displaced on each adapter while it was still unanswered and not
    /// cancelled (its id): a controller refuses a second request while one is pending (Command
    /// Disallowed), and the first is pending again when the second is refused.
    private var displacedAttempt: [AdapterIndex: Int] = [:]
    /// The open connection on each handle (its id; its identity, with the generation, is the
    /// dissector's: `DecodedFrame.connection`).
    private(set) var open: [HandleKey: HeldRef<Int>] = [:] {
        didSet { lastOpen = nil }
    }
    /// The last open connection looked up and where it was (ACL frames come in runs on one
    /// handle): checked against `connections`, it spares hashing the key. Forgotten whenever
    /// `open` changes.
    private var lastOpen: (key: HandleKey, ref: HeldRef<Int>)?
    private(set) var handlesWithoutSetup: Set<UInt16> = []
    /// Requests that did not connect since the last that did, per peer (nil: the accept list)
    /// on each adapter: what the next one that connects carries (`earlierFailures`). Bounded:
    /// emptied past `failureKeysLimit` peers.
    private var failures: [FailureKey: FailedAttempts] = [:]
    static let failureKeysLimit = 1024

    struct FailureKey: Hashable, Sendable {
        var adapter: AdapterIndex
        var peer: BDAddr?
    }
    /// The Filter Accept List of each adapter, where the capture tells all of it: from an LE
    /// Clear Filter Accept List or an HCI Reset on (the list is empty then), the devices added
    /// and removed since. Absent before: the list may hold devices added before the capture.
    /// Past `acceptListLimit` devices it is absent again.
    private var acceptList: [AdapterIndex: [BDAddr]] = [:]
    static let acceptListLimit = 64
    /// Closed connections still holding their ATT detail (ids), and their ATT PDUs.
    private(set) var closedWithDetail: [Int] = []
    private(set) var closedDetailEvents = 0
    /// Follows every connection's ATT PDUs as they are applied (the rules' per-connection
    /// state): with one, open connections need not hold every PDU (`heldATTBudget`).
    var follower: (any ATTFollower)?
    /// nil: every connection holds every ATT PDU until it is handed over. A number: once the
    /// open connections hold more ATT PDUs than this, they drop their lists (`Connection.att`)
    /// and hold no more; their counts stay exact.
    var heldATTBudget: Int?
    /// ATT PDUs held by the open connections.
    private var openHeldATT = 0
    /// Ids of the connection requests kept for the headline's discovery-cost list: the first
    /// `HandOverPolicy.kept` that connected to a known peer (sorted).
    private var discoveryKept: [Int] = []
    /// Requests and connections (ids) settled since the last hand-over: a request answered (or
    /// replaced while cancelled) and not kept for the headline, a connection closed by a
    /// Disconnection Complete whose ATT detail was judged.
    private var settledAttempts: [Int] = []
    private var settledConnections: [Int] = []
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
        /// The response taught the connection's GATT database something
        /// (`GATTAnnotation.discovered`, read with `discovered(in:)` only then: the facts hold
        /// no array, so handing them on copies plain values).
        var hasDiscovered = false

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
                    hasDiscovered = !note.discovered.isEmpty
                }
            default:
                return nil
            }
        }

        /// What a response taught the GATT database (when `hasDiscovered`).
        static func discovered(in upper: borrowing DecodedPDU.Upper) -> [GATTAttribute] {
            switch upper {
            case .att(_, let note):
                return note?.discovered ?? []
            default:
                return []
            }
        }
    }

}

extension ConnectionTracker {
    /// The connection on `key` as the dissector identifies it on this frame (`DecodedFrame.connection`:
    /// its generation counts the handle's connection completes).
    static func connectionID(_ key: HandleKey, frame connection: GATTConnectionKey?) -> ConnectionID {
        let generation = connection.flatMap { $0.adapter == key.adapter && $0.handle == key.handle ? $0.generation : nil }
        return ConnectionID(adapter: key.adapter, handle: key.handle, generation: generation ?? 0)
    }

    /// The position in `attempts` of the request waiting on `adapter`.
    func pendingAttemptPosition(_ adapter: AdapterIndex) -> Int? {
        pendingAttempt[adapter].flatMap { attempts.position(of: $0) }
    }

    /// The position in `connections` of the open connection on `key` (looked up per ACL frame:
    /// its last position, checked, is the fast path).
    @inline(__always)
    mutating func openConnection(_ key: HandleKey) -> Int? {
        if let last = lastOpen, last.key == key, connections.holds(last.ref) { return last.ref.position }
        guard let p = open.position(of: key, in: connections) else { return nil }
        lastOpen = (key, HeldRef(id: connections.ids[p], position: p))
        return p
    }

    /// The connection on `key`, created when its setup was not captured.
    /// `connection`: the frame's (`DecodedFrame.connection`).
    mutating func connectionIndex(_ key: HandleKey, connection frameConnection: GATTConnectionKey?, at: FrameTime) -> Int {
        if let i = openConnection(key) { return i }
        var connection = Connection(id: Self.connectionID(key, frame: frameConnection), role: .unknown)
        connection.firstSeen = at.frame
        let id = connections.append(connection)
        let index = connections.count - 1
        open[key] = HeldRef(id: id, position: index)
        handlesWithoutSetup.insert(key.handle)
        return index
    }

    /// Opens `connection` on `key` (its complete seen); returns its position.
    mutating func add(_ connection: Connection, on key: HandleKey) -> Int {
        let id = connections.append(connection)
        open[key] = HeldRef(id: id, position: connections.count - 1)
        return connections.count - 1
    }

    /// The connection on `key` closed: it holds its ATT detail until handed over. Returns its
    /// identity (nil when none was open).
    mutating func close(_ key: HandleKey) -> ConnectionID? {
        let position = openConnection(key)
        open[key] = nil
        guard let i = position else { return nil }
        closedWithDetail.append(connections.ids[i])
        closedDetailEvents += connections[i].att.count
        openHeldATT -= connections[i].att.count
        // The ATT list stops growing: give back the spare capacity of its last doubling.
        if connections[i].att.capacity > connections[i].att.count + 16 {
            let att = Array(connections[i].att[...])
            connections[i].att = att
        }
        return connections[i].id
    }

    /// Applies one ATT PDU to connection `i` (and hands it to the follower); `discovered`: what
    /// a response taught the GATT database (`ATTFacts.discovered(in:)`), learned by the
    /// server's database as the decoder's tracker learned it.
    @inline(__always)
    mutating func apply(_ facts: ATTFacts, discovered: [GATTAttribute], connection i: Int, direction: Direction, at: FrameTime) {
        // In place: a copy of the connection left behind would share its buffers, and every
        // append (one ATT event per PDU) would then copy the whole list — quadratic on long
        // connections.
        let event = Self.att(facts, connection: &connections[i], direction: direction, at: at)
        // A response that taught the server's database: learned as the decoder learned it.
        if !discovered.isEmpty {
            if GATTServerSide(opcode: facts.opcode, direction: direction) == .local {
                connections[i].localGATT.learn(discovered)
            } else {
                connections[i].gatt.learn(discovered)
            }
        }
        if connections[i].holdsATT { openHeldATT += 1 }
        if let follower { follower.follow(connections[i].step(event), on: connections[i].id) }
        if let budget = heldATTBudget, openHeldATT > budget { stopHoldingOpenATT() }
    }

    /// The open connections stop holding their ATT PDUs (`heldATTBudget`).
    private mutating func stopHoldingOpenATT() {
        for ref in open.values {
            if let i = connections.position(of: ref.id) { connections[i].stopHoldingATT() }
        }
        openHeldATT = 0
    }

    /// Keeps request `id` for the headline's discovery-cost list when it is among the first
    /// `kept` requests (in capture order) that connected to a known peer.
    /// Otherwise it settles; so does a request no longer among them.
    private mutating func keepForDiscovery(_ a: ConnectionAttempt, id: Int, kept: Int) {
        guard a.outcome == .connected, a.peer ?? a.connectionPeer != nil else {
            settledAttempts.append(id)
            return
        }
        let lo = discoveryKept.partitionPoint { $0 >= id }
        guard lo < kept else {
            settledAttempts.append(id)
            return
        }
        discoveryKept.insert(id, at: lo)
        if discoveryKept.count > kept { settledAttempts.append(discoveryKept.removeLast()) }
    }

    // MARK: ATT / GATT

    /// Applies one ATT PDU and what the decoder's GATT tracker reported about it.
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
            c.record(
                CCCDWrite(
                    at: at, direction: direction, handle: write.handle, characteristicValueHandle: write.characteristicValueHandle,
                    value: write.value.rawValue))
        }

        switch kind {
        case .request:
            if pdu.opcode == .exchangeMTURequest, pdu.mtu != nil { c.mtuExchanges.append(at) }
            if let procedure = pdu.procedure, let range = pdu.range {
                let p = GATTServerView.DiscoveryProcedure(
                    kind: procedure, request: at, startHandle: range.start, endHandle: range.end,
                    client: direction == .sent ? .local : direction == .received ? .remote : .unknown)
                // Kept with the database of the server it discovers.
                if GATTServerSide(opcode: pdu.opcode, direction: direction) == .local {
                    c.localGATT.recordDiscovery(p)
                } else {
                    c.gatt.recordDiscovery(p)
                }
            }
        case .response:
            if pdu.opcode == .exchangeMTUResponse {
                c.mtuExchanges.append(at)
                if let effective = pdu.effectiveMTU { c.mtu = effective }
            }
            // The timing figures are the local GATT client's: what the local host learned and
            // received. A response it sent answers the peer's client (the peer discovering the
            // local server, reading a value from it), and is not counted.
            guard direction != .sent else { break }
            if pdu.opcode == .readResponse || pdu.opcode == .readBlobResponse, pdu.valueLength > 0, c.firstData == nil {
                c.firstData = at
            }
            // A response that answers a discovery request (its results, an error ending it).
            if pdu.procedure != nil { c.discoveryEnd = at }
        case .notification, .indication:
            // (One the local server sent, a Service Changed indication among them, is not data the
            // local client received.)
            if direction != .sent, c.firstData == nil, pdu.valueLength > 0 || pdu.opcode == .multipleHandleValueNotification {
                c.firstData = at
            }
        default:
            break
        }
        return event
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


/// The connection requests' lifecycle: sent, answered (refused, accepted, completed), cancelled,
/// displaced by a newer one, failed to establish, lost with their controller. Each transition is
/// here; the builder routes the events to these methods and tells the other trackers (scans,
/// reconnections) what they return: the position of a request that changed.
extension ConnectionTracker {
    /// An LE (Extended) Create Connection sent, as `attempt` (its attribution and the scan facts
    /// the builder gathered). A request cancelled and still unanswered settles when this one
    /// replaces it; one neither cancelled nor answered is displaced, and pending again if the
    /// controller refuses this one. Returns the new request's id.
    mutating func requestSent(_ attempt: ConnectionAttempt, adapter: AdapterIndex) -> Int {
        var attempt = attempt
        if attempt.peer == nil { attempt.acceptListMembers = acceptList[adapter] }
        displacedAttempt[adapter] = nil
        if let previous = pendingAttemptPosition(adapter), attempts[previous].complete == nil {
            if attempts[previous].cancel != nil {
                attempts[previous].outcome = .cancelled
                attemptFailed(previous)
                settledAttempts.append(attempts.ids[previous])
            } else {
                displacedAttempt[adapter] = attempts.ids[previous]
            }
        }
        let id = attempts.append(attempt)
        pendingAttempt[adapter] = id
        return id
    }

    /// The Command Status of the request sent at `request` on `adapter`. Refused (an error): the
    /// request ends there, and the one it displaced, if still unanswered, is pending again.
    /// Accepted: the one it displaced, still unanswered, was no longer pending in the controller,
    /// and settles. Returns the position of the request that changed.
    mutating func requestStatus(_ status: UInt8, request: FrameTime, adapter: AdapterIndex, at: FrameTime) -> Int? {
        guard let i = pendingAttemptPosition(adapter), attempts[i].request == request else { return nil }
        guard status != 0 else { return supersedeDisplaced(adapter: adapter, at: at) }
        attempts[i].complete = at
        attempts[i].status = status
        attempts[i].outcome = .failed
        attemptFailed(i)
        pendingAttempt[adapter] = displacedAttempt.removeValue(forKey: adapter).flatMap { id in
            attempts.position(of: id).flatMap { attempts[$0].complete == nil ? id : nil }
        }
        settledAttempts.append(attempts.ids[i])
        return i
    }

    /// The request displaced on `adapter`, still unanswered, settles: a newer one was accepted.
    private mutating func supersedeDisplaced(adapter: AdapterIndex, at: FrameTime) -> Int? {
        guard let id = displacedAttempt.removeValue(forKey: adapter), let d = attempts.position(of: id), attempts[d].complete == nil
        else { return nil }
        attempts[d].supersededAt = at
        attempts[d].outcome = .superseded
        attemptFailed(d)
        settledAttempts.append(id)
        return d
    }

    /// LE Create Connection Cancel sent: the pending request, not cancelled before, is. Returns
    /// its position.
    mutating func cancelSent(adapter: AdapterIndex, at: FrameTime) -> Int? {
        guard let i = pendingAttemptPosition(adapter), attempts[i].cancel == nil else { return nil }
        attempts[i].cancel = at
        return i
    }

    /// The cancel accepted: the pending request is cancelled (its LE Connection Complete with 0x02
    /// should follow; some controllers never send it).
    mutating func cancelAccepted(adapter: AdapterIndex) {
        guard let i = pendingAttemptPosition(adapter), attempts[i].complete == nil, attempts[i].cancel != nil else { return }
        attempts[i].outcome = .cancelled
        attemptFailed(i)
    }

    /// An LE Connection Complete (`c`) on `adapter`: the pending request it answers (central role,
    /// or a failure of the request), completed with its outcome. A failed one settles; one that
    /// connected takes the failures before it (`earlierFailures`). Returns its position.
    mutating func requestCompleted(_ c: ConnectionSetup, adapter: AdapterIndex, at: FrameTime) -> Int? {
        guard c.isLE, let i = pendingAttemptPosition(adapter), c.role == 0 || c.status != 0 else { return nil }
        pendingAttempt[adapter] = nil
        attempts[i].complete = at
        attempts[i].status = c.status
        if c.status == 0 {
            attempts[i].outcome = .connected
        } else if attempts[i].cancel != nil && c.status == 0x02 {
            attempts[i].outcome = .cancelled
        } else if c.status == 0x3E {
            attempts[i].outcome = .failedToEstablish
        } else {
            attempts[i].outcome = .failed
        }
        if c.status != 0 {
            attemptFailed(i)
            settledAttempts.append(attempts.ids[i])
        } else {
            attempts[i].earlierFailures = takeFailures(i, peer: c.peer)
        }
        return i
    }

    /// Request `i` connected as `connection` to `peer`. `foundBefore`: for an accept-list
    /// request, which names its peer only now, where the scans had found it and whether it was
    /// connected since. A BR/EDR request settles now; an LE one when its link closes (a
    /// Disconnection Complete with 0x3E may still say it did not connect).
    mutating func requestConnected(
        _ i: Int, connection: ConnectionID, peer: BDAddr, foundBefore: (PeerDiscovery?, FrameNumber?)?, isLE: Bool, kept: Int
    ) {
        attempts[i].connection = connection
        attempts[i].connectionPeer = peer
        if let (discovery, connectedBefore) = foundBefore {
            attempts[i].peerDiscovery = discovery
            attempts[i].peerConnectedBefore = connectedBefore
        }
        if !isLE { keepForDiscovery(attempts[i], id: attempts.ids[i], kept: kept) }
    }

    /// Connection `i` ended with Connection Failed to be Established (0x3E): the request that
    /// produced it did not connect. Returns its position.
    mutating func requestFailedToEstablish(connection i: Int) -> Int? {
        guard let r = connections[i].request, let a = attempts.items.lastIndex(where: { $0.request == r }) else { return nil }
        attempts[a].outcome = .failedToEstablish
        attemptFailed(a)
        return a
    }

    /// The controller on `adapter` dropped everything: its requests still unanswered end here.
    /// Returns their positions.
    mutating func requestsLost(_ loss: ControllerLoss, adapter: AdapterIndex, at: FrameTime) -> [Int] {
        var changed: [Int] = []
        for id in [displacedAttempt.removeValue(forKey: adapter), pendingAttempt.removeValue(forKey: adapter)].compactMap({ $0 }) {
            guard let i = attempts.position(of: id), attempts[i].complete == nil else { continue }
            attempts[i].complete = at
            attempts[i].outcome = .failed
            attempts[i].lostWithController = loss
            attemptFailed(i)
            settledAttempts.append(id)
            changed.append(i)
        }
        return changed
    }

    /// The LE connection `i`, closing, settles the request that made it now that its outcome is
    /// final. An accept-list request is the system's reconnection only if it brought a bonded
    /// device back: it takes its connection's settled attribution.
    mutating func settleRequest(ofConnection i: Int, kept: Int) {
        guard connections[i].isLE, let r = connections[i].request, let a = attempts.items.lastIndex(where: { $0.request == r })
        else { return }
        // An accept-list request is whose its connection turned out to be (`Connection.settleAttribution`).
        if attempts[a].attribution.signal == .requestAcceptList || attempts[a].attribution.signal == .requestAcceptListAfterReset {
            attempts[a].attribution = connections[i].attribution
        }
        keepForDiscovery(attempts[a], id: attempts.ids[a], kept: kept)
    }

    /// Request `i` ended without a connection: the next request to its peer (or, from the accept
    /// list, the next accept-list request) that connects carries it (`earlierFailures`).
    private mutating func attemptFailed(_ i: Int) {
        guard !attempts[i].countedAsFailed else { return }
        attempts[i].countedAsFailed = true
        let a = attempts[i]
        // A request to an accept list the capture tells whole failed for each device on it: the
        // one of them that connects later carries it (vpuhoff: the stack's request 161, for two
        // devices put on the list after the reset, is no failure of the BK300's, added at 313
        // and connected by request 315).
        let keys = a.peer == nil && a.acceptListMembers != nil
            ? (a.acceptListMembers ?? []).map { FailureKey(adapter: a.adapter, peer: $0) } : [FailureKey(adapter: a.adapter, peer: a.peer)]
        for key in keys {
            if failures[key] == nil, failures.count >= Self.failureKeysLimit { failures = [:] }
            failures[key, default: FailedAttempts()].add(a)
        }
    }

    /// LE Add Device To / Remove Device From Filter Accept List succeeded on `adapter`.
    mutating func acceptListChanged(_ address: BDAddr, added: Bool, adapter: AdapterIndex) {
        guard var list = acceptList[adapter] else { return }
        list.removeAll { $0 == address }
        if added { list.append(address) }
        acceptList[adapter] = list.count > Self.acceptListLimit ? nil : list
    }

    /// The Filter Accept List of `adapter` is empty: LE Clear Filter Accept List succeeded, or
    /// the controller was reset.
    mutating func acceptListCleared(adapter: AdapterIndex) { acceptList[adapter] = [] }

    /// The failures request `i`, which connected to `peer`, leaves behind: its own peer's, and
    /// for an accept-list request those of direct requests to the peer it connected to.
    private mutating func takeFailures(_ i: Int, peer: BDAddr) -> FailedAttempts? {
        let a = attempts[i]
        var f = failures.removeValue(forKey: .init(adapter: a.adapter, peer: a.peer))
        if a.peer == nil, let direct = failures.removeValue(forKey: .init(adapter: a.adapter, peer: peer)) {
            if f == nil { f = direct } else { f?.add(direct) }
        }
        return f
    }

    /// The capture ended: no request is pending any more.
    mutating func finishRequests() {
        pendingAttempt = [:]
    }

    /// The positions of the requests settled since the last hand-over, from the `kept`-th on
    /// (the first `kept` stay for the reports), ascending; forgotten here.
    mutating func takeSettledRequests(from kept: Int) -> [Int] {
        attempts.positions(of: &settledAttempts, from: kept)
    }

    /// Drops the requests at `positions` (handed over).
    mutating func removeRequests(_ positions: [Int]) {
        attempts.remove(positions)
    }
}

/// The connections' lifecycle: opened by a complete, changed by the host's commands and the
/// controller's events, closed by a Disconnection Complete or the controller's loss, handed over
/// once judged. The builder routes events here and tells the other trackers what changed.
extension ConnectionTracker {
    /// Whether a connection is open on `key`.
    func isOpen(_ key: HandleKey) -> Bool { open[key] != nil }

    /// The keys of the connections open on `adapter`, in handle order.
    func openKeys(adapter: AdapterIndex) -> [HandleKey] {
        open.keys.filter { $0.adapter == adapter }.sorted { $0.handle < $1.handle }
    }

    /// A connection came up on `key` (`c`, its complete with success; `frameConnection`, the
    /// frame's identity for it). `request`: the position of the request it answers, with, for an
    /// accept-list request, where the scans had found the peer (`foundBefore`). Returns the
    /// connection as opened.
    mutating func connectionOpened(
        _ c: ConnectionSetup, key: HandleKey, at: FrameTime, frame frameConnection: GATTConnectionKey?, request: Int?,
        foundBefore: (PeerDiscovery?, FrameNumber?)?, kept: Int
    ) -> Connection {
        let id = Self.connectionID(key, frame: frameConnection)
        let role: Connection.Role = c.role == 0 ? .central : c.role == 1 ? .peripheral : .unknown
        var connection = Connection(id: id, role: role)
        connection.transport = c.isLE ? .le : .bredr
        connection.peer = c.peer
        connection.peerAddressType = c.isLE ? c.peerAddressType : nil
        connection.complete = at
        connection.firstSeen = at.frame
        connection.attribution =
            !c.isLE ? ActorEvidence(.classicLink, frame: at.frame)
            : role == .peripheral ? ActorEvidence(.remoteCentral, frame: at.frame)
            : request.map { attempts[$0].attribution } ?? ActorEvidence(.setupNotCaptured)
        if c.isLE {
            connection.intervalMicros = c.intervalMicros
            connection.peripheralLatency = Int(c.latency)
            connection.supervisionTimeoutMicros = c.timeoutMicros
        }
        if let i = request {
            connection.request = attempts[i].request
            connection.requestUsedAcceptList = attempts[i].peer == nil
            requestConnected(i, connection: id, peer: c.peer, foundBefore: foundBefore, isLE: c.isLE, kept: kept)
        }
        _ = add(connection, on: key)
        return connection
    }

    /// HCI Disconnect sent for the connection on `key` (the first one counts).
    mutating func disconnectSent(_ key: HandleKey, reason: UInt8, at: FrameTime) {
        guard let i = openConnection(key), connections[i].disconnectCommand == nil else { return }
        connections[i].disconnectCommand = at
        connections[i].disconnectCommandReason = reason
    }

    /// A Disconnection Complete with success ended connection `i`: its end, and who ended it as its
    /// reason says (0x16 the local host, the remote reasons the peer; a lost link, 0x08 or 0x3E,
    /// neither). With Connection Failed to be Established, the request that produced it did not
    /// connect: returns that request's position.
    mutating func disconnected(_ i: Int, reason: UInt8, at: FrameTime) -> Int? {
        connections[i].disconnect = at
        connections[i].disconnectReason = reason
        let request = reason == 0x3E ? requestFailedToEstablish(connection: i) : nil
        switch connections[i].end {
        case .localDisconnect: connections[i].disconnectInitiator = .local
        case .remoteDisconnect: connections[i].disconnectInitiator = .remote
        default: connections[i].disconnectInitiator = .unknown
        }
        return request
    }

    /// The connection on `key` ended with its controller (`loss`): returns its position.
    mutating func lostWithController(_ key: HandleKey, loss: ControllerLoss, at: FrameTime) -> Int? {
        guard let i = openConnection(key) else { return nil }
        connections[i].disconnect = at
        connections[i].lostWithController = loss
        connections[i].disconnectInitiator = loss == .removed ? .unknown : .local
        return i
    }

    /// Connection `i` ended: who did what on it is settled. Returns it.
    mutating func settleAttribution(_ i: Int) -> Connection {
        connections[i].settleAttribution()
        return connections[i]
    }

    /// Closes the connection on `key`, if open: its attribution and the request that made it settle.
    /// Returns its identity (nil when none was open).
    mutating func closeConnection(_ key: HandleKey, kept: Int) -> ConnectionID? {
        if let i = openConnection(key) {
            connections[i].settleAttribution()
            settleRequest(ofConnection: i, kept: kept)
        }
        return close(key)
    }

    /// The host asked to change the parameters of the connection on `key` (LE Connection Update,
    /// when nothing is pending: when it answers the peer's request, the peer asked first), or the
    /// peer did (its request event, or an L2CAP Connection Parameter Update Request).
    mutating func parameterUpdateAsked(_ key: HandleKey, by side: Side) {
        guard let i = openConnection(key) else { return }
        parameterUpdateAsked(connection: i, by: side)
    }

    mutating func parameterUpdateAsked(connection i: Int, by side: Side) {
        if side == .local, connections[i].pendingParameterRequest != nil { return }
        connections[i].pendingParameterRequest = side
    }

    /// LE Connection Update Complete on `key`: the parameters in force from `at`, and who asked.
    mutating func parametersUpdated(_ key: HandleKey, status: UInt8, update: ParameterUpdate) {
        guard let i = openConnection(key) else { return }
        connections[i].learnTransport(.le)
        let asked = connections[i].pendingParameterRequest
        connections[i].pendingParameterRequest = nil
        guard status == 0 else { return }
        connections[i].parametersSetBy = asked ?? .unknown
        connections[i].parametersSetAt = update.at
        connections[i].parameterUpdates.append(update)
        connections[i].intervalMicros = update.intervalMicros
        connections[i].peripheralLatency = update.peripheralLatency
        connections[i].supervisionTimeoutMicros = update.supervisionTimeoutMicros
    }

    /// LE PHY Update Complete (success) on `key`.
    mutating func phyUpdated(_ key: HandleKey, _ update: PHYUpdate) {
        guard let i = openConnection(key) else { return }
        connections[i].learnTransport(.le)
        connections[i].phyUpdates.append(update)
    }

    /// A Read RSSI answer for the link on `key`.
    mutating func rssiRead(_ key: HandleKey, _ reading: RSSIReading) {
        guard let i = openConnection(key) else { return }
        connections[i].rssiReadings.add(reading)
    }

    /// The last advertising report heard from the peer of the link on `key` before it came up.
    mutating func notePeerAdvertisingRSSI(_ key: HandleKey, _ reading: RSSIReading?) {
        guard let reading, let i = openConnection(key) else { return }
        connections[i].peerAdvertisingRSSI = reading
    }

    /// LE Data Length Change on `key`.
    mutating func dataLengthChanged(_ key: HandleKey, _ change: DataLengthChange) {
        guard let i = openConnection(key) else { return }
        connections[i].learnTransport(.le)
        connections[i].dataLengthChanges.append(change)
    }

    /// An encryption change on connection `i`: returns whether it was encrypted before, the
    /// connection's id and its peer (its identity when known), what the pairing tracker needs
    /// (not a copy of the connection: a retain of each of its lists).
    mutating func encryptionChanged(_ i: Int, _ change: EncryptionChange) -> (wasEncrypted: Bool, id: ConnectionID, peer: BDAddr?) {
        let wasEncrypted = connections[i].encryption.isEncrypted
        connections[i].record(change)
        return (wasEncrypted, connections[i].id, connections[i].peerIdentity ?? connections[i].peer)
    }

    /// An ACL frame on connection `i` (`payload`: it carried data).
    mutating func aclFrame(_ i: Int, direction: Direction, payload: Bool, at: FrameTime) {
        guard payload else { return }
        connections[i].lastPayload = at
        if direction == .sent { connections[i].lastSent = at } else if direction == .received { connections[i].lastReceived = at }
    }

    /// A fixed channel only LE (or only BR/EDR) has, seen on connection `i`.
    mutating func learnTransport(_ i: Int, _ transport: Connection.Transport) {
        connections[i].learnTransport(transport)
    }

    /// An SMP Pairing Request on connection `i`.
    mutating func pairingRequested(_ i: Int) {
        connections[i].pairedOnLink = true
    }

    /// The closed connections not judged yet, for the rules that judge part of a capture: they
    /// then drop their ATT detail, keeping counts, and those a Disconnection Complete closed settle.
    mutating func handOverClosed() -> [Connection] {
        let positions = closedWithDetail.compactMap { connections.position(of: $0) }
        let part = positions.map { connections[$0] }
        for i in positions {
            connections[i].dropJudgedDetail()
            if connections[i].disconnect != nil { settledConnections.append(connections.ids[i]) }
        }
        closedWithDetail = []
        closedDetailEvents = 0
        return part
    }

    /// The positions of the connections settled since the last hand-over, from the `kept`-th on,
    /// ascending; forgotten here.
    mutating func takeSettledConnections(from kept: Int) -> [Int] {
        connections.positions(of: &settledConnections, from: kept)
    }

    /// Drops the connections at `positions` (handed over).
    mutating func removeConnections(_ positions: [Int]) {
        connections.remove(positions)
    }
}

/// A connection handle on an adapter (the keys looked up per frame hash one word with
/// `fastHash` rather than SipHash).
struct HandleKey: Hashable, Sendable {
    var adapter: AdapterIndex
    var handle: UInt16

    func hash(into hasher: inout Hasher) { hasher.combine(UInt32(adapter) << 16 | UInt32(handle)) }
    func _rawHashValue(seed: Int) -> Int { fastHash(UInt64(adapter) << 16 | UInt64(handle), seed: seed) }
}
