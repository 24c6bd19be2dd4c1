import ScopeCore
import ScopeDecode

/// Connection requests and connections, with what the other trackers learn of them (the scan
/// that found the peer, reconnections, advertising spans, pairings).
extension AnalysisBuilder {
    // MARK: Attempts

    /// LE (Extended) Create Connection sent: Initiator_Filter_Policy bit 0 asks for the Filter
    /// Accept List instead of the peer address.
    mutating func startAttempt(
        filterPolicy: UInt8, peerAddressType: UInt8, peer: BDAddr, api: HCIAPI, adapter: AdapterIndex, at: FrameTime
    ) {
        let usesList = filterPolicy & 0x01 != 0
        var attempt = ConnectionAttempt(
            adapter: adapter, request: at, api: api, peer: usesList ? nil : peer, peerAddressType: usesList ? nil : peerAddressType,
            filterPolicy: filterPolicy)
        attempt.attribution = actors.requestSent(acceptList: usesList, adapter: adapter, at: at)
        if let s = scans.activePosition(adapter) {
            attempt.scanReportsAtRequest = scans.sessions[s].reports
            attempt.scanStartFrameAtRequest = scans.sessions[s].start.frame
        }
        if !usesList {
            attempt.peerDiscovery = scans.peerDiscovery(peer, adapter: adapter, for: attempt)
            attempt.peerConnectedBefore = scans.connectedSinceFound(peer, adapter: adapter)
        }
        // A request cancelled and still unanswered settles when this one replaces it; one neither
        // cancelled nor answered is displaced, and pending again if the controller refuses this one.
        links.displacedAttempt[adapter] = nil
        if let previous = links.pendingAttemptPosition(adapter), links.attempts[previous].complete == nil {
            if links.attempts[previous].cancel != nil {
                links.attempts[previous].outcome = .cancelled
                attemptFailed(previous)
                links.settledAttempts.append(links.attempts.ids[previous])
            } else {
                links.displacedAttempt[adapter] = links.attempts.ids[previous]
            }
        }
        let id = links.attempts.append(attempt)
        links.pendingAttempt[adapter] = id
        scans.noteRequest(attempt)
        if !usesList { reconnections.noteRequest(attempt, id: id, key: peerOnAdapter(peer, adapter: adapter)) }
    }

    /// The pending request on `adapter` accepted (Command Status success): the one it displaced,
    /// still unanswered, was no longer pending in the controller, and settles.
    mutating func requestAccepted(adapter: AdapterIndex, at: FrameTime) {
        guard let id = links.displacedAttempt.removeValue(forKey: adapter), let d = links.attempts.position(of: id),
            links.attempts[d].complete == nil
        else { return }
        links.attempts[d].supersededAt = at
        links.attempts[d].outcome = .superseded
        attemptFailed(d)
        links.settledAttempts.append(id)
        noteRequestChanged(d)
    }

    /// Request `i` changed (cancelled, completed): the reconnections watching it follow.
    mutating func noteRequestChanged(_ i: Int) {
        reconnections.noteRequestChanged(links.attempts[i], id: links.attempts.ids[i])
    }

    /// Request `i` ended without a connection: the next request to its peer (or, from the accept
    /// list, the next accept-list request) that connects carries it (`earlierFailures`).
    mutating func attemptFailed(_ i: Int) {
        guard !links.attempts[i].countedAsFailed else { return }
        links.attempts[i].countedAsFailed = true
        let a = links.attempts[i]
        let key = ConnectionTracker.FailureKey(adapter: a.adapter, peer: a.peer)
        if links.failures[key] == nil, links.failures.count >= ConnectionTracker.failureKeysLimit { links.failures = [:] }
        links.failures[key, default: FailedAttempts()].add(a)
    }

    /// The failures request `i`, which connected to `peer`, leaves behind: its own peer's, and
    /// for an accept-list request those of direct requests to the peer it connected to.
    mutating func takeFailures(_ i: Int, peer: BDAddr) -> FailedAttempts? {
        let a = links.attempts[i]
        var f = links.failures.removeValue(forKey: .init(adapter: a.adapter, peer: a.peer))
        if a.peer == nil, let direct = links.failures.removeValue(forKey: .init(adapter: a.adapter, peer: peer)) {
            if f == nil { f = direct } else { f?.add(direct) }
        }
        return f
    }

