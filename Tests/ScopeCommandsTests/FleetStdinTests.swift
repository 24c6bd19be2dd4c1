#if os(Linux)
import Foundation
import ScopeCommands
import ScopeTestSupport
import Testing

/// `analyze - --name NAME --modified SECONDS --skip-non-captures --format jsonl`, as the Spark job
/// (integrations/spark) runs it on every file of a fleet: each file's bytes on standard input
/// must give the row `analyze DIR --format jsonl` gives for that file, byte for byte, and a file
/// that is not a capture no row at all, as a folder search skips it.
@Suite struct FleetStdinTests {
    /// A folder of containers (compressed logs, bug report zips, sysdiagnose archives, raw
    /// btsnooz whose clock is the file's time), broken captures and files that are not captures.
    static func folder() throws -> URL {
        let fm = FileManager.default
        let folder = fm.temporaryDirectory.appendingPathComponent("hciscope-stdin-\(UUID().uuidString)")
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        let containers = Fixtures.url("containers").path
        for name in try fm.contentsOfDirectory(atPath: containers) {
            try fm.copyItem(atPath: containers + "/" + name, toPath: folder.appendingPathComponent(name).path)
        }
        for name in ["truncated-file-header.btsnoop", "wrong-magic.btsnoop", "empty.btsnoop", "datalink-9999.btsnoop",
                     "truncated-shb.pcapng", "no-idb.pcapng", "truncated-magic.pcap"] {
            try fm.copyItem(atPath: Fixtures.url("bad/" + name).path, toPath: folder.appendingPathComponent("bad-" + name).path)
        }
        for name in ["gatt.polling-fires.pcapng", "gatt.polling-fires.pcap", "README.md", "index.json", "security.legacy-pairing-fires.be.pklg"] {
            try fm.copyItem(atPath: Fixtures.project("scenarios/" + name).path, toPath: folder.appendingPathComponent(name).path)
        }
        // Compressed logs corrupted in the middle: the error's offset is where the library gave
        // up, however the bytes arrived.
        for name in ["pairing.btsnoop.gz", "pairing.btsnoop.xz", "pairing.btsnoop.bz2", "pairing.btsnoop.zst"] {
            var bytes = try [UInt8](Data(contentsOf: Fixtures.url("containers/" + name)))
            for i in 40..<min(bytes.count - 40, 240) { bytes[i] = 0 }
            try Data(bytes).write(to: folder.appendingPathComponent("corrupt-" + name))
        }
        // A raw btsnooz log's clock is its modification time: one that is not now.
        try fm.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_760_000_000)],
                             ofItemAtPath: folder.appendingPathComponent("btsnooz_hci.log").path)
        return folder
    }

    @Test func everyFileOnStandardInputGivesTheRowOfTheFolderSearch() throws {
        guard let binary = builtBinary else {
            FileHandle.standardError.write(Data("\n*** SKIPPED analyze - --name test: no built hciscope executable ***\n\n".utf8))
            return
        }
        let fm = FileManager.default
        let folder = try Self.folder()
        defer { try? fm.removeItem(at: folder) }
        let expected = try analyzeCommand([folder.path, "--format", "jsonl"])
        var rows: [String: String] = [:]
        for line in expected.out.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            rows[try #require(object["file"] as? String)] = String(line)
        }
        var skipped = 0
        for name in try fm.contentsOfDirectory(atPath: folder.path).sorted() {
            let path = folder.appendingPathComponent(name).path
            let modified = Int(((try fm.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()).timeIntervalSince1970)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["analyze", "-", "--format", "jsonl", "--name", path, "--modified", String(modified), "--skip-non-captures"]
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if let row = rows[path] {
                #expect(out == row + "\n", "\(name): \(err)")
                let object = try JSONSerialization.jsonObject(with: Data(row.utf8)) as? [String: Any]
                #expect(process.terminationStatus == (object?["error"] is NSNull ? process.terminationStatus : 2), "\(name)")
                #expect(!err.contains("<stdin>"), "\(name): \(err)")
            } else {
                // Not a capture: skipped as the folder search skipped it.
                skipped += 1
                #expect(out.isEmpty, "\(name)")
                #expect(process.terminationStatus == 0, "\(name)")
                #expect(err.contains("\(path): skipped (not a capture)"), "\(name): \(err)")
            }
        }
        #expect(expected.err.contains("\(skipped) file(s) skipped (not captures)"))
        #expect(skipped >= 3)
        #expect(rows.count + skipped == (try fm.contentsOfDirectory(atPath: folder.path)).count)
    }

    @Test func nameAndModifiedDescribeStandardInputOnly() throws {
        let result = try analyzeCommand([shippedSample, "--name", "x.btsnoop"])
        #expect(result.status == 2)
        #expect(result.err.contains("--name and --modified describe standard input"))
    }
}
#endif
