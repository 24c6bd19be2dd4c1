import ScopeAnalysis

/// Every rule, in the stable order of RULES.md's table. Explicit on purpose: no registration
/// side effects, and a new rule is one line here.
public enum RuleRegistry {
    public static let all: [any Rule.Type] = [
        ScanLeftRunning.self,
        ScanDuplicatesAllowed.self,
        GATTDiscoverAllServices.self,
        GATTDiscoverAllCharacteristics.self,
        GATTPolling.self,
        ConnIdleBeforeDisconnect.self,
        ConnSubscriptionsLeftOn.self,
        ConnReconnectByScan.self,
        ConnAttemptUnbounded.self,
        AdvPayloadBudget.self,
        AdvWithoutNeed.self,
        SecurityInsufficientAuth.self,
        SecurityLegacyPairing.self,
        SecurityUnauthenticatedPairing.self,
        SecurityPairingFailed.self,
        ATTSmallWrites.self,
        ATTAcknowledgedBulk.self,
    ]

    public static var ids: [String] { all.map { $0.id } }

    public static func rule(id: String) -> (any Rule.Type)? { all.first { $0.id == id } }
}

/// Runs every rule of the registry against one analysis.
public enum RuleEngine {
    /// One verdict per registered rule, in registry order. Disabled rules are `not_evaluated`
    /// ("disabled in the configuration"); a severity override rewrites the rule's findings.
    public static func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration = RuleConfiguration()) -> [RuleVerdict] {
        RuleRegistry.all.map { type in
            let id = type.id
            if !config.isEnabled(id) {
                return RuleVerdict(rule: id, status: .notEvaluated, reason: "disabled in the configuration")
            }
            var verdict = type.init().evaluate(analysis, config: config)
            if let severity = config.severityOverrides[id] {
                verdict.findings = verdict.findings.map {
                    var f = $0
                    f.severity = severity
                    return f
                }
                let omitted = verdict.omitted.values.reduce(0, +)
                verdict.omitted = omitted > 0 ? [severity: omitted] : [:]
            }
            return verdict
        }
    }

    /// All findings of the verdicts, most severe first, then by first evidence frame.
    public static func findings(_ verdicts: [RuleVerdict]) -> [Finding] {
        verdicts.flatMap(\.findings).sorted {
            if $0.severity != $1.severity { return $0.severity > $1.severity }
            return ($0.evidence.first ?? 0) < ($1.evidence.first ?? 0)
        }
    }
}