    // MARK: Connection lifetime

    mutating func connectionComplete(
        _ c: ConnectionSetup, adapter: AdapterIndex, at: FrameTime, connection frameConnection: GATTConnectionKey?
    ) {
        // The LE attempt this event answers (central role, or a failure of our request).
        var attemptIndex: Int?
        if c.isLE, let i = links.pendingAttemptPosition(adapter), c.role == 0 || c.status != 0 {
            attemptIndex = i
            links.pendingAttempt[adapter] = nil
            links.attempts[i].complete = at
            links.attempts[i].status = c.status
            if c.status == 0 {
                links.attempts[i].outcome = .connected
            } else if links.attempts[i].cancel != nil && c.status == 0x02 {
                links.attempts[i].outcome = .cancelled
            } else if c.status == 0x3E {
                links.attempts[i].outcome = .failedToEstablish
            } else {
                links.attempts[i].outcome = .failed
            }
            if c.status != 0 {
                attemptFailed(i)
                links.settledAttempts.append(links.attempts.ids[i])
                noteRequestChanged(i)
            } else {
                links.attempts[i].earlierFailures = takeFailures(i, peer: c.peer)
            }
        }
        guard c.status == 0 else { return }
        let key = HandleKey(adapter: adapter, handle: c.handle)
        if links.open[key] != nil { closeConnection(key) }
        let id = ConnectionTracker.connectionID(key, frame: frameConnection)
        let role: Connection.Role = c.role == 0 ? .central : c.role == 1 ? .peripheral : .unknown
        var connection = Connection(id: id, role: role)
        connection.transport = c.isLE ? .le : .bredr
        connection.peer = c.peer
        connection.peerAddressType = c.isLE ? c.peerAddressType : nil
        connection.complete = at
        connection.firstSeen = at.frame
        connection.attribution = !c.isLE ? ActorEvidence(.classicLink, frame: at.frame)
            : role == .peripheral ? ActorEvidence(.remoteCentral, frame: at.frame)
            : attemptIndex.map { links.attempts[$0].attribution } ?? ActorEvidence(.setupNotCaptured)
        if c.isLE {
            connection.intervalMicros = c.intervalMicros
            connection.peripheralLatency = Int(c.latency)
            connection.supervisionTimeoutMicros = c.timeoutMicros
        }
        if let i = attemptIndex {
            connection.request = links.attempts[i].request
            connection.requestUsedAcceptList = links.attempts[i].peer == nil
            links.attempts[i].connection = id
            links.attempts[i].connectionPeer = c.peer
            // Filter accept list: the peer is known only now; where it was found before the request.
            if links.attempts[i].peer == nil {
                links.attempts[i].peerDiscovery = scans.peerDiscovery(c.peer, adapter: adapter, for: links.attempts[i])
                links.attempts[i].peerConnectedBefore = scans.connectedSinceFound(c.peer, adapter: adapter)
            }
            // Settled when the link closes: a Disconnection Complete with 0x3E (Connection Failed
            // to be Established) may still say the request did not connect.
            if !c.isLE {
                links.keepForDiscovery(links.attempts[i], id: links.attempts.ids[i], kept: handOverPolicy.kept)
            }
        }
        _ = links.add(connection, on: key)
        advertising.noteConnectionArrived(connection, at: at)
        if c.isLE && role == .central { scans.noteConnected(c.peer, adapter: adapter, at: at) }
        // An accept-list request names its peer only now: a reconnection to it if it was
        // connected before (Android connects every device through the list).
        if let i = attemptIndex, links.attempts[i].peer == nil {
            reconnections.noteRequest(links.attempts[i], id: links.attempts.ids[i], key: peerOnAdapter(c.peer, adapter: adapter))
        }
        if let i = attemptIndex { noteRequestChanged(i) }
        if c.isLE && role == .peripheral { advertising.connectionStopsLegacyAdvertising(adapter: adapter, at: at) }
    }

    /// The connection on `key`, created when its setup was not captured.
    @inline(__always)
    mutating func connectionIndex(_ key: HandleKey, connection: GATTConnectionKey?, at: FrameTime) -> Int {
        links.connectionIndex(key, connection: connection, at: at)
    }

