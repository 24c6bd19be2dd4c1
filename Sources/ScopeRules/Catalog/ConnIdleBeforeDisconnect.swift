import ScopeAnalysis
import ScopeCore

/// `conn.idle-before-disconnect` — guidance 5: disconnect when you have what you need.
///
/// Per connection: violated when more than 10 s pass without any ACL data (either direction, SMP
/// included) before the Disconnection Complete, or before the end of the capture while still
/// connected (measured from the Connection Complete when there was no data); or when the link ends
/// by supervision timeout (0x08), which keeps both radios busy until the timeout expires.
///
/// Usual cause: no `cancelPeripheralConnection(_:)` once the work is done, or a peripheral left
/// connected "in case" (Android: missing `BluetoothGatt.disconnect()`/`close()`; BlueZ: no
/// `Disconnect`). A supervision timeout usually means the peer walked away or was powered off
/// without a clean disconnect.
public struct ConnIdleBeforeDisconnect: ItemRule {
    public static let id = "conn.idle-before-disconnect"
    public static let guidance = 5
    public static let defaultSeverity = Severity.warning
    public static let summary = "A connection stays up with no data before it ends, or ends by supervision timeout"
    public static let defaultThresholds: [String: ThresholdValue] = [
        "idle_s": .number(10), "supervision_timeout_reason": .text("0x08"),
    ]
    public init() {}

    func tally(_ view: ItemView, config: RuleConfiguration) -> ItemTally {
        let limit = micros("idle_s", config)
        let timeoutReason = reasonCode(config)
        var t = ItemTally()
        for (i, c) in view.connections.enumerated() {
            t.tick(0)
            let k = key(0, Int(c.firstSeen), i)
            let who = "\(c.label) (\(c.role.rawValue), \(c.peerText))"
            if let reason = c.disconnectReason, reason == timeoutReason, let d = c.disconnect {
                t.finding(k, Self.defaultSeverity) {
                    finding(
                        subject: c.label,
                        shows: "\(who) ended by supervision timeout (reason \(Text.hex2(reason)), frame \(d.frame))",
                        cause:
                            "The link was lost rather than closed: the peer went out of range or was switched off, or the app never called cancelPeripheralConnection(_:) (Android: BluetoothGatt.disconnect()) before the peer stopped answering",
                        evidence: [c.lastPayload?.frame, d.frame],
                        fix: "Disconnect explicitly when done; expect link loss and don't count on it to end connections.")
                }
                continue
            }
            guard let from = c.lastPayload ?? c.complete else {
                t.note(1, k) { "\(c.label): setup not captured and no ACL data" }
                continue
            }
            guard let until = c.disconnect ?? view.lastFrame else { continue }
            let idle = until.time.microseconds - from.time.microseconds
            if idle > limit {
                t.finding(k, Self.defaultSeverity) {
                    let dataText = c.lastPayload.map { "last ACL data frame \($0.frame)" } ?? "no ACL data since the connection complete at frame \(from.frame)"
                    let endText: String
                    if let d = c.disconnect, let loss = c.lostWithController {
                        endText = "before the \(loss.label) that ended it (frame \(d.frame))"
                    } else if let d = c.disconnect {
                        endText = "before the Disconnection Complete (frame \(d.frame)"
                            + (c.disconnectReason.map { ", reason \(Text.hex2($0))" } ?? "") + ")"
                    } else {
                        endText = "before the end of the capture (still connected)"
                    }
                    return finding(
                        subject: c.label,
                        shows: "\(who): \(Text.seconds(idle)) without ACL data (\(dataText)) \(endText)",
                        cause:
                            "Usually the app keeps the peripheral connected after it has what it needs: no cancelPeripheralConnection(_:) (Android: BluetoothGatt.disconnect() and close(); BlueZ: Device1.Disconnect)",
                        evidence: [c.lastPayload?.frame ?? from.frame, c.disconnectCommand?.frame, until.frame],
                        fix: "Disconnect when the exchange is finished or when notifications stop.")
                }
            } else {
                t.note(0, k) { "\(who): idle tail \(Text.seconds(idle))" }
            }
        }
        return t
    }

    func verdict(_ t: ItemTally, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.count(0) > 0 else { return notEvaluated("no connection in this capture") }
        let findings = t.findingList
        if findings.isEmpty && t.isEmpty(list: 0) {
            return notEvaluated("no connection could be judged: " + t.joined(1, separator: "; "))
        }
        return verdict(
            findings,
            passReason: t.joined(0, separator: "; ")
                + " (idle tail = last ACL data frame, either direction -> Disconnection Complete, or -> last frame while still connected)"
                + (t.isEmpty(list: 1) ? "" : "; not judged: " + t.joined(1, separator: "; ")))
    }

    private func reasonCode(_ config: RuleConfiguration) -> UInt8 {
        switch config.threshold(rule: Self.id, key: "supervision_timeout_reason") {
        case .text(let t):
            let s = t.lowercased().hasPrefix("0x") ? String(t.dropFirst(2)) : t
            return UInt8(s, radix: t.lowercased().hasPrefix("0x") ? 16 : 10) ?? 0x08
        case .number(let d) where d >= 0 && d <= 255: return UInt8(d)
        default: return 0x08
        }
    }
}
