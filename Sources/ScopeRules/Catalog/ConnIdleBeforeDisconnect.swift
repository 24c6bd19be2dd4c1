import ScopeAnalysis
import ScopeCore

/// `conn.idle-before-disconnect` — guidance 5: disconnect when you have what you need.
///
/// Per LE connection that one side chose to end (a Disconnection Complete with a reason other
/// than a lost link, or the local host resetting or closing its controller): violated when more than 10 s pass without any ACL data (either direction,
/// SMP included) before the Disconnection Complete (measured from the connection complete when
/// there was no data). Not judged: links lost (0x08 Connection Timeout, 0x3E: `conn.link-lost`),
/// links still up at the end of the capture (`conn.left-open`), a controller that went away,
/// BR/EDR links, and captures without ACL data (a btsnooz summary), where idle time cannot be seen.
///
/// Usual cause: no `cancelPeripheralConnection(_:)` once the work is done, or a peripheral left
/// connected "in case" (Android: missing `BluetoothGatt.disconnect()`/`close()`; BlueZ: no
/// `Disconnect`); when the peer ended it, the peer's idle timer.
package struct ConnIdleBeforeDisconnect: ItemRule {
    package static let id = "conn.idle-before-disconnect"
    package static let guidance = 5
    package static let defaultSeverity = Severity.warning
    package static let summary = "A connection stays up with no data before one side disconnects it"
    package static let defaultThresholds: [String: ThresholdValue] = [
        "idle_s": .number(10), "supervision_timeout_reason": .text("0x08"),
    ]
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Connections.
        var connections = 0
        /// The idle tail of each connection judged.
        var idleTails = ReasonList()
        /// The connections not judged, and why.
        var notJudged = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let limit = micros("idle_s", config)
        let context = PlatformContext(view.platform, config)
        for (i, c) in view.connections.enumerated() {
            t.connections += 1
            let k = key(0, Int(c.firstSeen), i)
            guard c.isLE else {
                t.notJudged.note(k) {
                    c.transport == .bredr ? "\(c.label): BR/EDR link (not judged by LE rules)"
                        : "\(c.label): setup not captured, and nothing on the link shows whether it is LE or BR/EDR"
                }
                continue
            }
            let end = c.end
            guard end.isChosen, let d = end.at else {
                t.notJudged.note(k) { "\(c.label): \(end.label)" + (end.at.map { " (frame \($0.frame))" } ?? "") }
                continue
            }
            guard c.idleTimeVisible(captureHoldsNoACL: view.aclFree) else {
                t.notJudged.note(k) { "\(c.label): the capture holds no ACL data (idle time cannot be seen)" }
                continue
            }
            guard let from = c.lastPayload ?? c.complete else {
                t.notJudged.note(k) { "\(c.label): setup not captured and no ACL data" }
                continue
            }
            let idle = d.time.microseconds - from.time.microseconds
            let local: Bool
            switch end {
            case .localDisconnect, .controllerLost: local = true
            default: local = false
            }
            let attribution =
                !local ? ActorEvidence(.remoteEnded, frame: d.frame)
                : c.disconnectCommandReason == 0x15 ? ActorEvidence(.localPowerOff, frame: c.disconnectCommand?.frame)
                : c.localAttribution
            let who = { "\(c.label) (\(c.role.rawValue), \(c.peerText))" }
            if idle > limit {
                t.finding(k, Self.defaultSeverity, actor: context.actor(attribution)) {
                    let dataText = c.lastPayload.map { "last ACL data frame \($0.frame)" } ?? "no ACL data since the connection complete at frame \(from.frame)"
                    let endText: String
                    if let loss = c.lostWithController {
                        endText = "before the \(loss.label) that ended it (frame \(d.frame))"
                    } else {
                        endText = "before the \(local ? "local host" : "remote device") disconnected it (Disconnection Complete frame \(d.frame)"
                            + (c.disconnectReason.map { ", reason \(Text.hex2($0))" } ?? "") + ")"
                    }
                    return finding(
                        subject: c.label,
                        shows: "\(who()): \(Text.seconds(idle)) without ACL data (\(dataText)) \(endText)",
                        cause: local
                            ? "Usually the app keeps the peripheral connected after it has what it needs: no cancelPeripheralConnection(_:) (Android: BluetoothGatt.disconnect() and close(); BlueZ: Device1.Disconnect)"
                            : "The peer waited this long before ending the idle link; the local side could have disconnected as soon as it had what it needed",
                        evidence: [c.lastPayload?.frame ?? from.frame, c.disconnectCommand?.frame, d.frame],
                        fix: local
                            ? "Disconnect when the exchange is finished or when notifications stop."
                            : "Disconnect from the app once the exchange is done, or shorten the peer's idle timeout.",
                        attribution: attribution, context: context)
                }
            } else {
                t.idleTails.note(k) { "\(who()): idle tail \(Text.seconds(idle))" }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.connections > 0 else { return notEvaluated("no connection in this capture") }
        let findings = t.findingList
        if findings.isEmpty && t.idleTails.isEmpty {
            return notEvaluated("no connection that one side chose to disconnect could be judged: " + t.notJudged.joined(separator: "; "))
        }
        return verdict(
            findings,
            passReason: t.idleTails.joined(separator: "; ")
                + " (idle tail = last ACL data frame, either direction -> Disconnection Complete)"
                + (t.notJudged.isEmpty ? "" : "; not judged: " + t.notJudged.joined(separator: "; ")))
    }
}
