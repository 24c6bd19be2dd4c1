import ScopeCore

extension AnalysisBuilder {
    /// What is going on right now, for a live view while recording (`capture --live`).
    package struct LiveView: Sendable, Hashable {
        package var frames: Int
        /// Controllers with a scan session running.
        package var scanningAdapters: [AdapterIndex]
        package var reports: Int
        package var devices: Int
        package var openConnections: Int
        package var connections: Int
        package var pairings: Int
        package var advertising: Bool
    }

    package var liveView: LiveView {
        LiveView(
            frames: capture.info.frames, scanningAdapters: scans.active.keys.sorted(),
            reports: scans.totals.reports, devices: scans.advertisers.heard,
            openConnections: links.open.count, connections: links.connections.created, pairings: pairing.pairings.created,
            advertising: !advertising.openSpans.isEmpty)
    }

    /// How many connections, scan sessions, connection requests and advertisers the builder holds
    /// now (the rest were handed over or left): what grows with a recording's length when nothing
    /// hands over.
    package var held: (connections: Int, scans: Int, attempts: Int, devices: Int) {
        (links.connections.count, scans.sessions.count, links.attempts.count, scans.advertisers.held)
    }
}
