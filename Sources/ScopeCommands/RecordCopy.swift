import ScopeCapture
import ScopeCore

/// Reads every record of `reader`, passes it through `transform` and writes it to a new file in
/// `format` at `path` — what `convert` and `redact` share. The records go to a file beside
/// `path` that takes its name only once all are written (`CaptureWriter.make(atomic:)`): an
/// input that yields no record, or a failure, leaves no output (and an existing file as it
/// was). Diagnostics go to `sink`; returns the writer (for its counts), or nil when the output
/// could not be created or written.
func copyRecords(
    from reader: inout CaptureReader, to path: String, format: CaptureFormat, sink: inout DiagnosticSink,
    transform: (CaptureRecord) -> CaptureRecord = { $0 }
) -> CaptureWriter? {
    var writer: CaptureWriter
    do {
        writer = try CaptureWriter.make(format: format, path: path, atomic: true)
    } catch {
        sink.note("\(error)")
        return nil
    }
    while let record = reader.next() {
        sink.report(reader.drainDiagnostics())
        do {
            try writer.write(transform(record))
        } catch {
            writer.discard()
            sink.note("\(error)")
            return nil
        }
    }
    sink.report(reader.drainDiagnostics())
    guard reader.summary.frames > 0 else {
        // Nothing to write: no output (the caller says why, with exit status 2).
        writer.discard()
        return writer
    }
    do { try writer.close() } catch {
        sink.note("\(error)")
        return nil
    }
    return writer
}
