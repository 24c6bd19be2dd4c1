import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeAnalysis
@testable import ScopeDecode

/// A connection's GATT database is the decoder's (issue 30): the analysis keeps, for each server
/// of each connection, a `GATTServerDatabase` that learns what the decoder's tracker reported it
/// learned, through the same `learn(_:)`, and so holds what the tracker holds; it has no rules of
/// its own for services or characteristics.
@Suite struct OneGATTDatabaseTests {
    /// Runs `url` through the dissector and the analysis, and the frames' ATT PDUs through a
    /// tracker set of the decoder's own (kept to the end: the dissector drops a connection's
    /// tracker at its disconnection); for each connection, each server's database in the
    /// analysis must equal the tracker's. Returns how many databases with attributes were compared.
    static func compare(_ url: URL) throws -> Int {
        var reader = try CaptureReader.open(path: url.path)
        defer { reader.close() }
        var dissector = Dissector(detail: .analysis)
        var builder = AnalysisBuilder(file: url.path, format: reader.format)
        var trackers = GATTTrackerSet(detail: .analysis)
        while let record = reader.next() {
            let frame = dissector.decode(record)
            if let key = frame.connection {
                for p in frame.pdus {
                    guard case .att(let pdu, _) = p.upper else { continue }
                    _ = trackers.observe(pdu, connection: key, direction: record.direction, frame: record.frame, cid: p.pdu.cid)
                }
            }
            builder.consume(frame)
        }
        let analysis = builder.finish()
        var compared = 0
        for c in analysis.connections {
            let key = GATTConnectionKey(adapter: c.id.adapter, handle: c.id.handle, generation: c.id.generation)
            for server in [GATTServerSide.remote, .local] {
                let held = c.database(server).database
                let decoder = trackers[key]?.server(server) ?? GATTServerDatabase()
                #expect(
                    held.attributes == decoder.attributes && held.services == decoder.services,
                    "\(url.lastPathComponent): \(c.id), the \(server) server: \(held.attributes.count) attributes and \(held.services.count) services in the analysis, \(decoder.attributes.count) and \(decoder.services.count) in the decoder")
                if !held.attributes.isEmpty { compared += 1 }
            }
        }
        return compared
    }

    /// The shipped scenario with a whole discovery.
    @Test func theShippedScenarioHoldsTheDecodersDatabase() throws {
        #expect(try Self.compare(Fixtures.project("scenarios/gatt.discover-all-fires.btsnoop")) >= 1)
    }

    /// Real captures: many connections that discover (danisla), a phone as peripheral whose own
    /// server the pump discovers (palmarci), an iPhone's PacketLogger log (Bafang).
    @Test func realCapturesHoldTheDecodersDatabase() throws {
        let files = [
            "danisla__iot-bed__btsnoop_hci.log", "palmarci__OpenGuardian__780g_pairing_with_mobile.pcapng",
            "cagnulein__Bafang-RideSync__bluetoothd-hci-latest.pklg",
        ]
        for file in files {
            guard let url = Fixtures.corpus("real/" + file) else { continue }  // corpus absent: said once by Fixtures
            #expect(try Self.compare(url) >= 1, "\(file)")
        }
    }
}
