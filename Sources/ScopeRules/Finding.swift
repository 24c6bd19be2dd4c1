import ScopeAnalysis
import ScopeCore

// The contract between rules (ScopeRules) and reports (ScopeReport). Rules never print.

package enum Severity: String, Sendable, Hashable, Comparable, CaseIterable, Codable {
    case info, warning, error
    var rank: Int {
        switch self {
        case .info: return 0
        case .warning: return 1
        case .error: return 2
        }
    }
    package static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// One violation, with the frames that prove it.
package struct Finding: Sendable, Hashable {
    package var rule: String
    package var severity: Severity
    /// What is judged: "scan session at frame 31", "connection hci0 handle 0x0040", "handle 0x0012".
    package var subject: String
    /// What the HCI evidence shows, then what usually causes it in app code.
    package var message: String
    /// Frame numbers, ascending.
    package var evidence: [FrameNumber]
    package var recommendation: String?
    /// What the HCI evidence shows (the start of `message`), when the rule built the finding
    /// from it: the advice after it is then replaced by the platform's (`RuleEngine`).
    package var shows: String?
    /// The platform whose API `message` and `recommendation` speak (nil: every platform's, iOS first).
    package var platform: Platform?
    /// What in the frames says who did what the finding judges (docs/ATTRIBUTION.md); nil for
    /// a finding built without an item.
    package var attribution: ActorEvidence?
    /// Who did it, resolved from `attribution` with the capture's platform by `RuleEngine`
    /// (`unknown` until then, and for a finding without attribution).
    package var actor: Actor = .unknown

    package init(rule: String, severity: Severity, subject: String, message: String, evidence: [FrameNumber], recommendation: String? = nil) {
        self.rule = rule
        self.severity = severity
        self.subject = subject
        self.message = message
        self.evidence = evidence.sorted()
        self.recommendation = recommendation
    }
}

/// What a rule counted as the platform's own doing rather than the app's (docs/RULES.md, "Who did
/// it"): reported, not a finding.
package struct PlatformShare: Sendable, Hashable {
    package var platform: Platform
    /// Items (connection requests, advertising spans, scan sessions) attributed to the platform.
    package var count: Int
    /// What they are and why they are the platform's, e.g. "filter-accept-list connection
    /// requests left pending: bluetoothd's background reconnection".
    package var what: String

    package init(platform: Platform, count: Int, what: String) {
        self.platform = platform
        self.count = count
        self.what = what
    }

    /// "3 filter-accept-list connection requests … (iOS / macOS (Core Bluetooth))".
    package var description: String { "\(count) \(what) — the platform's (\(platform.name)), not the app's" }
}

package enum RuleStatus: String, Sendable, Hashable, Codable {
    case violated, passed, notEvaluated = "not_evaluated"
}

/// A rule's verdict for one capture.
package struct RuleVerdict: Sendable, Hashable {
    package var rule: String
    package var status: RuleStatus
    /// Why (for passed and not-evaluated too: the frames and values behind it).
    package var reason: String
    /// The findings kept: at most `FindingList.limit` per severity, in capture order.
    package var findings: [Finding]
    /// Findings counted but not kept (beyond `FindingList.limit` per severity and side of the
    /// attribution), by severity.
    package var omitted: [Severity: Int]
    /// Of `omitted`, those whose actor is judged as the app's (`Actor.judgedAsApp`).
    package var omittedJudged: [Severity: Int] = [:]
    /// What the rule attributed to the platform's own stack (counted, not findings).
    package var platformShare: PlatformShare?
    /// Set once `reason` names `platformShare` (by `RuleEngine.speak`), so that it is named once.
    package internal(set) var reasonNamesPlatformShare = false

    package init(rule: String, status: RuleStatus, reason: String, findings: [Finding] = [], omitted: [Severity: Int] = [:]) {
        self.rule = rule
        self.status = status
        self.reason = reason
        self.findings = findings
        self.omitted = omitted
    }

    /// Findings of `severity`, kept and omitted.
    package func count(_ severity: Severity) -> Int {
        kept(severity, judgedOnly: false) + (omitted[severity] ?? 0)
    }

    /// Findings of `severity` whose actor is judged as the app's (`Actor.judgedAsApp`), kept and
    /// omitted: what `--fail-on` counts unless every actor is judged.
    package func countJudged(_ severity: Severity) -> Int {
        kept(severity, judgedOnly: true) + (omittedJudged[severity] ?? 0)
    }

    /// Findings of `severity` by `judged` actors (`nil`: every actor).
    package func count(_ severity: Severity, judgedOnly: Bool) -> Int { judgedOnly ? countJudged(severity) : count(severity) }

    /// Findings of each actor, kept and omitted (omitted ones split into judged and not: counted
    /// under `unknown` and `os`).
    package var findingsByActor: [Actor: Int] {
        var out: [Actor: Int] = [:]
        for f in findings { out[f.actor, default: 0] += 1 }
        let judged = omittedJudged.values.reduce(0, +)
        let all = omitted.values.reduce(0, +)
        if judged > 0 { out[.unknown, default: 0] += judged }
        if all - judged > 0 { out[.os, default: 0] += all - judged }
        return out
    }

    /// Every finding judged as the app's, kept and omitted.
    package var totalJudged: Int { kept(nil, judgedOnly: true) + omittedJudged.values.reduce(0, +) }

    /// Kept findings of `severity` (nil: of any), only those judged as the app's when `judgedOnly`.
    /// Each finding's fields are read where it is: a finding copied retains its texts.
    private func kept(_ severity: Severity?, judgedOnly: Bool) -> Int {
        var n = 0
        for i in findings.indices
        where (severity == nil || findings[i].severity == severity) && (!judgedOnly || findings[i].actor.judgedAsApp) {
            n += 1
        }
        return n
    }

    /// Every finding, kept and omitted.
    package var totalFindings: Int { findings.count + omitted.values.reduce(0, +) }
}

/// The findings of one rule in bounded memory: the first `limit` of each severity and of each
/// side of the attribution (the app's and what cannot be told apart from it, the system's and
/// the peer's: `Actor.judgedAsApp`), in the order the rule reports them (capture order), are
/// kept; the rest are only counted. A capture of any length then yields a report of bounded size
/// whose counts stay exact, and the system's findings never crowd out the app's.
package struct FindingList: Sendable, Hashable {
    /// Findings kept per rule, severity and side of the attribution (docs/LIMITS.md, Limits).
    package static let limit = 100

    package private(set) var kept: [Finding] = []
    package private(set) var omitted: [Severity: Int] = [:]
    /// Of `omitted`, those whose actor is judged as the app's.
    package private(set) var omittedJudged: [Severity: Int] = [:]
    private var keptByBucket: [Int] = [0, 0, 0, 0, 0, 0]

    package init() {}

    package var isEmpty: Bool { kept.isEmpty && omitted.isEmpty }
    package var total: Int { kept.count + omitted.values.reduce(0, +) }

    /// The counter of findings of `severity` by `actor`.
    static func bucket(_ severity: Severity, _ actor: Actor) -> Int { severity.rank * 2 + (actor.judgedAsApp ? 0 : 1) }

    package mutating func append(_ f: Finding) {
        let b = Self.bucket(f.severity, f.actor)
        if keptByBucket[b] < Self.limit {
            keptByBucket[b] += 1
            kept.append(f)
        } else {
            count(f.severity, f.actor)
        }
    }

    private mutating func count(_ severity: Severity, _ actor: Actor) {
        omitted[severity, default: 0] += 1
        if actor.judgedAsApp { omittedJudged[severity, default: 0] += 1 }
    }

    /// As `append(make())` for a finding of `severity` by `actor`, building it only when it is
    /// kept: rules that judge thousands of sessions or connections skip the messages of those
    /// only counted.
    package mutating func append(_ severity: Severity, actor: Actor, _ make: () -> Finding) {
        let b = Self.bucket(severity, actor)
        if keptByBucket[b] < Self.limit {
            let f = make()
            assert(f.severity == severity && f.actor == actor, "FindingList.append: finding of another severity or actor")
            append(f)
        } else {
            count(severity, actor)
        }
    }

    /// Adds the findings and omitted counts of another part of the same rule's evaluation.
    package mutating func merge(findings: [Finding], omitted more: [Severity: Int], omittedJudged judged: [Severity: Int] = [:]) {
        for f in findings { append(f) }
        for (s, n) in more { omitted[s, default: 0] += n }
        for (s, n) in judged { omittedJudged[s, default: 0] += n }
    }
}

extension RuleVerdict {
    /// Messages shown in a violated verdict's reason before "… and N more".
    static let reasonMessages = 20

    /// The reason of a violated verdict: its findings' messages (the first `reasonMessages`).
    static func violationReason(_ kept: [Finding], omitted: [Severity: Int]) -> String {
        let more = max(0, kept.count - reasonMessages) + omitted.values.reduce(0, +)
        let shown = kept.prefix(reasonMessages).map(\.message).joined(separator: "; ")
        return more == 0 ? shown : shown + "; … and \(more) more finding(s)"
    }
}
