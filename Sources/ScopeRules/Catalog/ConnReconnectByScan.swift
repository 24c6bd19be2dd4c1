import ScopeAnalysis
import ScopeCore

/// `conn.reconnect-by-scan` — guidance 6: reconnect to a known peripheral directly before falling
/// back to scanning.
///
/// Judges connection requests to an address already connected earlier in the capture: violated
/// (info) when the host started a scan after the earlier connection to that address ended and
/// before the next connection request to it. (A peer that changes its resolvable private address
/// is recognised when the capture distributed its IRK — SMP Identity Information — which the
/// analysis uses to resolve it.)
///
/// Usual cause: scanning again instead of `retrievePeripherals(withIdentifiers:)` /
/// `retrieveConnectedPeripherals(withServices:)` and `connect(_:options:)`, which waits for the
/// peripheral without a scan (Android: `getRemoteDevice(address)` + `connectGatt(autoConnect=true)`;
/// BlueZ: `Device1.Connect` on the known device).
public struct ConnReconnectByScan: Rule {
    public static let id = "conn.reconnect-by-scan"
    public static let guidance = 6
    public static let defaultSeverity = Severity.info
    public static let summary = "The host scans again to reconnect to a peripheral it already knows"
    public init() {}

    public func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration) -> RuleVerdict {
        var findings = FindingList()
        var notes: [String] = []
        // Earlier connections that ended, by peer, each paired with the next request to that peer.
        // A peer that rotates resolvable private addresses is one device when the capture's IRK
        // resolves them: compare identities where known.
        // Look-ups by index (attempts per peer, scans per adapter, both in frame order): a pass over
        // every attempt and scan per connection would be quadratic on long captures.
        struct PeerKey: Hashable {
            var peer: BDAddr
            var adapter: AdapterIndex
        }
        var attemptsByPeer: [PeerKey: [Int]] = [:]
        for i in analysis.attempts.indices {
            guard let p = analysis.attempts[i].peerIdentity ?? analysis.attempts[i].peer else { continue }
            attemptsByPeer[PeerKey(peer: p, adapter: analysis.attempts[i].adapter), default: []].append(i)
        }
        // Session starts per adapter, retired sessions included.
        var startsByAdapter: [AdapterIndex: [FrameTime]] = [:]
        for c in analysis.connections {
            guard let peer = c.peerIdentity ?? c.peer, let ended = c.disconnect else { continue }
            let candidates = attemptsByPeer[PeerKey(peer: peer, adapter: c.id.adapter)] ?? []
            let next = candidates[analysis.partitionPoint(candidates) { analysis.attempts[$0].request.frame > ended.frame }...]
                .lazy.map { analysis.attempts[$0] }
            guard let first = next.first else { continue }
            // "request(s)": the retries up to the one that connected.
            var group: [ConnectionAttempt] = []
            for a in next {
                group.append(a)
                if a.outcome == .connected { break }
            }
            let requestsText = group.map { a -> String in
                let outcome: String
                if let done = a.complete {
                    outcome = "completed at frame \(done.frame) (\(Text.hex2(a.status ?? 0)))"
                } else if let cancel = a.cancel {
                    outcome = "cancelled at frame \(cancel.frame)"
                } else {
                    outcome = "still pending at the end of the capture"
                }
                return "frame \(a.request.frame) (\(outcome))"
            }.joined(separator: ", ")
            if startsByAdapter[c.id.adapter] == nil { startsByAdapter[c.id.adapter] = analysis.scanStarts(adapter: c.id.adapter) }
            let starts = startsByAdapter[c.id.adapter] ?? []
            var lo = 0, hi = starts.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if starts[mid].frame > ended.frame { hi = mid } else { lo = mid + 1 }
            }
            if lo < starts.count, starts[lo].frame < first.request.frame {
                let scanStart = starts[lo]
                let found: FrameTime?
                if first.discoveryTracked {
                    // Where the analysis saw the peer last before the request, when in one of these scans.
                    found = first.peerDiscovery.flatMap { d in
                        d.scanStartFrame > ended.frame && d.firstReport.frame < first.request.frame ? d.firstReport : nil
                    }
                } else {
                    found = analysis.scans.lazy.filter { $0.adapter == c.id.adapter && $0.start.frame > ended.frame && $0.start.frame < first.request.frame }
                        .compactMap { $0.firstReportByDevice[peer] }.first { $0.frame < first.request.frame }
                }
                let foundText = found.map { ", found it again (frame \($0.frame))" } ?? ""
                findings.append(
                    finding(
                        subject: "reconnection to \(peer)",
                        shows:
                            "after the connection to \(peer) ended (frame \(ended.frame)) the host started a scan (frame \(scanStart.frame))\(foundText) and then requested the connection to it: request(s) \(requestsText)",
                        cause:
                            "Usually the app scans again to find a peripheral it already knows instead of retrievePeripherals(withIdentifiers:) and connect(_:options:), which reconnects without a scan (Android: getRemoteDevice(address) and connectGatt with autoConnect=true; BlueZ: Device1.Connect)",
                        evidence: [ended.frame, scanStart.frame, found?.frame] + group.map(\.request.frame),
                        fix: "Keep the peripheral identifier and reconnect to it directly; scan only when that fails."))
            } else {
                notes.append(
                    "reconnection to \(peer): no scan started between the disconnection at frame \(ended.frame) and the next connection request to it; request(s) \(requestsText)"
                )
            }
        }
        if findings.isEmpty && notes.isEmpty {
            return notEvaluated("no connection request to an address already connected earlier in this capture")
        }
        return verdict(findings, passReason: notes.joinedBounded(separator: "; "))
    }
}
