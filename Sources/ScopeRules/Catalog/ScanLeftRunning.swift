import ScopeAnalysis
import ScopeCore

/// `scan.left-running` — guidance 1: scan only when you need to; stop once you found the peripheral.
///
/// Judges each scan session of the local host (LE Set [Extended] Scan Enable with a successful
/// Command Complete). Violated when a session runs more than 30 s with no connection request in its
/// first 30 s (stopped later or still running at the end), or stays enabled more than 2 s after the
/// host sent a connection request for an address reported during that scan.
///
/// Usual cause: `scanForPeripherals(withServices:options:)` without a matching `stopScan()` once
/// the wanted peripheral is found (Android: `BluetoothLeScanner.startScan` without `stopScan`;
/// BlueZ: `StartDiscovery` without `StopDiscovery`). Fix: call `stopScan()` in
/// `centralManager(_:didDiscover:advertisementData:rssi:)` before `connect`, and bound every scan
/// with a timer.
package struct ScanLeftRunning: ItemRule {
    package static let id = "scan.left-running"
    package static let guidance = 1
    package static let defaultSeverity = Severity.warning
    package static let summary = "A scan keeps running without need, or after the host asked to connect to a device it found"
    package static let defaultThresholds: [String: ThresholdValue] = [
        "without_connection_request_s": .number(30), "after_connection_request_s": .number(2),
    ]
    package static let scope = RuleScope.scan
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Scan sessions judged.
        var sessions = 0
        /// Each session's duration.
        var durations = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let idle = micros("without_connection_request_s", config)
        let after = micros("after_connection_request_s", config)
        let context = PlatformContext(view.platform, config)
        for (i, s) in view.detail.scans.enumerated() {
            t.sessions += 1
            let k = key(0, Int(s.start.frame), i)
            let endAt = s.stop ?? s.end
            let stopped = s.stop != nil
            func endText() -> String {
                stopped ? "stopped at frame \(endAt.frame)" : "still enabled at the last frame (\(endAt.frame))"
            }
            t.durations.note(k) { "frame \(s.start.frame): \(Text.seconds(s.durationMicros))" }
            // The analysis notes the requests made while the session ran.
            if s.durationMicros > idle, !(s.firstRequest.map { $0.time <= endAt.time && $0.time.microseconds - s.start.time.microseconds <= idle } ?? false) {
                t.finding(k, Self.defaultSeverity, actor: context.actor(s.attribution)) {
                    ranWithoutRequest(s, idle: idle, end: endText(), endAt: endAt, context: context)
                }
                continue
            }
            if let r = s.requestToFoundPeer, r.request.time <= endAt.time {
                let lingering = endAt.time.microseconds - r.request.time.microseconds
                if lingering > after {
                    t.finding(k, Self.defaultSeverity, actor: context.actor(s.attribution)) {
                        stayedAfterRequest(
                            s, peer: r.peer, reported: r.reported, request: r.request, lingering: lingering, end: endText(), endAt: endAt,
                            context: context)
                    }
                }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.sessions > 0 else {
            return notEvaluated(
                "no scan session (LE Set Scan Enable / LE Set Extended Scan Enable = 1 with a successful Command Complete) in this capture"
            )
        }
        let idle = micros("without_connection_request_s", config)
        let after = micros("after_connection_request_s", config)
        return verdict(
            t.findingList,
            passReason:
                "no scan session ran more than \(Text.seconds(idle)) without a connection request, and none stayed enabled more than \(Text.seconds(after)) after a connection request for a device it reported (sessions \(t.durations.joined(separator: ", ")))"
        )
    }

    /// The session ran longer than `idle` with no connection request in its first `idle`.
    private func ranWithoutRequest(_ s: ScanSession, idle: Int64, end: String, endAt: FrameTime, context: PlatformContext) -> Finding {
        finding(
            subject: "scan session at frame \(s.start.frame)",
            shows:
                "scan started at frame \(s.start.frame)\(s.resumptionText) ran more than \(Text.seconds(idle)) with no connection request in its first \(Text.seconds(idle)) (\(end), \(Text.seconds(s.durationMicros)) after it started)",
            cause:
                "Usually the app called scanForPeripherals(withServices:options:) and never stopScan() (Android: BluetoothLeScanner.startScan without stopScan; BlueZ: StartDiscovery without StopDiscovery)",
            evidence: [s.start.frame, endAt.frame],
            fix: "Stop scanning once the peripheral is found, and bound every scan with a timer.", attribution: s.attribution, context: context)
    }

    /// The session stayed enabled `lingering` µs after a connection request to a peer it reported.
    private func stayedAfterRequest(
        _ s: ScanSession, peer: BDAddr, reported: FrameTime, request: FrameTime, lingering: Int64, end: String, endAt: FrameTime,
        context: PlatformContext
    ) -> Finding {
        finding(
            subject: "scan session at frame \(s.start.frame)",
            shows:
                "scan started at frame \(s.start.frame)\(s.resumptionText) was still enabled when the host requested a connection to \(peer) (reported in frame \(reported.frame)) at frame \(request.frame), and \(end), \(Text.seconds(lingering)) after it",
            cause:
                "Usually stopScan() is not called in centralManager(_:didDiscover:advertisementData:rssi:) before connect(_:options:) (Android: stopScan before connectGatt)",
            evidence: [s.start.frame, reported.frame, request.frame, endAt.frame],
            fix: "Call stopScan() as soon as the wanted peripheral is discovered.", attribution: s.attribution, context: context)
    }
}
