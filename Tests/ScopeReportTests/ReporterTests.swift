import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeReport
import ScopeRules
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct SnapshotTests {
    @Test func text() throws {
        try assertReportSnapshot(TextReporter(color: false).render(ReportFixtures.centralReport()), named: "central.txt")
    }
    /// `analyze --all`: every finding and every verdict's reason, as the text report was before
    /// the short one became the default.
    @Test func textAll() throws {
        try assertReportSnapshot(TextReporter(color: false, all: true).render(ReportFixtures.centralReport()), named: "central.all.txt")
    }
    @Test func textColour() throws {
        try assertReportSnapshot(TextReporter(color: true).render(ReportFixtures.centralReport()), named: "central.ansi.txt")
    }
    @Test func json() throws {
        try assertReportSnapshot(JSONReporter.render(ReportFixtures.centralReport()), named: "central.json")
    }
    @Test func junit() throws {
        try assertReportSnapshot(JUnitReporter.render(ReportFixtures.centralReport()), named: "central.junit.xml")
    }
    @Test func markdown() throws {
        try assertReportSnapshot(MarkdownReporter.render(ReportFixtures.centralReport()), named: "central.md")
    }
    @Test func html() throws {
        try assertReportSnapshot(HTMLReporter.render(ReportFixtures.centralReport()), named: "central.html")
    }
    @Test func multi() throws {
        let m = MultiReport(reports: [ReportFixtures.centralReport(), ReportFixtures.hostileReport()],
                            failures: [.init(file: "broken.btsnoop", message: "not a capture file")])
        try assertReportSnapshot(m.text(color: false), named: "multi.txt")
        try assertReportSnapshot(m.json().rendered(), named: "multi.json")
    }
}

@Suite struct JSONReportTests {
    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func topLevelKeyOrderAndSchemaVersion() throws {
        let v = JSONReporter.value(ReportFixtures.centralReport())
        #expect(v.keys == ["schema_version", "tool", "config", "capture", "headline", "scans", "devices", "connection_attempts",
                           "connections", "pairing", "advertising", "findings", "rules", "summary"])
        #expect(v["schema_version"] == .int(Int64(Report.schemaVersion)))
        let parsed = try object(v.rendered())
        #expect((parsed["schema_version"] as? Int) == 2)
    }

    @Test func requiredFieldsPresentInOrder() throws {
        let v = JSONReporter.value(ReportFixtures.centralReport())
        let capture = try #require(v["capture"])
        #expect(Array(capture.keys.prefix(5)) == ["file", "format", "frames", "first_timestamp", "last_timestamp"])
        #expect(capture.keys.contains("health"))
        guard case .array(let conns) = try #require(v["connections"]), let c = conns.first else {
            Issue.record("no connections")
            return
        }
        let required = ["setup_ms", "interval_ms", "latency", "supervision_timeout_ms", "mtu", "encrypted", "first_att_ms",
                        "discovery_ms", "first_data_ms", "lifetime_ms", "idle_tail_ms", "disconnect_reason", "att_by_opcode"]
        let positions = required.map { c.keys.firstIndex(of: $0) }
        #expect(!positions.contains(nil))
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect(c["setup_ms"] == .decimal("64.604"))
        #expect(c["lifetime_ms"] == .decimal("9394.215"))
        #expect(c["idle_tail_ms"] == .decimal("199.882"))
        #expect(c["disconnect_reason"] == .string("0x16 Connection Terminated By Local Host"))
        #expect(c["att_by_opcode"]?["Handle Value Notification"] == .int(8))
        #expect(c["encrypted"] == .bool(true))
        guard case .array(let findings) = try #require(v["findings"]), let f = findings.first else {
            Issue.record("no findings")
            return
        }
        #expect(f.keys == ["rule", "severity", "subject", "message", "evidence", "recommendation", "actor", "actor_evidence"])
        guard case .array(let rules) = try #require(v["rules"]), let r = rules.first else {
            Issue.record("no rules")
            return
        }
        #expect(r.keys == ["rule", "status", "judged_status", "reason", "findings", "findings_judged", "findings_by_actor"])
        #expect(rules.count == 21)
    }

    @Test func headlineDiscoveryCost() throws {
        let h = ReportFixtures.centralReport().headline
        let d = try #require(h.discovery.first)
        #expect(d.scanStartFrame == 4)
        #expect(d.scanToRequestMicros == 305_438)  // 707.556 − 402.118
        #expect(d.reportsUntilRequest == 12)
        #expect(d.radioOnMicros == 152_000)  // 304 ms of scanning (until the stop) × 0.5
        #expect(d.firstReportFrame == 13)
        #expect(d.firstReportToRequestMicros == 147_431)
        #expect(h.figure("duplicate_ratio")?.rendered == "0.75")
        #expect(h.figure("discovery_ms")?.rendered == "305.438")
        #expect(h.figure("setup_ms")?.rendered == "64.604")
    }

    @Test func findingsSortedBySeverity() {
        let r = ReportFixtures.hostileReport()
        #expect(r.findings.map(\.severity) == r.findings.map(\.severity).sorted(by: >))
        #expect(r.findings.map(\.severity) == [.error, .warning, .info])
        #expect(r.findings.first?.rule == "adv.payload-budget")
    }
}

