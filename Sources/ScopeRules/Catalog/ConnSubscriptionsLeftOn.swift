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
package struct ConnSubscriptionsLeftOn: Rule {
    package static let id = "conn.subscriptions-left-on"
    package static let guidance = 5
    package static let defaultSeverity = Severity.info
    package static let summary = "The host disconnects with notifications or indications still enabled"
    package static let scope = RuleScope.connection
    package init() {}

    package func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration) -> RuleVerdict {
        guard !analysis.connections.isEmpty else { return notEvaluated("no connection in this capture") }
        let le = analysis.connections.filter(\.isLE)
        guard !le.isEmpty else { return notEvaluated("no LE connection in this capture (BR/EDR links are not judged by LE rules)") }
        let bonds = PairingsByLink(analysis.pairings)
        let judged = le.filter { $0.disconnectCommand != nil && $0.localIsGATTClient && $0.bond(bonds).isBonded }
        guard !judged.isEmpty else {
            // Why each was left out, grouped (a long log has dozens of the same reason), the
            // first few connections of each named (only those are written out).
            let named = 3
            var groups: [(why: String, count: Int, connections: [String])] = []
            func leftOut(_ why: String, _ connection: () -> String) {
                if let i = groups.firstIndex(where: { $0.why == why }) {
                    groups[i].count += 1
                    if groups[i].connections.count < named { groups[i].connections.append(connection()) }
                } else {
                    groups.append((why, 1, [connection()]))
                }
            }
            for c in le {
                if c.disconnectCommand != nil, !c.localIsGATTClient {
                    leftOut("where the local host is not the GATT client") { c.label }
                } else if c.disconnectCommand != nil {
                    leftOut("not bonded (\(c.bond(bonds).notBondedText)): the server resets its CCCDs at the next connection") { c.label }
                } else if let d = c.disconnect {
                    if let loss = c.lostWithController {
                        leftOut("ended with the controller (\(loss.label))") { "\(c.label) (frame \(d.frame))" }
                    } else if c.disconnectReason == 0x08 {
                        leftOut("ended by the link (reason 0x08)") { "\(c.label) (frame \(d.frame))" }
                    } else {
                        leftOut("disconnected by the remote side") {
                            let r = c.disconnectReason.map { "reason \(Text.hex2($0)), " } ?? ""
                            return "\(c.label) (\(r)frame \(d.frame))"
                        }
                    }
                } else {
                    leftOut("still connected at the end of the capture") { c.label }
                }
            }
            let others = groups.map { g in
                "\(g.count) \(g.why): " + g.connections.joined(separator: ", ")
                    + (g.count > named ? ", … \(g.count - named) more" : "")
            }
            return notEvaluated(
                "no bonded connection was disconnected by the local host as GATT client (HCI Disconnect); remote disconnects, link loss and links that are not bonded are not judged: "
                    + others.joinedBounded(separator: "; "))
        }
        if let r = analysis.attIncompleteReason { return notEvaluated(r) }
        var findings = FindingList()
        let context = PlatformContext(analysis.capture.platform, config)
        var notes: [String] = []
        for c in judged {
            guard let disc = c.disconnectCommand else { continue }
            // The host's writes before its Disconnect: the latest per CCCD, in handle order.
            let writes = c.clientConfiguration.hostWrites
            let on = writes.map(\.latest).filter { $0.value & 0x0003 != 0 }.sorted { $0.at.frame < $1.at.frame }
            let head = "\(c.label) (\(c.peerText)): Disconnect sent at frame \(disc.frame)"
            if on.isEmpty {
                let offs = writes.filter(\.everEnabled).map { "\(Text.hex4($0.latest.handle)) in frame \($0.latest.at.frame)" }
                if offs.isEmpty {
                    notes.append(head + ", no CCCD enabled by the host")
                } else {
                    notes.append(head + ", every CCCD the host enabled written back to 0x0000 first (\(offs.joined(separator: ", ")))")
                }
                continue
            }
            let list = on.map { "\(Text.hex4($0.handle))=\(Hex.prefixed($0.value, digits: 4)) (written in frame \($0.at.frame))" }
            findings.append(
                finding(
                    subject: c.label,
                    shows: head + " while CCCD(s) \(list.joined(separator: ", ")) that the host enabled were still on",
                    cause:
                        "Usually cancelPeripheralConnection(_:) without setNotifyValue(false, for:) first (Android: disconnect() without setCharacteristicNotification(false) and writing 0x0000 to the CCCD; BlueZ: StopNotify)",
                    evidence: on.map(\.at.frame) + [disc.frame, c.disconnect?.frame],
                    fix: "Turn notifications off before disconnecting.", attribution: c.localAttribution, context: context))
        }
        let notJudged = analysis.connections.count - judged.count
        return verdict(
            findings,
            passReason: notes.joinedBounded(separator: "; ")
                + (notJudged > 0 ? " (not judged: \(notJudged) connection(s) not bonded or not disconnected by the local host)" : ""))
    }
}
