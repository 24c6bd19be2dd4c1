import Foundation
import ScopeCommands
import ScopeTestSupport
import Synchronization
import Testing

/// Collects what a command prints.
final class CapturedConsole: Sendable {
    private let outText = Mutex("")
    private let errText = Mutex("")

    var console: Console {
        Console(out: { t in self.outText.withLock { $0 += t } }, err: { t in self.errText.withLock { $0 += t + "\n" } })
    }

    var out: String { outText.withLock { $0 } }
    var err: String { errText.withLock { $0 } }
}

/// Runs `hciscope show ARGS` in-process.
func show(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let command = try Show.parse(arguments)
    let captured = CapturedConsole()
    let status = command.execute(console: captured.console)
    return (status, captured.out, captured.err)
}

/// Runs `hciscope convert ARGS` in-process.
func convert(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let command = try Convert.parse(arguments)
    let captured = CapturedConsole()
    let status = try command.execute(console: captured.console)
    return (status, captured.out, captured.err)
}

/// The `hciscope` executable next to the test bundle (`swift test` builds it), else the
/// repository's debug or release build; nil when there is none.
var builtBinary: String? {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let root = Fixtures.repositoryRoot
    for candidate in [bundle, bundle.deletingLastPathComponent(), root.appendingPathComponent(".build/debug"),
                      root.appendingPathComponent(".build/release")] {
        let path = candidate.appendingPathComponent("hciscope").path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

/// The repository's shipped sample capture.
var shippedSample: String { Fixtures.repositoryRoot.appendingPathComponent("captures/btvirt-le-pairing.btsnoop").path }

/// Compares `text` with `Snapshots/NAME`; `UPDATE_SNAPSHOTS=1` rewrites the file instead.
func assertSnapshot(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots/\(name)")
    if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
        try text.write(to: url, atomically: true, encoding: .utf8)
        return
    }
    let expected = try String(contentsOf: url, encoding: .utf8)
    if expected != text {
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let b = text.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDiff = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        Issue.record(
            "snapshot \(name) differs at line \(firstDiff + 1):\n- \(firstDiff < a.count ? a[firstDiff] : "<end>")\n+ \(firstDiff < b.count ? b[firstDiff] : "<end>")\n(UPDATE_SNAPSHOTS=1 swift test regenerates)",
            sourceLocation: sourceLocation)
    }
}

func jsonLines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        guard let dict = object as? [String: Any] else { throw CocoaError(.coderReadCorrupt) }
        return dict
    }
}
