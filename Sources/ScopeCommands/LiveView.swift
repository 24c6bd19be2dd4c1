import ScopeAnalysis
import ScopeCore
import ScopeDecode

/// Decodes what `capture` records, after it is on disk, to show what the radio is doing while
/// recording: the status line (scans on/off, connections, drops) and the `--live` panel.
struct LiveTracker {
    private var dissector = Dissector()
    private var builder = AnalysisBuilder(file: "live", format: nil)
    private var started: Timestamp?

    /// `handOverPolicy`: when settled items leave the builder (tests make it hand over early).
    init(handOverPolicy: AnalysisBuilder.HandOverPolicy = AnalysisBuilder.HandOverPolicy()) {
        builder.handOverPolicy = handOverPolicy
        // No rule judges the recording here: open connections need not hold their ATT PDUs.
        builder.heldATTBudget = handOverPolicy.attPDUs
    }

    mutating func consume(_ record: CaptureRecord) {
        if started == nil { started = record.timestamp }
        builder.consume(dissector.decode(record))
        // What has settled (closed connections' ATT detail, closed scan sessions, settled
        // connection requests, connections and pairings) leaves the builder as it does in
        // `analyze`, so a recording of any length holds flat memory; the view counts them still.
        // The partial results go nowhere: `capture --analyze` judges the written file again.
        if builder.hasSettledToHandOver { _ = builder.handOverSettled() }
    }

    /// Items the builder holds now (for the test that memory stays flat).
    var held: (connections: Int, scans: Int, attempts: Int, devices: Int) { builder.held }

    var view: AnalysisBuilder.LiveView { builder.liveView }

    /// "1234 frames, 2 controllers, scanning on hci0, 1 connection open, 0 dropped".
    func statusLine(controllers: Int, drops: UInt32) -> String {
        let v = view
        let scanning = v.scanningAdapters.isEmpty ? "not scanning" : "scanning on " + v.scanningAdapters.map { "hci\($0)" }.joined(separator: ",")
        return "\(v.frames) frames, \(controllers) controller\(controllers == 1 ? "" : "s"), \(scanning), "
            + "\(v.openConnections) connection\(v.openConnections == 1 ? "" : "s") open, \(drops) dropped"
    }

    /// The `--live` panel: a few lines redrawn in place.
    func panel(controllers: Int, drops: UInt32, now: Timestamp) -> [String] {
        let v = view
        let elapsed = started.map { formatSeconds(now.microseconds(since: $0)) } ?? "0.000000"
        return [
            "hciscope capture — \(elapsed) s, \(v.frames) frames, \(controllers) controller\(controllers == 1 ? "" : "s"), \(drops) dropped by the kernel",
            "  scanning:     " + (v.scanningAdapters.isEmpty ? "off" : "on (" + v.scanningAdapters.map { "hci\($0)" }.joined(separator: ", ") + ")")
                + "   advertising reports: \(v.reports)   devices: \(v.devices)",
            "  advertising:  " + (v.advertising ? "on" : "off"),
            "  connections:  \(v.openConnections) open, \(v.connections) in all   pairings: \(v.pairings)",
        ]
    }
}
