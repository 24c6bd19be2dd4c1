import ScopeReport
import Testing

/// JSON reports are written in pieces (`JSONValue.write(chunk:to:)`): the pieces make exactly
/// the one-string rendering, whatever the piece size.
@Suite struct JSONChunkingTests {
    @Test(arguments: [1, 7, 300, 1 << 16])
    func piecesMakeTheRendering(chunk: Int) {
        let report = ReportFixtures.centralReport()
        let value = JSONReporter.value(report)
        var pieces: [String] = []
        value.write(chunk: chunk) { pieces.append($0) }
        #expect(pieces.joined() == value.rendered())
        if chunk == 1 { #expect(pieces.count > 100) }
    }

    /// `JSONReporter.write` renders without the tree, byte for byte as the tree renders.
    @Test(arguments: [1, 7, 300, 1 << 16])
    func writtenWithoutTheTree(chunk: Int) {
        for report in [ReportFixtures.centralReport(), ReportFixtures.hostileReport()] {
            var pieces: [String] = []
            JSONReporter.write(report, chunk: chunk) { pieces.append($0) }
            #expect(pieces.joined() == JSONReporter.value(report).rendered())
            if chunk == 1 { #expect(pieces.count > 100) }
        }
    }
}
