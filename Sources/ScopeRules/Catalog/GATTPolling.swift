import ScopeAnalysis
import ScopeCore
import ScopeDecode

/// `gatt.polling` — guidance 4: subscribe to values that change often instead of polling reads.
///
/// Per characteristic handle read with Read Request on a connection: violated when it is read 5 or
/// more times with a median gap of 2 s or less and notifications/indications were never enabled on
/// it in that connection — warning when its properties allow notify/indicate, info when unknown
/// (not discovered in the capture); no finding when they allow neither.
///
/// Usual cause: a timer calling `readValue(for:)` instead of `setNotifyValue(true, for:)`
/// (Android: `readCharacteristic` in a loop instead of `setCharacteristicNotification` plus the
/// CCCD write; BlueZ: `ReadValue` instead of `StartNotify`).
package struct GATTPolling: ItemRule {
    package static let id = "gatt.polling"
    package static let guidance = 4
    package static let defaultSeverity = Severity.warning
    package static let summary = "A characteristic is polled with reads instead of notifications"
    package static let scope = RuleScope.connection
    package static let defaultThresholds: [String: ThresholdValue] = ["min_reads": .number(5), "max_median_gap_s": .number(2)]
    package init() {}

    /// Per client side and handle, the Read Requests of one connection: how many, the first and
    /// last, and the gaps between them (their median, in bounded memory: `StreamingQuantiles`).
    struct Fold: Sendable {
        struct Reads: Sendable {
            var first: ATTEvent
            var last: FrameTime
            var count = 1
            var gaps = StreamingQuantiles()

            init(_ e: ATTEvent) {
                first = e
                last = e.at
            }

            mutating func add(_ e: ATTEvent) {
                gaps.add(e.at.time.microseconds - last.time.microseconds)
                last = e.at
                count += 1
            }
        }
        var reads: [ClientHandle: Reads] = [:]
        var any = false

        mutating func add(_ e: ATTEvent) {
            guard e.opcode == ATTOpcode.readRequest.rawValue else { return }
            any = true
            guard let handle = e.handle else { return }
            let key = ClientHandle(side: e.clientSide, handle: handle)
            // One look-up, the handle's reads changed in place (not copied out and back).
            if let i = reads.index(forKey: key) {
                reads.values[i].add(e)
            } else {
                reads[key] = Reads(e)
            }
        }
    }

    struct State: RuleState {
        var findings = FindingTally()
        /// Connections with a Read Request.
        var connectionsWithReads = 0
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let analysis = view.detail, facts = view.facts
        let minReads = Int(number("min_reads", config))
        let maxGap = micros("max_median_gap_s", config)
        let context = PlatformContext(view.platform, config)
        for (i, c) in analysis.connections.enumerated() {
            let fold = facts.folds(analysis, i, config: config).polling
            if fold.any { t.connectionsWithReads += 1 }
            for (j, key) in ClientHandle.inTextOrder(fold.reads.keys).enumerated() {
                guard let rs = fold.reads[key], rs.count >= minReads else { continue }
                let first = rs.first, last = rs.last, handle = key.handle
                guard let med = rs.gaps.median, med <= maxGap else { continue }
                let enabled = c.clientConfiguration.everEnabled(characteristic: handle)
                guard !enabled else { continue }
                let ch = c.characteristic(valueHandle: handle, server: first.server)
                let severity: Severity
                if let ch {
                    guard ch.properties & 0x30 != 0 else { continue }
                    severity = .warning
                } else {
                    severity = .info
                }
                let client = first.clientSide
                let attribution = c.attribution(client: client)
                t.finding(self.key(0, Int(c.firstSeen), i, j), severity, actor: context.actor(attribution)) {
                    let propsText = ch.map {
                        "properties \(Text.hex2($0.properties)) allow notify/indicate (declared in frame \($0.learnedIn)) -> warning"
                    } ?? "properties unknown (characteristic not discovered in this capture) -> info"
                    return finding(
                        severity, subject: "\(c.label) handle \(Text.hex4(handle))",
                        shows:
                            "handle \(Text.hex4(handle)) read \(rs.count) times by the \(Text.side(client)) client (frames \(first.at.frame)-\(last.frame)), median gap \(rs.gaps.isExact ? "" : "about ")\(Text.millis(med)), notifications/indications never enabled on it; \(propsText)",
                        cause:
                            "Usually a timer calling readValue(for:) instead of setNotifyValue(true, for:) (Android: readCharacteristic in a loop instead of setCharacteristicNotification and the CCCD write; BlueZ: ReadValue instead of StartNotify)",
                        evidence: [ch?.learnedIn, first.at.frame, last.frame],
                        fix: "Subscribe to the characteristic and react to peripheral(_:didUpdateValueFor:error:).",
                        attribution: attribution, context: context)
                }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.connectionsWithReads > 0 else {
            if let r = end.detail.attIncompleteReason { return notEvaluated(r) }
            return notEvaluated("no ATT Read Request in this capture")
        }
        return verdict(
            t.findingList,
            passReason:
                "no handle read \(Int(number("min_reads", config))) or more times with a median gap of \(Text.seconds(micros("max_median_gap_s", config))) or less without notifications/indications enabled"
        )
    }
}
