import ScopeCapture
@testable import ScopeCommands
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
}
