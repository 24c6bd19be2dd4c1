import Foundation
import ScopeAnalysis
import ScopeCapture
import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

/// Connections are identified once, by the dissector (`DecodedFrame.connection`: adapter, handle
/// and a generation per successful connection complete); the analysis takes its `ConnectionID`
/// from there rather than counting again.
@Suite("Connection identity from the dissector")
struct ConnectionIdentityTests {
    /// Real captures that reuse connection handles (tshark: successful connection completes on
    /// the same handle, on 3, 9, 2 and 1 handles; the last a PacketLogger capture).
    @Test(arguments: [
        "real/whoisbe__pongbot-mcp__btsnoop_hci.log.last",
        "real/jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log",
        "real/bbmp__AndroidPad__btsnoop_hci.cfa",
        "real/ap4y__iSAP__hci_dump.pklg",
    ])
    func analysisConnectionsAreTheDissectorsConnections(file: String) throws {
        guard let url = Fixtures.corpus(file) else { return }  // corpus absent: said once by Fixtures
        var reader = try CaptureReader.open(path: url.path)
        var dissector = Dissector(detail: .analysis)
        var builder = AnalysisBuilder(file: url.path, format: reader.format)
        var byFrame: [FrameNumber: GATTConnectionKey] = [:]
        var generations: [UInt16: Set<Int>] = [:]
        while let record = reader.next() {
            let frame = dissector.decode(record)
            if let c = frame.connection {
                byFrame[record.frame] = c
                generations[c.handle, default: []].insert(c.generation)
            }
            builder.consume(frame)
        }
        let analysis = builder.finish()
        #expect(generations.values.contains { $0.count > 1 }, "the capture reuses a handle")
        var checked = 0
        for c in analysis.connections {
            guard let complete = c.complete else { continue }
            let key = try #require(byFrame[complete.frame], "\(file) frame \(complete.frame)")
            #expect(c.id == ConnectionID(adapter: key.adapter, handle: key.handle, generation: key.generation))
            #expect(c.id.generation >= 1)
            checked += 1
        }
        #expect(checked > 1)
        // Connections are distinct: no two share an identity.
        #expect(Set(analysis.connections.map(\.id)).count == analysis.connections.count)
    }
}
