import ScopeAnalysis
import ScopeCore

/// `scan.restart-throttled` — guidance 1: scan only while you need to, and do not restart scans
/// in a loop.
///
/// Android only (7.0 and later): a scan started when the app had already started 5 within the
/// 30 s before it is throttled — the stack keeps it registered but delivers no results, and says
/// nothing to the app (AOSP `ScanUtil`: `DEFAULT_SCAN_QUOTA_COUNT` 5, `DEFAULT_SCAN_QUOTA_WINDOW`
/// 30 s). Counted over the scans with no system signature: the stack's own background scans, and
/// its controller-filtered watches, do not count.
///
/// Usual cause: `startScan`/`stopScan` in a loop (a scan restarted on every result, or a timer
/// cycling short scans).
package struct ScanRestartThrottled: ItemRule {
    package static let id = "scan.restart-throttled"
    package static let guidance = 1
    package static let defaultSeverity = Severity.warning
    package static let summary = "Scans restarted so often that Android throttles them"
    package static let defaultThresholds: [String: ThresholdValue] = ["max_starts": .number(5), "window_s": .number(30)]
    package static let scope = RuleScope.scan
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// Scan sessions.
        var sessions = 0
        /// Those judged as started by the app.
        var appSessions = 0
        /// The most starts in one window.
        var mostStartsInWindow = 0
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        t.sessions += view.detail.scans.count
        let context = PlatformContext(view.platform, config)
        guard context.platform == .android else { return }
        let maxStarts = Self.maxStarts(config)
        let window = micros("window_s", config)
        // The stack's own resumptions (around a connection, after changing its random address)
        // are no app's starts.
        for (i, s) in view.detail.scans.enumerated() where !s.attribution.signal.isSystemSignature && !s.isStackResumption {
            t.appSessions += 1
            let start = s.start.time.microseconds
            let within = s.previousStarts.prefix { start &- $0.time.microseconds <= window }
            t.mostStartsInWindow = max(t.mostStartsInWindow, within.count + 1)
            guard within.count >= maxStarts else { continue }
            let earliest = within[within.index(within.startIndex, offsetBy: maxStarts - 1)]
            t.finding(key(0, Int(s.start.frame), i), Self.defaultSeverity, actor: context.actor(s.attribution)) {
                finding(
                    subject: "scan session at frame \(s.start.frame)",
                    shows:
                        "scan started at frame \(s.start.frame) is start \(within.count + 1) within \(Text.seconds(window)) (the \(maxStarts) before it from frame \(earliest.frame), \(Text.seconds(start &- earliest.time.microseconds)) earlier): Android 7 and later throttle it and deliver no results",
                    cause:
                        "Usually BluetoothLeScanner.startScan and stopScan called in a loop: a scan restarted on every result or by a short timer",
                    evidence: [earliest.frame, s.start.frame],
                    fix: "Start one scan and keep it running while it is needed, with ScanFilters and a report delay; never restart more than 5 times in 30 s.",
                    platform: .android, attribution: s.attribution, context: context)
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.sessions > 0 else { return notEvaluated("no scan session in this capture") }
        let context = PlatformContext(end.platform, config)
        guard context.platform == .android else {
            return notEvaluated(
                "Android's scan throttle (5 starts per 30 s): the capture's platform is \(context.platform?.kind.name ?? "unknown"), not Android")
        }
        guard t.appSessions > 0 else { return notEvaluated("only the system's own scans in this capture") }
        return verdict(
            t.findingList,
            passReason:
                "no scan was started with \(Self.maxStarts(config)) others within the \(Text.seconds(micros("window_s", config))) before it (at most \(t.mostStartsInWindow) in a window)")
    }

    static func maxStarts(_ config: RuleConfiguration) -> Int {
        max(1, min(Int(ScanRestartThrottled().number("max_starts", config)), ScanSession.startsKept))
    }
}
