import ScopeCore

/// Flat memory on long captures: the ATT detail of closed connections (every ATT PDU, the GATT
/// database, CCCD writes) is what grows with a capture. The driver of the analysis hands it, a
/// batch of closed connections at a time, to the rules that judge it (`RuleAccumulator` in
/// ScopeRules) and the connections keep only their counts (`Connection.retired`).
///
/// Captures below the thresholds never retire anything: their analysis is exactly what
/// `finish()` would give without retirement.
extension AnalysisBuilder {
    public struct Retirement: Sendable {
        /// Retire once the closed connections hold this many ATT PDUs (40 bytes each)…
        public var attPDUs: Int
        /// …or once this many closed connections hold their detail.
        public var connections: Int
        public init(attPDUs: Int = 50_000, connections: Int = 256) {
            self.attPDUs = attPDUs
            self.connections = connections
        }
    }

    /// True when closed connections should be handed over now.
    public var hasRetirableConnections: Bool {
        !closedWithDetail.isEmpty
            && (closedDetailEvents >= retirement.attPDUs || closedWithDetail.count >= retirement.connections)
    }

    /// The closed connections still holding their ATT detail (and their pairings), as a partial
    /// result for the connection rules; the connections then keep only their counts.
    public mutating func retireClosedConnections() -> AnalysisResult {
        var part = AnalysisResult(capture: result.capture)
        part.connections = closedWithDetail.map { result.connections[$0] }
        part.pairings = result.pairings(of: part.connections)
        for i in closedWithDetail { result.connections[i].retireDetail() }
        closedWithDetail = []
        closedDetailEvents = 0
        return part
    }
}
