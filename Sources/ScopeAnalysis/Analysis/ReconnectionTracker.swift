import ScopeCore
import ScopeDecode

/// A peer (its identity when known) on one adapter: the unit of `conn.reconnect-by-scan`.
struct PeerOnAdapter: Hashable, Sendable {
    var peer: BDAddr
    var adapter: AdapterIndex
}

/// Reconnections (`conn.reconnect-by-scan`): where a connection request's peer was last
/// connected and whether a scan came in between, recorded as the capture goes (`Reconnection`)
/// so that neither every request nor every scan start has to be kept. Owned by `AnalysisBuilder`.
struct ReconnectionTracker: Sendable {
    private(set) var reconnect: [PeerOnAdapter: ReconnectPeer] = [:]
    /// Requests in some `reconnect` entry's list, by id.
    private var requestsWatched: [Int: PeerOnAdapter] = [:]
    /// Per adapter: peers with a waiting connection that no scan followed yet.
    private var unscannedPeers: [AdapterIndex: Set<PeerOnAdapter>] = [:]
    /// Reconnections settled and not yet handed over.
    private(set) var settled: [Reconnection] = []

    /// A connection that ended, waiting for the next connection request to its peer.
    struct ReconnectEntry: Sendable {
        var connection: ConnectionID
        var firstSeen: FrameNumber
        var ended: FrameTime
        var scanStart: FrameTime?
        /// The first scan after `ended` with a system signature (before `scanStart`), and its
        /// signature: the rule decides by the platform whether it counts.
        var systemScan: (start: FrameTime, evidence: ActorEvidence)?
        /// Index in `ReconnectPeer.requests` of the first request after `ended`.
        var firstRequest: Int?
    }

    /// Per peer and adapter: the connections that ended and the requests made since, until a
    /// request connects (then each connection's `Reconnection` is settled).
    struct ReconnectPeer: Sendable {
        var entries: [ReconnectEntry] = []
        var requests: [Reconnection.Request] = []
        var requestIDs: [Int] = []
        /// Where each request's peer was last found (`ConnectionAttempt.peerDiscovery`).
        var discoveries: [PeerDiscovery?] = []
        /// Some entry has no scan start yet.
        var unscanned: Bool { entries.contains { $0.scanStart == nil } }
    }

}

extension ReconnectionTracker {
    // MARK: Reconnections

    /// A connection with a known peer (`key`) ended (Disconnection Complete).
    mutating func noteConnectionEnded(_ c: Connection, key: PeerOnAdapter, at: FrameTime) {
        reconnect[key, default: ReconnectPeer()].entries.append(
            ReconnectEntry(connection: c.id, firstSeen: c.firstSeen, ended: at, scanStart: nil, systemScan: nil, firstRequest: nil))
        unscannedPeers[c.id.adapter, default: []].insert(key)
    }

    /// A scan session started on `adapter` (its enable answered): the first scan after each
    /// waiting connection's end.
    /// `evidence`: the scan's attribution; a scan with a system signature is kept aside (the
    /// first one), and the entry waits for a scan without one.
    mutating func noteScanStarted(_ start: FrameTime, adapter: AdapterIndex, evidence: ActorEvidence) {
        guard let keys = unscannedPeers[adapter], !keys.isEmpty else { return }
        let system = evidence.signal.isSystemSignature
        for key in keys {
            guard var state = reconnect[key] else { continue }
            for i in state.entries.indices where state.entries[i].scanStart == nil && state.entries[i].ended.frame < start.frame {
                if let r = state.entries[i].firstRequest, state.requests[r].request.frame <= start.frame { continue }
                if system {
                    if state.entries[i].systemScan == nil { state.entries[i].systemScan = (start, evidence) }
                } else {
                    state.entries[i].scanStart = start
                }
            }
            reconnect[key] = state
        }
        // Entries still without a scan: only those whose request came first (they stay until
        // settled, for a session whose enable was answered after the request).
        unscannedPeers[adapter] = Set(keys.filter { reconnect[$0]?.entries.contains { $0.scanStart == nil && $0.firstRequest == nil } ?? false })
    }

