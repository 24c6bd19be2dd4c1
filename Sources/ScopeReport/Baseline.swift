import Foundation
import ScopeAnalysis
import ScopeRules

/// An earlier JSON report (`--baseline OLD.json`): its headline figures and findings.
package struct Baseline: Sendable {
    package struct OldFinding: Sendable, Hashable {
        package var rule: String
        package var subject: String
        package var severity: String
        package var message: String
        /// Its actor, in reports of schema 2 and later.
        package var actor: String?
        package init(rule: String, subject: String, severity: String, message: String, actor: String? = nil) {
            self.rule = rule
            self.subject = subject
            self.severity = severity
            self.message = message
            self.actor = actor
        }
    }
    package var file: String?
    package var figures: [String: Double]
    package var findings: [OldFinding]

    package enum LoadError: Error, CustomStringConvertible {
        case unreadable(String, String)
        case notAReport(String, String)
        package var description: String {
            switch self {
            case .unreadable(let p, let why): return "\(p): cannot read baseline: \(why)"
            case .notAReport(let p, let why): return "\(p): not an hciscope JSON report: \(why)"
            }
        }
    }

    package init(figures: [String: Double], findings: [OldFinding], file: String? = nil) {
        self.figures = figures
        self.findings = findings
        self.file = file
    }

    /// Every per-capture report in the file (a single report, or the `reports` of a multi-file one).
    package static func load(path: String) throws(LoadError) -> [Baseline] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(path, String(describing: error.localizedDescription))
        }
        return try parse(data, path: path)
    }

    package static func parse(_ data: Data, path: String = "baseline") throws(LoadError) -> [Baseline] {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw .notAReport(path, "invalid JSON")
        }
        guard let root = object as? [String: Any] else { throw .notAReport(path, "top level is not an object") }
        guard let version = root["schema_version"] as? NSNumber else { throw .notAReport(path, "no schema_version") }
        // Schema 1 gave these figures as means; from schema 2 they are medians: not comparable.
        let changedMeaning: Set<String> =
            version.intValue < 2
            ? ["discovery_ms", "discovery_radio_on_ms", "first_report_to_request_ms", "setup_ms", "first_att_ms", "gatt_discovery_ms",
               "first_data_ms", "idle_tail_ms"] : []
        let items: [[String: Any]] = (root["reports"] as? [[String: Any]]) ?? [root]
        var out: [Baseline] = []
        for item in items {
            var figures: [String: Double] = [:]
            if let h = item["headline"] as? [String: Any], let f = h["figures"] as? [String: Any] {
                for (k, v) in f where !changedMeaning.contains(k) { if let n = v as? NSNumber { figures[k] = n.doubleValue } }
            }
            let findings = ((item["findings"] as? [[String: Any]]) ?? []).map {
                OldFinding(rule: $0["rule"] as? String ?? "", subject: $0["subject"] as? String ?? "",
                           severity: $0["severity"] as? String ?? "", message: $0["message"] as? String ?? "",
                           actor: $0["actor"] as? String)
            }
            let file = (item["capture"] as? [String: Any])?["file"] as? String
            out.append(Baseline(figures: figures, findings: findings, file: file))
        }
        return out
    }

    /// The baseline for `file`: same file name, else the only one.
    package static func match(_ baselines: [Baseline], file: String) -> Baseline? {
        func base(_ s: String) -> Substring { s.split(separator: "/").last ?? Substring(s) }
        if let b = baselines.first(where: { $0.file.map(base) == base(file) }) { return b }
        return baselines.count == 1 ? baselines.first : nil
    }
}

/// `--max-regression KEY=PCT`: a headline figure may not grow by more than PCT percent.
package struct RegressionBudget: Sendable, Hashable {
    package var key: String
    package var percent: Double

    package init(key: String, percent: Double) {
        self.key = key
        self.percent = percent
    }

    /// Figure keys a budget may name (those of `Headline.figures`).
    package static let knownKeys = [
        "discovery_ms", "discovery_p90_ms", "discovery_reports", "discovery_radio_on_ms", "first_report_to_request_ms",
        "failed_attempts", "failed_attempts_ms", "scan_ms", "scan_radio_on_ms", "app_full_duty_scan_ms", "reports",
        "duplicate_reports", "duplicate_ratio", "duplicate_rate_median", "duplicate_rate_peak", "duplicate_event_bytes",
        "setup_ms", "setup_p90_ms", "accept_list_wait_ms", "first_att_ms", "gatt_discovery_ms", "first_data_ms", "idle_tail_ms",
    ]

    /// "discovery_ms=10%" or "discovery_ms=10"; nil with a message for anything else.
    package static func parse(_ text: String) -> Result<RegressionBudget, BudgetError> {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return .failure(BudgetError(message: "expected KEY=PERCENT, got '\(text)'")) }
        let key = parts[0].trimmingCharacters(in: .whitespaces)
        var pct = parts[1].trimmingCharacters(in: .whitespaces)
        if pct.hasSuffix("%") { pct.removeLast() }
        guard knownKeys.contains(key) else {
            return .failure(BudgetError(message: "unknown figure '\(key)' (known: \(knownKeys.joined(separator: ", ")))"))
        }
        guard let p = Double(pct), p >= 0, p.isFinite else {
            return .failure(BudgetError(message: "'\(parts[1])' is not a percentage (e.g. 10%)"))
        }
        return .success(RegressionBudget(key: key, percent: p))
    }

    package struct BudgetError: Error, CustomStringConvertible, Equatable {
        package var message: String
        package var description: String { message }
    }
}

