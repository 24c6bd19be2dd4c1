import Yams
import ScopeAnalysis
import ScopeCapture

/// A threshold value: the truth files' `expected_rules_config.thresholds` hold numbers (seconds,
/// counts, fractions, bytes), booleans and one string (a status code such as "0x08").
package enum ThresholdValue: Sendable, Hashable, CustomStringConvertible {
    case number(Double)
    case bool(Bool)
    case text(String)

    package var number: Double? {
        if case .number(let v) = self { return v }
        return nil
    }
    package var bool: Bool? {
        if case .bool(let v) = self { return v }
        return nil
    }
    package var description: String {
        switch self {
        case .number(let v): return v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
        case .bool(let v): return String(v)
        case .text(let v): return v
        }
    }
    var kind: String {
        switch self {
        case .number: return "a number"
        case .bool: return "true or false"
        case .text: return "a string"
        }
    }
}

/// What a project or a run changes about the rules: enable/disable, severity overrides,
/// thresholds, the iOS advertising budget profile and sensitive characteristic UUIDs.
/// The defaults are RULES.md's (and the truth files' `expected_rules_config`). See docs/CONFIG.md.
package struct RuleConfiguration: Sendable, Equatable {
    package enum Profile: String, Sendable, Hashable, CaseIterable {
        /// iOS foreground advertising budget: 28 bytes of advertising data besides Flags, 10 of scan response.
        case ios
    }

    package var profile: Profile?
    /// The host stack chosen by the user (`--platform`): overrides the one the capture shows
    /// (`HostPlatform`) for the advice and for what is attributed to the platform.
    package var platform: Platform?
    /// The host stack the beginning of the capture names (`CaptureInfo.platformAtStart`), set by
    /// `RuleEngine.analyze(path:)` and `RuleAccumulator`: batches judged on the way and the end go
    /// by the same one.
    package var detectedPlatform: HostPlatform?
    /// Rule ids switched off.
    package var disabledRules: Set<String> = []
    package var severityOverrides: [String: Severity] = [:]
    /// Overrides only, by rule id then threshold name; defaults come from each rule.
    package var thresholdOverrides: [String: [String: ThresholdValue]] = [:]
    /// Characteristic UUIDs (lowercase, "2a37" or the 128-bit form) the project considers sensitive.
    package var sensitiveCharacteristicUUIDs: [String] = []
    /// What reading and analysing one input may cost at most (`limits:`; docs/CONFIG.md).
    package var limits = Limits()

    /// The bounds on one input's reading and analysis (docs/LIMITS.md, "Limits").
    package struct Limits: Sendable, Equatable {
        package var capture = CaptureLimits()
        /// `AnalysisBuilder.HandOverPolicy.heldDevices`.
        package var advertisersHeld = AnalysisBuilder.HandOverPolicy().heldDevices
        /// `AnalysisBuilder.HandOverPolicy.markers` and `.markerBytes`.
        package var markers = AnalysisBuilder.HandOverPolicy().markers
        package var markerBytes = AnalysisBuilder.HandOverPolicy().markerBytes

        package init() {}

        /// The reader options these limits give.
        package var readerOptions: CaptureReader.Options { CaptureReader.Options(limits: capture) }

        /// `policy` with these limits.
        package func applied(to policy: AnalysisBuilder.HandOverPolicy) -> AnalysisBuilder.HandOverPolicy {
            var p = policy
            p.heldDevices = advertisersHeld
            p.markers = markers
            p.markerBytes = markerBytes
            return p
        }
    }

    package init(profile: Profile? = nil) { self.profile = profile }

    /// Every rule's default thresholds, by rule id.
    /// Built once: every rule's own defaults, by rule id (looked up for every threshold a rule
    /// reads without an override).
    package static let defaultThresholds: [String: [String: ThresholdValue]] =
        Dictionary(uniqueKeysWithValues: RuleRegistry.all.map { ($0.id, $0.defaultThresholds) })

    package func isEnabled(_ rule: String) -> Bool { !disabledRules.contains(rule) }

    /// The value in force: override, else the rule's default; nil for a name the rule doesn't have.
    package func threshold(rule: String, key: String) -> ThresholdValue? {
        thresholdOverrides[rule]?[key] ?? Self.defaultThresholds[rule]?[key]
    }

    package func isSensitive(uuid: String) -> Bool {
        let u = uuid.lowercased()
        return sensitiveCharacteristicUUIDs.contains { $0.lowercased() == u }
    }
}

