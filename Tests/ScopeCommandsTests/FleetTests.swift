import Foundation
import ScopeCommands
import ScopeTestSupport
import Testing

/// `analyze DIR --format jsonl`: one `hciscope.fleet/2` row per capture of a folder, checked
/// against the scenarios' truth files, and the README's DuckDB queries run over the rows.
@Suite struct FleetTests {
    /// A folder with the project's scenario captures (and their truth files, README and index,
    /// which are not captures) — the shipped folder itself.
    static var scenarios: String { Fixtures.project("scenarios").path }

    @Test func rowsOfAFolderAgreeWithTheTruthFiles() throws {
        let result = try analyzeCommand([Self.scenarios, "--format", "jsonl"])
        let rows = try jsonLines(result.out)
        let truths = try ScenarioTruth.own.map(ScenarioVerdicts.init)
        #expect(rows.count == truths.count)
        // Rows in the order of the sorted names; every other file of the folder skipped and counted.
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.scenarios).filter { !$0.hasPrefix(".") }
        #expect(rows.map { $0["file"] as? String ?? "" } == rows.map { $0["file"] as? String ?? "" }.sorted())
        #expect(result.err.contains("\(names.count - truths.count) file(s) skipped (not captures)"))
        let violatedAnywhere = truths.contains { $0.rules.values.contains { $0.status == "violated" && $0.severity == "error" } }
        #expect(result.status == (violatedAnywhere ? 1 : 0))
        for truth in truths {
            let path = Self.scenarios + "/" + (truth.capture as NSString).lastPathComponent
            guard let row = rows.first(where: { $0["file"] as? String == path }) else {
                Issue.record("no row for \(path)")
                continue
            }
            #expect(row.keys.count == 29)
            #expect(row.keys.contains("platform") && row.keys.contains("merged_files"))
            #expect(row["schema"] as? String == "hciscope.fleet/2")
            #expect(row["format"] as? String == truth.format)
            #expect(row["frames"] as? Int == truth.frames)
            #expect(row["error"] is NSNull)
            let rules = row["rules"] as? [[String: Any]] ?? []
            #expect(rules.count == truth.rules.count)
            for r in rules {
                let id = r["rule"] as? String ?? ""
                #expect(r["status"] as? String == truth.rules[id]?.status, "\(path) \(id)")
                #expect((r["findings"] as? Int ?? 0 > 0) == (truth.rules[id]?.status == "violated"), "\(path) \(id)")
            }
            // Judged (`--judge app`): a rule broken only by the system or the peer is not counted.
            #expect(row["rules_violated"] as? Int == truth.shown.count, "\(path)")
            let figures = row["figures"] as? [String: Any] ?? [:]
            #expect(figures.count == 23)
        }
    }

    /// One unreadable capture is a row with its error (file and offset named) and does not stop
    /// the others; the exit status is the worst (2). Files given by name are analysed even when
    /// they are not captures.
    @Test func anUnreadableCaptureIsARowWithItsError() throws {
        let fm = FileManager.default
        let folder = fm.temporaryDirectory.appendingPathComponent("hciscope-fleet-\(UUID().uuidString)")
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: folder) }
        try fm.copyItem(atPath: Fixtures.url("bad/truncated-file-header.btsnoop").path, toPath: folder.appendingPathComponent("a-cut.btsnoop").path)
        try fm.copyItem(atPath: Fixtures.project("scenarios/gatt.polling-fires.pcapng").path, toPath: folder.appendingPathComponent("b.pcapng").path)
        try fm.copyItem(atPath: Fixtures.project("scenarios/README.md").path, toPath: folder.appendingPathComponent("c.md").path)
        let out = folder.appendingPathComponent("fleet.out").path
        let result = try analyzeCommand([folder.path, "--format", "jsonl", "-o", out])
        #expect(result.status == 2)
        let rows = try jsonLines(try String(contentsOfFile: out, encoding: .utf8))
        #expect(rows.count == 2)
        #expect(rows[0]["file"] as? String == folder.appendingPathComponent("a-cut.btsnoop").path)
        let error = rows[0]["error"] as? String ?? ""
        #expect(error.contains("a-cut.btsnoop") && error.contains("offset") && error.contains("truncated btsnoop file header"))
        #expect(rows[0]["rules"] as? [Any] != nil && (rows[0]["rules"] as? [Any])?.isEmpty == true)
        #expect(rows[1]["format"] as? String == "pcapng-201" || rows[1]["format"] as? String == "pcapng-187" || rows[1]["format"] as? String == "pcapng-254")
        #expect(rows[1]["error"] is NSNull)
        #expect(result.err.contains("1 file(s) skipped (not captures)"))
        // Named on the command line, the README is an error, not a skip.
        let named = try analyzeCommand([folder.appendingPathComponent("c.md").path, "--format", "jsonl"])
        #expect(named.status == 2)
        #expect(try jsonLines(named.out).first?["error"] as? String != nil)
        // A folder without captures is an error too.
        let empty = folder.appendingPathComponent("empty")
        try fm.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try analyzeCommand([empty.path, "--format", "jsonl"])
        #expect(none.status == 2 && none.out.isEmpty && none.err.contains("no capture found"))
    }

    /// The README's queries, run by DuckDB over the rows of the scenario folder: the violation
    /// rate of each rule is what the truth files say, and the 90th percentile of discovery cost is
    /// the linear-interpolation quantile of the rows' `figures.discovery_ms`.
    @Test func readmeDuckDBQueriesOverTheRows() throws {
        guard Self.python(["-c", "import duckdb"]) != nil else {
            print("note: FleetTests.readmeDuckDBQueriesOverTheRows SKIPPED: python3 with duckdb is not installed (Scripts/setup.sh --test installs it)")
            return
        }
        let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "### A fleet as one table"))
        let sqlStart = try #require(readme.range(of: "```sql\n", range: section.upperBound..<readme.endIndex))
        let sqlEnd = try #require(readme.range(of: "```", range: sqlStart.upperBound..<readme.endIndex))
        let queries = readme[sqlStart.upperBound..<sqlEnd.lowerBound].components(separatedBy: ";")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        #expect(queries.count == 2)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-duckdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rowsFile = folder.appendingPathComponent("fleet.jsonl").path
        _ = try analyzeCommand([Self.scenarios, "--format", "jsonl", "-o", rowsFile])
        let script = """
            import duckdb, json, sys
            con = duckdb.connect()
            out = []
            for q in json.loads(sys.argv[1]):
                out.append([[None if v is None else (v if isinstance(v, (int, str)) else float(v)) for v in row]
                            for row in con.sql(q.replace("'fleet.jsonl'", repr(sys.argv[2]))).fetchall()])
            print(json.dumps(out))
            """
        let arguments = String(decoding: try JSONSerialization.data(withJSONObject: queries), as: UTF8.self)
        let printed = try #require(Self.python(["-c", script, arguments, rowsFile]))
        let results = try #require(try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [[[Any]]])

        // Violation rate per rule (the app's violations), from the truth files.
        let truths = try ScenarioTruth.own.map(ScenarioVerdicts.init)
        var expected: [String: (violated: Int, judged: Int)] = [:]
        for t in truths {
            for (rule, v) in t.rules {
                // `judged_status`: violated when a finding is the app's or of an unknown actor.
                expected[rule, default: (0, 0)].violated += t.shown[rule] != nil ? 1 : 0
                expected[rule, default: (0, 0)].judged += v.status == "not_evaluated" ? 0 : 1
            }
        }
        #expect(results[0].count == expected.count)
        for row in results[0] {
            let rule = row[0] as? String ?? ""
            let e = try #require(expected[rule], "\(rule)")
            #expect(row[1] as? Int == e.violated, "\(rule)")
            #expect(row[2] as? Int == e.judged, "\(rule)")
            if e.judged > 0 {
                let rate = (row[3] as? NSNumber)?.doubleValue ?? -1
                #expect(abs(rate - Double(e.violated) / Double(e.judged)) <= 0.0005, "\(rule)")
            }
        }
        // p90 of discovery cost over the rows that have one.
        let rows = try jsonLines(try String(contentsOfFile: rowsFile, encoding: .utf8))
        let values = rows.compactMap { (($0["figures"] as? [String: Any])?["discovery_ms"] as? NSNumber)?.doubleValue }.sorted()
        #expect(!values.isEmpty)
        let position = 0.9 * Double(values.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, values.count - 1)
        let p90 = values[lower] + (values[upper] - values[lower]) * (position - Double(lower))
        let got = try #require(results[1].first)
        #expect(abs(((got[0] as? NSNumber)?.doubleValue ?? -1) - p90) < 1e-6)
        #expect(got[1] as? Int == values.count)
    }

    /// Standard output of `python3 ARGS`, or nil when it fails or there is no python3.
    static func python(_ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}
