import Foundation
import ScopeCommands
import ScopeTestSupport
import Testing

/// The commands on containers (ScopeTestSupport/Fixtures/containers): show, analyze, convert and
/// redact open them like any capture, analyze says where the capture came from, and standard
/// input works where the container allows it.
@Suite struct ContainerCommandTests {
    static func fixture(_ name: String) -> String { Fixtures.url("containers/\(name)").path }

    @Test func analyzeOfABugReportReportsTheMergedCaptureAndItsFiles() throws {
        let (status, out, _) = try analyze(["--format", "json", Self.fixture("bugreport-full.zip")])
        #expect(status == 0)  // gatt.polling fires as a warning, below the default --fail-on error
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        let capture = try #require(json["capture"] as? [String: Any])
        #expect(capture["frames"] as? Int == 75)
        let source = try #require(capture["source"] as? [String: Any])
        #expect(source["kind"] as? String == "Android bug report")
        #expect((source["members"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [
            "FS/data/misc/bluetooth/logs/btsnoop_hci.log.last", "FS/data/misc/bluetooth/logs/btsnoop_hci.log",
        ])
        #expect((source["left_out"] as? [[String: Any]])?.count == 1)
        // The same verdicts as the capture inside, but for Android's scan throttle: a bug report is
        // certainly Android, the bare capture's platform unknown.
        let plain = try analyze(["--format", "json", Fixtures.project("scenarios/gatt.polling-fires.btsnoop").path])
        let plainJSON = try #require(try JSONSerialization.jsonObject(with: Data(plain.out.utf8)) as? [String: Any])
        let verdicts = { (j: [String: Any]) in (j["rules"] as? [[String: Any]])?.map { "\($0["rule"] ?? "")=\($0["status"] ?? "")" } }
        let throttle = "scan.restart-throttled="
        #expect(verdicts(json)?.filter { !$0.hasPrefix(throttle) } == verdicts(plainJSON)?.filter { !$0.hasPrefix(throttle) })
        #expect(verdicts(json)?.contains(throttle + "passed") == true)
        #expect(verdicts(plainJSON)?.contains(throttle + "not_evaluated") == true)
    }

    @Test func theTextReportSaysItIsASummary() throws {
        let (_, out, _) = try analyze(["--no-color", Self.fixture("btsnooz-v2.txt")])
        #expect(out.contains("from: Android bug report (btsnooz v2 summary)"))
        #expect(out.contains("not a full log"))
        #expect(!out.contains("malformed"))
    }

    @Test("a container with nothing in it exits 2 with what it found", arguments: ["bugreport-nothing.zip", "sysdiagnose-nothing.tar.gz"])
    func nothing(_ name: String) throws {
        let (status, _, err) = try analyze([Self.fixture(name)])
        #expect(status == 2)
        #expect(err.contains("with no HCI capture"))
        let shown = try show([Self.fixture(name)])
        #expect(shown.status == 2)
    }

    @Test func aCaptureWithNoRecordExits2() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-empty-\(UUID().uuidString).btsnoop")
        defer { try? FileManager.default.removeItem(at: file) }
        // A btsnoop 1002 header and nothing else (FORMATS.md §1).
        try Data(Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]).write(to: file)
        let (status, _, err) = try analyze([file.path])
        #expect(status == 2)
        #expect(err.contains("no records: read as btsnoop-1002"))
        #expect(try show([file.path]).status == 2)
    }

    @Test func convertWritesTheMergedCapture() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-merged-\(UUID().uuidString).btsnoop")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try convert([Self.fixture("bugreport-full.zip"), out.path])
        #expect(result.status == 0)
        let back = try show(["--json", out.path]).out.split(separator: "\n")
        let plain = try show(["--json", Fixtures.project("scenarios/gatt.polling-fires.btsnoop").path]).out.split(separator: "\n")
        #expect(back == plain)
    }

    @Test func showReadsACompressedCaptureOnStandardInput() throws {
        let binary = try #require(builtBinary)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["show", "-"]
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: Self.fixture("polling.pcapng.gz")))
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.first == " " }
        #expect(lines.count == 75)
    }
}
