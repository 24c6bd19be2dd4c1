import ScopeCapture
import ScopeCore

/// Reads every record of `reader`, passes it through `transform` and writes it to a new file in
/// `format` at `path` — what `convert` and `redact` share. Diagnostics go to `sink`; returns the
/// closed writer (for its counts), or nil when the output could not be created or written.
func copyRecords(
    from reader: inout CaptureReader, to path: String, format: CaptureFormat, sink: inout DiagnosticSink,
    transform: (CaptureRecord) -> CaptureRecord = { $0 }
) -> CaptureWriter? {
    var writer: CaptureWriter
    do {
        writer = try CaptureWriter.make(format: format, path: path)
    } catch {
        sink.note("\(error)")
        return nil
    }
    while let record = reader.next() {
        sink.report(reader.drainDiagnostics())
        do {
            try writer.write(transform(record))
        } catch {
            sink.note("\(error)")
            return nil
        }
    }
    sink.report(reader.drainDiagnostics())
    do { try writer.close() } catch {
        sink.note("\(error)")
        return nil
    }
    return writer
}
