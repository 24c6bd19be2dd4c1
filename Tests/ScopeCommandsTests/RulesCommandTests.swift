import Foundation
import ScopeCommands
import ScopeTestSupport
import Testing

/// `hciscope rules` and docs/RULES.md: one source (the rule catalog), the document generated from it.
@Suite("hciscope rules")
struct RulesCommandTests {
    static func rules(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let command = try Rules.parse(arguments)
        let captured = CapturedConsole()
        let status = command.execute(console: captured.console)
        return (status, captured.out, captured.err)
    }

    /// The ids `analyze --format json` reports (every verdict of the shipped sample).
    static func reportedRuleIDs() throws -> [String] {
        let command = try Analyze.parse(["--format", "json", shippedSample])
        let captured = CapturedConsole()
        _ = command.execute(console: captured.console, isTerminal: false)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(captured.out.utf8)) as? [String: Any])
        let rules = try #require(json["rules"] as? [[String: Any]])
        return rules.compactMap { $0["id"] as? String ?? $0["rule"] as? String }
    }

    @Test func docsRulesMdIsTheGeneratedCatalog() throws {
        let generated = try Self.rules(["--markdown"])
        #expect(generated.status == 0)
        let url = Fixtures.repositoryRoot.appendingPathComponent("docs/RULES.md")
        let onDisk = try String(contentsOf: url, encoding: .utf8)
        #expect(onDisk == generated.out, "docs/RULES.md is out of date: run `swift run hciscope rules --markdown > docs/RULES.md`")
    }

    @Test func everyReportedRuleIsDocumented() throws {
        let ids = try Self.reportedRuleIDs()
        #expect(ids.count == 17)
        let markdown = try Self.rules(["--markdown"]).out
        for id in ids {
            #expect(markdown.contains("### `\(id)`"), "docs/RULES.md has no section for \(id)")
            let one = try Self.rules([id])
            #expect(one.status == 0)
            #expect(one.out.hasPrefix(id + " — "))
            #expect(one.out.contains("iOS / macOS (Core Bluetooth)") && one.out.contains("Android"))
        }
    }

    @Test func listAndUnknownRule() throws {
        let list = try Self.rules([])
        #expect(list.status == 0)
        #expect(list.out.split(separator: "\n").filter { $0.hasPrefix("  ") }.count == 17)
        let unknown = try Self.rules(["scan.left"])
        #expect(unknown.status == 2)
        #expect(unknown.err.contains("did you mean scan.left-running?"))
        #expect(unknown.err.contains("gatt.polling"))
    }

    @Test func jsonHasEveryRuleWithItsConfigKeys() throws {
        let out = try Self.rules(["--json"]).out
        let rules = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
        #expect(rules.count == 17)
        let polling = try #require(rules.first { $0["id"] as? String == "gatt.polling" })
        let thresholds = try #require(polling["thresholds"] as? [[String: Any]])
        #expect(thresholds.map { $0["config"] as? String } == ["rules.gatt.polling.min_reads", "rules.gatt.polling.max_median_gap_s"])
        #expect(thresholds.map { $0["default"] as? String } == ["5", "2"])
    }
}
