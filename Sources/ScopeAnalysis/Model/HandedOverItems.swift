import ScopeCore

/// What the analysis of a long capture hands the rules as it goes (`AnalysisBuilder.handOverSettled()`):
/// the closed connections with their ATT detail and the closed scan sessions, as a partial
/// result for the rules that judge one connection or session at a time, and the items that
/// settled, for the rules that judge one item at a time.
package struct SettledBatch: Sendable {
    /// Closed connections (with their pairings) and scan sessions, and the capture's platform.
    package var partial: AnalysisResult
    package var items: SettledItems

    package init(partial: AnalysisResult, items: SettledItems = SettledItems()) {
        self.partial = partial
        self.items = items
    }
}

/// The items a batch hands to the rules of `RuleScope.items` (`SettledBatch.items`):
/// settled connection requests, closed connections (their ATT detail already judged), their
/// pairings, reconnections and finished advertising records. Each item settles, and is handed
/// over, exactly once, so judging these batches and what the result holds at the end judges every
/// item once.
package struct SettledItems: Sendable {
    package var attempts: [ConnectionAttempt] = []
    package var connections: [Connection] = []
    package var pairings: [Pairing] = []
    /// Every pairing of `connections` (some may stay: the first ones of the list do).
    package var contextPairings: [Pairing] = []
    package var reconnections: [Reconnection] = []
    package var advertisingData: [AdvertisingDataCommand] = []
    package var advertisingSpans: [AdvertisingSpan] = []
    package init() {}

    package var isEmpty: Bool {
        attempts.isEmpty && connections.isEmpty && pairings.isEmpty && reconnections.isEmpty && advertisingData.isEmpty
            && advertisingSpans.isEmpty
    }
}

/// What stays of the items a long capture dropped (`AnalysisResult.handedOver`): how many there
/// were, and the sums the headline's means need.
package struct HandedOverItems: Sendable, Hashable {
    package var attempts = 0
    package var connections = 0
    package var pairings = 0
    package var advertisingData = 0
    package var advertisingSpans = 0
    /// Advertisers after the first kept that left once quiet (`HandOverPolicy.deviceQuietMicros`).
    package var devices = 0
    /// Discovery cost of the connection requests that connected (to a known peer).
    package var discovery = DiscoverySums()
    /// Connection timing of the connections.
    package var timing = TimingSums()
    package init() {}
}

/// One headline figure over every item that has it, held or handed over: the sum and count (its
/// mean), its spread (`StreamingQuantiles`: median and p90 over the whole capture, exact up to
/// 4,096 items) and the first item with the largest value.
package struct SumCount: Sendable, Hashable {
    package var sum: Int64 = 0
    package var count: Int { spread.count }
    package private(set) var spread = StreamingQuantiles()
    /// The largest value, and the first item (in capture order) with it.
    package private(set) var max: Int64?
    package private(set) var worst: FigureItem?
    package init() {}

    package mutating func add(_ v: Int64?, item: FigureItem) {
        guard let v else { return }
        sum = sum &+ v
        spread.add(v)
        if let m = max, v < m || (v == m && worst.map { $0.frame <= item.frame } ?? false) { return }
        max = v
        worst = item
    }
}

/// The item a headline figure's worst value belongs to.
package struct FigureItem: Sendable, Hashable {
    /// Where it began (a connection request's frame, a connection's `firstSeen`): of equal values
    /// the first is named.
    package var frame: FrameNumber
    package var connection: ConnectionID?
    package var peer: BDAddr?
    package init(frame: FrameNumber, connection: ConnectionID?, peer: BDAddr?) {
        self.frame = frame
        self.connection = connection
        self.peer = peer
    }
}

/// The headline's discovery-cost sums (see `Headline`) over connection requests.
package struct DiscoverySums: Sendable, Hashable {
    package var count = 0
    /// Requests that followed a scan which found the peer.
    package var scanned = 0
    /// Requests whose peer was found only by the system's own scan (`AttemptDiscovery.systemScanStartFrame`).
    package var systemScanned = 0
    package var scanToRequest = SumCount()
    package var radioOn = SumCount()
    package var firstReportToRequest = SumCount()
    /// Reports until the request (of the requests that had a count).
    package var reportsUntilRequest = SumCount()
    /// Requests that did not connect before these (`AttemptDiscovery.failedAttempts`), and how
    /// long they were pending.
    package var failedAttempts = 0
    package var failedAttemptsMicros: Int64 = 0
    /// Σ reports until the request, nil while no request had a count.
    package var reports: Int? { reportsUntilRequest.count == 0 ? nil : Int(reportsUntilRequest.sum) }
    package init() {}

    /// One connection request's discovery cost (`a`'s): the scan values only when the request
    /// followed a scan.
    package mutating func add(_ d: AttemptDiscovery, of a: ConnectionAttempt) {
        count += 1
        let item = FigureItem(frame: a.request.frame, connection: a.connection, peer: a.connectedPeer)
        if d.scanStartFrame != nil {
            scanned += 1
            scanToRequest.add(d.scanToRequestMicros, item: item)
            radioOn.add(d.radioOnMicros, item: item)
            reportsUntilRequest.add(d.reportsUntilRequest.map(Int64.init), item: item)
        } else if d.systemScanStartFrame != nil {
            systemScanned += 1
        }
        firstReportToRequest.add(d.firstReportToRequestMicros, item: item)
        failedAttempts += d.failedAttempts
        failedAttemptsMicros = failedAttemptsMicros &+ d.failedAttemptsMicros
    }
}

