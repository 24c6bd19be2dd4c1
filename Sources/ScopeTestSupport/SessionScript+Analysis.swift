import ScopeAnalysis
import ScopeCapture
import ScopeDecode

/// A script's records through the pipeline every capture takes: the decoder, then the analysis.
extension SessionScript {
    public func analysis(file: String = "script.btsnoop") -> AnalysisResult {
        var builder = AnalysisBuilder(file: file, format: CaptureFormat.btsnoopH4.rawValue)
        var dissector = Dissector(detail: .analysis)
        for record in records { builder.consume(dissector.decode(record)) }
        _ = dissector.finish()
        return builder.finish()
    }
}
