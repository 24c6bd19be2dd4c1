import ScopeAnalysis
import ScopeCapture
@testable import ScopeCommands
import ScopeTestSupport
import ScopeCore
import Testing

/// The live view decodes the records `capture` has written: fed the shipped monitor capture
/// record by record, it follows scanning, connections and pairing as they happen.
@Suite("capture --live view")
struct LiveViewTests {
    @Test func followsTheSessionAsItIsRecorded() throws {
        var reader = try CaptureReader.open(path: shippedSample)
        var tracker = LiveTracker()
        var sawScanning = false
        var maxOpen = 0
        while let record = reader.next() {
            tracker.consume(record)
            if !tracker.view.scanningAdapters.isEmpty { sawScanning = true }
            maxOpen = max(maxOpen, tracker.view.openConnections)
            if record.frame == 281 {
                // Frame 281: the advertising report, while hci1 scans.
                #expect(tracker.view.scanningAdapters == [1])
                #expect(tracker.statusLine(controllers: 2, drops: 0).contains("scanning on hci1"))
            }
        }
        let v = tracker.view
        #expect(sawScanning)
        #expect(maxOpen == 2)  // both ends of the connection, one per controller
        #expect(v.frames == 400)
        #expect(v.connections == 2)
        #expect(v.openConnections == 0)
        #expect(v.pairings == 2)
        let panel = tracker.panel(controllers: 2, drops: 0, now: Timestamp(microseconds: 0))
        #expect(panel.count == 4)
        #expect(panel[3].contains("0 open, 2 in all"))
    }

    /// A long real capture (the corpus's busiest Android log: 156 scan sessions, 27 connections)
    /// through the live view: settled items are handed over as in `analyze`, so what the builder
    /// holds stays bounded, while the view's counts are the analysis's totals.
    @Test func handsOverAsItGoesAndKeepsCounting() throws {
        guard let url = Fixtures.corpus("real/jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log") else { return }
        var reader = try CaptureReader.open(path: url.path)
        // Handing over early (after 10 kept, in batches of 8) so that this capture's 156 sessions and
        // 27 connections exercise it; the defaults keep the first 1000 of each for the reports.
        let r = AnalysisBuilder.HandOverPolicy(connections: 8, scans: 8, keptScans: 10, kept: 10, items: 8)
        var tracker = LiveTracker(handOverPolicy: r)
        var maxHeld = (connections: 0, scans: 0, attempts: 0)
        while let record = reader.next() {
            tracker.consume(record)
            let h = tracker.held
            maxHeld = (max(maxHeld.connections, h.connections), max(maxHeld.scans, h.scans), max(maxHeld.attempts, h.attempts))
        }
        let analysis = try AnalysisBuilder.analyze(path: url.path)
        let v = tracker.view
        #expect(v.frames == analysis.capture.frames)
        #expect(v.connections == analysis.connections.count + analysis.handedOver.connections)
        #expect(v.connections == 27)
        #expect(v.pairings == analysis.pairings.count + analysis.handedOver.pairings)
        #expect(v.reports == analysis.scanTotals.reports)
        // Closed scan sessions leave in batches after the first kept ones; so do settled
        // connection requests and connections.
        #expect(maxHeld.scans <= r.keptScans + r.scans + 2, "held \(maxHeld.scans) scan sessions at most")
        #expect(maxHeld.attempts <= r.kept + r.items + 2, "held \(maxHeld.attempts) connection requests at most")
        #expect(tracker.held.scans < 156)
    }
}
