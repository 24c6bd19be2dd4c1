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
            frames: result.capture.frames, scanningAdapters: scans.active.keys.sorted(),
            reports: scans.totals.reports, devices: scans.devicesHeard,
            openConnections: links.open.count, connections: links.connections.created, pairings: pairing.pairings.created,
            advertising: !advertising.openSpans.isEmpty)
    }

    /// How many connections, scan sessions, connection requests and advertisers the builder holds
    /// now (the rest were handed over or left): what grows with a recording's length when nothing
    /// hands over.
    public var held: (connections: Int, scans: Int, attempts: Int, devices: Int) {
        (links.connections.count, scans.sessions.count, links.attempts.count, scans.heldDevices)
    }
}
