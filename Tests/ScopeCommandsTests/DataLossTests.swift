import Foundation
import ScopeCapture
import ScopeCommands
import ScopeTestSupport
import Testing

#if os(Linux)
import Glibc

/// Issue 29, "Data lost": each case of the issue, in process. Before the change `redact x x` cut a
/// 25,200-frame capture to its first 64 KiB, a failed `convert` left a 16-byte file, a tar damaged
/// in its second member lost the first, and `analyze` exited 0 on data that stopped being read
/// after frame 6 or failed every CRC.
@Suite("Nothing lost")
struct DataLossTests {
    /// The small inputs of Scripts/make-hostile.py this suite reads, made once.
    static let directory: URL? = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-data-loss")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixtures.repositoryRoot.appendingPathComponent("Scripts/make-hostile.py").path, dir.path,
                             "large", "header-only", "tar-cut-second", "tar-badsum-second", "stopped-early", "zip-crc"]
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? dir : nil
    }()

    static func input(_ name: String) throws -> String {
        try #require(directory, "Scripts/make-hostile.py failed (python3?)").appendingPathComponent(name).path
    }

    /// A scratch folder holding a copy of large.btsnoop (25,200 frames, over 64 KiB) as x.btsnoop.
    static func scratch() throws -> (folder: URL, x: String, bytes: Data) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-xx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let x = folder.appendingPathComponent("x.btsnoop").path
        try FileManager.default.copyItem(atPath: try input("large.btsnoop"), toPath: x)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: x))
        #expect(bytes.count > 1_000_000)
        return (folder, x, bytes)
    }

    static func redact(_ arguments: [String]) throws -> (status: Int32, err: String) {
        let command = try Redact.parse(arguments + ["--key", "000102030405060708090a0b0c0d0e0f"])
        let captured = CapturedConsole()
        return (try command.execute(console: captured.console), captured.err)
    }

    @Test(arguments: ["redact", "convert"])
    func anOutputThatIsTheInputIsRefusedAndTheInputStaysByteIdentical(_ command: String) throws {
        let (folder, x, bytes) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hard = folder.appendingPathComponent("hard.btsnoop").path
        let soft = folder.appendingPathComponent("soft.btsnoop").path
        #expect(link(x, hard) == 0)
        #expect(symlink(x, soft) == 0)
        for output in [x, hard, soft, folder.appendingPathComponent("./x.btsnoop").path] {
            let (status, err) = command == "redact" ? try Self.redact([x, output]) : try { let r = try convert([x, output]); return (r.status, r.err) }()
            #expect(status == 2, "\(command) x \(output)")
            #expect(err.contains("the same file"), "\(err)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: x)) == bytes, "\(command) x \(output) changed x")
        }
    }

    @Test func aFailedConvertLeavesNoFileAndAnExistingOneUntouched() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-failed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fresh = folder.appendingPathComponent("out.btsnoop").path
        let r = try convert([try Self.input("header-only.btsnoop"), fresh])
        #expect(r.status == 2)
        #expect(!FileManager.default.fileExists(atPath: fresh))
        let existing = folder.appendingPathComponent("kept.btsnoop").path
        try Data("an earlier output".utf8).write(to: URL(fileURLWithPath: existing))
        #expect(try convert([try Self.input("header-only.btsnoop"), existing]).status == 2)
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "an earlier output")
        // Nothing written beside it either.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["kept.btsnoop"])
    }

    @Test func aSuccessfulConvertReplacesTheOutputWhole() throws {
        let (folder, x, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.pklg").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: out))
        #expect(try convert([x, out]).status == 0)
        var reader = try CaptureReader.open(path: out)
        var n = 0
        while reader.next() != nil { n += 1 }
        #expect(n > 10_000)  // PacketLogger holds the HCI records of the monitor capture, not its index records
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["out.pklg", "x.btsnoop"])
    }

    @Test func aTarDamagedInItsSecondMemberKeepsTheFirst() throws {
        for name in ["tar-cut-second.tar", "tar-badsum-second.tar"] {
            var reader = try CaptureReader.open(path: try Self.input(name))
            var records = 0
            while reader.next() != nil { records += 1 }
            #expect(records >= 27, "\(name): \(records) records")
            #expect(reader.origin.members.first?.name.hasSuffix("bluetoothd-hci-1.pklg") == true)
            #expect(reader.origin.members.first?.records == 27)
            #expect(reader.summary.errors > 0, "\(name): the damage is reported")
        }
    }

    @Test(arguments: ["stopped-early.btsnoop.gz", "zip-crc.zip"])
    func analyzeSaysWhenTheDataWasDamaged(_ name: String) throws {
        let r = try analyze([try Self.input(name)])
        #expect(r.status == 1, "\(name): \(r.err)")
        #expect(r.out.contains("data damaged or not read to its end"), "\(r.out.prefix(1500))")
        let json = try analyze(["--format", "json", try Self.input(name)])
        #expect(json.status == 1)
    }

    @Test func analyzeRefusesAReportOverItsCapture() throws {
        let (folder, x, bytes) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let r = try analyze([x, "-o", x])
        #expect(r.status == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: x)) == bytes)
    }
}
#endif
