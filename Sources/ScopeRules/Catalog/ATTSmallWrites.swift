import ScopeAnalysis
import ScopeCore
import ScopeDecode

/// `att.small-writes` — guidance 10: transfers larger than one ATT payload should use a
/// negotiated MTU and appropriately sized writes.
///
/// Per handle: violated when 20 or more writes (Write Request or Write Command) of at most 20
/// bytes each reach it, each within 1 s of the previous one, the largest carrying 20 bytes (data
/// cut into default-size pieces; shorter writes are whole messages), while no MTU exchange had
/// happened or after one had raised the ATT_MTU above 23 (judged at the first of them). Findings
/// say `remote` when the peer is the GATT client.
///
/// Usual cause: chunking a firmware image into 20-byte pieces, the ATT_MTU 23 default, instead of
/// using `maximumWriteValueLength(for:)` (iOS negotiates the MTU itself); Android:
/// `requestMtu(517)` then chunks of `mtu - 3`; BlueZ: `AcquireWrite` gives the MTU.
package struct ATTSmallWrites: ItemRule {
    package static let id = "att.small-writes"
    package static let guidance = 10
    package static let defaultSeverity = Severity.warning
    package static let summary = "Many small writes where a larger ATT_MTU would carry the data in fewer PDUs"
    package static let scope = RuleScope.connection
    package static let defaultThresholds: [String: ThresholdValue] = [
        "min_writes": .number(20), "max_write_bytes": .number(20), "max_gap_s": .number(1),
    ]
    package init() {}

    /// Per client side and handle, the runs of consecutive writes of at most `max_write_bytes`
    /// bytes to it in one connection, each within `max_gap_s` of the previous one (a larger
    /// write ends a run): the longest, and those of `min_writes` or more.
    struct Fold: Sendable {
        let maxBytes: Int
        let maxGap: Int64
        let minWrites: Int
        var any = false
        var longest = 0
        /// Per target: the long runs ended, and the run going on (one look-up per write, the runs
        /// changed in place).
        var targets = KeyedList<ClientHandle, TargetRuns>()

        struct TargetRuns: Sendable {
            var ended: [WriteRun] = []
            var current: WriteRun?

            /// Adds a small write to the run going on when it came within `maxGap` of the run's
            /// last write, else ends that run and starts one with it (called on `runs[s]`, so
            /// the target's runs change in place, never copied).
            mutating func add(_ e: ATTEvent, maxGap: Int64, longest: inout Int, minWrites: Int) {
                if let last = current?.last, e.at.time.microseconds - last.time.microseconds <= maxGap {
                    current!.add(e)
                } else {
                    end(longest: &longest, minWrites: minWrites)
                    current = WriteRun(e)
                }
            }

            /// Ends the run going on, kept when it has `minWrites` writes or more.
            mutating func end(longest: inout Int, minWrites: Int) {
                guard let r = current else { return }
                longest = max(longest, r.count)
                if r.count >= minWrites { ended.append(r) }
                current = nil
            }
        }

        init(config: RuleConfiguration) {
            let rule = ATTSmallWrites()
            maxBytes = Int(rule.number("max_write_bytes", config))
            maxGap = rule.micros("max_gap_s", config)
            minWrites = Int(rule.number("min_writes", config))
        }

        mutating func add(_ e: ATTEvent) {
            guard e.opcode == ATTOpcode.writeRequest.rawValue || e.opcode == ATTOpcode.writeCommand.rawValue else { return }
            any = true
            guard let handle = e.handle else { return }
            let s = targets.position(of: ClientHandle(side: e.clientSide, handle: handle)) { TargetRuns() }
            if e.valueLength > maxBytes {
                targets.elements[s].end(longest: &longest, minWrites: minWrites)
            } else {
                targets.elements[s].add(e, maxGap: maxGap, longest: &longest, minWrites: minWrites)
            }
        }

        /// The long runs, target by target in the order of their "side/handle" texts, the runs
        /// going on ended.
        func finished() -> (runs: [WriteRun], longest: Int) {
            var done = self
            var long: [WriteRun] = []
            for target in ClientHandle.inTextOrder(targets.keys) {
                guard let i = targets.position(of: target) else { continue }
                var t = done.targets.elements[i]
                t.end(longest: &done.longest, minWrites: minWrites)
                long += t.ended
            }
            return (long, done.longest)
        }
    }

    struct State: RuleState {
        var findings = FindingTally()
        /// Connections with a write.
        var connectionsWithWrites = 0
        /// The longest run of small writes to one handle.
        var longestRun = 0
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let analysis = view.detail, facts = view.facts
        let minWrites = Int(number("min_writes", config))
        let maxBytes = Int(number("max_write_bytes", config))
        let context = PlatformContext(view.platform, config)
        for (i, c) in analysis.connections.enumerated() {
            let fold = facts.folds(analysis, i, config: config).smallWrites
            if fold.any { t.connectionsWithWrites += 1 }
            let (runs, longestHere) = fold.finished()
            t.longestRun = max(t.longestRun, longestHere)
            for (j, r) in runs.enumerated() {
                let first = r.first, last = r.last
                guard r.count >= minWrites, let handle = first.handle else { continue }
                let exchanged = c.mtuExchanges.first.map { $0.frame < first.at.frame } ?? false
                guard !exchanged || first.mtu > 23 else { continue }
                // Only a run whose writes reach the small payload size is data cut into pieces:
                // shorter ones are whole messages (soaresden's 9-byte writes after an exchange,
                // phlash's 7-byte commands without one), which a larger MTU would not shorten.
                if r.largest < maxBytes { continue }
                let attribution = c.attribution(client: first.clientSide)
                t.finding(key(0, Int(c.firstSeen), i, j), Self.defaultSeverity, actor: context.actor(attribution)) {
                    let requests = r.count - r.commands
                    let kindsText = [r.commands > 0 ? "\(r.commands) Write Command" : nil, requests > 0 ? "\(requests) Write Request" : nil]
                        .compactMap { $0 }.joined(separator: ", ")
                    let mtuText = exchanged
                        ? "although an MTU exchange had raised the ATT_MTU to \(first.mtu) (payload up to \(first.mtu - 3) bytes)"
                        : "while no MTU exchange had happened (ATT_MTU \(first.mtu))"
                    // After an exchange, the documented causes that blame a missing exchange do
                    // not hold: the writes keep a chunk size fixed for the default MTU.
                    let raised = exchanged ? Self.causeAfterExchange(context.platform) : nil
                    return finding(
                        subject: "\(c.label) handle \(Text.hex4(handle))",
                        shows:
                            "\(r.count) writes of at most \(maxBytes) bytes to handle \(Text.hex4(handle)) by the \(Text.side(first.clientSide)) client (frames \(first.at.frame)-\(last.frame), \(kindsText), largest \(r.largest) bytes, longest gap \(Text.millis(r.longestGap))) \(mtuText)",
                        cause: raised?.cause
                            ?? "Usually data chunked into 20-byte pieces (the default ATT_MTU 23) instead of maximumWriteValueLength(for:) (Android: requestMtu(517) and chunks of mtu - 3; BlueZ: AcquireWrite's MTU)",
                        evidence: [first.at.frame, last.frame],
                        fix: raised?.fix ?? "Negotiate a larger ATT_MTU (and data length) and write chunks of ATT_MTU - 3 bytes.",
                        platform: raised == nil ? nil : context.platform,
                        attribution: attribution, context: context)
                }
            }
        }
    }

    /// Cause and fix on `platform` when an MTU exchange had raised the ATT_MTU before the writes
    /// (the documented advice, which blames a missing exchange, does not hold then), or nil where
    /// the documented advice already fits (iOS and BlueZ exchange the MTU themselves).
    static func causeAfterExchange(_ platform: Platform?) -> (cause: String, fix: String)? {
        switch platform {
        case .android:
            return (
                "Usual cause on Android: the app writes chunks sized for the default ATT_MTU (20 bytes) although the MTU "
                    + "was exchanged (`onMtuChanged` reports it, whichever side asked).",
                "Write chunks of `mtu - 3` bytes, the `mtu` of `onMtuChanged`. (Other stacks: `hciscope rules att.small-writes`.)")
        case .embedded:
            return (
                "Usual cause on Zephyr and other embedded stacks: writes sized for the default ATT_MTU although the MTU "
                    + "was exchanged.",
                "Size writes by `bt_gatt_get_mtu() - 3` (NimBLE: `ble_att_mtu() - 3`). (Other stacks: `hciscope rules att.small-writes`.)")
        case .ios, .bluez, nil:
            return nil
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.connectionsWithWrites > 0 else {
            if let r = end.detail.attIncompleteReason { return notEvaluated(r) }
            return notEvaluated("no ATT Write Request / Write Command in this capture")
        }
        return verdict(
            t.findingList,
            passReason:
                "no handle received \(Int(number("min_writes", config))) or more writes of at most \(Int(number("max_write_bytes", config))) bytes each within \(Text.seconds(micros("max_gap_s", config))) of the previous one (longest such run: \(t.longestRun))"
        )
    }
}
