import Foundation
import ScopeCapture
import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

/// Every capture (the project's own and the corpus's) goes through reader and dissector to the end, and what
/// the dissector counts agrees with tshark's counts in MANIFEST.tsv.
@Suite("Corpus through the whole pipeline")
struct CorpusPipelineTests {
    struct Counts: Equatable, CustomStringConvertible {
        var frames = 0, advReportEvents = 0, att = 0, smp = 0, leConnections = 0, disconnections = 0
        var vendorDebug = 0
        /// LE Enhanced Connection Complete v2 (0x29, Core v5.4): tshark 4.0.17 does not know it.
        var leConnectionsV2 = 0
        /// SMP on the BR/EDR Security Manager channel 0x0007: tshark 4.0.17 does not decode it.
        var bredrSMP = 0
        var description: String {
            "frames \(frames), adv \(advReportEvents), att \(att), smp \(smp), le_conn \(leConnections), disc \(disconnections), 0x0EDC \(vendorDebug)"
        }
    }

    static func decode(_ path: String) throws -> Counts {
        var reader = try CaptureReader.open(path: path)
        var dissector = Dissector()
        var c = Counts()
        while let record = reader.next() {
            let frame = dissector.decode(record)
            c.frames += 1
            switch frame.packet {
            case .event(let e):
                if let sub = e.subevent, [0x02, 0x0B, 0x0D].contains(sub.rawValue) { c.advReportEvents += 1 }
                if let sub = e.subevent, [0x01, 0x0A].contains(sub.rawValue) { c.leConnections += 1 }
                if let sub = e.subevent, sub.rawValue == 0x29 { c.leConnectionsV2 += 1 }
                if e.code.rawValue == 0x05 { c.disconnections += 1 }
            case .vendorDebugACL:
                c.vendorDebug += 1
            default: break
            }
            for p in frame.pdus {
                switch p.upper {
                case .att: c.att += 1
                case .smp where p.pdu.cid == 0x0007: c.bredrSMP += 1
                case .smp: c.smp += 1
                default: break
                }
            }
        }
        _ = dissector.finish()
        return c
    }

    struct ManifestRow: Sendable, CustomStringConvertible {
        var file: String
        var format: String
        var packets, advReports, att, smp, leConn, disconnections: Int
        var description: String { file }
    }

    /// The rows of `captures/corpus.tsv` whose capture is in the corpus (none without it).
    static var manifest: [ManifestRow] {
        Fixtures.corpusManifest.filter { Fixtures.corpus("real/\($0.file)") != nil }.map { row in
            ManifestRow(
                file: row.file, format: row.format, packets: row.count("packets"), advReports: row.count("le_adv_reports"),
                att: row.count("att"), smp: row.count("smp"), leConn: row.count("le_conn"),
                disconnections: row.count("disconnections"))
        }
    }

    /// tshark counts what it decodes on the controller debug handle 0x0EDC as ATT/SMP (it is
    /// not L2CAP), so for files with such traffic the ATT/SMP counts are compared as "at most".
    @Test(arguments: manifest)
    func agreesWithTheManifest(_ row: ManifestRow) throws {
        let path = try #require(Fixtures.corpus("real/\(row.file)")).path
        if row.format.hasPrefix("pcap-272") || row.format.hasPrefix("pcapng-272") || row.format.hasPrefix("pcapng-256") {
            #expect(throws: CaptureError.self) { _ = try Self.decode(path) }
            return
        }
        let c = try Self.decode(path)
        #expect(c.frames == row.packets, "\(row.file): \(c)")
        #expect(c.advReportEvents == row.advReports, "\(row.file): \(c)")
        #expect(c.leConnections == row.leConn, "\(row.file): \(c)")
        #expect(c.disconnections == row.disconnections, "\(row.file): \(c)")
        if c.vendorDebug == 0 {
            #expect(c.att == row.att, "\(row.file): \(c)")
            #expect(c.smp == row.smp, "\(row.file): \(c)")
        } else {
            #expect(c.att <= row.att && c.smp <= row.smp, "\(row.file): \(c)")
        }
    }

    @Test func everyScenarioDecodesToTheEnd() throws {
        for url in Fixtures.corpusFiles() where url.path.contains("/scenarios/") {
            let c = try Self.decode(url.path)
            #expect(c.frames > 0, "\(url.lastPathComponent)")
        }
    }
}
