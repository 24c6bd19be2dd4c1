import Foundation
@testable import ScopeAnalysis
import ScopeCapture
import ScopeReport
import ScopeRules
import ScopeDecode
import ScopeTestSupport
import Testing

/// `analyze` reads and decodes a batch of frames at a time, on this thread or (`threads` 2) on a
/// second one: the report must be the same byte for byte as a loop's that reads, decodes and
/// analyses one record at a time.
@Suite struct PipelineIdentityTests {
    static func json(_ path: String, pipelined: Bool, detail: DecodeDetail = .analysis) throws -> String {
        render(try AnalysisBuilder.analyze(path: path, resolvePrivateAddresses: true, pipelined: pipelined, detail: detail))
    }

    /// The reference: each record read, decoded and analysed in turn, the reader's diagnostics
    /// noted after each.
    static func oneRecordAtATime(_ path: String) throws -> String {
        var reader = try CaptureReader.open(path: path)
        var builder = AnalysisBuilder(file: path, format: reader.format)
        builder.noteOrigin(reader.origin)
        builder.resolvePrivateAddressesEnabled = true
        var dissector = Dissector(detail: .analysis)
        while let record = reader.next() {
            builder.consume(dissector.decode(record))
            builder.noteReaderDiagnostics(reader.drainDiagnostics())
        }
        builder.noteReaderDiagnostics(reader.drainDiagnostics())
        return render(builder.finish())
    }

    static func render(_ analysis: AnalysisResult) -> String {
        let report = Report(
            analysis: analysis, verdicts: RuleEngine.evaluate(analysis, config: RuleConfiguration()), tool: ToolInfo(version: "0"),
            config: ConfigSummary(source: nil, profile: nil, settings: []))
        return JSONReporter.render(report)
    }

    static var corpus: [URL] {
        var files: [URL] = []
        for dir in ["scenarios", "real"] {
            guard let url = Fixtures.corpus(dir) else { continue }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            for name in names.sorted() where !name.hasSuffix(".json") && !name.hasSuffix(".tsv") {
                files.append(url.appendingPathComponent(name))
            }
        }
        return files
    }

    /// `analyze` decodes with `Dissector(detail: .analysis)`, which leaves out GATT names,
    /// fields and discovered lists: the report must be the one full display detail gives.
    @Test func analysisDetailReportEqualsDisplayDetail() throws {
        let files = Self.corpus
        var compared = 0
        for file in files {
            guard let display = try? Self.json(file.path, pipelined: false, detail: .display) else { continue }
            let analysis = try Self.json(file.path, pipelined: false, detail: .analysis)
            #expect(analysis == display, "\(file.lastPathComponent)")
            compared += 1
        }
        if files.isEmpty { print("analysisDetailReportEqualsDisplayDetail: shared captures absent, skipped") }
        if !files.isEmpty { #expect(compared > 0) }
    }

    @Test func batchedReportsEqualOneRecordAtATime() throws {
        var files: [URL] = []
        for dir in ["scenarios", "real"] {
            guard let url = Fixtures.corpus(dir) else { continue }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            for name in names.sorted() where !name.hasSuffix(".json") && !name.hasSuffix(".tsv") {
                files.append(url.appendingPathComponent(name))
            }
        }
        var compared = 0
        for file in files {
            guard let reference = try? Self.oneRecordAtATime(file.path) else { continue }
            #expect(try Self.json(file.path, pipelined: false) == reference, "one thread: \(file.lastPathComponent)")
            #expect(try Self.json(file.path, pipelined: true) == reference, "two threads: \(file.lastPathComponent)")
            compared += 1
        }
        if !files.isEmpty { #expect(compared > 0) }
    }
}
