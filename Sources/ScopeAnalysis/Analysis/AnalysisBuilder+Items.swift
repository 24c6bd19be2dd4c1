import ScopeCore
import ScopeDecode

/// Facts recorded as the capture goes, so that connection requests, connections, pairings and
/// advertising records can be judged once settled and dropped (`retireClosed()`): where a
/// reconnection request's peer was last connected and whether a scan came in between
/// (`Reconnection`), the requests made while a scan session ran (`ScanSession.firstRequest`), and
/// the connections an advertising span met (`AdvertisingSpan.connectionAtStart`). Recorded the
/// same way whether or not anything is retired: retiring changes no verdict.
extension AnalysisBuilder {
    /// A peer (its identity when known) on one adapter: the unit of `conn.reconnect-by-scan`.
    struct PeerOnAdapter: Hashable, Sendable {
        var peer: BDAddr
        var adapter: AdapterIndex
    }

    /// A connection that ended, waiting for the next connection request to its peer.
    struct ReconnectEntry: Sendable {
        var connection: ConnectionID
        var ordinal: Int
        var ended: FrameTime
        var scanStart: FrameTime?
        /// Index in `ReconnectPeer.requests` of the first request after `ended`.
        var firstRequest: Int?
    }

    /// Per peer and adapter: the connections that ended and the requests made since, until a
    /// request connects (then each connection's `Reconnection` is settled).
    struct ReconnectPeer: Sendable {
        var entries: [ReconnectEntry] = []
        var requests: [Reconnection.Request] = []
        var requestOrdinals: [Int] = []
        /// Where each request's peer was last found (`ConnectionAttempt.peerDiscovery`).
        var discoveries: [PeerDiscovery?] = []
        /// Some entry has no scan start yet.
        var unscanned: Bool { entries.contains { $0.scanStart == nil } }
    }

    // MARK: Identities so far

    /// The identity address of `address` as far as the IRKs learned so far tell (resolvable
    /// private addresses only).
    mutating func identitySoFar(_ address: BDAddr) -> BDAddr? {
        guard resolvePrivateAddressesEnabled, !result.identities.isEmpty, address.value >> 46 == 0b01 else { return nil }
        if let hit = identityCache[address] { return hit }
        let found = result.identities.first { RPAResolver.resolves(address.value, irkWire: $0.irk) }?.address
        identityCache[address] = .some(found)
        return found
    }

    // MARK: Reconnections

    /// A connection with a known peer ended (Disconnection Complete).
    mutating func noteConnectionEnded(_ c: Connection, at: FrameTime) {
        guard let peer = c.peer else { return }
        let key = PeerOnAdapter(peer: identitySoFar(peer) ?? peer, adapter: c.id.adapter)
        reconnect[key, default: ReconnectPeer()].entries.append(
            ReconnectEntry(connection: c.id, ordinal: c.ordinal, ended: at, scanStart: nil, firstRequest: nil))
        unscannedPeers[c.id.adapter, default: []].insert(key)
    }

    /// A scan session started on `adapter` (its enable answered): the first scan after each
    /// waiting connection's end.
    mutating func noteScanStarted(_ start: FrameTime, adapter: AdapterIndex) {
        guard let keys = unscannedPeers[adapter], !keys.isEmpty else { return }
        for key in keys {
            guard var state = reconnect[key] else { continue }
            for i in state.entries.indices where state.entries[i].scanStart == nil && state.entries[i].ended.frame < start.frame {
                if let r = state.entries[i].firstRequest, state.requests[r].request.frame <= start.frame { continue }
                state.entries[i].scanStart = start
            }
            reconnect[key] = state
        }
        // Entries still without a scan: only those whose request came first (they stay until
        // settled, for a session whose enable was answered after the request).
        unscannedPeers[adapter] = Set(keys.filter { reconnect[$0]?.entries.contains { $0.scanStart == nil && $0.firstRequest == nil } ?? false })
    }

    /// A connection request to `peer` (not the accept list) was sent.
    mutating func noteRequest(_ attempt: ConnectionAttempt, peer: BDAddr) {
        let key = PeerOnAdapter(peer: identitySoFar(peer) ?? peer, adapter: attempt.adapter)
        guard var state = reconnect[key], !state.entries.isEmpty else { return }
        let index = state.requests.count
        state.requests.append(Reconnection.Request(attempt))
        state.requestOrdinals.append(attempt.ordinal)
        state.discoveries.append(attempt.peerDiscovery)
        for i in state.entries.indices where state.entries[i].firstRequest == nil && state.entries[i].ended.frame < attempt.request.frame {
            state.entries[i].firstRequest = index
        }
        reconnect[key] = state
        requestsWatched[attempt.ordinal] = key
    }

