import ScopeCapture
import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    /// Opens `path`, decodes every record and analyses it. Reader diagnostics (read errors,
    /// timestamp warnings) are recorded in `capture.health`. `resolvePrivateAddresses` resolves
    /// resolvable private addresses with the IRKs the capture distributes.
    ///
    /// `retire`, when given, receives batches of closed connections with their ATT detail as the
    /// analysis goes (see `retireClosedConnections()`); the result then keeps only their counts.
    public static func analyze(
        path: String, resolvePrivateAddresses: Bool = true, retirement: Retirement = Retirement(),
        retire: ((AnalysisResult) -> Void)? = nil
    ) throws -> AnalysisResult {
        var reader = try CaptureReader.open(path: path)
        var dissector = Dissector()
        var builder = AnalysisBuilder(file: path, format: reader.format.rawValue)
        builder.resolvePrivateAddressesEnabled = resolvePrivateAddresses
        builder.retirement = retirement
        while let record = reader.next() {
            builder.consume(dissector.decode(record))
            if let retire, builder.hasRetirableConnections { retire(builder.retireClosedConnections()) }
            if reader.diagnostics.count >= 500 { builder.noteReaderDiagnostics(reader.drainDiagnostics()) }
        }
        builder.noteReaderDiagnostics(reader.drainDiagnostics())
        _ = dissector.finish()
        return builder.finish()
    }
}
