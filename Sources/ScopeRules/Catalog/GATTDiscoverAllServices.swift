import ScopeAnalysis
import ScopeCore
import ScopeDecode

/// `gatt.discover-all-services` — guidance 3: discover only the services you need (pass UUIDs).
///
/// Per connection with primary service discovery: violated when the GATT client discovered
/// services over the full handle range (Read By Group Type 0x0001–0xFFFF) and fewer than half of
/// the discovered services (GAP 0x1800 and GATT 0x1801 never count) have a characteristic used
/// afterwards (written, subscribed, notified/indicated, or read outside a just-in-case sweep).
/// Findings say `remote` when the peer is the GATT client.
///
/// Usual cause: `discoverServices(nil)` (Android: `BluetoothGatt.discoverServices()`, which always
/// discovers everything — prefer caching; BlueZ discovers the whole database itself). Fix: pass the
/// service UUIDs you use to `discoverServices(_:)`.
package struct GATTDiscoverAllServices: ItemRule {
    package static let id = "gatt.discover-all-services"
    package static let guidance = 3
    package static let defaultSeverity = Severity.warning
    package static let summary = "All primary services are discovered but most are never used"
    package static let scope = RuleScope.connection
    package static let defaultThresholds: [String: ThresholdValue] = [
        "used_fraction": .number(0.5), "reads_that_count_as_use": .number(1), "just_in_case_sweep_reads_count": .bool(false),
        "observation_s": .number(10),
    ]
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Servers whose primary services were discovered.
        var servers = 0
        /// Those not judged because the capture ends right after.
        var cutShort = 0
        /// What was found of each.
        var notes = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let analysis = view.detail, facts = view.facts
        // Each server of a connection discovered: the remote device's (by the local client), the
        // local one's (by the peer).
        func discovered(_ db: GATTServerView) -> Bool {
            !db.discoveryProcedures.allPrimaryServices.isEmpty || !db.discoveryProcedures.primaryServicesByUUID.isEmpty
        }
        let fraction = number("used_fraction", config)
        let window = micros("observation_s", config)
        let context = PlatformContext(view.platform, config)
        for (i, c) in analysis.connections.enumerated() {
            for (sub, server) in [GATTServerSide.remote, .local].enumerated() {
                let db = c.database(server)
                guard discovered(db) else { continue }
                t.servers += 1
                let k = key(0, Int(c.firstSeen), i, sub)
                let requests = db.discoveryProcedures.allPrimaryServices
                let all = requests.kept
                let fullRange = all.contains { $0.startHandle == 0x0001 && $0.endHandle == 0xFFFF }
                guard fullRange else {
                    t.notes.note(k) {
                        let clients = Set(db.discoveryProcedures.primaryServicesByUUID.kept.map(\.client))
                        let who = clients.map { Text.side($0) }.sorted().joined(separator: "/")
                        return "\(c.label): primary services discovered by UUID only (Find By Type Value) by the \(who) GATT client"
                    }
                    continue
                }
                let client = all.first?.client ?? .unknown
                // The capture stopped right after the discovery, with the link up: the use that may
                // follow is not in it.
                if c.cutShort(after: c.discoveryEnd ?? all.last?.request, window: window, captureEnd: analysis.capture.lastTimestamp) {
                    t.notes.note(k) {
                        "\(c.label): not judged, the capture ends less than \(Text.seconds(window)) after the discovery with the link still up"
                    }
                    t.cutShort += 1
                    continue
                }
                let usage = facts.usage(analysis, i, config: config)
                let counted = db.services.filter { $0.isPrimary && !$0.isGAPOrGATT }
                let used = counted.compactMap { s in usage.firstUse(in: s, server: server).map { (service: s, use: $0) } }
                // The first requests' frames and the last one's (the list keeps the first ones only).
                let frames = all.map(\.request.frame) + (requests.isComplete ? [] : [requests.last?.request.frame].compactMap { $0 })
                func head() -> String {
                    let usedText = used.map { "\(Text.uuid($0.service.uuid.compactString)): \($0.use.text)" }.joined(separator: ", ")
                    return "\(c.label): \(counted.count) primary services discovered over 0x0001-0xFFFF by the \(Text.side(client)) GATT client (frames \(frames.min() ?? 0)-\(frames.max() ?? 0); 1800, 1801 not counted), \(used.count) with a characteristic used afterwards"
                        + (used.isEmpty ? "" : " (\(usedText))")
                }
                // The full range is the host stack's own procedure on iOS, Android and BlueZ
                // (ActorSignal.stackDiscovery); the remote client's is the peer's.
                let attribution = client == .remote ? ActorEvidence(.remoteClient, frame: frames.min()) : ActorEvidence(.stackDiscovery, frame: frames.min())
                if !counted.isEmpty, Double(used.count) < fraction * Double(counted.count) {
                    t.finding(k, Self.defaultSeverity, actor: context.actor(attribution)) {
                        finding(
                            subject: c.label + (client == .remote ? " (remote GATT client)" : ""),
                            shows: head() + " -> fewer than half of the discovered services used",
                            cause: client == .remote
                                ? "The peer (remote GATT client) discovers the whole database; on iOS this is discoverServices(nil), on Android BluetoothGatt.discoverServices()"
                                : "Usually discoverServices(nil) instead of discoverServices([CBUUID]) with the services the app uses (Android's discoverServices() always discovers everything: cache the result)",
                            evidence: frames,
                            fix: "Pass the service UUIDs you need to discoverServices(_:).", attribution: attribution, context: context)
                    }
                } else {
                    t.notes.note(k) { head() + " -> at least half of the discovered services used" }
                }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.servers > 0 else {
            if let r = end.detail.attIncompleteReason { return notEvaluated(r) }
            return notEvaluated("no primary service discovery (Read By Group Type or Find By Type Value for 0x2800) in this capture")
        }
        let findings = t.findingList
        if findings.isEmpty, t.cutShort == t.servers { return notEvaluated(t.notes.joined(separator: "; ")) }
        return verdict(findings, passReason: t.notes.joined(separator: "; "))
    }
}
