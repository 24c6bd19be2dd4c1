import ScopeAnalysis
import ScopeCore

/// `conn.subscriptions-left-on` — guidance 5: cancel subscriptions before disconnecting.
///
/// Judges bonded connections the local host disconnected (HCI Disconnect) while acting as GATT
/// client: violated (info) when a CCCD it enabled (0x0001 notifications / 0x0002 indications) is
/// still on at the Disconnect. Remote disconnects, link loss and links ended with their
/// controller (HCI Reset, controller closed or removed) are not judged, nor links that are not
/// bonded: a server resets the CCCDs of a client that has not bonded at each connection (Core
/// v5.4 Vol 3 Part G §3.3.3.3), so a subscription left on costs nothing there.
///
/// Usual cause: `cancelPeripheralConnection(_:)` without `setNotifyValue(false, for:)` first
/// (Android: `disconnect()` without `setCharacteristicNotification(false)` and the CCCD write of
/// 0x0000; BlueZ: `StopNotify`). A bonded peripheral keeps the CCCD and may keep notifying on the
/// next connection.
package struct ConnSubscriptionsLeftOn: ItemRule {
    package static let id = "conn.subscriptions-left-on"
    package static let guidance = 5
    package static let defaultSeverity = Severity.info
    package static let summary = "The host disconnects with notifications or indications still enabled"
    package static let scope = RuleScope.connection
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Connections.
        var connections = 0
        /// LE connections.
        var leConnections = 0
        /// BR/EDR links (the rest: setup not captured, transport not shown).
        var bredr = 0
        /// Those judged.
        var judged = 0
        /// The judged connections that pass.
        var passed = ReasonList()
        /// The others, grouped by why they were left out (listed in the order of each group's
        /// first connection): each group's count and first connections named.
        var leftOut: [String: Group] = [:]

        struct Group: Sendable {
            var first: ItemKey
            var count = 0
            var named = FirstByKey<String>(capacity: 3)
        }

        /// Adds the connection at `key` to the group `why`, naming it (`name`, built only when
        /// named).
        mutating func leaveOut(_ why: String, _ key: ItemKey, _ name: () -> String) {
            var g = leftOut[why] ?? Group(first: key)
            g.first = min(g.first, key)
            g.count += 1
            g.named.insert(key, name)
            leftOut[why] = g
        }
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let analysis = view.detail
        let bonds = PairingsByLink(analysis.pairings)
        let context = PlatformContext(view.platform, config)
        t.connections += analysis.connections.count
        t.bredr += analysis.connections.reduce(0) { $0 + ($1.transport == .bredr ? 1 : 0) }
        for (i, c) in analysis.connections.enumerated() where c.isLE {
            t.leConnections += 1
            let k = key(0, Int(c.firstSeen), i)
            guard let disc = c.disconnectCommand, c.localIsGATTClient, c.bond(bonds).isBonded else {
                // Why it was left out (a long log has dozens of the same reason).
                if c.disconnectCommand != nil, !c.localIsGATTClient {
                    t.leaveOut("where the local host is not the GATT client", k) { c.label }
                } else if c.disconnectCommand != nil {
                    t.leaveOut("not bonded (\(c.bond(bonds).notBondedText)): the server resets its CCCDs at the next connection", k) { c.label }
                } else if let d = c.disconnect {
                    if let loss = c.lostWithController {
                        t.leaveOut("ended with the controller (\(loss.label))", k) { "\(c.label) (frame \(d.frame))" }
                    } else if c.disconnectReason == 0x08 {
                        t.leaveOut("ended by the link (reason 0x08)", k) { "\(c.label) (frame \(d.frame))" }
                    } else {
                        t.leaveOut("disconnected by the remote side", k) {
                            let r = c.disconnectReason.map { "reason \(Text.hex2($0)), " } ?? ""
                            return "\(c.label) (\(r)frame \(d.frame))"
                        }
                    }
                } else {
                    t.leaveOut("still connected at the end of the capture", k) { c.label }
                }
                continue
            }
            t.judged += 1
            // The host's writes before its Disconnect: the latest per CCCD, in handle order.
            let writes = c.clientConfiguration.hostWrites
            let on = writes.map(\.latest).filter { $0.value & 0x0003 != 0 }.sorted { $0.at.frame < $1.at.frame }
            let head = { "\(c.label) (\(c.peerText)): Disconnect sent at frame \(disc.frame)" }
            if on.isEmpty {
                t.passed.note(k) {
                    let offs = writes.filter(\.everEnabled).map { "\(Text.hex4($0.latest.handle)) in frame \($0.latest.at.frame)" }
                    if offs.isEmpty { return head() + ", no CCCD enabled by the host" }
                    return head() + ", every CCCD the host enabled written back to 0x0000 first (\(offs.joined(separator: ", ")))"
                }
                continue
            }
            t.finding(k, Self.defaultSeverity, actor: context.actor(c.localAttribution)) {
                let list = on.map { "\(Text.hex4($0.handle))=\(Hex.prefixed($0.value, digits: 4)) (written in frame \($0.at.frame))" }
                return finding(
                    subject: c.label,
                    shows: head() + " while CCCD(s) \(list.joined(separator: ", ")) that the host enabled were still on",
                    cause:
                        "Usually cancelPeripheralConnection(_:) without setNotifyValue(false, for:) first (Android: disconnect() without setCharacteristicNotification(false) and writing 0x0000 to the CCCD; BlueZ: StopNotify)",
                    evidence: on.map(\.at.frame) + [disc.frame, c.disconnect?.frame],
                    fix: "Turn notifications off before disconnecting.", attribution: c.localAttribution, context: context)
            }
        }
    }

    /// "BR/EDR links are not judged by LE rules", naming the links whose transport is not shown.
    static func notLE(bredr: Int, unknown: Int) -> String {
        if unknown == 0 { return "BR/EDR links are not judged by LE rules" }
        let unshown = "\(unknown) link(s) whose setup is not captured and whose transport nothing shows"
        return bredr == 0 ? unshown + ": not judged by LE rules" : "\(bredr) BR/EDR and " + unshown + ": not judged by LE rules"
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.connections > 0 else { return notEvaluated("no connection in this capture") }
        guard t.leConnections > 0 else { return notEvaluated("no LE connection in this capture (" + Self.notLE(bredr: t.bredr, unknown: t.connections - t.bredr) + ")") }
        guard t.judged > 0 else {
            // Why each was left out, grouped, the first few connections of each named.
            let named = 3
            let others = t.leftOut.sorted { $0.value.first < $1.value.first }.map { why, g in
                "\(g.count) \(why): " + g.named.values.joined(separator: ", ") + (g.count > named ? ", … \(g.count - named) more" : "")
            }
            return notEvaluated(
                "no bonded connection was disconnected by the local host as GATT client (HCI Disconnect); remote disconnects, link loss and links that are not bonded are not judged: "
                    + others.joinedBounded(separator: "; "))
        }
        if let r = end.detail.attIncompleteReason { return notEvaluated(r) }
        let notJudged = t.connections - t.judged
        return verdict(
            t.findingList,
            passReason: t.passed.joined(separator: "; ")
                + (notJudged > 0 ? " (not judged: \(notJudged) connection(s) not bonded or not disconnected by the local host)" : ""))
    }
}
