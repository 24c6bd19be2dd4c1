import ScopeCore

/// Flat memory on long captures: the ATT detail of closed connections (every ATT PDU, the GATT
/// database, CCCD writes), the scan sessions, and the connection requests, connections, pairings
/// and advertising records are what grows with a capture. The driver of the analysis hands them,
/// a batch at a time, to the rules that can judge part of a capture (`RuleAccumulator` in
/// ScopeRules): connections first keep only their counts (`Connection.retired`); scan sessions
/// after the first `keptScans` leave `result.scans` and only their sums stay
/// (`AnalysisResult.retiredScans`); settled items after the first `kept` of each list leave too,
/// and only their counts and headline sums stay (`AnalysisResult.retired`).
///
/// Captures below the thresholds never retire anything: their analysis is exactly what
/// `finish()` would give without retirement.
extension AnalysisBuilder {
    public struct Retirement: Sendable {
        /// Retire once the closed connections hold this many ATT PDUs (40 bytes each)…
        public var attPDUs: Int
        /// …or once this many closed connections hold their detail.
        public var connections: Int
        /// Retire closed scan sessions this many at a time…
        public var scans: Int
        /// …except the first ones, which stay for the reports' lists (`Report.listLimit`).
        public var keptScans: Int
        /// Connection requests, connections, pairings and advertising records: the first ones of
        /// each list stay (the reports list them)…
        public var kept: Int
        /// …and the settled ones after them are looked for once this many were created.
        public var items: Int
        /// A finished advertising span stays until a peripheral-role connection came after its
        /// start, or this long after its start (`adv.without-need` looks that far: RuleEngine
        /// sets it from the rule's threshold).
        public var arrivalWindowMicros: Int64
        public init(
            attPDUs: Int = 50_000, connections: Int = 256, scans: Int = 256, keptScans: Int = 1000, kept: Int = 1000, items: Int = 256,
            arrivalWindowMicros: Int64 = 60_000_000
        ) {
            self.attPDUs = attPDUs
            self.connections = connections
            self.scans = scans
            self.keptScans = keptScans
            self.kept = kept
            self.items = items
            self.arrivalWindowMicros = arrivalWindowMicros
        }
    }

    /// True when closed connections, scan sessions or settled items should be handed over now.
    public var hasRetirable: Bool { hasRetirableConnections || hasRetirableScans || hasRetirableItems }

    var hasRetirableItems: Bool { itemsSinceCheck >= retirement.items }

    var hasRetirableConnections: Bool {
        !closedWithDetail.isEmpty
            && (closedDetailEvents >= retirement.attPDUs || closedWithDetail.count >= retirement.connections)
    }

    var hasRetirableScans: Bool { !closedScans.isEmpty && closedScans.count >= retirement.scans }

    /// What the rules that can judge part of a capture (`RuleScope`) take now: the closed
    /// connections still holding their ATT detail (and their pairings), when due, and the closed
    /// scan sessions, when due, as a partial result; settled items as they leave
    /// (`retireSettledItems`). The connections then keep only their counts; the sessions leave
    /// `result.scans` and only their sums stay (`AnalysisResult.retiredScans`).
    public mutating func retireClosed() -> SettledBatch {
        var part = AnalysisResult(capture: result.capture)
        part.capture.platform = platformDetector.platform
        part.capture.platformAtStart = platformAtStart
        if hasRetirableConnections {
            let positions = closedWithDetail.compactMap { result.connections.position(of: $0) }
            part.connections = positions.map { result.connections[$0] }
            part.pairings = result.pairings(of: part.connections)
            for i in positions { result.connections[i].retireDetail() }
            closedWithDetail = []
            closedDetailEvents = 0
        }
        if hasRetirableScans { retireClosedScans(into: &part) }
        var leaving = LeavingItems()
        if hasRetirableItems {
            itemsSinceCheck = 0
            retireSettledItems(into: &part, leaving: &leaving)
        }
        return SettledBatch(partial: part, leaving: leaving)
    }

    private mutating func retireClosedScans(into part: inout AnalysisResult) {
        let positions = result.scans.positions(of: closedScans)
        closedScans = []
        guard !positions.isEmpty else { return }
        part.scans = positions.map { result.scans[$0] }
        for s in part.scans { result.retiredScans.add(s) }
        // Sessions where an advertiser was last found stay for later requests to it (at most one
        // per advertiser); the others go.
        let retiredStarts = Set(part.scans.map(\.start.frame))
        var pointedAt = Set<FrameNumber>()
        for d in lastDiscovery.values where retiredStarts.contains(d.scanStart) || retiredDiscoveryScans[d.scanStart] != nil {
            pointedAt.insert(d.scanStart)
        }
        retiredDiscoveryScans = retiredDiscoveryScans.filter { pointedAt.contains($0.key) }
        for s in part.scans where pointedAt.contains(s.start.frame) { retiredDiscoveryScans[s.start.frame] = s }
        Self.remove(positions, from: &result.scans)
    }
}

