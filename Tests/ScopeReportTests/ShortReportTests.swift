import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeReport
import ScopeRules
import ScopeTestSupport
import Testing

/// The default text report reads in one screen on any capture: a rule that fires many times
/// appears once, many discovery costs and connection timings become distributions, and nothing
/// the full report (`analyze --all`) says about violated rules or headline figures is lost.
@Suite("Short text report")
struct ShortReportTests {
    static let maxLines = 120

    static func report(_ url: URL) -> Report? {
        guard let (analysis, verdicts) = try? RuleEngine.analyze(path: url.path), analysis.capture.frames > 0 else { return nil }
        return Report(analysis: analysis, verdicts: verdicts, tool: ToolInfo(version: "test"), config: ConfigSummary(), timeline: false)
    }

    static func lines(_ text: String) -> Int { text.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) } }

    /// The headline section of a text report.
    static func headline(_ text: String) -> Substring {
        guard let start = text.range(of: "Headline figures\n") else { return "" }
        // The next section: the connection tables, or the findings.
        let ends = ["\nConnection requests (", "\nConnections (", "\nFindings"].compactMap {
            text.range(of: $0, range: start.upperBound..<text.endIndex)?.lowerBound
        }
        guard let end = ends.min() else { return "" }
        return text[start.upperBound..<end]
    }

    /// Checks `short` against `full` for one report: the line budget, every violated rule id,
    /// every headline figure name the full headline prints, the finding counts per severity.
    static func check(_ r: Report, short: String, full: String, name: String, budget: Int? = maxLines) {
        if let budget { #expect(lines(short) <= budget, "\(name): \(lines(short)) lines") }
        // The findings shown (the app's and unknown actors'): a rule violated only by the system
        // or the peer is summed in one line, not listed.
        for v in r.rules where r.judgedStatus(v) == .violated {
            #expect(full.contains("[\(v.rule)]"), "\(name): \(v.rule) in the full report")
            #expect(short.contains("[\(v.rule)]"), "\(name): violated rule \(v.rule) missing from the short report")
        }
        let fullHeadline = headline(full), shortHeadline = headline(short)
        #expect(!shortHeadline.isEmpty, "\(name)")
        for figure in TextReporter.FigureName.all where fullHeadline.contains(figure) {
            #expect(shortHeadline.contains(figure), "\(name): headline figure '\(figure)' missing from the short report")
        }
        for s in Severity.allCases where r.findingCount(s) > 0 {
            let header = "\(s.rawValue.uppercased()) (\(r.findingCount(s)))"
            #expect(short.contains(header) && full.contains(header), "\(name): \(header)")
        }
    }

    @Test func everyCaptureFitsOneScreenAndKeepsWhatTheFullReportSays() {
        var checked = 0
        var table: [String] = []
        for url in Fixtures.corpusFiles() {
            guard let r = Self.report(url) else { continue }
            let short = TextReporter(color: false).render(r)
            let full = TextReporter(color: false, all: true).render(r)
            Self.check(r, short: short, full: full, name: url.lastPathComponent)
            table.append("\(Self.lines(full))\t\(Self.lines(short))\t\(url.lastPathComponent)")
            checked += 1
        }
        print("short text report, lines full → short:\n" + table.joined(separator: "\n"))
        #expect(checked > (Fixtures.corpusRoot == nil ? 20 : 80), "\(checked) captures")
    }

    /// The summaries themselves, on the project's own capture with `few` lowered so that its two
    /// legacy pairings, two connections and one discovery cost are summarised.
    @Test func summariesOnTheShippedCapture() throws {
        let url = Fixtures.project("btvirt-le-pairing.btsnoop")
        var r = try #require(Self.report(url))
        r.capture.file = "captures/btvirt-le-pairing.btsnoop"
        let short = TextReporter(color: false, few: 1).render(r)
        let full = TextReporter(color: false, all: true, few: 1).render(r)
        Self.check(r, short: short, full: full, name: "btvirt-le-pairing few=1", budget: Self.lines(full))
        try assertReportSnapshot(short, named: "btvirt-le-pairing.few1.txt")

        // The legacy-pairing rule fired twice: once in the short report, with its count, its first
        // finding and where the other is.
        let groups = r.findingGroups
        let legacy = try #require(groups.first { $0.rule == "security.legacy-pairing" })
        #expect(legacy.total == 2 && legacy.findings.count == 2 && legacy.severity == .warning)
        #expect(short.contains("[security.legacy-pairing] 2 findings, the first:"))
        #expect(short.components(separatedBy: "[security.legacy-pairing]").count == 2)
        let second = try #require(legacy.findings.last?.evidence.first)
        #expect(short.contains("… 1 more, at frame \(second)\n"))
        #expect(short.components(separatedBy: "fix: ").count == 2, "the shared fix once")

        // Connection timing as distributions over the two connections, the worst named.
        let timing = r.headline.connectionTiming
        #expect(timing.count == 2)
        let lifetime = try #require(r.headline.spreads[.lifetime])
        #expect(lifetime.count == 2 && lifetime.max == timing.compactMap(\.lifetimeMicros).max() && lifetime.exact)
        let worst = try #require(lifetime.worst.connection)
        #expect(short.contains("Connection timing of 2 connection(s):"))
        #expect(short.contains("lifetime (2 of 2): median \(ReadableDuration.text(lifetime.median)), p90 \(ReadableDuration.text(lifetime.p90)), max \(ReadableDuration.text(lifetime.max)) — \(worst)"))
        // The full report keeps one line per connection and per finding.
        #expect(full.components(separatedBy: "  Connection timing, ").count == 3)
        #expect(full.components(separatedBy: "[security.legacy-pairing]").count == 3)
        // The default (few = 3) lists everything of this small capture as the full report does,
        // except the rules passed (named on one line) and the violated rules' reasons (counted).
        let standard = TextReporter(color: false).render(r)
        #expect(standard.components(separatedBy: "  Connection timing, ").count == 3)
        #expect(standard.contains("passed: adv.payload-budget, adv.without-need"))
        #expect(standard.contains("violated       2 warning finding(s)\n"))
        #expect(standard.contains("`analyze --all` gives every rule's reason"))
    }

    /// Nearest-rank median and 90th percentile: values some item has; the first item (in capture
    /// order, whatever order the items come in) with the maximum is the worst.
    @Test func spreadIsNearestRank() throws {
        var sum = SumCount()
        for i in (1...10).reversed() { sum.add(Int64(i * 10), item: FigureItem(frame: FrameNumber(i), connection: nil, peer: nil)) }
        sum.add(100, item: FigureItem(frame: 20, connection: nil, peer: nil))
        sum.add(nil, item: FigureItem(frame: 30, connection: nil, peer: nil))
        #expect(sum.count == 11 && sum.sum == 650)
        let median = StreamingQuantiles.nearestRank(50, of: 11), p90 = StreamingQuantiles.nearestRank(90, of: 11)
        #expect(sum.spread.values(atRanks: [median, p90]) == [60, 100])
        #expect(sum.max == 100 && sum.worst?.frame == 10)
        #expect(SumCount().max == nil)
    }

    /// Advertising reports with no scan enabled in the capture: the scan was running before it
    /// began. The headline says so instead of "no scanning" (an iPhone's PacketLogger capture:
    /// 21 LE Extended Advertising Reports, frames 11–720, and no LE Set Scan Enable or LE Set
    /// Extended Scan Enable, tshark).
    @Test func reportsOfAScanRunningBeforeTheCaptureAreNotNoScanning() throws {
        guard let url = Fixtures.corpus("real/elkusbry__peripage-tool__peripage_capture.pklg"),
            let r = Self.report(url)
        else { return }
        #expect(r.totals.scans == 0 && r.totals.devices == 6)
        let text = TextReporter(color: false).render(r)
        #expect(!text.contains("no scanning in this capture"))
        #expect(text.contains("no scan started in this capture; 6 device(s) were reported by a scan already running when it began"))
    }

    /// A btsnooz summary keeps no ACL data beyond L2CAP signalling (the stack drops the rest): how
    /// long a link went without data cannot be seen there, so no idle tail is given, for any of the
    /// 16 connections of this one (a car's BR/EDR links; before, each link's whole life was called
    /// its idle tail), while their lifetimes are.
    @Test func aBtsnoozSummaryShowsNoIdleTail() throws {
        guard let url = Fixtures.corpus("real/MaciejKubon__MyCar__btsnooz_hci.log.last"), let r = Self.report(url) else { return }
        #expect(r.connections.count == 16)
        #expect(r.connections.allSatisfy { $0.idleTailMicros == nil })
        #expect(r.connections.filter { $0.lifetimeMicros != nil }.count == 15)
        #expect(r.headline.figure("idle_tail_ms")?.value == nil)
        #expect(!TextReporter(color: false).render(r).contains("idle tail"))
    }
}
