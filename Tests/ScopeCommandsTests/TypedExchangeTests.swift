import Foundation
import ScopeTestSupport
import Testing

/// Issue 15: modules exchange typed values (`Diagnostic.code`, `HealthNote`, the baseline line's
/// regression flag, `RuleVerdict.reasonNamesPlatformShare`), never each other's wording, so that a
/// changed sentence cannot silently change a figure. This test fails when code under Sources/
/// goes back to matching message, note or reason text. (Matching external text, such as
/// libpcap's error strings or file names, is not caught by these patterns and stays allowed.)
@Suite("No matching of other modules' prose")
struct TypedExchangeTests {
    /// Substrings that mean "acting on what another part of the program wrote for people".
    static let forbidden = [
        "message.contains(", "message.hasPrefix(", "message.hasSuffix(", "message.range(of:", "message ==",
        "notes.contains", "notes.first(where:", "notes.filter",
        ".reason.contains(", ".reason.hasPrefix(", ".reason.range(of:",
        ".contains(\"REGRESSION\")",
    ]

    @Test func sourcesDoNotMatchMessageText() throws {
        let sources = Fixtures.repositoryRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var hits: [String] = []
        var scanned = 0
        for case let url as URL in files where url.pathExtension == "swift" {
            scanned += 1
            let text = try String(contentsOf: url, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }
                for pattern in Self.forbidden where code.contains(pattern) {
                    hits.append("\(url.path.dropFirst(sources.path.count + 1)):\(n + 1): \(pattern)")
                }
            }
        }
        #expect(scanned > 100)
        #expect(hits.isEmpty, "match a typed value (Diagnostic.code, HealthNote, …) instead:\n\(hits.joined(separator: "\n"))")
    }
}
