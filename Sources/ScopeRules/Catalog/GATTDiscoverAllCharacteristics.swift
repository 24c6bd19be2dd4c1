import ScopeAnalysis
import ScopeCore
import ScopeDecode

/// `gatt.discover-all-characteristics` — guidance 3: discover only the characteristics you need.
///
/// Per service (GAP/GATT excluded) in which characteristics or descriptors were discovered:
/// violated (info) when none of its characteristics is used afterwards. Reads made in a
/// "just in case" sweep (every readable characteristic read once right after discovery) are not
/// uses. Findings say `remote` when the peer is the GATT client.
///
/// Usual cause: `discoverCharacteristics(nil, for:)` and `discoverDescriptors(for:)` on every
/// service, often followed by reading every value (Android: iterating `getServices()` and
/// `readCharacteristic` on each). Fix: pass the characteristic UUIDs you use, only for services you use.
package struct GATTDiscoverAllCharacteristics: ItemRule {
    package static let id = "gatt.discover-all-characteristics"
    package static let guidance = 3
    package static let defaultSeverity = Severity.info
    package static let summary = "Characteristics are discovered in services that are never used"
    package static let scope = RuleScope.connection
    package static let defaultThresholds: [String: ThresholdValue] = [
        "reads_that_count_as_use": .number(1), "just_in_case_sweep_reads_count": .bool(false), "observation_s": .number(10),
    ]
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Connections with characteristic or descriptor discovery.
        var connections = 0
        /// Those not judged because the capture ends right after.
        var cutShort = 0
        /// The services used, and the connections not judged.
        var notes = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let analysis = view.detail, facts = view.facts
        let context = PlatformContext(view.platform, config)
        let window = micros("observation_s", config)
        for (i, c) in analysis.connections.enumerated() {
            // Each server of a connection whose characteristics were discovered: the remote
            // device's (by the local client), the local one's (by the peer).
            guard c.gatt.discoveryProcedures.discoversCharacteristics || c.localGATT.discoveryProcedures.discoversCharacteristics else { continue }
            t.connections += 1
            var sub = 0
            func nextKey() -> ItemKey {
                defer { sub += 1 }
                return key(0, Int(c.firstSeen), i, sub)
            }
            let usage = facts.usage(analysis, i, config: config)
            // The capture stopped right after the discovery, with the link up: the use that may
            // follow is not in it.
            if c.cutShort(after: c.discoveryEnd, window: window, captureEnd: analysis.capture.lastTimestamp) {
                t.notes.note(nextKey()) {
                    "\(c.label): not judged, the capture ends less than \(Text.seconds(window)) after the discovery with the link still up"
                }
                t.cutShort += 1
                continue
            }
            for server in [GATTServerSide.remote, .local] {
                let db = c.database(server)
                for s in db.services where !s.isGAPOrGATT {
                    // The characteristic and descriptor discovery requests in the service: the first,
                    // and how many of each.
                    guard s.start <= s.end else { continue }
                    let (firstChars, chars) = db.discoveryProcedures.characteristicRequests(startingIn: s.start...s.end)
                    let (firstDescs, descs) = db.discoveryProcedures.descriptorRequests(startingIn: s.start...s.end)
                    let firsts = [firstChars, firstDescs].compactMap { $0 }
                    guard let first = firsts.min(by: { $0.request.frame < $1.request.frame }) else { continue }
                    let client = first.client
                    func what() -> String {
                        "\(Text.uuid(s.uuid.compactString)) (\(c.label), \(Text.side(client)) client, \(chars) characteristic discovery request\(chars == 1 ? "" : "s")"
                            + (descs > 0 ? ", \(descs) descriptor discovery request\(descs == 1 ? "" : "s")" : "")
                            + " from frame \(first.request.frame))"
                    }
                    if let use = usage.firstUse(in: s, server: server) {
                        t.notes.note(nextKey()) { "\(what()): \(use.text)" }
                        continue
                    }
                    // Android's discoverServices() discovers every characteristic and descriptor by
                    // itself (ActorSignal.stackDiscovery); elsewhere the app asks per service.
                    let attribution =
                        client == .remote ? ActorEvidence(.remoteClient, frame: first.request.frame)
                        : context.platform == .android ? ActorEvidence(.stackDiscovery, frame: first.request.frame) : c.localAttribution
                    t.finding(nextKey(), Self.defaultSeverity, actor: context.actor(attribution)) {
                        let swept = usage.sweepReads.filter { $0.server == server }.compactMap(\.handle).filter { s.start <= $0 && $0 <= s.end }
                        let sweepText =
                            swept.isEmpty ? "" : " (\(swept.map { Text.hex4($0) }.joined(separator: ", ")) read only in the just-in-case sweep)"
                        return finding(
                            subject: c.label + " service \(Text.uuid(s.uuid.compactString))" + (client == .remote ? " (remote GATT client)" : ""),
                            shows: "characteristics/descriptors discovered in \(what()): no characteristic used afterwards\(sweepText)",
                            cause: client == .remote
                                ? "The peer (remote GATT client) discovers characteristics it never uses"
                                : "Usually discoverCharacteristics(nil, for:) / discoverDescriptors(for:) on every discovered service, or reading every value once \"just in case\" (Android: walking getServices() and reading each characteristic)",
                            evidence: [first.request.frame],
                            fix: "Discover characteristics only in services you use, passing their UUIDs.", attribution: attribution,
                            context: context)
                    }
                }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.connections > 0 else {
            if let r = end.detail.attIncompleteReason { return notEvaluated(r) }
            return notEvaluated("no characteristic or descriptor discovery in this capture")
        }
        let findings = t.findingList
        if findings.isEmpty, t.cutShort == t.connections { return notEvaluated(t.notes.joined(separator: "; ")) }
        return verdict(
            findings,
            passReason: "characteristic/descriptor discovery only in services with a characteristic used afterwards: "
                + (t.notes.isEmpty ? "none attributed to a discovered service" : t.notes.joined(separator: "; ")))
    }
}