/// The current report against a baseline: deltas for every headline figure and new/resolved
/// findings (matched by rule and subject).
package struct BaselineComparison: Sendable {
    package struct Delta: Sendable {
        package var key: String
        package var unit: Headline.Figure.Unit
        /// In the figure's JSON unit (ms, count, ratio, bytes).
        package var old: Double?
        package var new: Double?
        package var budgetPercent: Double?
        /// Relative growth in percent; nil when either side is missing or the old value is 0.
        package var percent: Double? {
            guard let old, let new, old != 0 else { return nil }
            return (new - old) / abs(old) * 100
        }
        package var change: Double? {
            guard let old, let new else { return nil }
            return new - old
        }
        /// Grew by more than the budget (from zero, any growth is beyond a budget).
        package var regression: Bool {
            guard let budget = budgetPercent, let old, let new, new > old else { return false }
            if old <= 0 { return true }
            return (new - old) / old * 100 > budget + 1e-9
        }
    }

    package var deltas: [Delta]
    package var newFindings: [Finding]
    package var resolvedFindings: [Baseline.OldFinding]
    package var regressions: [Delta] { deltas.filter(\.regression) }

    package init(report: Report, baseline: Baseline, budgets: [RegressionBudget]) {
        deltas = report.headline.figures.map { f in
            let scale = f.unit == .ms ? 1000.0 : 1.0
            let budget = budgets.last { $0.key == f.key }?.percent
            return Delta(key: f.key, unit: f.unit, old: baseline.figures[f.key], new: f.value.map { $0 / scale },
                         budgetPercent: budget)
        }
        let oldKeys = Set(baseline.findings.map { "\($0.rule)\u{0}\($0.subject)" })
        let newKeys = Set(report.findings.map { "\($0.rule)\u{0}\($0.subject)" })
        // The findings the report judges (the app's, unless every actor's is judged).
        newFindings = report.shownFindings.filter { !oldKeys.contains("\($0.rule)\u{0}\($0.subject)") }
        // A rule whose findings were not all listed cannot prove one of them gone.
        let partlyListed = Set(report.rules.filter { !$0.omitted.isEmpty }.map(\.rule))
        let judgedOnly = report.judge == .app
        resolvedFindings = baseline.findings.filter {
            !newKeys.contains("\($0.rule)\u{0}\($0.subject)") && !partlyListed.contains($0.rule)
                && (!judgedOnly || ($0.actor.map { Actor(rawValue: $0)?.judgedAsApp ?? true } ?? true))
        }
    }

    static func number(_ v: Double?, unit: Headline.Figure.Unit) -> String {
        guard let v else { return "–" }
        switch unit {
        case .ms: return Millis.string(Int64((v * 1000).rounded()))
        case .ratio: return Millis.ratio(v)
        case .count, .bytes: return String(Int64(v.rounded()))
        }
    }

    func json() -> JSONValue {
        var o = JSONObject()
        o.set("deltas", .array(deltas.map { d in
            var q = JSONObject()
            q.set("figure", d.key)
            q.set("old", d.old.map { JSONValue.decimal(Self.number($0, unit: d.unit)) } ?? .null)
            q.set("new", d.new.map { JSONValue.decimal(Self.number($0, unit: d.unit)) } ?? .null)
            q.set("change", d.change.map { JSONValue.decimal(Self.number($0, unit: d.unit)) } ?? .null)
            q.set("percent", d.percent.map { JSONValue.decimal(Millis.ratio($0)) } ?? .null)
            q.set("budget_percent", d.budgetPercent.map { JSONValue.decimal(Millis.ratio($0)) } ?? .null)
            q.set("regression", d.regression)
            return q.value
        }))
        o.set("new_findings", .array(newFindings.map(JSONReporter.finding)))
        o.set("resolved_findings", .array(resolvedFindings.map { f in
            var q = JSONObject()
            q.set("rule", f.rule)
            q.set("severity", f.severity)
            q.set("subject", f.subject)
            q.set("message", f.message)
            return q.value
        }))
        o.set("regressions", .array(regressions.map { .string($0.key) }))
        return o.value
    }

    /// One line of the comparison: its text and whether it reports a regression (the text
    /// reporter paints those red: it checks the flag, not the wording).
    struct Line {
        var text: String
        var regression: Bool
    }

    /// Plain lines for the text and Markdown reporters (already escaped by the caller's rules).
    func lines() -> [Line] {
        var out: [Line] = []
        for d in deltas where d.old != nil || d.new != nil {
            let unit = d.unit == .ms ? " ms" : d.unit == .bytes ? " B" : ""
            var s = "\(d.key): \(Self.number(d.old, unit: d.unit)) → \(Self.number(d.new, unit: d.unit))\(unit)"
            if let p = d.percent { s += " (\(p >= 0 ? "+" : "")\(Millis.ratio(p, places: 1)) %)" }
            if let b = d.budgetPercent { s += d.regression ? " REGRESSION (budget \(Millis.ratio(b, places: 1)) %)" : " within budget" }
            out.append(Line(text: s, regression: d.budgetPercent != nil && d.regression))
        }
        return out
    }
}
