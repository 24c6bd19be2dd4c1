import ScopeRules

/// `--format codeclimate`: GitLab Code Quality (a subset of the Code Climate issue format), one
/// issue per finding listed, shown in merge requests and the pipeline's Code Quality tab:
/// `[{description, check_name, fingerprint, severity, location: {path, lines: {begin: 1}}}]`.
///
/// - `check_name` is the rule id; `severity` maps error → `major`, warning → `minor`, info →
///   `info` (the mapping of GitLab's ESLint formatter); a capture that could not be analysed is a
///   `blocker` issue of check `hciscope.unreadable`.
/// - `fingerprint` is the SHA-256 of rule, subject and file (joined by NUL), so the same finding
///   in the same capture keeps its fingerprint from run to run and GitLab can tell new findings
///   from resolved ones; a second finding with the same rule and subject in a file adds its
///   occurrence number.
/// - Captures are binary, so every issue points at line 1 of the capture file.
/// - Findings counted but not listed (beyond 100 per rule and severity) are not issues.
package enum CodeClimateReporter {
    package static let unreadableCheck = "hciscope.unreadable"

    package static func severity(_ s: Severity) -> String {
        switch s {
        case .error: return "major"
        case .warning: return "minor"
        case .info: return "info"
        }
    }

    /// Stable over runs for the same rule, subject and file; `occurrence` > 0 for repeats.
    package static func fingerprint(rule: String, subject: String, file: String, occurrence: Int = 0) -> String {
        SHA256.hex([rule, subject, file].joined(separator: "\u{0}") + (occurrence > 0 ? "\u{0}\(occurrence)" : ""))
    }

    package static func value(_ m: MultiReport) -> JSONValue {
        var issues: [JSONValue] = []
        for x in m.failures {
            issues.append(issue(
                description: "could not analyse \(x.file): \(x.message)", check: unreadableCheck,
                fingerprint: fingerprint(rule: unreadableCheck, subject: "", file: x.file), severity: "blocker", path: x.file))
        }
        for r in m.reports {
            let file = r.capture.file
            var seen: [String: Int] = [:]
            for f in r.shownFindings {
                let key = f.rule + "\u{0}" + f.subject
                let occurrence = seen[key, default: 0]
                seen[key] = occurrence + 1
                var text = "\(f.subject): \(f.message)"
                if !f.evidence.isEmpty { text += " (frames \(FrameList.string(f.evidence)))" }
                issues.append(issue(
                    description: text, check: f.rule,
                    fingerprint: fingerprint(rule: f.rule, subject: f.subject, file: file, occurrence: occurrence),
                    severity: severity(f.severity), path: file))
            }
        }
        return .array(issues)
    }

    package static func render(_ m: MultiReport) -> String { value(m).rendered() }

    static func issue(description: String, check: String, fingerprint: String, severity: String, path: String) -> JSONValue {
        var lines = JSONObject()
        lines.set("begin", 1)
        var location = JSONObject()
        location.set("path", path)
        location.set("lines", lines.value)
        var o = JSONObject()
        o.set("description", description)
        o.set("check_name", check)
        o.set("fingerprint", fingerprint)
        o.set("severity", severity)
        o.set("location", location.value)
        return o.value
    }
}
