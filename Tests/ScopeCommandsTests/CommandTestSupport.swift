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

/// Runs `hciscope analyze ARGS` in-process, as when standard output is not a terminal.
func analyze(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let command = try Analyze.parse(arguments)
    let captured = CapturedConsole()
    let status = command.execute(console: captured.console, isTerminal: false)
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

#if os(Linux)
import Glibc

/// A TCP socket listening on 127.0.0.1 at a port the kernel chose (for a local RTT server), and
/// that port; nil when it cannot be set up.
func loopbackListener() -> (fd: Int32, port: UInt16)? {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
    }
    guard bound, listen(listener, 1) == 0 else {
        close(listener)
        return nil
    }
    return (listener, UInt16(bigEndian: address.sin_port))
}
#endif
