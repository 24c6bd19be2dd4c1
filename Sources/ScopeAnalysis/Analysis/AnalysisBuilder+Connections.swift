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
        let id = links.requestSent(attempt, adapter: adapter)
        scans.noteRequest(attempt)
        if !usesList { reconnections.noteRequest(attempt, id: id, key: peerOnAdapter(peer, adapter: adapter)) }
    }

    /// Request `i` changed (cancelled, completed): the reconnections watching it follow.
    mutating func noteRequestChanged(_ i: Int) {
        reconnections.noteRequestChanged(links.attempts[i], id: links.attempts.ids[i])
    }

    // MARK: Connection lifetime

    mutating func connectionComplete(
        _ c: ConnectionSetup, adapter: AdapterIndex, at: FrameTime, connection frameConnection: GATTConnectionKey?
    ) {
        // The LE request this event answers (central role, or a failure of our request).
        let attemptIndex = links.requestCompleted(c, adapter: adapter, at: at)
        guard c.status == 0 else {
            if let i = attemptIndex { noteRequestChanged(i) }
            return
        }
        let key = HandleKey(adapter: adapter, handle: c.handle)
        if links.isOpen(key) { closeConnection(key) }
        // Filter accept list: the peer is known only now; where it was found before the request.
        let foundBefore = attemptIndex.flatMap { i in
            links.attempts[i].peer == nil
                ? (scans.peerDiscovery(c.peer, adapter: adapter, for: links.attempts[i]), scans.connectedSinceFound(c.peer, adapter: adapter))
                : nil
        }
        let connection = links.connectionOpened(
            c, key: key, at: at, frame: frameConnection, request: attemptIndex, foundBefore: foundBefore, kept: handOverPolicy.kept)
        let role = connection.role
        if c.isLE { links.notePeerAdvertisingRSSI(key, scans.advertisers.lastAdvertisingRSSI(of: c.peer)) }
        advertising.noteConnectionArrived(connection, at: at)
        if c.isLE && role == .central { scans.noteConnected(c.peer, adapter: adapter, at: at) }
        // An accept-list request names its peer only now: a reconnection to it if it was
        // connected before (Android connects every device through the list).
        if let i = attemptIndex, links.attempts[i].peer == nil {
            reconnections.noteRequest(links.attempts[i], id: links.attempts.ids[i], key: peerOnAdapter(c.peer, adapter: adapter))
        }
        if let i = attemptIndex { noteRequestChanged(i) }
        if c.isLE && role == .peripheral {
            advertising.connectionStopsLegacyAdvertising(adapter: adapter, at: at)
            advertising.connectionStopsMultiAdvertising(adapter: adapter, at: at)
        }
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
        // Connection Failed to be Established: the request that produced it did not connect.
        if let a = links.disconnected(i, reason: d.reason, at: at) { noteRequestChanged(a) }
        connectionEnded(i, key: key, at: at)
    }

    /// The controller on `adapter` dropped every link without a Disconnection Complete (it was
    /// reset, closed or removed): its connection requests still unanswered and its open
    /// connections end here (the host ended them when it reset or closed the controller), its
    /// scan stops, and its advertising stops.
    mutating func controllerLost(_ loss: ControllerLoss, adapter: AdapterIndex, at: FrameTime) {
        for i in links.requestsLost(loss, adapter: adapter, at: at) { noteRequestChanged(i) }
        for key in links.openKeys(adapter: adapter) {
            guard let i = links.lostWithController(key, loss: loss, at: at) else { continue }
            connectionEnded(i, key: key, at: at)
        }
        scans.stop(adapter: adapter, command: at, complete: at, keptScans: handOverPolicy.keptScans, actors: &actors)
        noteScansReattributed()
        advertising.controllerLost(adapter: adapter, at: at, by: loss.label)
    }

    /// Scan sessions found to be the system's when they ended: a reconnection that took one for
    /// the host's search waits for another.
    mutating func noteScansReattributed() {
        guard !scans.reattributed.isEmpty else { return }
        for r in scans.takeReattributed() { reconnections.noteScanReattributed(r.start, adapter: r.adapter, evidence: r.evidence) }
    }

    /// Connection `i` on `key` ended at `at` (its end is set): the trackers that follow it learn it.
    private mutating func connectionEnded(_ i: Int, key: HandleKey, at: FrameTime) {
        let c = links.settleAttribution(i)
        if let peer = c.peer { reconnections.noteConnectionEnded(c, key: peerOnAdapter(peer, adapter: c.id.adapter), at: at) }
        advertising.noteConnectionDown(c, at: at)
        closeConnection(key)
    }

    private mutating func closeConnection(_ key: HandleKey) {
        // A pairing still open is left incomplete: the link went away before it finished.
        if let id = links.closeConnection(key, kept: handOverPolicy.kept) { pairing.connectionClosed(id) }
    }

    mutating func encryption(handle: UInt16, adapter: AdapterIndex, change: EncryptionChange, connection: GATTConnectionKey?) {
        let key = HandleKey(adapter: adapter, handle: handle)
        let i = connectionIndex(key, connection: connection, at: change.at)
        let (wasEncrypted, id, peer) = links.encryptionChanged(i, change)
        pairing.encryption(connection: id, change: change, wasEncrypted: wasEncrypted, peer: peer)
    }

    // MARK: ACL

    /// `frame` is read where it is kept and not changed (`inout` only to lend it: taken by value,
    /// the whole frame would be copied with its references retained).
    mutating func acl(_ frame: inout DecodedFrame, header: ACLHeader, adapter: AdapterIndex, at: FrameTime) {
        let key = HandleKey(adapter: adapter, handle: header.handle)
        let i = connectionIndex(key, connection: frame.connection, at: at)
        let direction = frame.record.direction
        links.aclFrame(i, direction: direction, payload: header.dataLength > 0, at: at)
        for p in frame.pdus.indices {
            // LE-only fixed channels (ATT 0x0004, LE signalling 0x0005, SMP 0x0006) or BR/EDR
            // ones (signalling 0x0001, SMP over BR/EDR 0x0007) tell a link set up before the capture.
            switch frame.pdus[p].pdu.cid {
            case ChannelID.att.rawValue, ChannelID.leSignaling.rawValue, ChannelID.smp.rawValue:
                links.learnTransport(i, .le)
            case ChannelID.signaling.rawValue, ChannelID.bredrSMP.rawValue:
                links.learnTransport(i, .bredr)
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
                if smp.code == .pairingRequest { links.pairingRequested(i) }
                pairing.smp(smp, connection: links.connections[i].id, direction: direction, at: at)
            } else if direction == .received, case .signaling(let s) = frame.pdus[p].upper,
                s.commands.contains(where: { $0.code == .connectionParameterUpdateRequest })
            {
                links.parameterUpdateAsked(connection: i, by: .remote)
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