    /// `result.attempts[i]` changed (cancelled, completed): the requests watched follow, and a
    /// request that connected settles its peer's waiting connections.
    mutating func noteRequestChanged(_ i: Int) {
        let a = result.attempts[i]
        guard let key = requestsWatched[a.ordinal], var state = reconnect[key],
            let r = state.requestOrdinals.lastIndex(of: a.ordinal)
        else { return }
        state.requests[r] = Reconnection.Request(a)
        reconnect[key] = state
        if a.outcome == .connected { settleReconnections(key, through: r) }
    }

    /// Every waiting connection of `key` whose first request is at or before `last` gets its
    /// `Reconnection`: the requests from its first up to `last`.
    mutating func settleReconnections(_ key: PeerOnAdapter, through last: Int) {
        guard let state = reconnect[key] else { return }
        var waiting: [ReconnectEntry] = []
        for e in state.entries {
            guard let first = e.firstRequest, first <= last else {
                waiting.append(e)
                continue
            }
            let request = state.requests[first].request
            let found = state.discoveries[first].flatMap { d in
                d.scanStartFrame > e.ended.frame && d.firstReport.frame < request.frame ? d.firstReport : nil
            }
            result.reconnections.append(
                Reconnection(
                    connection: e.connection, ordinal: e.ordinal, peer: key.peer, ended: e.ended, scanStart: e.scanStart, found: found,
                    requests: Array(state.requests[first...last])))
        }
        for o in state.requestOrdinals[...last] { requestsWatched[o] = nil }
        if waiting.isEmpty {
            reconnect[key] = nil
            return
        }
        // Waiting entries came after those requests: later ones keep their places.
        var rest = ReconnectPeer()
        rest.requests = Array(state.requests[(last + 1)...])
        rest.requestOrdinals = Array(state.requestOrdinals[(last + 1)...])
        rest.discoveries = Array(state.discoveries[(last + 1)...])
        rest.entries = waiting.map {
            var e = $0
            e.firstRequest = e.firstRequest.map { $0 - last - 1 }
            return e
        }
        reconnect[key] = rest
    }

    /// End of the capture: connections whose peer was asked for again, with requests none of
    /// which connected, are settled with all of them; the others had no reconnection.
    mutating func finishReconnections() {
        for key in reconnect.keys.sorted(by: { ($0.adapter, $0.peer) < ($1.adapter, $1.peer) }) {
            guard let state = reconnect[key], !state.requests.isEmpty else { continue }
            settleReconnections(key, through: state.requests.count - 1)
        }
        reconnect = [:]
        requestsWatched = [:]
        unscannedPeers = [:]
        // Settled in the order requests connected: `conn.reconnect-by-scan` lists them in
        // connection order.
        result.reconnections.sort { $0.ordinal < $1.ordinal }
    }

    // MARK: Scan sessions and requests

    /// A request on `adapter`: what `scan.left-running` needs of it, on the session running there.
    mutating func noteRequestInScan(_ attempt: ConnectionAttempt) {
        guard let s = activeScanPosition(attempt.adapter) else { return }
        let session = result.scans[s]
        guard session.start.time <= attempt.request.time else { return }
        if session.firstRequest.map({ attempt.request.time < $0.time }) ?? true { result.scans[s].firstRequest = attempt.request }
        if session.requestToFoundPeer == nil, let peer = attempt.peer, let d = attempt.peerDiscovery,
            d.scanStartFrame == session.start.frame, d.firstReport.frame < attempt.request.frame
        {
            result.scans[s].requestToFoundPeer = ScanSession.FoundPeerRequest(request: attempt.request, peer: peer, reported: d.firstReport)
        }
    }

    // MARK: Advertising spans and connections

