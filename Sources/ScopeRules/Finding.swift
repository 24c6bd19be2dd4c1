import ScopeAnalysis
import ScopeCore

// The contract between rules (ScopeRules) and reports (ScopeReport). Rules never print.

public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable, Codable {
    case info, warning, error
    var rank: Int {
        switch self {
        case .info: return 0
        case .warning: return 1
        case .error: return 2
        }
    }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// One violation, with the frames that prove it.
public struct Finding: Sendable, Hashable {
    public var rule: String
    public var severity: Severity
    /// What is judged: "scan session at frame 31", "connection hci0 handle 0x0040", "handle 0x0012".
    public var subject: String
    /// What the HCI evidence shows, then what usually causes it in app code.
    public var message: String
    /// Frame numbers, ascending.
    public var evidence: [FrameNumber]
    public var recommendation: String?

    public init(rule: String, severity: Severity, subject: String, message: String, evidence: [FrameNumber], recommendation: String? = nil) {
        self.rule = rule
        self.severity = severity
        self.subject = subject
        self.message = message
        self.evidence = evidence.sorted()
        self.recommendation = recommendation
    }
}

public enum RuleStatus: String, Sendable, Hashable, Codable {
    case violated, passed, notEvaluated = "not_evaluated"
}

/// A rule's verdict for one capture.
public struct RuleVerdict: Sendable, Hashable {
    public var rule: String
    public var status: RuleStatus
    /// Why (for passed and not-evaluated too: the frames and values behind it).
    public var reason: String
    public var findings: [Finding]

    public init(rule: String, status: RuleStatus, reason: String, findings: [Finding] = []) {
        self.rule = rule
        self.status = status
        self.reason = reason
        self.findings = findings
    }
}