/// What one connection request that connected to a known peer cost to discover (the headline's
/// discovery cost, `ConnectionAttempt.discovery(deviceFirst:)`).
package struct AttemptDiscovery: Sendable, Hashable {
    /// The session that found the peer; nil when the request followed no scan that did.
    package var scanStartFrame: FrameNumber?
    /// The peer was last found by a scan with a system signature (the stack's background scan,
    /// started at this frame), not by the app's: no scan cost is counted for the request.
    package var systemScanStartFrame: FrameNumber?
    package var scanToRequestMicros: Int64?
    /// The session's advertising reports up to the request (nil when unknown).
    package var reportsUntilRequest: Int?
    /// Estimated scan radio-on time from the session start to the request.
    package var radioOnMicros: Int64?
    /// Σ window/interval of the session's PHYs.
    package var dutyCycle: Double?
    package var firstReportFrame: FrameNumber?
    package var firstReportToRequestMicros: Int64?
    /// The scanning PHYs of the session that found the peer (a duty cycle each).
    package var phys: [ScanPHY] = []
    /// Requests to the same peer (or the accept list) that did not connect before this one.
    package var failedAttempts = 0
    package var failedAttemptsMicros: Int64 = 0
    /// The path: the first request (a failed one's, or this), the connection complete.
    package var firstRequestFrame: FrameNumber?
    package var firstRequestMicrosBefore: Int64?
    package var connectedFrame: FrameNumber?
}

/// The headline's connection-timing sums over connections.
package struct TimingSums: Sendable, Hashable {
    package var count = 0
    /// Connections with none of the figures (their setup was not captured, and nothing after).
    package var blank = 0
    package var setup = SumCount()
    package var acceptListWait = SumCount()
    package var firstATT = SumCount()
    package var discovery = SumCount()
    package var firstData = SumCount()
    package var lifetime = SumCount()
    package var idleTail = SumCount()
    package init() {}
}

extension Connection {
    /// Request → connection complete, for a request that named its peer (nil after a Filter
    /// Accept List request: `acceptListWaitMicros`).
    package var setupMicros: Int64? {
        guard !requestUsedAcceptList, let r = request, let k = complete else { return nil }
        return k.time.microseconds &- r.time.microseconds
    }

    /// Filter Accept List request → connection complete: waiting for a listed device to come back.
    package var acceptListWaitMicros: Int64? {
        guard requestUsedAcceptList, let r = request, let k = complete else { return nil }
        return k.time.microseconds &- r.time.microseconds
    }

    /// `f` relative to the connection complete.
    package func sinceComplete(_ f: FrameTime?) -> Int64? {
        guard let k = complete, let f else { return nil }
        return f.time.microseconds &- k.time.microseconds
    }

    /// Connection complete → disconnection complete (or `captureEnd`).
    package func lifetimeMicros(captureEnd: Timestamp) -> Int64? {
        guard let k = complete else { return nil }
        return (disconnect?.time ?? captureEnd).microseconds &- k.time.microseconds
    }

    /// Whether the capture shows how long the link went without data: not when it holds no ACL
    /// data (``CaptureInfo/holdsNoACL``: a btsnooz summary, or no ACL record) and none was seen on
    /// this link — its idle time would be its whole life.
    package func idleTimeVisible(captureHoldsNoACL: Bool) -> Bool { !(captureHoldsNoACL && lastPayload == nil) }

    /// Last ACL payload (or the complete) → disconnection complete (or `captureEnd`); nil where the
    /// idle time is not visible (``idleTimeVisible(captureHoldsNoACL:)``). `summaryOnly`: the
    /// capture is a btsnooz summary (``CaptureOrigin/summaryOnly``) — what is known from its start,
    /// so that a connection handed over mid-capture gets the figure the whole capture gives it (a
    /// capture with no ACL record at all is known as such only at its end).
    package func idleTailMicros(captureEnd: Timestamp, summaryOnly: Bool) -> Int64? {
        guard idleTimeVisible(captureHoldsNoACL: summaryOnly) else { return nil }
        let end = disconnect?.time ?? captureEnd
        guard let from = lastPayload ?? complete else { return nil }
        return end.microseconds &- from.time.microseconds
    }
}