@Suite struct JUnitTests {
    final class Counter: NSObject, XMLParserDelegate {
        var testcases = 0, failures = 0, skipped = 0, suites = 0
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            switch name {
            case "testcase": testcases += 1
            case "failure": failures += 1
            case "skipped": skipped += 1
            case "testsuite": suites += 1
            default: break
            }
        }
    }

    func parse(_ xml: String) -> (Bool, Counter) {
        let parser = XMLParser(data: Data(xml.utf8))
        let counter = Counter()
        parser.delegate = counter
        return (parser.parse(), counter)
    }

    @Test func wellFormedWithOneCasePerRule() {
        let (ok, c) = parse(JUnitReporter.render(ReportFixtures.centralReport()))
        #expect(ok)
        #expect(c.suites == 1)
        #expect(c.testcases == 21)
        #expect(c.failures == 3)
        #expect(c.skipped == 4)
    }

    @Test func hostileStringsStayWellFormed() {
        let m = MultiReport(reports: [ReportFixtures.centralReport(), ReportFixtures.hostileReport()])
        let (ok, c) = parse(m.junit())
        #expect(ok)
        #expect(c.suites == 2)
        #expect(c.testcases == 21 + 21)
        #expect(c.failures == 3 + 3)
        #expect(c.skipped == 4 + 5)  // conn.left-open and scan.restart-throttled not evaluated in both
    }
}

@Suite struct EscapingTests {
    let r = ReportFixtures.hostileReport()

    @Test func html() {
        let html = HTMLReporter.render(r)
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(&quot;pwn&quot;)&lt;/script&gt; &amp; &#39;quote&#39;"))
        #expect(!html.contains("\u{1B}"))
        #expect(html.contains("evil&lt;&amp;&gt;&quot;&#39;| pipe `tick`.btsnoop"))
    }

    @Test func markdown() {
        let md = MarkdownReporter.render(r)
        #expect(!md.contains("<script"))
        #expect(md.contains("\\| pipe"))
        #expect(md.contains("\\`tick\\`"))
        // Every table row keeps its column count: no unescaped pipe from data.
        for line in md.split(separator: "\n") where line.hasPrefix("| `") {
            let unescaped = line.enumerated().filter { i, ch in
                ch == "|" && (i == 0 || line[line.index(line.startIndex, offsetBy: i - 1)] != "\\")
            }
            #expect(unescaped.count == 4, "\(line)")
        }
    }

    @Test func terminal() {
        let plain = TextReporter(color: false).render(r)
        #expect(!plain.contains("\u{1B}"))
        #expect(plain.contains("<script>"))  // shown as is: a terminal does not interpret it
        let colour = TextReporter(color: true).render(r)
        // The only escapes are ours (SGR sequences we emit), never the device name's.
        #expect(!colour.contains("\u{1B}[31mred"))
    }