    mutating func disconnectionComplete(
        _ d: DisconnectionComplete, adapter: AdapterIndex, at: FrameTime, connection: GATTConnectionKey?
    ) {
        guard d.status == 0 else { return }
        let key = HandleKey(adapter: adapter, handle: d.handle)
        let i = connectionIndex(key, connection: connection, at: at)
        links.connections[i].disconnect = at
        links.connections[i].disconnectReason = d.reason
        // Connection Failed to be Established: the request that produced it did not connect.
        if d.reason == 0x3E, let id = links.connections[i].request.flatMap({ r in links.attempts.items.lastIndex { $0.request == r } }) {
            links.attempts[id].outcome = .failedToEstablish
            attemptFailed(id)
            noteRequestChanged(id)
        }
        // The reason says who ended it: 0x16 the local host, the remote reasons the peer; a lost
        // link (0x08, 0x3E) neither.
        switch links.connections[i].end {
        case .localDisconnect: links.connections[i].disconnectInitiator = .local
        case .remoteDisconnect: links.connections[i].disconnectInitiator = .remote
        default: links.connections[i].disconnectInitiator = .unknown
        }
        connectionEnded(i, key: key, at: at)
    }

    /// The controller on `adapter` dropped every link without a Disconnection Complete (it was
    /// reset, closed or removed): its connection requests still unanswered and its open
    /// connections end here (the host ended them when it reset or closed the controller), its
    /// scan stops, and its advertising stops.
    mutating func controllerLost(_ loss: ControllerLoss, adapter: AdapterIndex, at: FrameTime) {
        let unanswered = [links.displacedAttempt.removeValue(forKey: adapter), links.pendingAttempt.removeValue(forKey: adapter)]
        for id in unanswered.compactMap({ $0 }) {
            guard let i = links.attempts.position(of: id), links.attempts[i].complete == nil else { continue }
            links.attempts[i].complete = at
            links.attempts[i].outcome = .failed
            links.attempts[i].lostWithController = loss
            attemptFailed(i)
            links.settledAttempts.append(id)
            noteRequestChanged(i)
        }
        for key in links.open.keys.filter({ $0.adapter == adapter }).sorted(by: { $0.handle < $1.handle }) {
            guard let i = links.openConnection(key) else { continue }
            links.connections[i].disconnect = at
            links.connections[i].lostWithController = loss
            links.connections[i].disconnectInitiator = loss == .removed ? .unknown : .local
            connectionEnded(i, key: key, at: at)
        }
        scans.stop(adapter: adapter, command: at, complete: at, keptScans: handOverPolicy.keptScans, actors: &actors)
        noteScansReattributed()
        advertising.stopSpans(adapter: adapter, at: at, by: loss.label)
    }

    /// Scan sessions found to be the system's when they ended: a reconnection that took one for
    /// the host's search waits for another.
    mutating func noteScansReattributed() {
        guard !scans.reattributed.isEmpty else { return }
        for r in scans.reattributed { reconnections.noteScanReattributed(r.start, adapter: r.adapter, evidence: r.evidence) }
        scans.reattributed = []
    }

    /// Connection `i` on `key` ended at `at` (its end is set): the trackers that follow it learn it.
    private mutating func connectionEnded(_ i: Int, key: HandleKey, at: FrameTime) {
        links.connections[i].settleAttribution()
        let c = links.connections[i]
        if let peer = c.peer { reconnections.noteConnectionEnded(c, key: peerOnAdapter(peer, adapter: c.id.adapter), at: at) }
        advertising.noteConnectionDown(c, at: at)
        closeConnection(key)
    }

    private mutating func closeConnection(_ key: HandleKey) {
        if let i = links.openConnection(key) {
            links.connections[i].settleAttribution()
            // The request that made an LE link settles now that its outcome is final.
            if links.connections[i].isLE, let r = links.connections[i].request,
                let a = links.attempts.items.lastIndex(where: { $0.request == r })
            {
                // An accept-list request is the system's reconnection only if it brought a bonded
                // device back: it takes its connection's settled attribution.
                if links.attempts[a].attribution.signal == .requestAcceptList {
                    links.attempts[a].attribution = links.connections[i].attribution
                }
                links.keepForDiscovery(links.attempts[a], id: links.attempts.ids[a], kept: handOverPolicy.kept)
            }
        }
        // A pairing still open is left incomplete: the link went away before it finished.
        if let id = links.close(key) { pairing.connectionClosed(id) }
    }