    /// The session started at `start` on `adapter` turned out, once it ended, to be the system's
    /// (`evidence`): the entries that took it for the host's scan wait for the next one.
    mutating func noteScanReattributed(_ start: FrameTime, adapter: AdapterIndex, evidence: ActorEvidence) {
        for key in reconnect.keys where key.adapter == adapter {
            guard var state = reconnect[key] else { continue }
            var changed = false
            for i in state.entries.indices where state.entries[i].scanStart?.frame == start.frame {
                state.entries[i].scanStart = nil
                if state.entries[i].systemScan == nil { state.entries[i].systemScan = (start, evidence) }
                changed = true
            }
            guard changed else { continue }
            reconnect[key] = state
            unscannedPeers[adapter, default: []].insert(key)
        }
    }

    /// Connection request `id` to a peer (`key`) was sent; an accept-list request is noted when
    /// it connects (its peer known from the connection complete), so scans started after it was
    /// sent are not counted before it.
    mutating func noteRequest(_ attempt: ConnectionAttempt, id: Int, key: PeerOnAdapter) {
        guard var state = reconnect[key], !state.entries.isEmpty else { return }
        let index = state.requests.count
        let sent = attempt.request.frame
        state.requests.append(Reconnection.Request(attempt))
        state.requestIDs.append(id)
        state.discoveries.append(attempt.peerDiscovery)
        for i in state.entries.indices where state.entries[i].firstRequest == nil && state.entries[i].ended.frame < sent {
            state.entries[i].firstRequest = index
            if let s = state.entries[i].scanStart, s.frame > sent { state.entries[i].scanStart = nil }
            if let s = state.entries[i].systemScan, s.start.frame > sent { state.entries[i].systemScan = nil }
        }
        reconnect[key] = state
        requestsWatched[id] = key
    }

    /// Request `id` changed (cancelled, completed): the requests watched follow, and a request
    /// that connected settles its peer's waiting connections.
    mutating func noteRequestChanged(_ a: ConnectionAttempt, id: Int) {
        guard let key = requestsWatched[id], var state = reconnect[key],
            let r = state.requestIDs.lastIndex(of: id)
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
            settled.append(
                Reconnection(
                    connection: e.connection, connectionFirstSeen: e.firstSeen, peer: key.peer, ended: e.ended, scanStart: e.scanStart,
                    systemScanStart: e.systemScan?.start, systemScanEvidence: e.systemScan?.evidence, found: found,
                    requests: Array(state.requests[first...last])))
        }
        for o in state.requestIDs[...last] { requestsWatched[o] = nil }
        if waiting.isEmpty {
            reconnect[key] = nil
            return
        }
        // Waiting entries came after those requests: later ones keep their places.
        var rest = ReconnectPeer()
        rest.requests = Array(state.requests[(last + 1)...])
        rest.requestIDs = Array(state.requestIDs[(last + 1)...])
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
    mutating func finish() {
        for key in reconnect.keys.sorted(by: { ($0.adapter, $0.peer) < ($1.adapter, $1.peer) }) {
            guard let state = reconnect[key], !state.requests.isEmpty else { continue }
            settleReconnections(key, through: state.requests.count - 1)
        }
        reconnect = [:]
        requestsWatched = [:]
        unscannedPeers = [:]
        // Settled in the order requests connected: `conn.reconnect-by-scan` lists them in
        // connection order.
        settled.sort { $0.connectionFirstSeen < $1.connectionFirstSeen }
    }

}

extension ReconnectionTracker {
    /// The reconnections settled since the last hand-over; forgotten here.
    mutating func takeSettled() -> [Reconnection] {
        defer { settled = [] }
        return settled
    }
}
