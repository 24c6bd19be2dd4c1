import ScopeCapture
import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    /// Opens `path`, decodes every record and analyses it. Reader diagnostics (read errors,
    /// timestamp warnings) are recorded in `capture.health`. `resolvePrivateAddresses` resolves
    /// resolvable private addresses with the IRKs the capture distributes.
    public static func analyze(path: String, resolvePrivateAddresses: Bool = true) throws -> AnalysisResult {
        var reader = try CaptureReader.open(path: path)
        var dissector = Dissector()
        var builder = AnalysisBuilder(file: path, format: reader.format.rawValue)
        builder.resolvePrivateAddressesEnabled = resolvePrivateAddresses
        while let record = reader.next() {
            builder.consume(dissector.decode(record))
            if reader.diagnostics.count >= 500 { builder.noteReaderDiagnostics(reader.drainDiagnostics()) }
        }
        builder.noteReaderDiagnostics(reader.drainDiagnostics())
        _ = dissector.finish()
        return builder.finish()
    }
}
