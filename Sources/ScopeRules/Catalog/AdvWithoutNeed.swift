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
public struct AdvWithoutNeed: Rule {
    public static let id = "adv.without-need"
    public static let guidance = 8
    public static let defaultSeverity = Severity.info
    public static let summary = "Connectable advertising stays on when no connection can or does come"
    public static let defaultThresholds: [String: ThresholdValue] = [
        "connectable_enabled_without_connection_s": .number(60)
    ]
    public init() {}

    public func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration) -> RuleVerdict {
        guard let adv = analysis.advertising, !adv.spans.isEmpty else {
            return notEvaluated("no advertising enabled by this host (not an advertiser capture)")
        }
        let connectable = adv.spans.filter(\.connectable)
        guard !connectable.isEmpty else {
            return notEvaluated("only non-connectable advertising (beacons) by this host, which is out of scope")
        }
        let limit = micros("connectable_enabled_without_connection_s", config)
        var findings = FindingList()
        var notes: [String] = []
        for span in connectable {
            let name = span.advertisingHandle.map { "connectable advertising set \($0)" } ?? "connectable advertising (\(span.api.rawValue))"
            let stopAt = span.stop ?? analysis.lastFrame ?? span.start
            let enabled = stopAt.time.microseconds - span.start.time.microseconds
            // Index loops, not `first { }` / `filter { }`: iterating yields a copy of every
            // connection (with its ATT list), per span — quadratic on long captures.
            let conns = analysis.connections
            let arrived = conns.indices.first { i in
                guard let t = conns[i].complete, conns[i].role == .peripheral else { return false }
                return t.frame > span.start.frame && t.time.microseconds - span.start.time.microseconds <= limit
            }
            // 1. Enabled while connected although the controller can't take another connection.
            if let states = adv.supportedStates {
                let overlapping = conns.indices.first { i in
                    guard let t = conns[i].complete, t.frame < span.start.frame else { return false }
                    return (conns[i].disconnect?.frame ?? Int.max) > span.start.frame
                }
                if let ci = overlapping {
                    let c = conns[ci]
                    let bit: UInt64 = c.role == .central ? 35 : 38
                    if states & (1 << bit) == 0 {
                        let stillUntil = min((c.disconnect ?? stopAt).time.microseconds, stopAt.time.microseconds)
                        findings.append(
                            finding(
                                subject: "advertising enabled at frame \(span.start.frame)",
                                shows:
                                    "\(name) enabled at frame \(span.start.frame) was enabled \(Text.seconds(stillUntil - span.start.time.microseconds)) while connected in the \(c.role.rawValue) role (connection frame \(c.complete?.frame ?? 0)) although the controller cannot accept another connection: LE Read Supported States (frame \(adv.supportedStatesFrame ?? 0)) has bit \(bit) (connectable advertising + \(c.role.rawValue) role) clear",
                                cause:
                                    "Usually the app restarts startAdvertising(_:) after a central connects (Android: startAdvertising again in onConnectionStateChange; BlueZ: the advertisement stays registered)",
                                evidence: [adv.supportedStatesFrame, c.complete?.frame, span.start.frame],
                                fix: "Stop advertising while connected when the controller can't take a second connection."))
                        continue
                    }
                }
            }
            // 2. Left on with no connection arriving within the limit.
            if enabled > limit, arrived == nil {
                let endText = span.stop == nil ? "still enabled at the last frame" : "stopped at frame \(stopAt.frame)"
                findings.append(
                    finding(
                        subject: "advertising enabled at frame \(span.start.frame)",
                        shows:
                            "\(name) enabled at frame \(span.start.frame) stayed enabled \(Text.seconds(enabled)) with no connection arriving within its first \(Text.seconds(limit)) (\(endText))",
                        cause:
                            "Usually startAdvertising(_:) with no timeout or stopAdvertising() (Android: BluetoothLeAdvertiser.startAdvertising without stopAdvertising or a timeout in AdvertisingSetParameters; BlueZ: a registered LEAdvertisement1 with no Duration/Timeout)",
                        evidence: [span.start.frame, stopAt.frame],
                        fix: "Advertise only while a connection is wanted, and stop after a timeout."))
                continue
            }
            notes.append(
                "\(name) enabled at frame \(span.start.frame): enabled \(Text.seconds(enabled))"
                    + (arrived.map { ", connection at frame \(conns[$0].complete?.frame ?? 0)" } ?? ""))
        }
        return verdict(findings, passReason: notes.joinedBounded(separator: "; "))
    }
}
