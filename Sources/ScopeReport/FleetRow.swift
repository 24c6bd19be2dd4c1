import ScopeAnalysis
import ScopeRules

/// `--format jsonl`: one row per capture, the same keys in the same order in every row, for
/// tables over many captures (DuckDB's `read_json_auto`, pandas, jq). Schema `hciscope.fleet/2`,
/// documented key by key in docs/FLEET.md.
package enum FleetRow {
    /// Bumped (`hciscope.fleet/2`) when a key is renamed or removed or its meaning changes;
    /// adding a key keeps it.
    package static let schema = "hciscope.fleet/2"

    /// The row of an analysed capture.
    package static func value(_ r: Report) -> JSONValue {
        let c = r.capture
        var o = head(file: c.file, format: c.format, error: nil, tool: r.tool.version)
        o.set("frames", c.frames)
        o.set(ms: "duration_ms", c.durationMicros)
        o.set("first_timestamp_utc", c.firstTimestamp.map(\.description))
        o.set("health", c.healthy ? "ok" : "degraded")
        o.set("health_problems", .array(c.healthProblems.map(JSONValue.string)))
        o.set("platform", c.platform.kind == .unknown ? nil : c.platform.kind.rawValue)
        o.set("platform_certain", c.platform.kind == .unknown ? nil : c.platform.isCertain)
        o.set("device", c.platform.details.device)
        o.set("os_version", c.platform.details.os)
        o.set("source", c.source.isPlain ? nil : c.source.kind.rawValue)
        o.set("merged_files", c.source.isPlain ? nil : c.source.members.count)
        o.set("scans", r.totals.scans)
        o.set("devices", r.totals.devices)
        o.set("connection_attempts", r.totals.attempts)
        o.set("connections", r.totals.connections)
        o.set("pairings", r.totals.pairings)
        o.set("errors", r.findingCount(.error))
        o.set("warnings", r.findingCount(.warning))
        o.set("infos", r.findingCount(.info))
        o.set("rules_violated", r.count(.violated))
        o.set("rules_passed", r.count(.passed))
        o.set("rules_not_evaluated", r.count(.notEvaluated))
        var figures = JSONObject()
        for f in r.headline.figures { figures.set(f.key, f.rendered.map(JSONValue.decimal) ?? .null) }
        o.set("figures", figures.value)
        o.set("rules", .array(r.rules.map { rule($0, judged: r.judgedStatus($0)) }))
        return o.value
    }

    /// The row of a capture that could not be analysed: its error, and null or empty elsewhere.
    package static func value(_ failure: MultiReport.Failure, tool: String? = nil, format: String? = nil) -> JSONValue {
        var o = head(file: failure.file, format: format, error: failure.message, tool: tool)
        for key in ["frames", "duration_ms", "first_timestamp_utc", "health"] { o.set(key, .null) }
        o.set("health_problems", .array([]))
        for key in ["platform", "platform_certain", "device", "os_version", "source", "merged_files", "scans", "devices", "connection_attempts", "connections", "pairings", "errors", "warnings", "infos",
                    "rules_violated", "rules_passed", "rules_not_evaluated", "figures"] {
            o.set(key, .null)
        }
        o.set("rules", .array([]))
        return o.value
    }

    static func head(file: String, format: String?, error: String?, tool: String?) -> JSONObject {
        var o = JSONObject()
        o.set("schema", schema)
        o.set("file", file)
        o.set("format", format)
        o.set("error", error)
        o.set("tool_version", tool)
        return o
    }

    static func rule(_ v: RuleVerdict, judged: RuleStatus) -> JSONValue {
        var o = JSONObject()
        o.set("rule", v.rule)
        o.set("status", v.status.rawValue)
        o.set("judged_status", judged.rawValue)
        o.set("findings", v.totalFindings)
        o.set("errors", v.count(.error))
        o.set("warnings", v.count(.warning))
        o.set("infos", v.count(.info))
        let byActor = v.findingsByActor
        var actors = JSONObject()
        for a in Actor.allCases { actors.set(a.rawValue, byActor[a] ?? 0) }
        o.set("findings_by_actor", actors.value)
        return o.value
    }
}