extension AnalysisBuilder {
    /// Settled items after the first `retirement.kept` of each list leave the result for the
    /// rules of `RuleScope.items` (`leaving`); their counts and headline sums stay in
    /// `result.retired`. Settled: a connection request answered (or replaced while cancelled), a
    /// connection closed by a Disconnection Complete with its ATT detail judged (its pairings
    /// go with it), an advertising data command answered (or replaced), a span stopped that saw
    /// a peripheral-role connection arrive or started more than `arrivalWindowMicros` ago, and
    /// every reconnection. Requests still pending stay (a pending request is judged up to the
    /// last frame), and so do the first `kept` requests that connected (the headline lists them).
    mutating func retireSettledItems(into part: inout AnalysisResult, leaving: inout LeavingItems) {
        let kept = retirement.kept
        let now = lastFrame?.time.microseconds ?? 0

        // Connections and their pairings.
        var connections: [Int] = []
        var gone = Set<ConnectionID>()
        for p in kept..<max(kept, result.connections.count) {
            let c = result.connections[p]
            guard c.disconnect != nil, c.retired != nil else { continue }
            connections.append(p)
            gone.insert(c.id)
        }
        var pairings: [Int] = []
        if !gone.isEmpty {
            for p in result.pairings.indices where gone.contains(result.pairings[p].connection) {
                leaving.contextPairings.append(result.pairings[p])
                if p >= kept { pairings.append(p) }
            }
        }
        // Requests.
        var attempts: [Int] = []
        for p in kept..<max(kept, result.attempts.count) {
            let a = result.attempts[p]
            guard a.complete != nil || (a.cancel != nil && pendingAttempt[a.adapter] != a.ordinal) else { continue }
            if a.outcome == .connected, Self.contains(discoveryKept, a.ordinal) { continue }
            attempts.append(p)
        }
        // Advertising records.
        var data: [Int] = []
        for p in kept..<max(kept, advertising.dataCommands.count) {
            let cmd = advertising.dataCommands[p]
            if cmd.complete != nil || !pendingCommands.values.contains(where: { $0.at == cmd.at }) { data.append(p) }
        }
        var spans: [Int] = []
        for p in kept..<max(kept, advertising.spans.count) {
            let s = advertising.spans[p]
            guard s.stop != nil, s.firstArrival != nil || now &- s.start.time.microseconds > retirement.arrivalWindowMicros else { continue }
            spans.append(p)
        }
        guard !connections.isEmpty || !attempts.isEmpty || !data.isEmpty || !spans.isEmpty || !result.reconnections.isEmpty else {
            return
        }

        // What stays of them.
        let goneSpans = Set(spans)
        for p in connections {
            let c = result.connections[p]
            leaving.connections.append(c)
            result.retired.timing.add(c, captureEnd: c.disconnect?.time ?? Timestamp(microseconds: now))
            // Time connected while each span still held was enabled (`finishAdvertising` adds the rest).
            guard let complete = c.complete, let down = c.disconnect else { continue }
            for s in advertising.spans.indices where !goneSpans.contains(s) {
                let span = advertising.spans[s]
                let from = max(span.start.time.microseconds, complete.time.microseconds)
                let to = min(span.stop?.time.microseconds ?? down.time.microseconds, down.time.microseconds)
                if to > from { advertising.spans[s].connectedWhileEnabledMicros += to - from }
            }
        }
        for p in attempts {
            let a = result.attempts[p]
            leaving.attempts.append(a)
            if let d = a.discovery(deviceFirst: result.deviceFirst(a.connectedPeer)) { result.retired.discovery.add(d) }
        }
        leaving.pairings = pairings.map { result.pairings[$0] }
        leaving.advertisingData = data.map { advertising.dataCommands[$0] }
        leaving.advertisingSpans = spans.map { advertising.spans[$0] }
        leaving.reconnections = result.reconnections
        result.reconnections = []
        result.retired.connections += connections.count
        result.retired.attempts += attempts.count
        result.retired.pairings += pairings.count
        result.retired.advertisingData += data.count
        result.retired.advertisingSpans += spans.count

        // Out of the lists (the state that refers to held items names them by id: `HeldItem`).
        Self.remove(connections, from: &result.connections)
        Self.remove(attempts, from: &result.attempts)
        Self.remove(pairings, from: &result.pairings)
        Self.remove(data, from: &advertising.dataCommands)
        Self.remove(spans, from: &advertising.spans)

        var meta = AdvertisingActivity()
        meta.supportedStates = advertising.supportedStates
        meta.supportedStatesFrame = advertising.supportedStatesFrame
        meta.maxAdvertisingDataLength = advertising.maxAdvertisingDataLength
        meta.maxAdvertisingDataLengthFrame = advertising.maxAdvertisingDataLengthFrame
        part.advertising = meta
    }

    /// Keeps `a` for the headline's discovery-cost list when it is among the first `kept` requests
    /// (in capture order) that connected to a known peer.
    mutating func keepForDiscovery(_ a: ConnectionAttempt) {
        guard a.outcome == .connected, a.peer ?? a.connectionPeer != nil else { return }
        let lo = discoveryKept.partitionPoint { $0 >= a.ordinal }
        guard lo < retirement.kept else { return }
        discoveryKept.insert(a.ordinal, at: lo)
        if discoveryKept.count > retirement.kept { discoveryKept.removeLast() }
    }

    static func contains(_ sorted: [Int], _ value: Int) -> Bool {
        let lo = sorted.partitionPoint { $0 >= value }
        return lo < sorted.count && sorted[lo] == value
    }

    /// Removes the elements at `positions` (ascending).
    static func remove<T>(_ positions: [Int], from list: inout [T]) {
        guard let first = positions.first else { return }
        var out: [T] = []
        out.reserveCapacity(list.count - positions.count)
        out.append(contentsOf: list[..<first])
        var next = 0
        for p in first..<list.count {
            if next < positions.count, positions[next] == p { next += 1 } else { out.append(list[p]) }
        }
        list = out
    }
}
