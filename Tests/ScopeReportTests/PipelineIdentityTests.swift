import Foundation
@testable import ScopeAnalysis
import ScopeReport
import ScopeRules
import ScopeDecode
import ScopeTestSupport
import Testing

/// `analyze` reads and decodes on a second thread when it can: the report must be the same
/// byte for byte as the single-thread loop's.
@Suite struct PipelineIdentityTests {
    static func json(_ path: String, pipelined: Bool, detail: DecodeDetail = .analysis) throws -> String {
        let analysis = try AnalysisBuilder.analyze(path: path, resolvePrivateAddresses: true, pipelined: pipelined, detail: detail)
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

    @Test func pipelinedReportEqualsSingleThread() throws {
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
            guard let single = try? Self.json(file.path, pipelined: false) else { continue }
            let pipelined = try Self.json(file.path, pipelined: true)
            #expect(pipelined == single, "\(file.lastPathComponent)")
            compared += 1
        }
        if !files.isEmpty { #expect(compared > 0) }
    }
}
