import ScopeAnalysis
import ScopeCore

/// `scan.duplicates-allowed` — guidance 2: ask for duplicate advertising reports only when a use
/// case needs them (e.g. proximity by RSSI); by default a scanner gets one discovery per device.
///
/// Per scan session with Filter_Duplicates off that received reports: warning when duplicates
/// (same device, same event type, same data earlier in the session) are more than 50 % of its
/// reports, info otherwise.
/// Scan responses count as reports; a fragmented extended report counts once.
///
/// Usual cause: `scanForPeripherals(withServices:options:)` with
/// `CBCentralManagerScanOptionAllowDuplicatesKey: true`. On Android the stack itself turns the
/// controller's duplicate filter off for its own batching: the measured duplicates are still the
/// cost, but the setting is the stack's (use `ScanSettings.CALLBACK_TYPE_FIRST_MATCH` or report
/// batching; BlueZ: `SetDiscoveryFilter` with `DuplicateData: false`).
package struct ScanDuplicatesAllowed: ItemRule {
    package static let id = "scan.duplicates-allowed"
    package static let guidance = 2
    package static let defaultSeverity = Severity.warning
    package static let summary = "A scan asks for duplicate advertising reports"
    package static let defaultThresholds: [String: ThresholdValue] = ["duplicate_ratio": .number(0.5)]
    package static let scope = RuleScope.scan
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Scan sessions judged.
        var sessions = 0
        /// Those whose filter setting is the Android stack's.
        var stackSettings = 0
        /// Sessions with the filter off that delivered no report: nothing to show a cost by.
        var silent = 0
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let limit = number("duplicate_ratio", config)
        let context = PlatformContext(view.platform, config)
        // On Android the filter setting is the stack's: the app controls how long it scans. A
        // platform named only on suggestive evidence sets nothing aside (docs/ATTRIBUTION.md).
        let android = context.platform == .android && context.certain
        let appScan = Self.appScanMicros(config)
        for (i, s) in view.detail.scans.enumerated() {
            t.sessions += 1
            guard s.filterDuplicates == 0 else { continue }
            let k = key(0, Int(s.start.frame), i)
            let high = s.duplicateRatio > limit
            let severity: Severity = high ? .warning : .info
            let endFrame = (s.stop ?? s.lastReport ?? s.end).frame
            if android {
                guard s.durationMicros > appScan, s.duplicates > 0 else {
                    t.stackSettings += 1
                    continue
                }
                t.finding(k, severity, actor: context.actor(s.attribution)) {
                    finding(
                        severity, subject: "scan session at frame \(s.start.frame)",
                        shows:
                            "scan at frame \(s.start.frame)\(s.resumptionText) ran \(Text.seconds(s.durationMicros)) with the controller's duplicate filter off (Filter_Duplicates=0, "
                            + "the Android stack's setting): \(s.duplicates) of \(s.reports) reports are duplicates (\(Text.percent(s.duplicateRatio)), \(s.duplicateEventBytes) HCI event bytes)",
                        cause:
                            "Usual cause on Android: the app kept BluetoothLeScanner.startScan(...) running longer than \(Text.seconds(appScan)); the filter is the stack's, how long and how often the app scans is not",
                        evidence: [s.start.frame, s.firstDuplicate?.frame, endFrame],
                        fix: "Stop the scan once the device is found (stopScan(callback)) and bound every scan with a timer; use ScanFilters (offloaded to the controller), setCallbackType(CALLBACK_TYPE_FIRST_MATCH) or setReportDelay(ms) so fewer reports reach the app.",
                        platform: .android, attribution: s.attribution, context: context)
                }
                continue
            }
            // ("0 of 0 reports are duplicates" is no finding: AshMartian's 2 ms scans. On Android
            // such a session is the stack's setting, above.)
            guard s.reports > 0 else {
                t.silent += 1
                continue
            }
            t.finding(k, severity, actor: context.actor(s.attribution)) {
                finding(
                    severity, subject: "scan session at frame \(s.start.frame)",
                    shows:
                        "scan at frame \(s.start.frame)\(s.resumptionText) with Filter_Duplicates=0: \(s.duplicates) of \(s.reports) reports are duplicates (\(Text.percent(s.duplicateRatio)), \(s.duplicateEventBytes) HCI event bytes)",
                    cause:
                        "Usually scanForPeripherals(withServices:options:) with CBCentralManagerScanOptionAllowDuplicatesKey set to true; on Android the stack turns the controller filter off for its own batching, so the setting is the stack's while the duplicates are still real",
                    evidence: [s.start.frame, s.firstDuplicate?.frame, endFrame],
                    fix: "Allow duplicates only while a feature needs continuous RSSI or changing payloads.", attribution: s.attribution,
                    context: context)
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.sessions > 0 else { return notEvaluated("no scan session in this capture") }
        let appScan = Self.appScanMicros(config)
        let stacks = t.stackSettings
        let n = end.detail.scanTotals.sessions
        var v = verdict(
            t.findingList,
            passReason: stacks > 0
                ? "no scan with the duplicate filter off ran longer than \(Text.seconds(appScan)) (the filter setting is the Android stack's)"
                : t.silent > 0
                    ? "\(t.silent) of \(n) scan session(s) had the duplicate filter off and delivered no report; the others had it on"
                    : "all \(n) scan session(s) enabled with Filter_Duplicates on")
        if stacks > 0 {
            v.platformShare = PlatformShare(
                platform: .android, count: stacks,
                what: "scan sessions with the controller's duplicate filter turned off by the Android stack (its setting, not the app's; each ran \(Text.seconds(appScan)) or less, or received no duplicate)")
        }
        return v
    }

    /// How long an app's scan may run (scan.left-running's threshold).
    static func appScanMicros(_ config: RuleConfiguration) -> Int64 {
        Int64(((config.threshold(rule: ScanLeftRunning.id, key: "without_connection_request_s")?.number ?? 30) * 1_000_000).rounded())
    }
}
