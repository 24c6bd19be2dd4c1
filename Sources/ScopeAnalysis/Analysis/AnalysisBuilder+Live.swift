import ScopeCore

extension AnalysisBuilder {
    /// What is going on right now, for a live view while recording (`capture --live`).
    public struct LiveView: Sendable, Hashable {
        public var frames: Int
        /// Controllers with a scan session running.
        public var scanningAdapters: [AdapterIndex]
        public var reports: Int
        public var devices: Int
        public var openConnections: Int
        public var connections: Int
        public var pairings: Int
        public var advertising: Bool
    }

    public var liveView: LiveView {
        LiveView(
            frames: result.capture.frames, scanningAdapters: activeScan.keys.sorted(),
            reports: result.scanTotals.reports, devices: result.devices.count,
            openConnections: openConnections.count, connections: result.connections.count + result.retired.connections,
            pairings: result.pairings.count + result.retired.pairings, advertising: !openSpans.isEmpty)
    }

    /// How many connections, scan sessions and connection requests the builder holds now (the
    /// rest were retired): what grows with a recording's length when nothing retires.
    public var held: (connections: Int, scans: Int, attempts: Int) {
        (result.connections.count, result.scans.count, result.attempts.count)
    }
}