    @Test func json() throws {
        let text = JSONReporter.render(r)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let devices = try #require(obj["devices"] as? [[String: Any]])
        #expect(devices.contains { $0["name"] as? String == ReportFixtures.hostile })
    }

    /// `Escaping.xml` works on UTF-8 bytes; it escapes exactly what the rule says, scalar by scalar.
    @Test func xmlMatchesScalarRule() {
        func reference(_ s: String) -> String {
            var out = ""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&quot;"
                case "'": out += "&#39;"
                case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
                case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: out += "\u{FFFD}"
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        }
        let pieces = ["", "a", "&", "<", ">", "\"", "'", "\t", "\n", "\r", "\u{0}", "\u{1F}", " ", "\u{7F}", "é", "日本",
                      "\u{FFFD}", "\u{FFFE}", "\u{FFFF}", "\u{FFEF}", "\u{FBFF}", "\u{EFBF}", "\u{10000}", "\u{1F600}",
                      "\u{10FFFF}", "plain text", ReportFixtures.hostile]
        var strings = pieces
        for a in pieces { for b in pieces { strings.append(a + b) } }
        var x: UInt64 = 7
        for _ in 0..<2000 {
            var s = ""
            for _ in 0..<8 {
                x = x &* 6364136223846793005 &+ 1442695040888963407
                s += pieces[Int(x >> 33) % pieces.count]
            }
            strings.append(s)
        }
        for s in strings {
            #expect(Array(Escaping.xml(s).utf8) == Array(reference(s).utf8), "\(Array(s.unicodeScalars))")
        }
    }

    @Test func functions() {
        #expect(Escaping.xml("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&#39;")
        #expect(Escaping.xml("\u{01}") == "\u{FFFD}")
        #expect(Escaping.markdown("a|b\nc") == "a\\|b c")
        #expect(Escaping.terminal("x\u{1B}[2Jy") == "x\u{FFFD}[2Jy")
        #expect(Escaping.json("\"\n") == "\"\\\"\\n\"")
    }
}

@Suite struct HTMLTests {
    @Test func selfContained() {
        let html = HTMLReporter.render(ReportFixtures.centralReport())
        #expect(!html.contains("http://"))
        #expect(!html.contains("https://"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<link"))
        #expect(!html.contains("src="))
        #expect(html.contains("<svg"))
        #expect(html.contains("GATT discovery"))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
    }
}

@Suite struct BaselineTests {
    func baseline(_ edit: (inout [String: Any]) -> Void) throws -> Baseline {
        let text = JSONReporter.render(ReportFixtures.centralReport())
        var obj = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        edit(&obj)
        let data = try JSONSerialization.data(withJSONObject: obj)
        return try #require(try Baseline.parse(data).first)
    }

    @Test func identicalRunHasZeroDeltas() throws {
        var r = ReportFixtures.centralReport()
        r.compare(with: try baseline { _ in }, budgets: [RegressionBudget(key: "discovery_ms", percent: 10)])
        let b = try #require(r.baseline)
        #expect(b.regressions.isEmpty)
        #expect(b.newFindings.isEmpty && b.resolvedFindings.isEmpty)
        let d = try #require(b.deltas.first { $0.key == "discovery_ms" })
        #expect(d.old == 305.438)
        #expect(d.change == 0)
        #expect(b.deltas.count == RegressionBudget.knownKeys.count)
        #expect(b.deltas.map(\.key) == RegressionBudget.knownKeys)
    }