extension TimingSums {
    package mutating func add(_ c: Connection, captureEnd: Timestamp, summaryOnly: Bool) {
        count += 1
        let item = FigureItem(frame: c.firstSeen, connection: c.id, peer: c.peer)
        let values = [
            c.setupMicros, c.sinceComplete(c.firstATT), c.sinceComplete(c.discoveryEnd), c.sinceComplete(c.firstData),
            c.lifetimeMicros(captureEnd: captureEnd), c.idleTailMicros(captureEnd: captureEnd, summaryOnly: summaryOnly),
        ]
        if values.allSatisfy({ $0 == nil }) { blank += 1 }
        setup.add(values[0], item: item)
        acceptListWait.add(c.acceptListWaitMicros, item: item)
        firstATT.add(values[1], item: item)
        discovery.add(values[2], item: item)
        firstData.add(values[3], item: item)
        lifetime.add(values[4], item: item)
        idleTail.add(values[5], item: item)
    }
}

extension ConnectionAttempt {
    /// A scan session that stopped more than this before a request is not what led to it.
    package static let discoveryLapseMicros: Int64 = 60_000_000

    /// The peer it connected to: the one it named, else the connection's (filter accept list).
    package var connectedPeer: BDAddr? { peer ?? connectionPeer }

    /// Its discovery cost when it connected to a known peer (else nil): from the session that
    /// found the peer (`peerDiscovery`), else from the device's first report (`deviceFirst`)
    /// when that came before the request. A peer found only by the system's own scan, or
    /// connected since it was last found (a reconnection), or found by a session that stopped
    /// more than `discoveryLapseMicros` before the request, counts no scan cost.
    package func discovery(deviceFirst: FrameTime?) -> AttemptDiscovery? {
        guard outcome == .connected, connectedPeer != nil else { return nil }
        let request = request.time
        var d = AttemptDiscovery()
        // A session that stopped long before the request found the device and left it: the
        // request is not its doing.
        let stale = peerDiscovery?.scan.map { request.microseconds &- $0.until.microseconds > Self.discoveryLapseMicros } ?? false
        if let found = peerDiscovery, let s = found.scan, !stale, s.attribution.signal.isSystemSignature {
            d.systemScanStartFrame = s.start.frame
        } else if let found = peerDiscovery, let s = found.scan, !stale {
            d.scanStartFrame = s.start.frame
            d.scanToRequestMicros = s.scanToRequestMicros(request)
            // The highest of the PHYs' duty cycles (each listens for its own share; summed, two
            // PHYs at 100 % would read 2).
            d.dutyCycle = s.phys.map(\.dutyCycle).max()
            d.phys = s.phys
            d.radioOnMicros = s.radioOnMicros
            d.reportsUntilRequest = s.reportsUntilRequest
            d.firstReportFrame = found.firstReport.frame
            d.firstReportToRequestMicros = request.microseconds &- found.firstReport.time.microseconds
        } else if !stale, peerConnectedBefore == nil, let first = deviceFirst, first.time <= request {
            d.firstReportFrame = first.frame
            d.firstReportToRequestMicros = request.microseconds &- first.time.microseconds
        }
        if let f = earlierFailures {
            d.failedAttempts = f.count
            d.failedAttemptsMicros = f.pendingMicros
            if let first = f.firstRequest {
                d.firstRequestFrame = first.frame
                d.firstRequestMicrosBefore = request.microseconds &- first.time.microseconds
            }
        }
        d.connectedFrame = complete?.frame
        return d
    }
}

extension AnalysisResult {
    /// The first report of the device `address` (the first device of that address).
    package func deviceFirst(_ address: BDAddr?) -> FrameTime? {
        Device.first(of: address, in: devices, index: firstDeviceOfAddress)
    }

    /// Discovery cost summed over every connection request that connected to a known peer,
    /// dropped ones included.
    package var discoveryTotals: DiscoverySums {
        var sums = handedOver.discovery
        for a in attempts {
            if let d = a.discovery(deviceFirst: deviceFirst(a.connectedPeer)) { sums.add(d, of: a) }
        }
        return sums
    }

    /// Connection timing summed over every connection, dropped ones included (an open
    /// connection's idle tail runs to the capture's last timestamp).
    package var timingTotals: TimingSums {
        let end = capture.lastTimestamp ?? origin
        return connections.reduce(into: handedOver.timing) { $0.add($1, captureEnd: end, summaryOnly: capture.origin.summaryOnly) }
    }
}

extension Device {
    /// The first report of the first device of `address` in `devices`; `index`: each address's
    /// first device there.
    static func first(of address: BDAddr?, in devices: [Device], index: [BDAddr: Int]) -> FrameTime? {
        address.flatMap { index[$0] }.map { devices[$0].first }
    }
}
