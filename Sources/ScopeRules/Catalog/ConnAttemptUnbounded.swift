import ScopeAnalysis
import ScopeCore

/// `conn.attempt-unbounded` — guidance 7: connection attempts do not time out by themselves; the
/// app must bound them.
///
/// Per LE Create Connection / LE Extended Create Connection: violated when the request is neither
/// completed nor cancelled within 10 s (a request still pending at the end of the capture counts
/// up to the last frame). An unbounded attempt keeps the initiator scanning at full duty.
///
/// Usual cause: `connect(_:options:)` with no timer that calls `cancelPeripheralConnection(_:)`
/// (Android: `connectGatt` with autoConnect=false gives up after ~30 s by itself, with
/// autoConnect=true never; BlueZ: `Device1.Connect` without a timeout).
package struct ConnAttemptUnbounded: ItemRule {
    package static let id = "conn.attempt-unbounded"
    package static let guidance = 7
    package static let defaultSeverity = Severity.warning
    package static let summary = "A connection attempt runs without a bound"
    package static let defaultThresholds: [String: ThresholdValue] = ["pending_s": .number(10)]
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Connection requests judged.
        var requests = 0
        /// The requests that pass.
        var answered = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let limit = micros("pending_s", config)
        let context = PlatformContext(view.platform, config)
        for (i, a) in view.attempts.enumerated() {
            t.requests += 1
            // The earliest of its ends (no array per attempt).
            var end: FrameTime?
            for e in [a.cancel, a.complete, a.supersededAt] {
                if let e, end.map({ e < $0 }) ?? true { end = e }
            }
            guard let endAt = end ?? view.lastFrame else { continue }
            let waited = endAt.time.microseconds - a.request.time.microseconds
            // Made only for the items the tally keeps.
            func line() -> String {
                let peer = a.peer.map { "peer \($0)" } ?? "filter accept list"
                let how: String
                if let e = end {
                    if e == a.cancel {
                        how = "cancelled at frame \(e.frame)"
                    } else if let loss = a.lostWithController {
                        how = "ended by the \(loss.label) at frame \(e.frame)"
                    } else if e == a.supersededAt {
                        how = "no longer pending when the controller accepted a later request (frame \(e.frame)), its answer not captured,"
                    } else {
                        how = "completed at frame \(e.frame)"
                    }
                } else {
                    how = "still pending at the last frame (\(view.lastFrame?.frame ?? a.request.frame))"
                }
                return "connection request at frame \(a.request.frame) (\(peer)) \(how) after \(Text.seconds(waited))"
            }
            let k = key(0, Int(a.request.frame), i)
            let actor = context.actor(a.attribution)
            if waited > limit, a.peer == nil {
                // A filter-accept-list request: a background connection the stack holds until a
                // listed device comes back. The system's own (iOS bluetoothd, BlueZ, Android
                // after a reset: ActorSignal.requestAcceptList*) or the app's (Android
                // autoConnect); graded info either way.
                t.finding(k, .info, actor: actor) {
                    let android = context.platform == .android && actor == .app
                    let cause: String
                    switch actor {
                    case .os:
                        cause = "The host stack's own background reconnection (\(a.attribution.description)): it keeps the request pending until a known device comes back"
                    case .app where android:
                        cause = "Usual cause on Android: BluetoothDevice.connectGatt(context, autoConnect = true, callback): the app asked for a background connection that the stack keeps pending (on the accept list) until the device comes back"
                    default:
                        cause = "The capture cannot tell whether the app or the host stack asked for this background (accept-list) connection; stacks keep such requests pending until a listed device comes back, so it is graded info"
                    }
                    return finding(
                        .info, subject: "connection request at frame \(a.request.frame)",
                        shows: line() + " -> a filter-accept-list connection neither completed nor cancelled within \(Text.seconds(limit))",
                        cause: cause,
                        evidence: [a.request.frame, a.cancel?.frame, a.complete?.frame, a.supersededAt?.frame, end == nil ? endAt.frame : nil],
                        fix: android
                            ? "Keep autoConnect = true only while the reconnection is wanted; call BluetoothGatt.disconnect() and close() when it is not."
                            : "If the app asked for it, cancel it when the reconnection is no longer wanted.",
                        platform: android || actor == .os ? context.platform : nil, attribution: a.attribution, context: context)
                }
            } else if waited > limit {
                t.finding(k, Self.defaultSeverity, actor: actor) {
                    finding(
                        subject: "connection request at frame \(a.request.frame)",
                        shows: line() + " -> neither completed nor cancelled within \(Text.seconds(limit))",
                        cause:
                            "Usually connect(_:options:) with no timer: Core Bluetooth connection attempts never time out, so the app must call cancelPeripheralConnection(_:) itself (Android: connectGatt(autoConnect=true) waits forever; BlueZ: Device1.Connect without a timeout)",
                        evidence: [a.request.frame, a.cancel?.frame, a.complete?.frame, a.supersededAt?.frame, end == nil ? endAt.frame : nil],
                        fix: "Start a timer with every connect and cancel the attempt when it fires.", attribution: a.attribution,
                        context: context)
                }
            } else {
                t.answered.note(k) { line() }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.requests > 0 else {
            return notEvaluated("no LE Create Connection / LE Extended Create Connection by this host")
        }
        let limit = micros("pending_s", config)
        let v = verdict(
            t.findingList,
            passReason:
                "no connection request by the app went \(Text.seconds(limit)) without being completed or cancelled (a request still pending at the end counts up to the last frame): "
                + t.answered.joined(separator: "; "))
        return v
    }

}
