import Foundation
import ScopeCommands
import ScopeTestSupport
import Testing

/// `analyze --output`: written in pieces to a temporary file and renamed, so the file is whole or
/// absent, an existing one is replaced, and the bytes are those printed to standard output.
@Suite struct ReportOutputTests {
    @Test(arguments: ["json", "text", "junit"])
    func outputFileHoldsWhatStandardOutputShowsAndIsReplacedWhole(format: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("report.\(format)").path
        let printed = try analyze([shippedSample, "--format", format, "--no-color"])
        try "an older, longer report that must not survive in part".write(toFile: file, atomically: true, encoding: .utf8)
        for _ in 0..<2 {
            let written = try analyze([shippedSample, "--format", format, "--no-color", "--output", file])
            #expect(written.status == printed.status)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == printed.out)
        }
        // Nothing but the report is left in the folder (no temporary file).
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["report.\(format)"])
    }

    /// `-v`/`--all` lists everything in the text report; the other formats are the same with or
    /// without it (JSON keeps every finding either way).
    @Test func allListsEverythingAndLeavesJSONAlone() throws {
        let short = try analyze([shippedSample, "--no-color"])
        let all = try analyze([shippedSample, "--no-color", "--all"])
        let v = try analyze([shippedSample, "--no-color", "-v"])
        #expect(all.out == v.out && all.status == short.status)
        #expect(short.out != all.out)
        #expect(all.out.contains("violated       pairing at frames 296/305"))
        #expect(short.out.contains("`analyze --all` gives every rule's reason"))
        #expect(try analyze([shippedSample, "--format", "json"]).out == analyze([shippedSample, "--format", "json", "--all"]).out)
    }

    @Test func outputIntoAMissingFolderSaysSoAndExits2() throws {
        let result = try analyze([shippedSample, "--output", "/nonexistent-hciscope-folder/report.json"])
        #expect(result.status == 2)
        #expect(result.err.contains("cannot write /nonexistent-hciscope-folder/report.json"))
    }
}

/// `analyze --threads`: how many threads only changes how soon the report is ready, never the
/// report; fewer than one is refused.
@Suite struct ThreadsOptionTests {
    @Test func everyThreadCountPrintsTheSameReport() throws {
        let scenario = Fixtures.repositoryRoot.appendingPathComponent("captures").path
        for files in [[shippedSample], [shippedSample, scenario]] {
            let plain = try analyze(files + ["--format", "json"])
            for threads in ["1", "2", "3", "8"] {
                let run = try analyze(files + ["--format", "json", "--threads", threads])
                #expect(run.status == plain.status)
                #expect(run.out == plain.out, "--threads \(threads), \(files.count) inputs")
            }
        }
    }

    @Test func fewerThanOneThreadIsRefused() throws {
        let run = try analyze([shippedSample, "--threads", "0"])
        #expect(run.status == 2)
        #expect(run.err.contains("--threads must be at least 1"))
    }
}