/// A configuration file problem, located in the file ("hciscope.yml:7:3: unknown key 'treshold'").
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    package var column: Int?
    package var message: String

    package init(file: String, line: Int?, column: Int?, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    package var description: String {
        var place = file
        if let line { place += ":\(line)" }
        if let column { place += ":\(column)" }
        return place + ": " + message
    }
}

extension RuleConfiguration {
    static let topLevelKeys = ["profile", "rules", "thresholds", "sensitive_characteristics", "limits"]
    /// `limits:` keys: name, smallest and largest value, how it is set.
    static let limitKeys: [(name: String, range: ClosedRange<Int>, set: @Sendable (inout Limits, Int) -> Void)] = [
        ("open_members", 2...4096, { $0.capture.openMembers = $1 }),
        ("spool_mb", 1...(1 << 30), { $0.capture.spoolBytes = $1 << 20 }),
        ("zstd_window_log", 10...31, { $0.capture.zstdWindowLog = $1 }),
        ("xz_memory_mb", 1...(1 << 20), { $0.capture.xzMemoryBytes = $1 << 20 }),
        ("decoder_memory_mb", 1...(1 << 20), { $0.capture.decoderMemoryBytes = $1 << 20 }),
        ("text_scan_mb", 1...(1 << 30), { $0.capture.textScanBytes = $1 << 20 }),
        ("btsnooz_summary_mb", 1...(1 << 20), { $0.capture.btsnoozSummaryBytes = $1 << 20 }),
        ("archive_members", 1...(1 << 30), { $0.capture.archiveMembers = $1 }),
        ("advertisers_held", 1...(1 << 30), { $0.advertisersHeld = $1 }),
        ("markers", 0...(1 << 30), { $0.markers = $1 }),
        ("marker_bytes", 16...(1 << 30), { $0.markerBytes = $1 }),
    ]
    static let ruleSettingKeys = ["enabled", "severity"]

    /// Parses `hciscope.yml` text. `file` names the file in errors. Unknown keys (top level, rule
    /// ids, rule settings, threshold names) and values of the wrong type are errors naming the key
    /// and its line. An empty document is the default configuration.
    package static func load(yaml: String, file: String) throws(ConfigurationError) -> RuleConfiguration {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw ConfigurationError(file: file, line: nil, column: nil, message: "not valid YAML: \(error)")
        }
        var config = RuleConfiguration()
        guard let root else { return config }
        let loader = Loader(file: file)
        let top = try loader.mapping(root, what: "the configuration")
        for (key, value) in top {
            let name = try loader.key(key)
            switch name {
            case "profile":
                config.profile = try loader.profile(value)
            case "limits":
                for (k, v) in try loader.mapping(value, what: "limits") {
                    let limit = try loader.key(k)
                    guard let entry = limitKeys.first(where: { $0.name == limit }) else {
                        throw loader.error(at: k, "unknown key '\(limit)' in limits (expected one of: \(limitKeys.map(\.name).joined(separator: ", ")))")
                    }
                    let text = try loader.scalar(v, what: "limits.\(limit)").string
                    guard let n = Int(text), entry.range.contains(n) else {
                        throw loader.error(at: v, "limits.\(limit) must be a whole number from \(entry.range.lowerBound) to \(entry.range.upperBound), not '\(text)'")
                    }
                    entry.set(&config.limits, n)
                }
            case "sensitive_characteristics":
                config.sensitiveCharacteristicUUIDs = try loader.strings(value, what: "sensitive_characteristics")
                    .map { $0.lowercased() }
            case "thresholds":
                for (ruleKey, ruleValue) in try loader.mapping(value, what: "thresholds") {
                    let rule = try loader.ruleID(ruleKey)
                    for (k, v) in try loader.mapping(ruleValue, what: "thresholds of \(rule)") {
                        try loader.threshold(rule: rule, key: k, value: v, into: &config)
                    }
                }
            case "rules":
                for (ruleKey, ruleValue) in try loader.mapping(value, what: "rules") {
                    let rule = try loader.ruleID(ruleKey)
                    for (k, v) in try loader.mapping(ruleValue, what: "settings of \(rule)") {
                        switch try loader.key(k) {
                        case "enabled":
                            if try loader.bool(v, what: "\(rule).enabled") {
                                config.disabledRules.remove(rule)
                            } else {
                                config.disabledRules.insert(rule)
                            }
                        case "severity":
                            config.severityOverrides[rule] = try loader.severity(v, rule: rule)
                        default:
                            try loader.threshold(rule: rule, key: k, value: v, into: &config)
                        }
                    }
                }
            default:
                throw loader.error(
                    at: key, "unknown key '\(name)' (expected one of: \(topLevelKeys.joined(separator: ", ")))")
            }
        }
        return config
    }
}

