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
package struct ConnReconnectByScan: ItemRule {
    package static let id = "conn.reconnect-by-scan"
    package static let guidance = 6
    package static let defaultSeverity = Severity.info
    package static let summary = "The host scans again to reconnect to a peripheral it already knows"
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// The reconnections that pass.
        var passed = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let context = PlatformContext(view.platform, config)
        // The analysis records the reconnections as it goes.
        for (i, r) in view.reconnections.enumerated() {
            let k = key(0, Int(r.connectionFirstSeen), i)
            let peer = r.peer, ended = r.ended
            func requestsText() -> String {
                r.requests.map { a -> String in
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
            }
            // A scan with a system signature counts only where the platform does not name it
            // the system's (docs/ATTRIBUTION.md), or when it found the peer again and the host then
            // asked for it by address: whoever started it, the host searched with it (wangdalian:
            // a 5000/500 ms scan like the stack's own, 248 reports, then a direct request).
            let searched = r.found != nil && r.requests.first?.direct == true
            let systemScan = r.systemScanEvidence.flatMap { context.actor($0) == .os && !searched ? nil : r.systemScanStart }
            if let scanStart = [systemScan, r.scanStart].compactMap({ $0 }).min() {
                let attribution = r.requests.first?.attribution ?? .localRequest
                t.finding(k, Self.defaultSeverity, actor: context.actor(attribution)) {
                    let foundText = r.found.map { ", found it again (frame \($0.frame))" } ?? ""
                    return finding(
                        subject: "reconnection to \(peer)",
                        shows:
                            "after the connection to \(peer) ended (frame \(ended.frame)) the host started a scan (frame \(scanStart.frame))\(foundText) and then requested the connection to it: request(s) \(requestsText())",
                        cause:
                            "Usually the app scans again to find a peripheral it already knows instead of retrievePeripherals(withIdentifiers:) and connect(_:options:), which reconnects without a scan (Android: getRemoteDevice(address) and connectGatt with autoConnect=true; BlueZ: Device1.Connect)",
                        evidence: [ended.frame, scanStart.frame, r.found?.frame] + r.requests.map(\.request.frame),
                        fix: "Keep the peripheral identifier and reconnect to it directly; scan only when that fails.",
                        attribution: attribution, context: context)
                }
            } else {
                t.passed.note(k) {
                    "reconnection to \(peer): no scan started between the disconnection at frame \(ended.frame) and the next connection request to it; request(s) \(requestsText())"
                }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        let findings = t.findingList
        if findings.isEmpty && t.passed.isEmpty {
            return notEvaluated("no connection request to an address already connected earlier in this capture")
        }
        return verdict(findings, passReason: t.passed.joined(separator: "; "))
    }
}