    /// What a new span needs of the connections: the first one up at its start, and a
    /// peripheral-role one completed since.
    mutating func noteSpanStarted(_ i: Int) {
        let start = advertising.spans[i].start
        var atStart: AdvertisingSpan.SpanConnection?
        var arrival: (ordinal: Int, at: FrameTime)?
        func consider(_ c: AdvertisingSpan.SpanConnection) {
            if c.complete.frame < start.frame, (c.disconnect?.frame ?? .max) > start.frame, c.ordinal < (atStart?.ordinal ?? .max) {
                atStart = c
            }
            if c.role == .peripheral, c.complete.frame > start.frame, c.ordinal < (arrival?.ordinal ?? .max) {
                arrival = (c.ordinal, c.complete)
            }
        }
        for (_, ref) in openConnections {
            guard let index = result.connections.position(of: ref.id) else { continue }
            let c = result.connections[index]
            guard let complete = c.complete else { continue }
            consider(AdvertisingSpan.SpanConnection(role: c.role, complete: complete, disconnect: nil, ordinal: c.ordinal))
        }
        for c in recentCloses { consider(c) }
        advertising.spans[i].connectionAtStart = atStart
        advertising.spans[i].firstArrival = arrival?.at
        if arrival == nil { spansAwaitingArrival.append(advertising.spans[i].ordinal) }
        // The data its set advertised at the start.
        let data = advertisingData[advertising.spans[i].advertisingHandle]?
            .last { $0.frame <= start.frame && ($0.status ?? 0) == 0 }
        advertising.spans[i].dataLength = data?.length
        advertising.spans[i].manufacturers = data?.companies ?? []
    }

    /// A connection came up: the spans waiting for a peripheral-role arrival.
    mutating func noteConnectionArrived(_ c: Connection, at: FrameTime) {
        guard c.role == .peripheral, !spansAwaitingArrival.isEmpty else { return }
        var waiting: [Int] = []
        for ordinal in spansAwaitingArrival {
            guard let i = advertising.spans.position(of: ordinal) else { continue }
            if advertising.spans[i].start.frame < at.frame {
                advertising.spans[i].firstArrival = at
            } else {
                waiting.append(ordinal)
            }
        }
        spansAwaitingArrival = waiting
    }

    /// A connection went down: spans that started while it was up learn when, and later spans
    /// starting at a frame before this one can still find it (`recentCloses`).
    mutating func noteConnectionDown(_ c: Connection, at: FrameTime) {
        for (_, ordinal) in openSpans {
            guard let i = advertising.spans.position(of: ordinal), advertising.spans[i].connectionAtStart?.ordinal == c.ordinal else { continue }
            advertising.spans[i].connectionAtStart?.disconnect = at
        }
        guard let complete = c.complete else { return }
        recentCloses.append(AdvertisingSpan.SpanConnection(role: c.role, complete: complete, disconnect: at, ordinal: c.ordinal))
        if recentCloses.count > 16 { recentCloses.removeFirst() }
    }

    /// A data command was sent: its assembled length, and the set's recent data (for the spans).
    mutating func noteDataCommand(_ i: Int) {
        let cmd = advertising.dataCommands[i]
        if !cmd.legacyPDUs {
            let key = DataKey(handle: cmd.advertisingHandle ?? 0, kind: cmd.kind)
            let op = cmd.operation ?? 3
            // Operation (Vol 4 Part E §7.8.54): 0x01 first fragment and 0x03 complete data start
            // the set's data; 0x00 intermediate and 0x02 last fragments add to it.
            let soFar = (op == 1 || op == 3) ? cmd.fragmentLength : (assembling[key] ?? 0) + cmd.fragmentLength
            assembling[key] = soFar
            advertising.dataCommands[i].assembledLength = soFar
        }
        guard cmd.kind == .advertising else { return }
        var list = advertisingData[cmd.advertisingHandle] ?? []
        // Extended data in fragments: the companies of the fragment that starts it (or the whole).
        let companies = ADParser.parse(cmd.data, baseOffset: 0).manufacturerData.map(\.companyID)
        list.append(RecentData(ordinal: cmd.ordinal, frame: cmd.at.frame, length: cmd.length, status: nil, companies: companies))
        if list.count > 8 { list.removeFirst() }
        advertisingData[cmd.advertisingHandle] = list
    }

    /// A data command was answered.
    mutating func noteDataCommandAnswered(_ i: Int) {
        let cmd = advertising.dataCommands[i]
        guard cmd.kind == .advertising, var list = advertisingData[cmd.advertisingHandle],
            let k = list.lastIndex(where: { $0.ordinal == cmd.ordinal })
        else { return }
        list[k].status = cmd.status
        advertisingData[cmd.advertisingHandle] = list
    }

    struct DataKey: Hashable, Sendable {
        var handle: UInt8
        var kind: AdvertisingDataCommand.DataKind
    }

    struct RecentData: Sendable {
        var ordinal: Int
        var frame: FrameNumber
        var length: Int
        var status: UInt8?
        /// Company identifiers of its manufacturer-specific data.
        var companies: [UInt16] = []
    }
}