    @Test func regressionBeyondBudget() throws {
        let old = try baseline { obj in
            var h = obj["headline"] as! [String: Any]
            var f = h["figures"] as! [String: Any]
            f["discovery_ms"] = 250.0  // now 305.438: +22 %
            f["setup_ms"] = 60.0  // now 64.604: +7.7 %
            h["figures"] = f
            obj["headline"] = h
            var findings = obj["findings"] as! [[String: Any]]
            findings.removeFirst()  // the duplicates finding is new this time
            findings.append(["rule": "gatt.polling", "subject": "handle 0x0012", "severity": "warning", "message": "old"])
            obj["findings"] = findings
        }
        var r = ReportFixtures.centralReport()
        r.compare(with: old, budgets: [RegressionBudget(key: "discovery_ms", percent: 10), RegressionBudget(key: "setup_ms", percent: 10)])
        let b = try #require(r.baseline)
        #expect(b.regressions.map(\.key) == ["discovery_ms"])
        #expect(b.newFindings.map(\.rule) == ["scan.duplicates-allowed"])
        #expect(b.resolvedFindings.map(\.rule) == ["gatt.polling"])
        let m = MultiReport(reports: [r])
        #expect(ExitPolicy.status(m, failOn: .error) == 1)  // the regression alone fails the run
        #expect(JSONReporter.value(r)["baseline"]?["regressions"] == .array([.string("discovery_ms")]))
        #expect(TextReporter(color: false).render(r).contains("discovery_ms: 250 → 305.438 ms (+22.2 %) REGRESSION (budget 10 %)"))
    }

    @Test func budgetParsing() throws {
        #expect(try RegressionBudget.parse("discovery_ms=10%").get() == RegressionBudget(key: "discovery_ms", percent: 10))
        #expect(try RegressionBudget.parse("setup_ms=2.5").get() == RegressionBudget(key: "setup_ms", percent: 2.5))
        #expect(throws: RegressionBudget.BudgetError.self) { try RegressionBudget.parse("nonsense=5%").get() }
        #expect(throws: RegressionBudget.BudgetError.self) { try RegressionBudget.parse("discovery_ms").get() }
        #expect(throws: RegressionBudget.BudgetError.self) { try RegressionBudget.parse("discovery_ms=-3").get() }
    }

    @Test func notAReport() {
        #expect(throws: Baseline.LoadError.self) { try Baseline.parse(Data("[1]".utf8)) }
        #expect(throws: Baseline.LoadError.self) { try Baseline.parse(Data("{\"a\":1}".utf8)) }
        #expect(throws: Baseline.LoadError.self) { try Baseline.load(path: "/nonexistent/old.json") }
    }

    @Test func multiFileBaselineMatchedByFileName() throws {
        let m = MultiReport(reports: [ReportFixtures.centralReport(), ReportFixtures.hostileReport()])
        let all = try Baseline.parse(Data(m.json().rendered().utf8))
        #expect(all.count == 2)
        #expect(Baseline.match(all, file: "/elsewhere/good_central.btsnoop")?.file == "good_central.btsnoop")
    }
}

@Suite struct ExitPolicyTests {
    @Test func levels() {
        let m = MultiReport(reports: [ReportFixtures.centralReport()])  // one warning, two infos
        #expect(ExitPolicy.status(m, failOn: .error) == 0)
        #expect(ExitPolicy.status(m, failOn: .warning) == 1)
        #expect(ExitPolicy.status(m, failOn: .info) == 1)
        let clean = MultiReport(reports: [Report(analysis: ReportFixtures.centralAnalysis(), verdicts: [],
                                                 tool: ToolInfo(version: "0"), config: ConfigSummary())])
        #expect(ExitPolicy.status(clean, failOn: .info) == 0)
        let broken = MultiReport(reports: [ReportFixtures.centralReport()], failures: [.init(file: "x", message: "unreadable")])
        #expect(ExitPolicy.status(broken, failOn: .error) == 2)
        #expect(ExitPolicy.status(MultiReport(reports: [ReportFixtures.hostileReport()]), failOn: .error) == 1)
    }
}

