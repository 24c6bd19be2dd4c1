import ScopeCore

/// The items a partial result hands to the rules of `RuleScope.items` (`AnalysisResult.leaving`):
/// settled connection requests, closed connections (their ATT detail already judged), their
/// pairings, reconnections and finished advertising records. Each item leaves the analysis
/// exactly once, so judging these batches and what the result holds at the end judges every
/// item once.
public struct LeavingItems: Sendable {
    public var attempts: [ConnectionAttempt] = []
    public var connections: [Connection] = []
    public var pairings: [Pairing] = []
    /// Every pairing of `connections` (some may stay: the first ones of the list do).
    public var contextPairings: [Pairing] = []
    public var reconnections: [Reconnection] = []
    public var advertisingData: [AdvertisingDataCommand] = []
    public var advertisingSpans: [AdvertisingSpan] = []
    public init() {}

    public var isEmpty: Bool {
        attempts.isEmpty && connections.isEmpty && pairings.isEmpty && reconnections.isEmpty && advertisingData.isEmpty
            && advertisingSpans.isEmpty
    }
}

/// What stays of the items a long capture dropped (`AnalysisResult.retired`): how many there
/// were, and the sums the headline's means need.
public struct RetiredItems: Sendable, Hashable {
    public var attempts = 0
    public var connections = 0
    public var pairings = 0
    public var advertisingData = 0
    public var advertisingSpans = 0
    /// Discovery cost of the connection requests that connected (to a known peer).
    public var discovery = DiscoverySums()
    /// Connection timing of the connections.
    public var timing = TimingSums()
    public init() {}
}

/// A sum and how many values it adds (a mean's parts).
public struct SumCount: Sendable, Hashable {
    public var sum: Int64 = 0
    public var count = 0
    public init() {}
    public mutating func add(_ v: Int64?) {
        guard let v else { return }
        sum = sum &+ v
        count += 1
    }
}

/// The headline's discovery-cost sums (see `Headline`) over connection requests.
public struct DiscoverySums: Sendable, Hashable {
    public var count = 0
    public var scanToRequest = SumCount()
    public var radioOn = SumCount()
    public var firstReportToRequest = SumCount()
    /// Σ reports until the request, nil while no request had a count.
    public var reports: Int?
    public init() {}

    /// One discovery cost: `scan` values only when the request followed a scan.
    public mutating func add(scanToRequest s: Int64?, radioOn r: Int64?, reports n: Int?, afterScan: Bool, firstReportToRequest f: Int64?) {
        count += 1
        if afterScan {
            scanToRequest.add(s)
            radioOn.add(r)
            if let n { reports = (reports ?? 0) + n }
        }
        firstReportToRequest.add(f)
    }
}

/// The headline's connection-timing sums over connections.
public struct TimingSums: Sendable, Hashable {
    public var count = 0
    public var setup = SumCount()
    public var firstATT = SumCount()
    public var discovery = SumCount()
    public var firstData = SumCount()
    public var idleTail = SumCount()
    public init() {}
}

extension Connection {
    /// Request → connection complete.
    public var setupMicros: Int64? {
        guard let r = request, let k = complete else { return nil }
        return k.time.microseconds &- r.time.microseconds
    }

    /// `f` relative to the connection complete.
    public func sinceComplete(_ f: FrameTime?) -> Int64? {
        guard let k = complete, let f else { return nil }
        return f.time.microseconds &- k.time.microseconds
    }

    /// Last ACL payload (or the complete) → disconnection complete (or `captureEnd`).
    public func idleTailMicros(captureEnd: Timestamp) -> Int64? {
        let end = disconnect?.time ?? captureEnd
        guard let from = lastPayload ?? complete else { return nil }
        return end.microseconds &- from.time.microseconds
    }
}

extension TimingSums {
    public mutating func add(_ c: Connection, captureEnd: Timestamp) {
        count += 1
        setup.add(c.setupMicros)
        firstATT.add(c.sinceComplete(c.firstATT))
        discovery.add(c.sinceComplete(c.discoveryEnd))
        firstData.add(c.sinceComplete(c.firstData))
        idleTail.add(c.idleTailMicros(captureEnd: captureEnd))
    }
}

extension DiscoverySums {
    /// The headline's discovery cost of a request the analysis recorded (see `Headline`): for a
    /// request that connected to `peer`, from the session that found it (`peerDiscovery`), else
    /// from the device's first report (`deviceFirst`).
    public mutating func add(_ a: ConnectionAttempt, peer: BDAddr?, deviceFirst: FrameTime?) {
        guard a.outcome == .connected, peer != nil else { return }
        let request = a.request.time
        if let d = a.peerDiscovery, let s = d.scan {
            add(
                scanToRequest: s.scanToRequestMicros(request), radioOn: s.radioOnMicros, reports: s.reportsUntilRequest,
                afterScan: true, firstReportToRequest: request.microseconds &- d.firstReport.time.microseconds)
            return
        }
        let first = deviceFirst.flatMap { $0.time <= request ? request.microseconds &- $0.time.microseconds : nil }
        add(scanToRequest: nil, radioOn: nil, reports: nil, afterScan: false, firstReportToRequest: first)
    }
}
