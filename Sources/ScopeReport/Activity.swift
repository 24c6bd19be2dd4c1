import ScopeAnalysis
import ScopeCore
import ScopeRules

/// What the system (the local platform's own Bluetooth activity) and the peer did in a capture,
/// summed per kind of item: what the report for people shows in a few lines instead of their
/// findings (docs/ATTRIBUTION.md). Built from the items the analysis holds and, for the scan
/// sessions of a long capture judged on the way, their sums per attribution signal.
package struct Activity: Sendable {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case scans = "scan_sessions"
        case advertising = "advertising_spans"
        case requests = "connection_requests"
        case connections
        case remoteClient = "remote_gatt_client"
    }

    /// One kind of item of one actor.
    package struct Line: Sendable, Hashable {
        package var actor: Actor
        package var kind: Kind
        package var count: Int
        /// Scans and advertising: enabled time; connections: lifetime (of the connections that
        /// ended or were still up at the end).
        package var durationMicros: Int64 = 0
        /// Scans: estimated radio-on time; advertising: estimated airtime (RadioModel).
        package var radioMicros: Int64?
        /// The signals behind the attribution, in the order first met.
        package var signals: [ActorSignal] = []
        package var firstFrame: FrameNumber?

        mutating func note(_ signal: ActorSignal, frame: FrameNumber?) {
            if !signals.contains(signal) { signals.append(signal) }
            if let frame, firstFrame.map({ frame < $0 }) ?? true { firstFrame = frame }
        }
    }

    /// A rule's findings on the system's or the peer's activity.
    package struct NotJudged: Sendable, Hashable {
        package var rule: String
        package var actor: Actor
        package var count: Int
    }

    /// The system's lines, then the peer's, each in `Kind` order.
    package var lines: [Line] = []
    package var notJudged: [NotJudged] = []
    /// The scan sessions that count towards the lines only by their sums (judged on the way).
    package var handedOverScans = 0

    package var isEmpty: Bool { lines.isEmpty && notJudged.isEmpty }

    init(analysis a: AnalysisResult, verdicts: [RuleVerdict]) {
        // Each (actor, kind)'s line, in the order first met.
        struct LineKey: Hashable {
            var actor: Actor
            var kind: Kind
        }
        var met = KeyedList<LineKey, Line>()
        func add(_ actor: Actor, _ kind: Kind, _ evidence: ActorEvidence, frame: FrameNumber?, count: Int = 1, _ body: (inout Line) -> Void) {
            guard actor == .os || actor == .peer else { return }
            let i = met.position(of: LineKey(actor: actor, kind: kind)) { Line(actor: actor, kind: kind, count: 0) }
            met.elements[i].count += count
            met.elements[i].note(evidence.signal, frame: frame ?? evidence.frame)
            body(&met.elements[i])
        }
        for s in a.scans {
            add(a.actor(s.attribution), .scans, s.attribution, frame: s.start.frame) {
                $0.durationMicros &+= max(0, s.durationMicros)
                $0.radioMicros = ($0.radioMicros ?? 0) &+ s.radioOnMicros
            }
        }
        for (signal, totals) in a.handedOverScans.bySignal.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let e = ActorEvidence(signal)
            add(a.actor(e), .scans, e, frame: nil, count: totals.sessions) {
                $0.durationMicros &+= totals.durationMicros
                $0.radioMicros = ($0.radioMicros ?? 0) &+ totals.radioOnMicros
            }
            handedOverScans += totals.sessions
        }
        for span in a.advertising?.spans ?? [] {
            add(a.actor(span.attribution), .advertising, span.attribution, frame: span.start.frame) {
                $0.durationMicros &+= max(0, span.enabledMicros)
                if let e = RadioModel.advertising(dataLength: span.dataLength ?? 0, intervalMicros: span.intervalMicros, enabledMicros: span.enabledMicros) {
                    $0.radioMicros = ($0.radioMicros ?? 0) &+ e.airtimeMicros
                }
            }
        }
        for r in a.attempts {
            add(a.actor(r.attribution), .requests, r.attribution, frame: r.request.frame) { _ in }
        }
        let end = a.capture.lastTimestamp ?? a.origin
        for c in a.connections where c.isLE {
            add(a.actor(c.attribution), .connections, c.attribution, frame: c.firstSeen) {
                $0.durationMicros &+= max(0, c.lifetimeMicros(captureEnd: end) ?? 0)
            }
            if c.remoteIsGATTClient {
                let e = ActorEvidence(.remoteClient)
                add(.peer, .remoteClient, e, frame: c.firstSeen) { _ in }
            }
        }
        lines = met.elements.sorted {
            $0.actor != $1.actor ? $0.actor < $1.actor : (Kind.allCases.firstIndex(of: $0.kind) ?? 0) < (Kind.allCases.firstIndex(of: $1.kind) ?? 0)
        }
        for v in verdicts.sorted(by: { $0.rule < $1.rule }) {
            var counts: [Actor: Int] = [:]
            for f in v.findings where !f.actor.judgedAsApp { counts[f.actor, default: 0] += 1 }
            let omitted = v.omitted.values.reduce(0, +) - v.omittedJudged.values.reduce(0, +)
            if omitted > 0 { counts[.os, default: 0] += omitted }
            for actor in [Actor.os, .peer] where (counts[actor] ?? 0) > 0 {
                notJudged.append(NotJudged(rule: v.rule, actor: actor, count: counts[actor] ?? 0))
            }
        }
    }

    /// "12 scan sessions (3 h 2 min enabled, about 25 min radio-on): scan with the parameters of …".
    package static func text(_ l: Line) -> String {
        let noun: String
        switch l.kind {
        case .scans: noun = "scan session"
        case .advertising: noun = "advertising span"
        case .requests: noun = "connection request"
        case .connections: noun = l.actor == .peer ? "connection it opened" : "connection"
        case .remoteClient: noun = "connection with the peer as GATT client"
        }
        var s: String
        switch (l.kind, l.count == 1) {
        case (.connections, false) where l.actor == .peer: s = "\(l.count) connections it opened"
        case (.remoteClient, false): s = "\(l.count) connections with the peer as GATT client"
        case (_, true): s = "1 \(noun)"
        default: s = "\(l.count) \(noun)s"
        }
        var figures: [String] = []
        switch l.kind {
        case .scans, .advertising:
            figures.append(ReadableDuration.text(l.durationMicros) + " enabled")
            if let r = l.radioMicros {
                figures.append("about " + ReadableDuration.text(r) + (l.kind == .scans ? " radio-on" : " on air") + ", estimated")
            }
        case .connections:
            if l.durationMicros > 0 { figures.append(ReadableDuration.text(l.durationMicros) + " connected") }
        default: break
        }
        if !figures.isEmpty { s += " (" + figures.joined(separator: ", ") + ")" }
        let why = l.signals.map(\.description).joined(separator: "; ")
        return s + ": " + why + (l.firstFrame.map { ", first at frame \($0)" } ?? "")
    }
}
