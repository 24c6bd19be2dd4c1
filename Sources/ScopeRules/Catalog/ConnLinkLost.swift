import ScopeAnalysis
import ScopeCore

/// `conn.link-lost` — guidance 5: links should end because someone closed them, not because the
/// radio link failed.
///
/// Per LE connection: violated when it ends by supervision timeout (Disconnection Complete reason
/// 0x08 Connection Timeout) or was never established (0x3E Connection Failed to be Established,
/// as a Disconnection Complete or an LE Connection Complete status). The finding gives the
/// parameters in force (interval, peripheral latency, supervision timeout), who asked for them and
/// when, the last ACL data each way, and the signal strength where the capture has it (the last
/// Read RSSI on the link, else the peer's last advertising report before it came up). An
/// Encryption Change with status 0x08 is such a loss too,
/// never a pairing failure.
///
/// Usual cause: the peer went out of range or was switched off, or interference; a supervision
/// timeout too short for the link (iOS sets 720 ms by default; a peripheral may ask for up to 6 s
/// within Apple's accessory guidelines).
package struct ConnLinkLost: ItemRule {
    package static let id = "conn.link-lost"
    package static let guidance = 5
    package static let defaultSeverity = Severity.warning
    package static let summary = "A link is lost (supervision timeout) or fails to be established"
    /// `weak_rssi_dbm`: a signal at or below this is called weak (within 10 dB of a typical
    /// receiver's sensitivity, -95 to -100 dBm); `weak_rssi_within_s`: only a reading taken this
    /// long before the loss or less says how far apart the devices were when it happened.
    package static let defaultThresholds: [String: ThresholdValue] = ["weak_rssi_dbm": .number(-85), "weak_rssi_within_s": .number(60)]
    package init() {}

    struct State: RuleState {
        var findings = FindingTally()
        /// LE connections and connection requests judged.
        var judged = 0
        /// How each LE connection ended.
        var ends = ReasonList()
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let context = PlatformContext(view.platform, config)
        let weak = WeakSignal(dBm: Int(number("weak_rssi_dbm", config)), withinMicros: micros("weak_rssi_within_s", config))
        // Every request counts as judged (its link either came up, failed, or never answered).
        t.judged += view.attempts.count
        for (i, c) in view.connections.enumerated() where c.isLE {
            t.judged += 1
            let k = key(0, Int(c.firstSeen), i)
            let end = c.end
            let lost: Bool
            switch end {
            case .linkLost, .failedToEstablish: lost = true
            default: lost = false
            }
            guard lost, let d = end.at else {
                t.ends.note(k) { "\(c.label): \(end.label)" }
                continue
            }
            let attribution = c.role == .peripheral ? ActorEvidence(.remoteCentral, frame: c.complete?.frame) : c.localAttribution
            // An Encryption Change or Key Refresh with 0x08: the loss seen first while encrypting.
            let lostEncrypting = c.encryptionChanges.last.flatMap { LinkEnd.isLinkLoss($0.status) ? $0.at : nil }
            t.finding(k, Self.defaultSeverity, actor: context.actor(attribution)) {
                // The signal the capture holds, and the weak reading before the loss: read once,
                // for what the finding shows and for its evidence.
                let signal = Self.signal(c), weakReading = Self.weakSignal(c, before: d, weak)
                // A reading older than `weak_rssi_within_s` is named with its age but proves
                // nothing about the loss: not evidence.
                let recent = signal.map { d.time.microseconds &- $0.reading.at.time.microseconds <= weak.withinMicros } ?? false
                return finding(
                    subject: c.label,
                    shows: Self.describe(c, end: end, at: d, signal: signal, recentWithin: recent ? nil : weak.withinMicros, weak: weakReading),
                    cause: Self.cause(end),
                    evidence: [
                        c.complete?.frame, c.parametersSetAt?.frame, c.lastSent?.frame, c.lastReceived?.frame, lostEncrypting?.frame,
                        recent ? signal?.reading.at.frame : nil, weakReading?.at.frame, d.frame,
                    ],
                    fix: "Treat link loss as normal: reconnect when the device is back and resume; if it happens within range, ask (from the peripheral) for a longer supervision timeout and check the peer's power and antenna.",
                    attribution: attribution, context: context)
            }
        }
        // Requests whose link failed in the LE Connection Complete itself (status 0x3E): no
        // connection came up for them.
        for (i, a) in view.attempts.enumerated() where a.outcome == .failedToEstablish && a.connection == nil {
            guard let complete = a.complete else { continue }
            t.finding(key(1, Int(a.request.frame), i), Self.defaultSeverity, actor: context.actor(a.attribution)) {
                finding(
                    subject: "connection request at frame \(a.request.frame)",
                    shows: "connection request at frame \(a.request.frame) (\(a.peer.map { "peer \($0)" } ?? "filter accept list")) answered by LE Connection Complete with status 0x3E Connection Failed to be Established (frame \(complete.frame))",
                    cause: Self.cause(.failedToEstablish(at: complete)),
                    evidence: [a.request.frame, complete.frame],
                    fix: "Retry the connection; if it keeps failing, check the peer's advertising interval and the radio environment.",
                    attribution: a.attribution, context: context)
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.judged > 0 else { return notEvaluated("no LE connection or connection request in this capture") }
        return verdict(t.findingList, passReason: "no LE link was lost: " + t.ends.joined(separator: "; "))
    }

    /// "connection 0x0040 (central, peer …) lost by supervision timeout (reason 0x08, frame 420): interval 30 ms, …".
    /// `signal`: `signal(c)`; `recentWithin`: set when that reading is older than this before the
    /// loss; `weak`: `weakSignal(c, before: d, _:)`.
    static func describe(
        _ c: Connection, end: LinkEnd, at d: FrameTime, signal: (reading: RSSIReading, readOnLink: Bool)?,
        recentWithin: Int64? = nil, weak: RSSIReading?
    ) -> String {
        var s = "\(c.label) (\(c.role.rawValue), \(c.peerText)) "
        switch end {
        case .failedToEstablish: s += "failed to be established (reason 0x3E, frame \(d.frame))"
        default: s += "lost by supervision timeout (reason \(Text.hex2(c.disconnectReason ?? 0x08)), frame \(d.frame))"
        }
        if let complete = c.complete {
            s += " \(Text.seconds(d.time.microseconds - complete.time.microseconds)) after it came up"
        }
        var params: [String] = []
        if let iv = c.intervalMicros { params.append("interval \(Text.millis(iv))") }
        if let l = c.peripheralLatency { params.append("peripheral latency \(l)") }
        if let to = c.supervisionTimeoutMicros { params.append("supervision timeout \(Text.millis(to))") }
        if !params.isEmpty {
            s += "; parameters in force: " + params.joined(separator: ", ")
            if let at = c.parametersSetAt {
                let who: String
                switch c.parametersSetBy {
                case .local?: who = "asked for by the local host"
                case .remote?: who = "asked for by the peer"
                default: who = "who asked is not in the capture"
                }
                s += " (set by the LE Connection Update Complete at frame \(at.frame), \(who))"
            } else if c.complete != nil {
                s += " (from the connection complete)"
            }
        }
        func last(_ f: FrameTime?, _ what: String) -> String {
            guard let f else { return "no \(what)" }
            return "last \(what) frame \(f.frame), \(Text.seconds(d.time.microseconds - f.time.microseconds)) before"
        }
        s += "; " + last(c.lastSent, "ACL data sent") + "; " + last(c.lastReceived, "ACL data received")
        if let within = recentWithin, let (r, onLink) = signal {
            // Too old to say where the devices were at the loss: named with its age only.
            let ago = Text.seconds(d.time.microseconds - r.at.time.microseconds)
            s += "; no RSSI within \(within / 1_000_000) s of the loss ("
                + (onLink
                    ? "the last Read RSSI, frame \(r.at.frame), \(ago) before, gave \(r.dBm) dBm)"
                    : "the peer's last advertising report, frame \(r.at.frame), \(ago) before, had \(r.dBm) dBm; no Read RSSI on the link)")
        } else {
            s += "; " + rssiText(c, signal, before: d)
        }
        if let w = weak {
            s += "; the signal the capture holds was weak (\(w.dBm) dBm at frame \(w.at.frame)): the devices were likely near the edge of range"
        }
        return s
    }

    /// The signal strength the capture holds for the link: its last Read RSSI answer, else the
    /// peer's last advertising report before the link came up.
    static func signal(_ c: Connection) -> (reading: RSSIReading, readOnLink: Bool)? {
        if let r = c.rssiReadings.last { return (r, true) }
        return c.peerAdvertisingRSSI.map { ($0, false) }
    }

    /// "RSSI -78 dBm at the last Read RSSI (frame 812, 1.2 s before; weakest -85 dBm of 4)".
    static func rssiText(_ c: Connection, _ signal: (reading: RSSIReading, readOnLink: Bool)?, before d: FrameTime) -> String {
        guard let (r, onLink) = signal else {
            return "no RSSI in the capture (no Read RSSI on the link, no advertising report from the peer before it)"
        }
        let ago = Text.seconds(d.time.microseconds - r.at.time.microseconds)
        if onLink {
            var s = "RSSI \(r.dBm) dBm at the last Read RSSI (frame \(r.at.frame), \(ago) before"
            let readings = c.rssiReadings
            if readings.count > 1, let w = readings.weakest { s += "; weakest \(w.dBm) dBm of \(readings.count) reads" }
            return s + ")"
        }
        return "RSSI \(r.dBm) dBm in the peer's last advertising report before the link came up (frame \(r.at.frame), \(ago) before the loss; no Read RSSI on the link)"
    }

    /// What a weak signal is: at or below `dBm`, read at most `withinMicros` before the loss.
    struct WeakSignal {
        var dBm: Int
        var withinMicros: Int64
    }

    /// The weakest signal the capture holds for an LE link shortly before its loss at `d`, when it
    /// was weak (said in what the finding shows: a platform's usual cause replaces the rule's
    /// own). The readings are the link's weakest and last Read RSSI answers, else the peer's last
    /// advertising report before the link came up; one read longer than `weak.withinMicros`
    /// before the loss says nothing of where the devices were when it happened.
    static func weakSignal(_ c: Connection, before d: FrameTime, _ weak: WeakSignal) -> RSSIReading? {
        guard c.transport == .le else { return nil }
        let readings = c.rssiReadings.count > 0 ? [c.rssiReadings.weakest, c.rssiReadings.last] : [c.peerAdvertisingRSSI]
        let recent = readings.compactMap { $0 }.filter { r in
            let age = d.time.microseconds &- r.at.time.microseconds
            return age >= 0 && age <= weak.withinMicros
        }
        guard let w = recent.min(by: { $0.dBm < $1.dBm }), w.dBm <= weak.dBm else { return nil }
        return w
    }

    static func cause(_ end: LinkEnd) -> String {
        switch end {
        case .failedToEstablish:
            return "The controller never heard the peer after the connection request was sent (0x3E): the peer stopped advertising, moved away, or the radio was busy"
        default:
            return "The link layer heard nothing from the peer for a whole supervision timeout: the peer went out of range, was switched off or reset, or interference; a short supervision timeout makes it more likely"
        }
    }
}
