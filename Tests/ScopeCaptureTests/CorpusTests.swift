import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

/// Every capture (the project's own, and the corpus's when `HCISCOPE_CORPUS` names it) read to the end.
@Suite struct CorpusTests {
    @Test("HCI corpus files are read to the end; record counts equal tshark's", arguments: Corpus.hciFiles)
    func readsEveryHCIFile(_ url: URL) throws {
        var reader = try CaptureReader.open(path: url.path)
        var count = 0
        var lastFrame = 0
        while let r = reader.next() {
            count += 1
            #expect(r.frame == lastFrame + 1, "frames are numbered 1, 2, 3 … in \(url.lastPathComponent)")
            lastFrame = r.frame
            #expect(r.originalLength >= r.payload.count)
        }
        let summary = reader.summary
        let diagnostics = reader.drainDiagnostics()
        #expect(summary.complete)
        #expect(summary.errors == 0, "\(diagnostics)")
        #expect(summary.records == count)
        #expect(summary.bytesRead == (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int))
        let expectation = try #require(Corpus.expectation(url), "no MANIFEST/truth entry for \(url.lastPathComponent)")
        #expect(count == expectation.packets)
        if expectation.format == "btsnooz-v2-records" {
            // Android's on-device btsnooz file: a btsnoop 1002 header over raw btsnooz v2 records.
            #expect(reader.format == .btsnoopH4)
            #expect(reader.origin.layers.contains(.btsnoozRecords))
        } else {
            #expect(reader.format.rawValue == expectation.format)
        }
    }

    @Test("link-layer sniffer files are refused, naming the link type", arguments: Corpus.nonHCIFiles)
    func refusesSnifferFiles(_ url: URL) throws {
        let expectation = try #require(Corpus.expectation(url))
        let linkType = try #require(UInt32(expectation.format.split(separator: "-").last ?? ""))
        let error = try #require(throws: CaptureError.self) { try CaptureReader.open(path: url.path) }
        #expect(error.kind == .notHCI(linkType: linkType))
        #expect(error.exitClass == .couldNotRead)
        let name = try #require(LinkType.name(linkType))
        #expect(error.message == "link type \(linkType) (\(name)) is a link-layer sniffer capture, not HCI")
        #expect(error.description.contains(url.lastPathComponent))
    }

    @Test func theSweynToothPcapngIsReallyAClassicPcap() throws {
        guard let url = Fixtures.corpus(
            "real/Matheus-Garbelini__sweyntooth_bluetooth_low_energy_attacks__capture_cypress_psoc6_crash_llid.pcapng")
        else { return }
        let head = Array(try Data(contentsOf: url).prefix(24))
        #expect(head.prefix(4) == [0xD4, 0xC3, 0xB2, 0xA1])  // classic pcap, µs, little-endian
        let error = try #require(throws: CaptureError.self) { try CaptureFormat.sniff(head) }
        #expect(error.message == "link type 272 (NORDIC_BLE) is a link-layer sniffer capture, not HCI")
    }

    /// Values looked up with tshark 4.0.17 (`tshark -r FILE -Y 'frame.number in {…}' -T fields
    /// -e frame.number -e frame.time_epoch -e frame.len -e hci_h4.direction …`). tshark's
    /// `frame.len` counts the H4 type byte (PacketLogger: the type byte) and not the pcap 201
    /// pseudo-header; our payload has neither.
    struct TsharkRow: Sendable, CustomTestStringConvertible {
        var file: String
        var frame: Int
        var micros: Int64
        /// tshark's frame.len less the H4/PacketLogger type byte (monitor: frame.len).
        var payload: Int
        var kind: RecordKind
        var direction: Direction
        var adapter: AdapterIndex = 0
        var testDescription: String { "\(file) #\(frame)" }
    }

