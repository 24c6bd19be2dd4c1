import ScopeCore

/// Flat memory on long captures: the ATT detail of closed connections (every ATT PDU, the GATT
/// database, CCCD writes) and the scan sessions are what grows with a capture. The driver of the
/// analysis hands them, a batch at a time, to the rules that can judge part of a capture
/// (`RuleAccumulator` in ScopeRules): connections then keep only their counts
/// (`Connection.retired`), scan sessions after the first `keptScans` leave `result.scans` and only
/// their sums and start frames stay (`AnalysisResult.retiredScans`).
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
        public init(attPDUs: Int = 50_000, connections: Int = 256, scans: Int = 256, keptScans: Int = 1000) {
            self.attPDUs = attPDUs
            self.connections = connections
            self.scans = scans
            self.keptScans = keptScans
        }
    }

    /// True when closed connections or scan sessions should be handed over now.
    public var hasRetirable: Bool { hasRetirableConnections || hasRetirableScans }

    var hasRetirableConnections: Bool {
        !closedWithDetail.isEmpty
            && (closedDetailEvents >= retirement.attPDUs || closedWithDetail.count >= retirement.connections)
    }

    var hasRetirableScans: Bool { !closedScans.isEmpty && closedScans.count >= retirement.scans }

    /// A partial result for the rules that can judge part of a capture (`RuleScope`): the closed
    /// connections still holding their ATT detail (and their pairings), when due, and the closed
    /// scan sessions, when due, with the connection requests made from their start on. The
    /// connections then keep only their counts; the sessions leave `result.scans` and only their
    /// sums and start frames stay (`AnalysisResult.retiredScans`).
    public mutating func retireClosed() -> AnalysisResult {
        var part = AnalysisResult(capture: result.capture)
        if hasRetirableConnections {
            part.connections = closedWithDetail.map { result.connections[$0] }
            part.pairings = result.pairings(of: part.connections)
            for i in closedWithDetail { result.connections[i].retireDetail() }
            closedWithDetail = []
            closedDetailEvents = 0
        }
        if hasRetirableScans { retireClosedScans(into: &part) }
        return part
    }

    private mutating func retireClosedScans(into part: inout AnalysisResult) {
        let positions = closedScans.sorted()
        closedScans = []
        guard let low = positions.first else { return }
        part.scans = positions.map { result.scans[$0] }
        // ScanLeftRunning looks for requests inside each session: every request from the
        // earliest start on (attempts are in frame order).
        let firstStart = part.scans.map(\.start.frame).min() ?? 0
        var lo = 0, hi = result.attempts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if result.attempts[mid].request.frame < firstStart { lo = mid + 1 } else { hi = mid }
        }
        part.attempts = Array(result.attempts[lo...])
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
        // The sessions still held after `low` move down; the running ones' positions follow.
        let removed = Set(positions)
        var moved: [Int: Int] = [:]
        var keep: [ScanSession] = []
        for p in low..<result.scans.count where !removed.contains(p) {
            moved[p] = low + keep.count
            keep.append(result.scans[p])
        }
        result.scans.removeSubrange(low...)
        result.scans.append(contentsOf: keep)
        for (adapter, p) in activeScan { activeScan[adapter] = moved[p] ?? p }
        for i in scanState.indices { scanState[i].index = moved[scanState[i].index] ?? scanState[i].index }
    }
}