/// Node walking with positions for every error.
private struct Loader {
    var file: String

    func error(at node: Node, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, line: node.mark?.line, column: node.mark?.column, message: message)
    }

    func mapping(_ node: Node, what: String) throws(ConfigurationError) -> [(Node, Node)] {
        if case .scalar(let s) = node, isNull(s) { return [] }
        guard case .mapping(let m) = node else { throw error(at: node, "\(what) must be a mapping (key: value)") }
        return m.map { ($0.key, $0.value) }
    }

    func key(_ node: Node) throws(ConfigurationError) -> String {
        guard case .scalar(let s) = node else { throw error(at: node, "a key must be a plain string") }
        return s.string
    }

    func ruleID(_ node: Node) throws(ConfigurationError) -> String {
        let id = try key(node)
        guard RuleRegistry.rule(id: id) != nil else {
            throw error(at: node, "unknown key '\(id)': not a rule id (known: \(RuleRegistry.ids.joined(separator: ", ")))")
        }
        return id
    }

    func isNull(_ s: Node.Scalar) -> Bool {
        s.style == .plain && ["", "~", "null", "Null", "NULL"].contains(s.string)
    }

    func scalar(_ node: Node, what: String) throws(ConfigurationError) -> Node.Scalar {
        guard case .scalar(let s) = node else { throw error(at: node, "\(what) must be a single value") }
        return s
    }

    func bool(_ node: Node, what: String) throws(ConfigurationError) -> Bool {
        let s = try scalar(node, what: what)
        switch s.string.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error(at: node, "\(what) must be true or false, not '\(s.string)'")
        }
    }

    func profile(_ node: Node) throws(ConfigurationError) -> RuleConfiguration.Profile? {
        let s = try scalar(node, what: "profile")
        if isNull(s) || s.string == "none" { return nil }
        guard let p = RuleConfiguration.Profile(rawValue: s.string.lowercased()) else {
            throw error(at: node, "profile must be 'ios' or null, not '\(s.string)'")
        }
        return p
    }

    func severity(_ node: Node, rule: String) throws(ConfigurationError) -> Severity {
        let s = try scalar(node, what: "\(rule).severity")
        guard let v = Severity(rawValue: s.string.lowercased()) else {
            throw error(at: node, "\(rule).severity must be info, warning or error, not '\(s.string)'")
        }
        return v
    }

    func strings(_ node: Node, what: String) throws(ConfigurationError) -> [String] {
        if case .scalar(let s) = node {
            return isNull(s) ? [] : [s.string]
        }
        guard case .sequence(let seq) = node else { throw error(at: node, "\(what) must be a list") }
        var out: [String] = []
        for item in seq {
            out.append(try scalar(item, what: "an item of \(what)").string)
        }
        return out
    }

    func threshold(rule: String, key k: Node, value: Node, into config: inout RuleConfiguration) throws(ConfigurationError) {
        let name = try key(k)
        let defaults = RuleConfiguration.defaultThresholds[rule] ?? [:]
        guard let template = defaults[name] else {
            let known = (defaults.keys.sorted() + (config.profile == nil ? [] : [])).joined(separator: ", ")
            throw error(
                at: k,
                "unknown key '\(name)' for rule \(rule) (expected enabled, severity"
                    + (known.isEmpty ? ")" : " or a threshold: \(known))"))
        }
        let s = try scalar(value, what: "\(rule).\(name)")
        let parsed: ThresholdValue
        switch template {
        case .number:
            guard s.style == .plain, let d = Double(s.string), d.isFinite, d >= 0 else {
                throw error(at: value, "\(rule).\(name) must be a non-negative number, not '\(s.string)'")
            }
            parsed = .number(d)
        case .bool:
            parsed = .bool(try bool(value, what: "\(rule).\(name)"))
        case .text:
            parsed = .text(s.string)
        }
        config.thresholdOverrides[rule, default: [:]][name] = parsed
    }
}
