import ArgumentParser
import ScopeAnalysis
import ScopeReport
import ScopeRules

/// `hciscope rules [RULE]`: the rules `analyze` judges by, from the rule catalog (the same text
/// as docs/RULES.md, which `--markdown` prints).
package struct Rules: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List the rules analyze judges by, or explain one (evidence, thresholds, why, fixes per platform).",
        discussion: """
            Without RULE: one line per rule. With RULE (e.g. scan.left-running): what it judges, the HCI evidence \
            it reads, when it is violated, passes or is not evaluated, its thresholds with their hciscope.yml keys \
            and defaults, why it matters, and what usually causes it and how to fix it on iOS, Android, BlueZ and \
            embedded stacks. --markdown prints the whole catalog as docs/RULES.md; --json as data. \
            --attribution prints who each signal in the frames names on each platform (docs/ATTRIBUTION.md).
            """)

    @Argument(help: "A rule id (see the list).")
    var rule: String?

    @Flag(help: "Print the whole catalog as Markdown (docs/RULES.md).")
    var markdown = false

    @Flag(help: "Print the whole catalog as JSON.")
    var json = false

    @Flag(help: "Print who each attribution signal names on each platform (the table of docs/ATTRIBUTION.md).")
    var attribution = false

    package init() {}

    package func validate() throws {
        if markdown && json { throw ValidationError("--markdown and --json: choose one") }
        if rule != nil && (markdown || json) { throw ValidationError("--markdown and --json print every rule; leave out RULE") }
        if attribution && (rule != nil || markdown || json) { throw ValidationError("--attribution prints the attribution table alone") }
    }

    package func run() throws {
        let status = execute(console: .standard)
        if status != 0 { throw ExitCode(status) }
    }

    package func execute(console: Console) -> Int32 {
        if attribution { console.out(Self.attributionTable()); return 0 }
        if markdown { console.out(RuleCatalogDocument.markdown()); return 0 }
        if json { console.out(RuleCatalogDocument.json()); return 0 }
        guard let rule else { console.out(RuleCatalogDocument.list()); return 0 }
        guard let found = RuleRegistry.rule(id: rule) else {
            let near = Self.nearest(rule)
            console.err("hciscope rules: no rule '\(rule)'" + (near.map { "; did you mean \($0)?" } ?? ""))
            console.err("  rules: " + RuleRegistry.ids.joined(separator: ", "))
            return 2
        }
        console.out(RuleCatalogDocument.text(found))
        return 0
    }

    /// The platforms in the order of docs/ATTRIBUTION.md's table.
    static let attributionPlatforms: [HostPlatform.Kind] = [.android, .ios, .bluez, .embedded, .unknown]

    /// Who every signal names on every platform named with certainty (`ActorSignal.actor(on:certain:)`:
    /// the code's table, not a copy of it). A platform named on suggestive evidence only names
    /// `unknown` for every signal but the peer's.
    static func attributionTable() -> String {
        let header = ["signal"] + attributionPlatforms.map { $0 == .unknown ? "unknown platform" : $0.rawValue }
        var rows = [header]
        for signal in ActorSignal.allCases {
            rows.append([signal.rawValue] + attributionPlatforms.map { signal.actor(on: $0, certain: true).rawValue })
        }
        let widths = header.indices.map { i in rows.map { $0[i].count }.max() ?? 0 }
        var out = "Who each signal in the frames names, per platform (docs/ATTRIBUTION.md). app and unknown are judged;\n"
        out += "os (the system) and peer are summed apart. A platform named on suggestive evidence only: unknown, but for the peer's signals.\n\n"
        for row in rows {
            out += zip(row, widths).map { $0.0 + String(repeating: " ", count: $0.1 - $0.0.count) }.joined(separator: "  ")
                .trimmingSuffixSpaces() + "\n"
        }
        out += "\n"
        for signal in ActorSignal.allCases { out += "\(signal.rawValue): \(signal.description)\n" }
        return out
    }

    /// The rule id closest to `text` (edit distance, or the one containing it), when close enough.
    static func nearest(_ text: String) -> String? {
        let t = text.lowercased()
        if let contained = RuleRegistry.ids.first(where: { $0.contains(t) || t.contains($0) }) { return contained }
        let scored = RuleRegistry.ids.map { ($0, distance(Array($0), Array(t))) }.min { $0.1 < $1.1 }
        guard let (id, d) = scored, d <= max(3, id.count / 3) else { return nil }
        return id
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var previous = row[0]
            row[0] = i + 1
            for (j, y) in b.enumerated() {
                let current = row[j + 1]
                row[j + 1] = min(row[j + 1] + 1, row[j] + 1, previous + (x == y ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}

extension String {
    fileprivate func trimmingSuffixSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
