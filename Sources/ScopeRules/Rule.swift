import ScopeAnalysis
import ScopeCore

/// One best-practice rule of RULES.md: static metadata plus a pure evaluation.
///
/// A rule never prints and never traps on capture data; it returns exactly one verdict per run:
/// `violated` (with findings, each citing evidence frames), `passed` (with the frames and values
/// behind it) or `not_evaluated` (with the reason: subject absent, setup not captured, ATT analysis
/// incomplete…).
package protocol Rule: Sendable {
    /// Stable dotted id, never reused (RULES.md table), e.g. "scan.left-running".
    static var id: String { get }
    /// The guidance item (1–10) of RULES.md "The guidance, in short".
    static var guidance: Int { get }
    /// Severity of a finding unless the rule grades it (warning/info) or the config overrides it.
    static var defaultSeverity: Severity { get }
    /// One line: what the rule checks.
    static var summary: String { get }
    /// Threshold names and defaults, named as the truth files' `expected_rules_config.thresholds`.
    static var defaultThresholds: [String: ThresholdValue] { get }
    /// What the rule judges, from which evidence, why, and what to do per platform
    /// (Documentation/*.swift): the source of `hciscope rules` and docs/RULES.md.
    static var documentation: RuleDocumentation { get }

    /// What the rule's fold reads of each batch a long capture hands over on the way (and of the
    /// end): its settled items, its closed connections' ATT detail, or its closed scan sessions.
    static var scope: RuleScope { get }

    init()
    func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration) -> RuleVerdict
    /// As `evaluate(_:config:)`, with what other rules of the same evaluation derive from the
    /// same analysis (`RuleEngine` shares one `facts` between them). Rules that use no facts keep
    /// the default, which ignores them.
    func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration, facts: RuleFacts) -> RuleVerdict
}

/// What a rule's fold (`ItemRule.tally`) reads of a batch handed over (`ItemView`).
package enum RuleScope: Sendable {
    /// Closed connections with their ATT detail, encryption changes and pairings (`ItemView.detail`).
    case connection
    /// Closed scan sessions, with the connection requests made while each ran (`ItemView.detail`).
    case scan
    /// Settled connection requests, connections (as links), pairings, reconnections and
    /// advertising records.
    case items
}

extension Rule {
    package static var defaultThresholds: [String: ThresholdValue] { [:] }

    package func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration, facts: RuleFacts) -> RuleVerdict {
        evaluate(analysis, config: config)
    }

    func notEvaluated(_ reason: String) -> RuleVerdict {
        RuleVerdict(rule: Self.id, status: .notEvaluated, reason: reason)
    }

    func passed(_ reason: String) -> RuleVerdict {
        RuleVerdict(rule: Self.id, status: .passed, reason: reason)
    }

    func violated(_ findings: FindingList) -> RuleVerdict {
        var v = RuleVerdict(
            rule: Self.id, status: .violated, reason: RuleVerdict.violationReason(findings.kept, omitted: findings.omitted),
            findings: findings.kept, omitted: findings.omitted)
        v.omittedJudged = findings.omittedJudged
        return v
    }

    /// Violated when there are findings, else passed with `passReason`.
    func verdict(_ findings: FindingList, passReason: @autoclosure () -> String) -> RuleVerdict {
        findings.isEmpty ? passed(passReason()) : violated(findings)
    }

    /// A finding; `platform`: the cause and fix given already speak that platform's API (else
    /// `RuleEngine` replaces them by the rule's documented advice for the capture's platform).
    func finding(
        _ severity: Severity? = nil, subject: String, shows: String, cause: String, evidence: [FrameNumber?],
        fix: String? = nil, platform: Platform? = nil, attribution: ActorEvidence, context: PlatformContext
    ) -> Finding {
        var f = Finding(
            rule: Self.id, severity: severity ?? Self.defaultSeverity, subject: subject,
            message: shows + ". " + cause, evidence: Array(Set(evidence.compactMap { $0 })), recommendation: fix)
        f.shows = shows
        f.platform = platform
        f.attribution = attribution
        f.actor = context.actor(attribution)
        return f
    }

    /// A numeric threshold (config value, else the rule's default).
    func number(_ key: String, _ config: RuleConfiguration) -> Double {
        config.threshold(rule: Self.id, key: key)?.number ?? Self.defaultThresholds[key]?.number ?? 0
    }

    func micros(_ key: String, _ config: RuleConfiguration) -> Int64 {
        Int64((number(key, config) * 1_000_000).rounded())
    }
}
