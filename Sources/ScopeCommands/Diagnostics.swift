import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ScopeCapture
import ScopeCore

/// The one place that prints problems (to standard error) and decides the exit status.
struct DiagnosticSink {
    private(set) var errors = 0
    private(set) var warnings = 0
    var quiet = false

    /// Opens a capture, reporting failure; nil means exit status 2.
    mutating func open(_ path: String) -> CaptureReader? {
        do {
            return try CaptureReader.open(path: path)
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

    /// nil for success; 1 when the file was read with errors.
    func exitStatus(for reader: CaptureReader) -> Int32? {
        errors > 0 ? 1 : nil
    }

    private func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Buffered standard output: one write per ~64 KiB.
struct OutputBuffer {
    var text = ""

    init() { text.reserveCapacity(1 << 17) }

    mutating func flushIfLarge() {
        if text.utf8.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !text.isEmpty else { return }
        var t = text
        t.withUTF8 { buffer in
            var done = 0
            while done < buffer.count {
                let n = Glibc.write(1, buffer.baseAddress.map { $0 + done }, buffer.count - done)
                if n <= 0 { break }
                done += n
            }
        }
        text.removeAll(keepingCapacity: true)
    }
}
