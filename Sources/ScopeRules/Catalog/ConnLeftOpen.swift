import ScopeAnalysis
import ScopeCore

/// `conn.left-open` — guidance 5: disconnect when the work is done.
///
/// Per LE connection still up when the capture ends: violated when no ACL data (either direction)
/// crossed it for more than 30 s before the last frame (measured from the connection complete
/// when there was none); passed when each carried data within its last 30 s. A link up before
/// the capture began is judged from its last data, its actor unknown. Not judged: such a link
/// that carried no data in the capture, BR/EDR links (and links whose transport the capture does
/// not show), captures without ACL data (a btsnooz summary).
///
/// Usual cause: the app keeps a peripheral connected after the exchange (no
/// `cancelPeripheralConnection(_:)`; Android: no `BluetoothGatt.disconnect()`); a link the
/// system keeps to a bonded accessory (a watch, a keyboard) is the system's.
package struct ConnLeftOpen: ItemRule {
    package static let id = "conn.left-open"
    package static let guidance = 5
    package static let defaultSeverity = Severity.warning
    package static let summary = "A connection stays up with no data until the capture ends"
    package static let defaultThresholds: [String: ThresholdValue] = ["idle_at_end_s": .number(30)]
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// LE connections still up at the end.
        var connections = 0
        /// Those judged.
        var judged = 0
        /// When each judged connection last carried data.
        var lastData = ReasonList()
        /// The connections not judged, and why.
        var notJudged = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let limit = micros("idle_at_end_s", config)
        let context = PlatformContext(view.platform, config)
        // Only the end knows which links are still up (a batch holds settled items only).
        guard let last = view.lastFrame else { return }
        for (i, c) in view.connections.enumerated() where c.isLE {
            guard case .stillUp = c.end else { continue }
            t.connections += 1
            let k = key(0, Int(c.firstSeen), i)
            guard c.idleTimeVisible(captureHoldsNoACL: view.aclFree) else {
                t.notJudged.note(k) { "\(c.label): the capture holds no ACL data (idle time cannot be seen)" }
                continue
            }
            // A link up before the capture began is judged from its last data, its actor
            // unknown (who opened it, and what for, is not in the capture: on a phone it may be
            // a system link to a watch or a keyboard); with no data at all its idle time is not
            // in the capture either.
            guard let from = c.lastPayload ?? c.complete else {
                t.notJudged.note(k) { "\(c.label): up before the capture began and carried no data in it: its idle time cannot be seen" }
                continue
            }
            let idle = last.time.microseconds - from.time.microseconds
            t.judged += 1
            guard idle > limit else {
                t.lastData.note(k) { "\(c.label): last data \(Text.seconds(idle)) before the end of the capture" }
                continue
            }
            let attribution = c.localAttribution
            t.finding(k, Self.defaultSeverity, actor: context.actor(attribution)) {
                let dataText = c.lastPayload.map { "last ACL data frame \($0.frame)" } ?? "no ACL data since the connection complete at frame \(from.frame)"
                let setup = c.complete == nil ? "; up before the capture began" : ""
                return finding(
                    subject: c.label,
                    shows: "\(c.label) (\(c.role.rawValue), \(c.peerText)) still connected when the capture ended (frame \(last.frame)), \(Text.seconds(idle)) after its last data (\(dataText)\(setup))",
                    cause:
                        "Usually the app keeps the peripheral connected after it has what it needs: no cancelPeripheralConnection(_:) (Android: BluetoothGatt.disconnect() and close(); BlueZ: Device1.Disconnect)",
                    evidence: [c.complete?.frame, c.lastPayload?.frame, last.frame],
                    fix: "Disconnect when the exchange is finished; keep a link open only while data is expected.",
                    attribution: attribution, context: context)
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.connections > 0 else { return notEvaluated("no LE connection still up at the end of the capture") }
        guard t.judged > 0 else {
            return notEvaluated("no connection still up at the end could be judged: " + t.notJudged.joined(separator: "; "))
        }
        return verdict(
            t.findingList,
            passReason: "every connection still up at the end carried data within its last \(Text.seconds(micros("idle_at_end_s", config))): "
                + t.lastData.joined(separator: "; ") + (t.notJudged.isEmpty ? "" : "; not judged: " + t.notJudged.joined(separator: "; ")))
    }
}
