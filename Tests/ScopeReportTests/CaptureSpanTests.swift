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

    /// Durations for people: to the microsecond below 10 ms, the nearest millisecond below 1 s,
    /// then seconds with two and one decimals, then minutes, hours and days.
    @Test(arguments: [
        (0, "0 ms"),
        (1_234, "1.234 ms"),
        (27_840, "28 ms"),
        (305_438, "305 ms"),
        (999_499, "999 ms"),
        (999_500, "1 s"),
        (1_250_000, "1.25 s"),
        (9_394_215, "9.39 s"),
        (12_345_678, "12.3 s"),
        (-30_001_000, "-30 s"),
        (358_000_000, "5 min 58 s"),
    ] as [(Int64, String)])
    func readableDuration(micros: Int64, text: String) {
        #expect(ReadableDuration.text(micros) == text)
    }

    /// The project's `adv.without-need-fires` session lasts 61.2 s.
    @Test func everyHeaderForPeopleGivesTheSpanOfAMinuteLongCapture() throws {
        let url = Fixtures.project("scenarios/adv.without-need-fires.btsnoop")
        let (analysis, verdicts) = try RuleEngine.analyze(path: url.path)
        let report = Report(analysis: analysis, verdicts: verdicts, tool: ToolInfo(version: "test"), config: ConfigSummary(), timeline: true)
        #expect(report.capture.durationMicros == 61_227_326)
        #expect(TextReporter(color: false).render(report).contains("42 frames, 1 min 1 s, from "))
        // (As the text report gives it; JSON keeps the exact milliseconds.)
        #expect(MarkdownReporter.render(report).contains("42 frames, 1 min 1 s. "))
        #expect(HTMLReporter.render(report).contains("42 frames · 1 min 1 s"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONReporter.render(report).utf8)) as? [String: Any])
        let capture = try #require(json["capture"] as? [String: Any])
        #expect((capture["duration_ms"] as? NSNumber)?.doubleValue == 61227.326)
    }
}
