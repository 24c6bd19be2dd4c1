import Foundation
import ScopeCommands
import ScopeTestSupport
import Testing

/// `analyze --output`: written in pieces to a temporary file and renamed, so the file is whole or
/// absent, an existing one is replaced, and the bytes are those printed to standard output.
@Suite struct ReportOutputTests {
    func analyze(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let command = try Analyze.parse(arguments)
        let captured = CapturedConsole()
        let status = command.execute(console: captured.console, isTerminal: false)
        return (status, captured.out, captured.err)
    }

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

    @Test func outputIntoAMissingFolderSaysSoAndExits2() throws {
        let result = try analyze([shippedSample, "--output", "/nonexistent-hciscope-folder/report.json"])
        #expect(result.status == 2)
        #expect(result.err.contains("cannot write /nonexistent-hciscope-folder/report.json"))
    }
}
