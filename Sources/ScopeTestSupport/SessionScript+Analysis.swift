import ScopeAnalysis
import ScopeCapture
import ScopeDecode

/// A script's records through the pipeline every capture takes: the decoder, then the analysis.
extension SessionScript {
    package func analysis(file: String = "script.btsnoop") -> AnalysisResult {
        var builder = AnalysisBuilder(file: file, format: .btsnoopH4)
        var dissector = Dissector(detail: .analysis)
        for record in records { builder.consume(dissector.decode(record)) }
        _ = dissector.finish()
        return builder.finish()
    }

    /// The analysis `analyze` makes of a long capture: settled items are handed over as it goes
    /// (`handOverPolicy`; the batches are dropped). `observe` sees the builder after each record.
    package func analysis(
        file: String = "script.btsnoop", handOverPolicy: AnalysisBuilder.HandOverPolicy, observe: (AnalysisBuilder) -> Void = { _ in }
    ) -> AnalysisResult {
        var builder = AnalysisBuilder(file: file, format: .btsnoopH4)
        builder.handOverPolicy = handOverPolicy
        var dissector = Dissector(detail: .analysis)
        for record in records {
            builder.consume(dissector.decode(record))
            if builder.hasSettledToHandOver { _ = builder.handOverSettled() }
            observe(builder)
        }
        _ = dissector.finish()
        return builder.finish()
    }
}
