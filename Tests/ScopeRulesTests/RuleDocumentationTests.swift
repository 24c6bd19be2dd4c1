import ScopeRules
import Testing

/// Every rule documents itself completely: the catalog is what `hciscope rules` and docs/RULES.md print.
@Suite("Rule documentation")
struct RuleDocumentationTests {
    @Test(arguments: RuleRegistry.ids)
    func documentationIsComplete(_ id: String) throws {
        let rule = try #require(RuleRegistry.rule(id: id))
        let d = rule.documentation
        for (name, text) in [("title", d.title), ("subject", d.subject), ("violated", d.violated), ("passed", d.passed),
                             ("notEvaluated", d.notEvaluated), ("severity", d.severity), ("why", d.why)] {
            #expect(!text.isEmpty, "\(id): \(name) is empty")
        }
        #expect(!d.evidence.isEmpty, "\(id): no evidence listed")
        // Every threshold the rule has is documented, and nothing else.
        #expect(Set(d.thresholds.map(\.key)) == Set(rule.defaultThresholds.keys), "\(id): thresholds documented \(d.thresholds.map(\.key)), defined \(rule.defaultThresholds.keys.sorted())")
        for t in d.thresholds { #expect(d.violated.contains(t.key) || !t.meaning.isEmpty, "\(id): \(t.key)") }
        // iOS first, then Android; every platform at most once, each with a cause and a fix.
        #expect(d.advice.first?.platform == .ios, "\(id): iOS advice first")
        #expect(d.advice(for: .android) != nil, "\(id): no Android advice")
        #expect(Set(d.advice.map(\.platform)).count == d.advice.count, "\(id): a platform twice")
        for a in d.advice { #expect(!a.cause.isEmpty && !a.fix.isEmpty, "\(id): \(a.platform) advice incomplete") }
        #expect(d.severity.hasPrefix(rule.defaultSeverity.rawValue), "\(id): severity text \(d.severity) does not start with the default \(rule.defaultSeverity)")
    }
}
