import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
import Testing

/// PacketLogger hazards from the field: times are the device's local wall clock, and the
/// preamble notes carry the time they were written, days before the session.
@Suite("PacketLogger clocks")
struct PacketLoggerClockTests {
    // havvk__even-g2-smart-classroom__bt3.pklg (iPhone17,2, little-endian records): frames 1–8 are
    // notes (Product, Firmware Version, Chipset, …) dated 2026-07-24 17:00:06; frame 9 onwards is
    // the session, 761,709.693 s (8 d 19 h 35 min) later.
    @Test func staleNotesAndLocalTimeAreReported() throws {
        guard let url = Fixtures.corpus("real/havvk__even-g2-smart-classroom__bt3.pklg") else { return }
        let r = try AnalysisBuilder.analyze(path: url.path)
        #expect(r.capture.health.forwardJumps.map(\.frame) == [9])
        #expect(r.capture.health.notes.contains { $0.text.hasPrefix("timestamps jump forward by 8 d 19 h 35 min at frame 9: the 8 record(s)") })
        #expect(r.capture.health.notes.contains(.localClock))
        #expect(HealthNote.localClock.text.contains("local wall-clock time, not UTC"))
    }

    @Test func otherFormatsDoNotGetTheLocalTimeNote() throws {
        guard let url = Fixtures.corpus("scenarios/good_central.btsnoop") else { return }
        let r = try AnalysisBuilder.analyze(path: url.path)
        #expect(r.capture.health.notes.isEmpty)
        #expect(r.capture.health.forwardJumps.isEmpty)
    }
}

/// The analysis acts on a reader diagnostic's code, not its wording (issue 15).
@Suite struct ReaderDiagnosticCodeTests {
    @Test func epochSkewIsReadFromTheCode() {
        var coded = AnalysisBuilder(file: "x", format: .btsnoopH4)
        coded.noteReaderDiagnostics([Diagnostic(.warning, layer: .capture, code: .epochSkew, message: "reworded")])
        #expect(coded.finish().capture.health.epochSkewSuspected)
        var worded = AnalysisBuilder(file: "x", format: .btsnoopH4)
        worded.noteReaderDiagnostics([Diagnostic(.warning, layer: .capture, message: "timestamp jumps by +378 days")])
        let r = worded.finish()
        #expect(!r.capture.health.epochSkewSuspected)
        #expect(r.capture.health.readWarnings == 1)
    }
}