    static let tsharkRows: [TsharkRow] = [
        // 1  1416763602.819629000  4  0x00 0x01
        TsharkRow(file: "real/2m__a2dp-captures__btsnoop_hci.log", frame: 1, micros: 1_416_763_602_819_629,
                  payload: 3, kind: .command, direction: .sent),
        // 1000  1416763625.256531000  597  0x00 0x02
        TsharkRow(file: "real/2m__a2dp-captures__btsnoop_hci.log", frame: 1000, micros: 1_416_763_625_256_531,
                  payload: 596, kind: .acl, direction: .sent),
        // 3674  1416763732.976918000  7  0x01 0x04
        TsharkRow(file: "real/2m__a2dp-captures__btsnoop_hci.log", frame: 3674, micros: 1_416_763_732_976_918,
                  payload: 6, kind: .event, direction: .received),
        // pcap 201, nanosecond magic: 11629  1732154125.323324000  7  0x01 0x04
        TsharkRow(file: "real/cheoljun99__bluetooth-pcap-test__bluetooth.pcap", frame: 11629, micros: 1_732_154_125_323_324,
                  payload: 6, kind: .event, direction: .received),
        // 1  1729019745.608852000  14  0x01 0x02
        TsharkRow(file: "real/cheoljun99__bluetooth-pcap-test__bluetooth-infocar.pcap", frame: 1, micros: 1_729_019_745_608_852,
                  payload: 13, kind: .acl, direction: .received),
        // pcapng 201: 1  1617562152.723014000  7  0x00 0x01
        TsharkRow(file: "real/lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng", frame: 1, micros: 1_617_562_152_723_014,
                  payload: 6, kind: .command, direction: .sent),
        // PacketLogger LE: 1  1784912406.257000000  20  type 0xfc (note)
        TsharkRow(file: "real/havvk__even-g2-smart-classroom__bt3.pklg", frame: 1, micros: 1_784_912_406_257_000,
                  payload: 19, kind: .systemNote, direction: .unknown),
        // 9  1785674115.950000000  47  type 0xfd (config)
        TsharkRow(file: "real/havvk__even-g2-smart-classroom__bt3.pklg", frame: 9, micros: 1_785_674_115_950_000,
                  payload: 46, kind: .packetLoggerText(0xFD), direction: .unknown),
        // 100  1785674117.975000000  59  type 0x01 (event)
        TsharkRow(file: "real/havvk__even-g2-smart-classroom__bt3.pklg", frame: 100, micros: 1_785_674_117_975_000,
                  payload: 58, kind: .event, direction: .received),
        // PacketLogger BE: 161  1283518998.697435000  5  type 0x01
        TsharkRow(file: "real/ap4y__iSAP__hci_dump.pklg", frame: 161, micros: 1_283_518_998_697_435,
                  payload: 4, kind: .event, direction: .received),
        // btsnoop 2001: 1  1776721376.166030000  41  adapter 65535 opcode 12 (System Note)
        TsharkRow(file: "real/TheoLestandi__Projet_RP__ble_capture.snoop", frame: 1, micros: 1_776_721_376_166_030,
                  payload: 41, kind: .systemNote, direction: .unknown, adapter: 0xFFFF),
        // 3  1776721376.166034000  16  adapter 0 opcode 0 (New Index)
        TsharkRow(file: "real/TheoLestandi__Projet_RP__ble_capture.snoop", frame: 3, micros: 1_776_721_376_166_034,
                  payload: 16, kind: .newIndex, direction: .unknown),
        // 442  1776721472.586368000  13  adapter 0 opcode 5 (ACL RX)
        TsharkRow(file: "real/TheoLestandi__Projet_RP__ble_capture.snoop", frame: 442, micros: 1_776_721_472_586_368,
                  payload: 13, kind: .acl, direction: .received),
        // Backwards step: 51132 1766489332.682587 (7, rcvd), 51133 1766489332.682564 (16, sent)
        TsharkRow(file: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", frame: 51133,
                  micros: 1_766_489_332_682_564, payload: 15, kind: .acl, direction: .sent),
        // tshark 4.0 prints -4293915622.456214 here (it wraps negative btsnoop times through 32
        // bits); FORMATS.md §1 gives ts − 0x00dcddb30f2f8000 = −1,051,674.456214 s, i.e.
        // 1969-12-19 19:52:05.543786 UTC as the corpus MANIFEST says. 45 bytes, rcvd.
        TsharkRow(file: "real/mchwalisz__lightsapp-cli__btsnoop_hci.log", frame: 1, micros: -1_051_674_456_214,
                  payload: 44, kind: .event, direction: .received),
    ]

    @Test("decoded values equal tshark's", arguments: tsharkRows)
    func matchesTshark(_ row: TsharkRow) throws {
        guard let url = Fixtures.corpus(row.file), FileManager.default.fileExists(atPath: url.path) else { return }
        var reader = try CaptureReader.open(path: url.path)
        var found: CaptureRecord?
        while let r = reader.next() {
            if r.frame == row.frame { found = r; break }
        }
        let r = try #require(found)
        #expect(r.timestamp.microseconds == row.micros)
        #expect(r.payload.count == row.payload)
        #expect(r.kind == row.kind)
        #expect(r.direction == row.direction)
        #expect(r.adapter == row.adapter)
    }

    @Test func theNegativeTimestampFileDecodesTo1969() throws {
        guard let url = Fixtures.corpus("real/mchwalisz__lightsapp-cli__btsnoop_hci.log"),
              FileManager.default.fileExists(atPath: url.path) else { return }
        var reader = try CaptureReader.open(path: url.path)
        let next = reader.next()
        let first = try #require(next)
        #expect(first.timestamp.description == "1969-12-19 19:52:05.543786")
        while reader.next() != nil {}
        let d = reader.drainDiagnostics()
        #expect(d.count == 2)
        #expect(d.first?.description.contains("frame 1, offset 16 (0x10): warning: timestamp 1969-12-19 19:52:05.543786 UTC is outside 1990–2100") == true)
        #expect(d.last?.message == "1,147 records of 1,147 have timestamps outside 1990–2100")
        // 1969 + 378 days is still outside 1990–2100: no epoch skew.
        #expect(d.map(\.code) == [.implausibleTimestamp, .implausibleTimestamp])
        #expect(reader.summary.exitClass == .ok)
    }

    @Test func backwardTimestampsAreWarningsAndRecordsAreDelivered() throws {
        guard let url = Fixtures.corpus("real/crossnite__NovaX-Escooter__btsnoop_hci.log"),
              FileManager.default.fileExists(atPath: url.path) else { return }
        var reader = try CaptureReader.open(path: url.path)
        while reader.next() != nil {}
        let d = reader.drainDiagnostics()
        #expect(d.map(\.description) == [
            url.path + ": frame 2662, offset 159087 (0x26d6f): warning: timestamp goes backwards by 0.000037 s "
                + "(2025-10-22 23:33:34.454523 → 2025-10-22 23:33:34.454486); record delivered",
        ])
        #expect(reader.summary.records == 2939)
    }
}
