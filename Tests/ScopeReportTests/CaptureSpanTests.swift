import Foundation
import ScopeCore
import ScopeReport
import ScopeRules
import ScopeTestSupport
import Testing

/// A capture's length reads in days, hours and minutes beside its milliseconds in every header
/// for people (text, Markdown, HTML) once it is a minute or longer; JSON keeps milliseconds only.
@Suite("Capture length in the report headers")
struct CaptureSpanTests {
    @Test(arguments: [
        (59_999_999, nil),
        (60_000_000, "1 min 0 s"),
        (61_227_326, "1 min 1 s"),
        (3_725_000_000, "1 h 2 min"),
        (86_400_000_000, "1 d 0 h 0 min"),
        (761_737_008_000, "8 d 19 h 35 min"),
    ] as [(Int64, String?)])
    func readableSpan(micros: Int64, text: String?) {
        #expect(ReadableSpan.text(micros) == text)
    }

    /// The project's `adv.without-need-fires` session lasts 61.2 s.
    @Test func everyHeaderForPeopleGivesTheSpanOfAMinuteLongCapture() throws {
        let url = Fixtures.project("scenarios/adv.without-need-fires.btsnoop")
        let (analysis, verdicts) = try RuleEngine.analyze(path: url.path)
        let report = Report(analysis: analysis, verdicts: verdicts, tool: ToolInfo(version: "test"), config: ConfigSummary(), timeline: true)
        #expect(report.capture.durationMicros == 61_227_326)
        #expect(TextReporter(color: false).render(report).contains("42 frames, 61227.326 ms (1 min 1 s), from "))
        #expect(MarkdownReporter.render(report).contains("42 frames, 61227.326 ms (1 min 1 s). "))
        #expect(HTMLReporter.render(report).contains("42 frames · 61227.326 ms (1 min 1 s)"))
        #expect(!JSONReporter.render(report).contains("1 min 1 s"))
    }
}
