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

    /// docs/ATTRIBUTION.md's table and `rules --attribution` (the code's table) name the same actor
    /// for every signal and platform, and list the same signals.
    @Test func attributionDocumentMatchesTheCode() throws {
        let printed = try Self.rules(["--attribution"])
        #expect(printed.status == 0)
        var code: [String: [String]] = [:]
        for line in printed.out.split(separator: "\n").dropFirst(3) {
            let cells = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            if cells.count == 6, !cells[0].hasSuffix(":") { code[cells[0]] = Array(cells[1...]) }
        }
        #expect(code.count >= 20)
        let url = Fixtures.repositoryRoot.appendingPathComponent("docs/ATTRIBUTION.md")
        let doc = try String(contentsOf: url, encoding: .utf8)
        var documented: [String: [String]] = [:]
        for line in doc.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            // | `signal` | what | android | ios | bluez | embedded | unknown |
            guard cells.count == 9 else { continue }
            documented[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = Array(cells[3...7])
        }
        #expect(Set(documented.keys) == Set(code.keys), "signals documented vs in the code")
        for (signal, actors) in code {
            #expect(documented[signal] == actors, "docs/ATTRIBUTION.md row \(signal): \(documented[signal] ?? []) but the code says \(actors)")
        }
    }

    @Test func everyReportedRuleIsDocumented() throws {
        let ids = try Self.reportedRuleIDs()
        #expect(ids.count == 21)
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
        #expect(list.out.split(separator: "\n").filter { $0.hasPrefix("  ") }.count == 21)
        let unknown = try Self.rules(["scan.left"])
        #expect(unknown.status == 2)
        #expect(unknown.err.contains("did you mean scan.left-running?"))
        #expect(unknown.err.contains("gatt.polling"))
    }

    @Test func jsonHasEveryRuleWithItsConfigKeys() throws {
        let out = try Self.rules(["--json"]).out
        let rules = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
        #expect(rules.count == 21)
        let polling = try #require(rules.first { $0["id"] as? String == "gatt.polling" })
        let thresholds = try #require(polling["thresholds"] as? [[String: Any]])
        #expect(thresholds.map { $0["config"] as? String } == ["rules.gatt.polling.min_reads", "rules.gatt.polling.max_median_gap_s"])
        #expect(thresholds.map { $0["default"] as? String } == ["5", "2"])
    }
}