@Suite struct UtilityTests {
    @Test func jsonBytes() {
        let v = JSONValue.object([
            ("a\"b", .string("x\"y\\z\n\r\t\u{01}\u{1F}é")), ("n", .array([.int(-12), .int(Int64.min), .decimal("1.5"), .null, .bool(true)])),
            ("o", .object([])), ("l", .array([.object([("k", .bool(false))])])),
        ])
        #expect(v.compact() == #"{"a\"b":"x\"y\\z\n\r\t\u0001\u001fé","n":[-12,-9223372036854775808,1.5,null,true],"o":{},"l":[{"k":false}]}"#)
        #expect(v.rendered() == """
            {
              "a\\"b": "x\\"y\\\\z\\n\\r\\t\\u0001\\u001fé",
              "n": [-12, -9223372036854775808, 1.5, null, true],
              "o": {},
              "l": [
                {
                  "k": false
                }
              ]
            }

            """)
    }

    @Test func millis() {
        #expect(Millis.string(707_556) == "707.556")
        #expect(Millis.string(64_000) == "64")
        #expect(Millis.string(-1_500) == "-1.5")
        #expect(Millis.string(5) == "0.005")
        #expect(Millis.string(0) == "0")
        #expect(Millis.string(1_010) == "1.01")
        #expect(Millis.string(-70) == "-0.07")
        #expect(Millis.string(Int64.min) == "-9223372036854775.808")
        #expect(Millis.string(Int64.max) == "9223372036854775.807")
        #expect(Millis.ratio(0.75) == "0.75")
        #expect(Millis.ratio(1) == "1")
    }

    @Test func frameLists() {
        #expect(FrameList.string([9, 1, 2, 3, 5, 6]) == "1-3, 5, 6, 9")
        #expect(FrameList.string([]) == "")
    }

    @Test func emptyAnalysisRendersEverywhere() throws {
        let r = Report(analysis: AnalysisResult(capture: CaptureInfo(file: "empty.btsnoop", format: "btsnoop")), verdicts: [],
                       tool: ToolInfo(version: "0"), config: ConfigSummary())
        for f in ReportFormat.allCases { #expect(!MultiReport(reports: [r]).render(f, color: false).isEmpty) }
        _ = try JSONSerialization.jsonObject(with: Data(JSONReporter.render(r).utf8))
    }
}

/// Headless Chromium (Debian package `chromium`), when installed.
enum HeadlessBrowser {
    static let path: String? = {
        let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").map(String.init)
        for name in names {
            for dir in dirs where FileManager.default.isExecutableFile(atPath: dir + "/" + name) { return dir + "/" + name }
        }
        FileHandle.standardError.write(Data(
            "⚠️  headless chromium not found (apt-get install -y chromium): HTML screenshot test is SKIPPED\n".utf8))
        return nil
    }()

    /// Renders `html` and returns the PNG bytes.
    static func screenshot(html: String, width: Int = 1280, height: Int = 1600) throws -> Data {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-shot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("report.html")
        let png = dir.appendingPathComponent("shot.png")
        try html.write(to: page, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path ?? "/usr/bin/chromium")
        p.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(dir.path)/profile",
                       "--screenshot=\(png.path)", "--window-size=\(width),\(height)", page.absoluteString]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(90)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        if p.isRunning { p.terminate() }
        return try Data(contentsOf: png)
    }
}

@Suite struct ScreenshotTests {
    @Test(.enabled(if: HeadlessBrowser.path != nil, "headless chromium not installed"), .timeLimit(.minutes(2)))
    func htmlRendersInARealBrowser() throws {
        let png = try HeadlessBrowser.screenshot(html: HTMLReporter.render(ReportFixtures.centralReport()))
        // PNG signature and IHDR size.
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let bytes = [UInt8](png)
        #expect(bytes.count > 24)
        guard bytes.count > 24 else { return }
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1280 && height == 1600)
        // A blank 1280×1600 page compresses to a few KB; the report (text, cards, SVG) is far larger.
        let blank = try HeadlessBrowser.screenshot(html: "<!DOCTYPE html><html><body></body></html>")
        #expect(png.count > 40_000, "screenshot is only \(png.count) bytes: blank page?")
        #expect(png.count > 5 * blank.count, "report \(png.count) bytes vs blank \(blank.count) bytes")
    }
}
