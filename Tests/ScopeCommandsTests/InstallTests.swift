import Foundation
import ScopeCommands
import ScopeTestSupport
import Testing

/// `Scripts/install.sh PREFIX` puts the binary, the man pages and the bash/zsh/fish completions
/// where those tools look, and `--uninstall` takes them away. The test installs the binary the
/// tests were built with (HCISCOPE_BIN) and swift-argument-parser's generate-manual as
/// Scripts/test.sh builds it (HCISCOPE_GENERATE_MANUAL), so it builds nothing itself.
@Suite("install.sh")
struct InstallTests {
    static let root = Fixtures.repositoryRoot
    static var generateManual: String? {
        for config in ["release", "debug"] {
            let path = root.appendingPathComponent(".build/\(config)/generate-manual").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static func run(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("Scripts/install.sh").path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func installsBinaryManPagesAndCompletionsIntoAPrefix() throws {
        guard let binary = builtBinary, let manual = Self.generateManual else {
            print("note: install.sh test SKIPPED: needs a built hciscope and generate-manual (Scripts/test.sh builds both)")
            return
        }
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let env = ["HCISCOPE_BIN": binary, "HCISCOPE_GENERATE_MANUAL": manual]
        let result = try Self.run([prefix.path], environment: env)
        #expect(result.status == 0, "\(result.out)")

        let installed = ["bin/hciscope", "share/man/man1/hciscope.1", "share/man/man1/hciscope.analyze.1",
                         "share/man/man1/hciscope.capture.1", "share/bash-completion/completions/hciscope",
                         "share/zsh/site-functions/_hciscope", "share/fish/vendor_completions.d/hciscope.fish"]
        for path in installed {
            let size = (try? FileManager.default.attributesOfItem(atPath: prefix.appendingPathComponent(path).path)[.size] as? Int) ?? 0
            #expect(size > 0, "\(path) missing or empty")
        }
        #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/hciscope").path))
        let page = try String(contentsOf: prefix.appendingPathComponent("share/man/man1/hciscope.1"), encoding: .utf8)
        #expect(page.contains("analyze"))
        let analyzePage = try String(contentsOf: prefix.appendingPathComponent("share/man/man1/hciscope.analyze.1"), encoding: .utf8)
        #expect(analyzePage.contains("fail-on"))
        let bash = try String(contentsOf: prefix.appendingPathComponent("share/bash-completion/completions/hciscope"), encoding: .utf8)
        #expect(bash.contains("analyze") && bash.contains("complete"))

        // The installed binary names its version and the commit it was built from.
        let process = Process()
        process.executableURL = prefix.appendingPathComponent("bin/hciscope")
        process.arguments = ["--version"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let version = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(version.hasPrefix(BuildInfo.version + " (commit "), "\(version)")
        #expect(!version.contains("commit unknown"), "built from a git checkout: \(version)")

        let removed = try Self.run(["--uninstall", prefix.path], environment: env)
        #expect(removed.status == 0)
        for path in installed {
            #expect(!FileManager.default.fileExists(atPath: prefix.appendingPathComponent(path).path), "\(path) left after --uninstall")
        }
    }
}
