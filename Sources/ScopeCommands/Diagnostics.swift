import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ScopeCapture
import ScopeCore
import ScopeRules

/// Where a command's output goes: standard output/error in the tool, strings in tests.
package struct Console: Sendable {
    package var out: @Sendable (String) -> Void
    package var err: @Sendable (String) -> Void

    package init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// The process's standard output (unbuffered writes of whole chunks) and standard error.
    package static let standard = Console(
        out: { text in
            var t = text
            t.withUTF8 { buffer in
                var done = 0
                while done < buffer.count {
                    let n = write(1, buffer.baseAddress.map { $0 + done }, buffer.count - done)
                    if n <= 0 { break }
                    done += n
                }
            }
        },
        err: { text in FileHandle.standardError.write(Data((text + "\n").utf8)) })
}

/// The one place that prints problems (to standard error) and decides the exit status.
struct DiagnosticSink {
    private(set) var errors = 0
    private(set) var warnings = 0
    var quiet = false
    let console: Console

    init(console: Console) { self.console = console }

    /// Opens a capture, reporting failure; nil means exit status 2.
    mutating func open(_ path: String, options: CaptureReader.Options = CaptureReader.Options()) -> CaptureReader? {
        do {
            return try CaptureReader.open(path: path, options: options)
        } catch {
            printError("\(error)")
            errors += 1
            return nil
        }
    }

    mutating func report(_ diagnostics: [Diagnostic]) {
        for d in diagnostics {
            switch d.severity {
            case .error: errors += 1
            case .warning: warnings += 1
            }
            if !quiet { printError(d.description) }
        }
    }

    func note(_ text: String) {
        if !quiet { printError(text) }
    }

    /// 0 when the file was read entirely without errors, 1 when it was read with errors, 2
    /// when it yielded no record at all (said on standard error with what it was read as).
    func exitStatus(for reader: CaptureReader) -> Int32 {
        if reader.summary.frames == 0 {
            printError(EmptyCapture.message(file: reader.name, format: reader.format.rawValue, origin: reader.origin,
                                            errors: reader.summary.errors))
            return 2
        }
        return errors > 0 || reader.summary.exitClass != .ok ? 1 : 0
    }

    private func printError(_ text: String) {
        console.err(text)
    }
}

/// The configuration file of a run: `--config FILE`, else ./hciscope.yml when there is one,
/// else the defaults. `show`, `convert` and `redact` read its `limits:`; `analyze` all of it.
enum ConfigFile {
    static func load(_ path: String?) throws -> (configuration: RuleConfiguration, source: String?) {
        let source = path ?? (FileManager.default.fileExists(atPath: "hciscope.yml") ? "hciscope.yml" : nil)
        guard let source else { return (RuleConfiguration(), nil) }
        let text = try String(contentsOfFile: source, encoding: .utf8)
        return (try RuleConfiguration.load(yaml: text, file: source), source)
    }

    /// The reader options of `path`'s limits, or the message (with the command's name) that says
    /// why the file cannot be used.
    static func readerOptions(_ path: String?, command: String) -> Result<CaptureReader.Options, ConfigProblem> {
        do {
            return .success(try load(path).configuration.limits.readerOptions)
        } catch {
            return .failure(ConfigProblem(message: "hciscope \(command): \(error)"))
        }
    }

    struct ConfigProblem: Error {
        var message: String
    }
}

/// Why an output may not be written: it is the input (the same file, a hard link or a symbolic
/// link to it). Asked before anything is opened for writing.
func sameFileRefusal(input: String, output: String, command: String) -> String? {
    guard CaptureFiles.sameFile(input, output) else { return nil }
    return "hciscope \(command): \(SafeText.escaped(output)) is \(SafeText.escaped(input)) (the same file): writing it would destroy the input; choose another output"
}

/// The message for an input that yielded no record: what it was read as, so the user knows
/// what hciscope found instead of a capture.
enum EmptyCapture {
    static func message(file: String, format: String, origin: CaptureOrigin, errors: Int) -> String {
        let what = origin.isPlain ? format : "\(format), \(origin.description)"
        let why = errors > 0 ? "; the read errors above say why" : ": the file holds a header and no record"
        return "\(file): error: no records: read as \(what)\(why)"
    }
}

/// Buffered output: one write per ~64 KiB.
struct OutputBuffer {
    var text = ""
    let console: Console

    init(console: Console) {
        self.console = console
        text.reserveCapacity(1 << 17)
    }

    mutating func flushIfLarge() {
        if text.utf8.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !text.isEmpty else { return }
        console.out(text)
        text.removeAll(keepingCapacity: true)
    }
}
