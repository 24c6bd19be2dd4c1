import Foundation
import ScopeAnalysis
import ScopeCapture
import ScopeCore
import ScopeDecode
import ScopeRules
import ScopeTestSupport
import Testing

extension SessionScript {
    /// Writes the script as a btsnoop (datalink 1002) file, to open in Wireshark.
    func write(to path: String) throws {
        var writer = try CaptureWriter.make(format: .btsnoopH4, path: path)
        for record in records { try writer.write(record) }
        try writer.close()
    }
}

/// A rule's verdict on an analysis.
func verdict<R: Rule>(_ rule: R.Type, _ analysis: AnalysisResult, config: RuleConfiguration = RuleConfiguration()) -> RuleVerdict {
    R().evaluate(analysis, config: config)
}

/// The peer the scripts connect to, and a second one.
let peerA = BDAddr("C0:1D:90:F3:37:D3") ?? BDAddr(value: 1)
let peerB = BDAddr("C4:7F:51:0A:22:13") ?? BDAddr(value: 2)

/// A script written to a btsnoop file in a temporary folder (removed after `body`).
func withCaptureFile<T>(_ script: SessionScript, _ body: (String) throws -> T) throws -> T {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-script-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("script.btsnoop").path
    try script.write(to: path)
    return try body(path)
}

/// Handing over at every chance: every settled item, closed connection and closed scan session
/// leaves the analysis as soon as it can.
let handOverEverything = AnalysisBuilder.HandOverPolicy(attPDUs: 0, connections: 1, scans: 1, keptScans: 0, kept: 0, items: 1)

/// `rule`'s verdict on the script's capture judged whole, and as `RuleEngine.analyze` judges it
/// with a hand-over (batches handed over as the analysis goes, merged with what it holds at the end),
/// with the items and sessions handed over.
func judgedWholeAndInBatches<R: Rule>(
    _ script: SessionScript, _ rule: R.Type, handOverPolicy: AnalysisBuilder.HandOverPolicy = handOverEverything
) throws -> (whole: RuleVerdict, batched: RuleVerdict, handedOver: HandedOverItems, handedOverScans: Int) {
    try withCaptureFile(script) { path in
        let whole = try #require(RuleEngine.evaluate(AnalysisBuilder.analyze(path: path)).first { $0.rule == R.id })
        let (analysis, verdicts) = try RuleEngine.analyze(path: path, handOverPolicy: handOverPolicy)
        let batched = try #require(verdicts.first { $0.rule == R.id })
        return (whole, batched, analysis.handedOver, analysis.handedOverScans.totals.sessions)
    }
}