    mutating func encryption(handle: UInt16, adapter: AdapterIndex, change: EncryptionChange, connection: GATTConnectionKey?) {
        let key = HandleKey(adapter: adapter, handle: handle)
        let i = connectionIndex(key, connection: connection, at: change.at)
        let wasEncrypted = links.connections[i].encryption.isEncrypted
        links.connections[i].record(change)
        let c = links.connections[i]
        pairing.encryption(connection: c.id, change: change, wasEncrypted: wasEncrypted, peer: c.peerIdentity ?? c.peer)
    }

    // MARK: ACL

    /// `frame` is read where it is kept and not changed (`inout` only to lend it: taken by value,
    /// the whole frame would be copied with its references retained).
    mutating func acl(_ frame: inout DecodedFrame, header: ACLHeader, adapter: AdapterIndex, at: FrameTime) {
        let key = HandleKey(adapter: adapter, handle: header.handle)
        let i = connectionIndex(key, connection: frame.connection, at: at)
        let direction = frame.record.direction
        if header.dataLength > 0 {
            links.connections[i].lastPayload = at
            if direction == .sent { links.connections[i].lastSent = at } else if direction == .received { links.connections[i].lastReceived = at }
        }
        for p in frame.pdus.indices {
            // LE-only fixed channels (ATT 0x0004, LE signalling 0x0005, SMP 0x0006) or BR/EDR
            // ones (signalling 0x0001, SMP over BR/EDR 0x0007) tell a link set up before the capture.
            switch frame.pdus[p].pdu.cid {
            case ChannelID.att.rawValue, ChannelID.leSignaling.rawValue, ChannelID.smp.rawValue:
                links.connections[i].learnTransport(.le)
            case ChannelID.signaling.rawValue, ChannelID.bredrSMP.rawValue:
                links.connections[i].learnTransport(.bredr)
            default:
                break
            }
            if let facts = ConnectionTracker.ATTFacts(frame.pdus[p].upper) {
                let discovered = facts.hasDiscovered ? ConnectionTracker.ATTFacts.discovered(in: frame.pdus[p].upper) : []
                links.apply(facts, discovered: discovered, connection: i, direction: direction, at: at)
            } else if case .smp(let smp) = frame.pdus[p].upper {
                // SMP over BR/EDR (CID 0x0007) derives LE keys after a BR/EDR pairing; its
                // Pairing Request/Response carry no LE pairing features (Core v5.4 Vol 3 Part H
                // §3.5.1: zero and ignored), so only the identity it distributes is taken.
                if frame.pdus[p].pdu.cid == ChannelID.bredrSMP.rawValue,
                    smp.code != .identityInformation, smp.code != .identityAddressInformation
                { continue }
                if smp.code == .pairingRequest { links.connections[i].pairedOnLink = true }
                pairing.smp(smp, connection: links.connections[i].id, direction: direction, at: at)
            } else if direction == .received, case .signaling(let s) = frame.pdus[p].upper,
                s.commands.contains(where: { $0.code == .connectionParameterUpdateRequest })
            {
                links.connections[i].pendingParameterRequest = .remote
            }
        }
    }

    /// A peer (its identity when the IRKs learned so far resolve it) on one adapter: the unit of
    /// `conn.reconnect-by-scan`.
    mutating func peerOnAdapter(_ peer: BDAddr, adapter: AdapterIndex) -> PeerOnAdapter {
        PeerOnAdapter(peer: pairing.identitySoFar(peer) ?? peer, adapter: adapter)
    }
}

extension AnalysisBuilder {
    /// A successful (Extended) Advertising Enable (`AdvertisingTracker.advertisingEnable`), with
    /// the connections up now for the spans it starts.
    mutating func advertisingEnable(_ enable: Bool, handles: [UInt8?], adapter: AdapterIndex, at: FrameTime) {
        var up: [AdvertisingSpan.SpanConnection] = []
        if enable {
            for ref in links.open.values {
                guard let i = links.connections.position(of: ref.id), let complete = links.connections[i].complete else { continue }
                up.append(AdvertisingSpan.SpanConnection(role: links.connections[i].role, complete: complete, disconnect: nil))
            }
        }
        advertising.advertisingEnable(enable, handles: handles, adapter: adapter, at: at, up: up, actors: actors)
    }
}
