import ScopeAnalysis
import ScopeCore

/// `adv.without-need` — guidance 8: advertise only when you want connections, and stop when done.
///
/// Judges connectable advertising of the local host (non-connectable beacons are out of scope).
/// Violated (info) when connectable advertising stays enabled more than 60 s with no connection
/// arriving within those 60 s; or when it is enabled while connected on a controller whose LE
/// Supported States say it cannot accept another connection in that role (bit 38: connectable
/// advertising + peripheral role; bit 35: + central role) — not judged when LE Read Supported
/// States is absent.
///
/// Usual cause: `startAdvertising(_:)` left on with nobody connecting, or restarted after a
/// central connected (Android: `BluetoothLeAdvertiser.startAdvertising` without `stopAdvertising`;
/// BlueZ: an `LEAdvertisement1` still registered). Fix: `stopAdvertising()` once connected or
/// after a timeout.
package struct AdvWithoutNeed: ItemRule {
    package static let id = "adv.without-need"
    package static let guidance = 8
    package static let defaultSeverity = Severity.info
    package static let summary = "Connectable advertising stays on when no connection can or does come"
    package static let defaultThresholds: [String: ThresholdValue] = [
        "connectable_enabled_without_connection_s": .number(60)
    ]
    package init() {}

    struct State: RuleState {
        /// The connectable spans judged on their own (no connection up at their start): their
        /// findings, and those that pass.
        var judged = FindingsAndReasons()
        var findings: FindingTally {
            get { judged.findings }
            set { judged.findings = newValue }
        }
        /// Advertising spans enabled by this host.
        var spans = 0
        /// Those connectable.
        var connectable = 0
        /// Spans enabled while a connection was up, judged by the supported states as read by
        /// the end: per state bit, the findings if it is clear (rendered at the end), and the
        /// judgement on their own if it is set (or the states were never read).
        var overlapIfClear: [UInt64: FirstByKey<SpanOverlap>] = [:]
        var overlapIfSet: [UInt64: FindingsAndReasons] = [:]

        struct SpanOverlap: Sendable {
            var attribution: ActorEvidence
            var name: String
            var start: FrameNumber
            var enabledWhileConnected: Int64
            var role: Connection.Role
            var complete: FrameNumber
        }
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let limit = micros("connectable_enabled_without_connection_s", config)
        let context = PlatformContext(view.platform, config)
        for (i, span) in view.spans.enumerated() {
            t.spans += 1
            guard span.connectable else { continue }
            t.connectable += 1
            let k = key(0, Int(span.start.frame), tie: Int(span.advertisingHandle ?? 0), i)
            // Whose advertising (iOS Continuity, Google Play services, set up with the stack
            // after a reset: the system's; docs/ATTRIBUTION.md).
            let actor = context.actor(span.attribution)
            let name = {
                span.advertisingHandle.map {
                    span.api == .androidMultiAdvertising ? "connectable multi-advertising instance \($0)" : "connectable advertising set \($0)"
                } ?? "connectable advertising (\(span.api.rawValue))"
            }
            let stopAt = span.stop ?? view.lastFrame ?? span.start
            let enabled = stopAt.time.microseconds - span.start.time.microseconds
            // The first peripheral-role connection within the limit, and the first connection up
            // at the start (recorded by the analysis as the span went).
            let arrived = span.firstArrival.flatMap { $0.time.microseconds - span.start.time.microseconds <= limit ? $0 : nil }
            // 2. (and 1. below) Left on with no connection arriving within the limit. The texts
            // are made only for the items a tally keeps.
            func judge(into tally: inout FindingsAndReasons) {
                if enabled > limit, arrived == nil {
                    tally.finding(k, Self.defaultSeverity, actor: actor) {
                        let endText = span.stop == nil ? "still enabled at the last frame" : "stopped at frame \(stopAt.frame)"
                        return finding(
                            subject: "advertising enabled at frame \(span.start.frame)",
                            shows:
                                "\(name()) enabled at frame \(span.start.frame) stayed enabled \(Text.seconds(enabled)) with no connection arriving within its first \(Text.seconds(limit)) (\(endText))",
                            cause:
                                "Usually startAdvertising(_:) with no timeout or stopAdvertising() (Android: BluetoothLeAdvertiser.startAdvertising without stopAdvertising or a timeout in AdvertisingSetParameters; BlueZ: a registered LEAdvertisement1 with no Duration/Timeout)",
                            evidence: [span.start.frame, stopAt.frame],
                            fix: "Advertise only while a connection is wanted, and stop after a timeout.", attribution: span.attribution,
                            context: context)
                    }
                } else {
                    tally.reasons.note(k) {
                        "\(name()) enabled at frame \(span.start.frame): enabled \(Text.seconds(enabled))"
                            + (arrived.map { ", connection at frame \($0.frame)" } ?? "")
                    }
                }
            }
            // 1. Enabled while connected although the controller can't take another connection:
            // decided by the supported states read by the end (the batches of a long capture are
            // judged before).
            guard let c = span.connectionAtStart else {
                judge(into: &t.judged)
                continue
            }
            let bit: UInt64 = c.role == .central ? 35 : 38
            let stillUntil = min((c.disconnect ?? stopAt).time.microseconds, stopAt.time.microseconds)
            t.overlapIfClear[bit, default: FirstByKey(capacity: FindingList.limit)].insert(k) {
                State.SpanOverlap(
                    attribution: span.attribution, name: name(), start: span.start.frame, enabledWhileConnected: stillUntil - span.start.time.microseconds, role: c.role,
                    complete: c.complete.frame)
            }
            judge(into: &t.overlapIfSet[bit, default: FindingsAndReasons()])
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.spans > 0 else {
            return notEvaluated("no advertising enabled by this host (not an advertiser capture)")
        }
        guard t.connectable > 0 else {
            return notEvaluated("only non-connectable advertising (beacons) by this host, which is out of scope")
        }
        var all = t.judged
        let states = end.advertising?.supportedStates
        let statesFrame = end.advertising?.supportedStatesFrame
        for bit: UInt64 in [35, 38] {
            if let states, states & (1 << bit) == 0 {
                guard let list = t.overlapIfClear[bit] else { continue }
                all.findings.add(list, Self.defaultSeverity) { o in
                    finding(
                        subject: "advertising enabled at frame \(o.start)",
                        shows:
                            "\(o.name) enabled at frame \(o.start) was enabled \(Text.seconds(o.enabledWhileConnected)) while connected in the \(o.role.rawValue) role (connection frame \(o.complete)) although the controller cannot accept another connection: LE Read Supported States (frame \(statesFrame ?? 0)) has bit \(bit) (connectable advertising + \(o.role.rawValue) role) clear",
                        cause:
                            "Usually the app restarts startAdvertising(_:) after a central connects (Android: startAdvertising again in onConnectionStateChange; BlueZ: the advertisement stays registered)",
                        evidence: [statesFrame, o.complete, o.start],
                        fix: "Stop advertising while connected when the controller can't take a second connection.",
                        attribution: o.attribution, context: PlatformContext(end.platform, config))
                }
            } else if let rest = t.overlapIfSet[bit] {
                all.merge(rest)
            }
        }
        return verdict(all.findingList, passReason: all.reasons.joined(separator: "; "))
    }

}
