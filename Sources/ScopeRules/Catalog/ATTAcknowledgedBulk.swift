import ScopeAnalysis
import ScopeCore
import ScopeDecode

/// `att.acknowledged-bulk` — guidance 10: bulk transfers should not wait for a response per chunk.
///
/// Per handle: violated (info) when 20 or more consecutive Write Requests go to one handle, each
/// within 1 s of the previous one, carrying in total more than one ATT payload (ATT_MTU − 3), where
/// the characteristic allows Write Without Response (property 0x04) or its properties are unknown.
/// Each Write Request costs at least one connection event round trip for its Write Response.
///
/// Usual cause: `writeValue(_:for:type: .withResponse)` in a loop for a transfer (use
/// `.withoutResponse` paced by `canSendWriteWithoutResponse` /
/// `peripheralIsReady(toSendWriteWithoutResponse:)`); Android: `WRITE_TYPE_DEFAULT` instead of
/// `WRITE_TYPE_NO_RESPONSE`; BlueZ: `WriteValue` with type "request" instead of "command".
package struct ATTAcknowledgedBulk: ItemRule {
    package static let id = "att.acknowledged-bulk"
    package static let guidance = 10
    package static let defaultSeverity = Severity.info
    package static let summary = "A bulk transfer uses acknowledged Write Requests where Write Without Response is allowed"
    package static let scope = RuleScope.connection
    package static let defaultThresholds: [String: ThresholdValue] = [
        "min_run_write_requests": .number(20), "max_gap_s": .number(1),
    ]
    package init() {}

    /// Per client side, the runs of consecutive Write Requests of one connection (a request to
    /// another handle, or one more than `max_gap_s` after the previous, starts a new run): the
    /// longest, and those of `min_run_write_requests` or more.
    struct Fold: Sendable {
        let maxGap: Int64
        let minRun: Int
        var any = false
        var longest = 0
        /// Per side (local, remote): the long runs ended, and the run going on.
        var ended: [[WriteRun]] = [[], []]
        var current: [WriteRun?] = [nil, nil]

        init(config: RuleConfiguration) {
            maxGap = ATTAcknowledgedBulk().micros("max_gap_s", config)
            minRun = Int(ATTAcknowledgedBulk().number("min_run_write_requests", config))
        }

        mutating func add(_ w: ATTEvent) {
            guard w.opcode == ATTOpcode.writeRequest.rawValue else { return }
            any = true
            let side: Int
            switch w.clientSide {
            case .local: side = 0
            case .remote: side = 1
            case .unknown: return
            }
            if let run = current[side], run.first.handle == w.handle, w.at.time.microseconds - run.last.time.microseconds <= maxGap {
                current[side]!.add(w)
            } else {
                end(side)
                current[side] = WriteRun(w)
            }
        }

        private mutating func end(_ side: Int) {
            guard let r = current[side] else { return }
            longest = max(longest, r.count)
            if r.count >= minRun { ended[side].append(r) }
            current[side] = nil
        }

        /// The long runs of both sides (local first), the runs going on ended.
        func finished() -> (runs: [WriteRun], longest: Int) {
            var done = self
            done.end(0)
            done.end(1)
            return (done.ended[0] + done.ended[1], done.longest)
        }
    }

    struct State: RuleState {
        var findings = FindingTally()
        /// Connections with a Write Request.
        var connectionsWithWriteRequests = 0
        /// The longest run of Write Requests to one handle.
        var longestRun = 0
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let analysis = view.detail, facts = view.facts
        let minRun = Int(number("min_run_write_requests", config))
        let maxGap = micros("max_gap_s", config)
        let context = PlatformContext(view.platform, config)
        for (i, c) in analysis.connections.enumerated() {
            let fold = facts.folds(analysis, i, config: config).bulk
            if fold.any { t.connectionsWithWriteRequests += 1 }
            let (runs, longestHere) = fold.finished()
            t.longestRun = max(t.longestRun, longestHere)
            for (j, r) in runs.enumerated() {
                let first = r.first, last = r.last
                guard r.count >= minRun, let handle = first.handle else { continue }
                let payload = first.mtu - 3
                guard r.total > payload else { continue }
                let ch = c.characteristic(valueHandle: handle, server: first.server)
                if let ch, ch.properties & 0x04 == 0 { continue }
                let side = first.clientSide
                let attribution = c.attribution(client: side)
                t.finding(key(0, Int(c.firstSeen), i, j), Self.defaultSeverity, actor: context.actor(attribution)) {
                    let propsText = ch.map {
                        "the characteristic allows Write Without Response (properties \(Text.hex2($0.properties)), frame \($0.learnedIn))"
                    } ?? "the characteristic's properties are unknown (not discovered in this capture)"
                    return finding(
                        subject: "\(c.label) handle \(Text.hex4(handle))",
                        shows:
                            "\(r.count) consecutive Write Requests to handle \(Text.hex4(handle)) by the \(Text.side(side)) client (frames \(first.at.frame)-\(last.frame)), each within \(Text.seconds(maxGap)) of the previous one, \(r.total) bytes in total, \(r.smallest)-\(r.largest) bytes each, more than one ATT payload (\(payload) bytes at ATT_MTU \(first.mtu)); \(propsText)",
                        cause:
                            "Usually writeValue(_:for:type: .withResponse) in a loop for a bulk transfer instead of .withoutResponse paced by canSendWriteWithoutResponse (Android: WRITE_TYPE_DEFAULT instead of WRITE_TYPE_NO_RESPONSE; BlueZ: WriteValue type \"request\")",
                        evidence: [ch?.learnedIn, first.at.frame, last.frame],
                        fix: "Send bulk data with Write Without Response, with an application-level acknowledgement if needed.",
                        attribution: attribution, context: context)
                }
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.connectionsWithWriteRequests > 0 else {
            if let r = end.detail.attIncompleteReason { return notEvaluated(r) }
            return notEvaluated("no ATT Write Request in this capture")
        }
        return verdict(
            t.findingList,
            passReason:
                "no run of \(Int(number("min_run_write_requests", config))) or more consecutive Write Requests to one handle, each within \(Text.seconds(micros("max_gap_s", config))) of the previous one, carrying more than one ATT payload (longest run: \(t.longestRun))"
        )
    }
}
