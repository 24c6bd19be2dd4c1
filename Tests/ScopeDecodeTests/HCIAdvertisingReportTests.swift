import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// Advertising reports from real captures, with tshark 4.0.17's decode above each.
@Suite("HCI advertising reports")
struct HCIAdvertisingReportTests {
    func field(_ fields: [Field], _ name: String) -> String? { fields.first { $0.name == name }?.value }

    // cnrd__yeelock frame 352: Rcvd LE Meta (LE Advertising Report)
    //   Num Reports: 1, Event Type: Connectable Undirected Advertising (0x00), Peer Address Type: Random (0x01),
    //   BD_ADDR: e6:45:9d:5a:2e:ee, Data Length: 30, Flags 0x06, Manufacturer Specific (Apple, iBeacon),
    //   RSSI: -74 dBm
    static let legacyADVIND = "3e 2a 02 01 00 01 ee 2e 5a 9d 45 e6 1e 02 01 06 1a ff 4c 00 02 15 fd a5 06 93 a4 e2 4f b1 af cf c6 eb 07 64 78 25 00 05 00 06 b0 b6"
    // cnrd__yeelock frame 353: Rcvd LE Meta (LE Advertising Report)
    //   Event Type: Scan Response (0x04), Random e6:45:9d:5a:2e:ee, Data Length: 28,
    //   128-bit Service UUIDs, Device Name: RDL51822, RSSI: -73 dBm
    static let legacySCANRSP = "3e 28 02 01 04 01 ee 2e 5a 9d 45 e6 1c 11 07 00 00 48 43 45 54 43 49 47 4f 4c 49 03 18 00 00 09 09 52 44 4c 35 31 38 32 32 b7"

    @Test func legacyAdvertisingReport() {
        let e = HCIEvent.decode(Fixtures.hex(Self.legacyADVIND))
        #expect(e.subevent == .advertisingReport)
        #expect(e.malformed.isEmpty)
        #expect(e.advertisingReports.count == 1)
        let r = e.advertisingReports[0]
        #expect(r.isLegacyEvent)
        #expect(r.eventType == 0x00)
        #expect(r.eventTypeName == "ADV_IND")
        #expect(r.isConnectable && r.isScannable && !r.isDirected && !r.isScanResponse)
        #expect(r.dataStatus == .complete)
        #expect(r.addressType == 0x01)
        #expect(r.address == BDAddr("e6:45:9d:5a:2e:ee")!)
        #expect(r.rssi == -74)
        #expect(r.txPower == nil && r.primaryPHY == nil && r.sid == nil)
        #expect(r.data.count == 30)
        #expect(r.dataOffset == 13)
        #expect(r.data.first == 0x02)
        let ad = r.ad
        #expect(ad.malformed.isEmpty)
        #expect(ad.structures.map(\.type) == [0x01, 0xFF])
        #expect(ad.structures.first?.offset == 13)
        #expect(e.addresses == [r.address])
        #expect(e.summary == "LE Advertising Report (0x02) 1 report: e6:45:9d:5a:2e:ee ADV_IND RSSI -74 dBm")

        let s = HCIEvent.decode(Fixtures.hex(Self.legacySCANRSP)).advertisingReports[0]
        #expect(s.eventTypeName == "SCAN_RSP")
        #expect(s.isScanResponse && !s.isConnectable)
        #expect(s.rssi == -73)
        #expect(s.ad.structures.map(\.type) == [0x07, 0x09])
    }

    // The corpus has no LE Advertising Report with Num_Reports > 1 (modern controllers send one per
    // event). This one joins the two reports of cnrd frames 352 and 353 above into one event, laid
    // out as the spec's array parameters are sent (each report's fields contiguous).
    @Test func legacyMultiReport() {
        let adv = Fixtures.hex(Self.legacyADVIND).dropFirst(4)  // drop 3e len 02 num
        let rsp = Fixtures.hex(Self.legacySCANRSP).dropFirst(4)
        let params: [UInt8] = [0x02, 0x02] + adv + rsp
        let e = HCIEvent.decode([0x3E, UInt8(params.count)] + params)
        #expect(e.malformed.isEmpty)
        #expect(e.advertisingReports.map(\.eventTypeName) == ["ADV_IND", "SCAN_RSP"])
        #expect(e.advertisingReports.map(\.rssi) == [-74, -73])
        #expect(e.advertisingReports[1].dataOffset == 4 + adv.count + 9)
        let reports = e.fields.first { $0.name == "Report" }
        #expect(reports?.children.count == 2)
        #expect(field(reports?.children[1].children ?? [], "Event Type") == "SCAN_RSP (0x04)")
    }

    // Num_Reports claims 2 but only the first report is present: the first stays decoded.
    @Test func reportsClaimedButMissing() {
        let adv = Fixtures.hex(Self.legacyADVIND).dropFirst(4)
        let params: [UInt8] = [0x02, 0x02] + adv
        let e = HCIEvent.decode([0x3E, UInt8(params.count)] + params)
        #expect(e.advertisingReports.count == 1)
        #expect(e.advertisingReports[0].rssi == -74)
        #expect(e.malformed.count == 1)
        #expect(e.malformed.first?.message == "report 2 of 2: truncated: needed 1 byte, 0 available")
        #expect(e.malformed.first?.offset == 2 + params.count)
    }

    // Data_Length running past the end of the event (cnrd frame 352 with Data_Length 0x1e → 0x7e).
    @Test func dataLengthPastEnd() {
        var bytes = Fixtures.hex(Self.legacyADVIND)
        bytes[12] = 0x7E
        let e = HCIEvent.decode(bytes)
        #expect(e.advertisingReports.isEmpty)
        #expect(e.malformed.first?.message == "report 1 of 1: truncated: needed 126 bytes, 31 available")
        #expect(e.malformed.first?.offset == 13)
    }

    // cheoljun99__bluetooth-pcap-test (pcap 201) frame 1: Rcvd LE Meta (LE Extended Advertising Report)
    //   Event Type: 0x0013 (Connectable, Scannable, Legacy, Complete), Peer Address Type: Public Identity (0x02),
    //   BD_ADDR: d0:04:b0:9a:26:9e, Primary PHY: LE 1M, Secondary PHY: none, SID: 0xff (not available),
    //   TX Power: 127 (not available), RSSI: -63 dBm, Periodic Interval: 0, Direct Address Type: Public,
    //   Direct BD_ADDR: 00:00:00:00:00:00, Data Length: 31 (Flags, Manufacturer Specific: Samsung)
    // frame 2: Event Type 0x001b (… Scan Response, Legacy), same advertiser, Data Length: 0
    @Test func extendedAdvertisingReport() {
        let e = HCIEvent.decode(Fixtures.hex("""
            3e 39 0d 01 13 00 02 9e 26 9a b0 04 d0 01 00 ff 7f c1 00 00 00 00 00 00 00 00 00 1f 02 01 02
            1b ff 75 00 02 18 61 a1 b2 e8 b4 d0 e3 79 d7 3c 66 f7 e9 ee bb 3a d5 a7 c9 c2 56 28
            """))
        #expect(e.subevent == .extendedAdvertisingReport)
        #expect(e.malformed.isEmpty)
        let r = e.advertisingReports[0]
        #expect(!r.isLegacyEvent)
        #expect(r.usesLegacyPDU)
        #expect(r.eventType == 0x0013)
        #expect(r.eventTypeName == "ADV_IND")
        #expect(r.isConnectable && r.isScannable && !r.isScanResponse && !r.isDirected)
        #expect(r.dataStatus == .complete)
        #expect(r.addressType == 0x02)
        #expect(r.address == BDAddr("d0:04:b0:9a:26:9e")!)
        #expect(r.primaryPHY == 1)
        #expect(r.secondaryPHY == 0)
        #expect(r.sid == 0xFF)
        #expect(r.txPower == 127)
        #expect(r.rssi == -63)
        #expect(r.periodicInterval == 0)
        #expect(r.directAddressType == 0)
        #expect(r.directAddress == BDAddr(value: 0))
        #expect(r.data.count == 31)
        #expect(r.dataOffset == 28)
        #expect(r.ad.structures.map(\.type) == [0x01, 0xFF])
        let report = e.fields.first { $0.name == "Report" }?.children.first?.children ?? []
        #expect(field(report, "Event Type") == "0x0013 (ADV_IND)")
        #expect(field(report, "TX Power") == "not available (0x7f)")
        #expect(field(report, "Address Type") == "Public Identity (0x02)")

        let rsp = HCIEvent.decode(Fixtures.hex(
            "3e 1a 0d 01 1b 00 02 9e 26 9a b0 04 d0 01 00 ff 7f c1 00 00 00 00 00 00 00 00 00 00"))
        #expect(rsp.malformed.isEmpty)
        let s = rsp.advertisingReports[0]
        #expect(s.eventTypeName == "SCAN_RSP to an ADV_IND")
        #expect(s.isScanResponse)
        #expect(s.data.isEmpty)
    }

    // Syed-Bipul-Rahman frame 1: Rcvd LE Meta (LE Extended Advertising Report)
    //   Event Type: 0x0010 (Legacy, non-connectable: ADV_NONCONN_IND), Random 3e:ff:59:70:cb:41… as
    //   BD_ADDR 41:cb:70:59:ff:3e, RSSI -76 dBm, Data Length 27: Flags, Apple manufacturer data
    @Test func extendedReportNonConnectableLegacy() {
        let e = HCIEvent.decode(Fixtures.hex("""
            3e 35 0d 01 10 00 01 3e ff 59 70 cb 41 01 00 ff 7f b4 00 00 00 00 00 00 00 00 00 1b 02 01 1a
            17 ff 4c 00 09 08 13 04 0a 0a 0b 4c 1b 58 16 08 00 8f 26 ed 3f a3 f6 ce
            """))
        let r = e.advertisingReports[0]
        #expect(r.eventTypeName == "ADV_NONCONN_IND")
        #expect(!r.isConnectable && !r.isScannable)
        #expect(r.address == BDAddr("41:cb:70:59:ff:3e")!)
        #expect(r.rssi == -76)
    }

    // wangdalian__btsnooper frame 231: tshark 4.0 flags this LE Extended Advertising Report
    //   [Malformed Packet: BT Common] — Event Type 0x0000 (non-connectable, non-scannable,
    //   extended PDU, complete), Public cc:1b:e0:e2:35:76, RSSI -59, Data Length: 6, Advertising Data:
    //   "Length: 12, Type: Unknown (0x00)" then the exception.
    // Per Core v5.4 §7.7.65.13 the HCI event is well formed: Data_Length 6 and exactly 6 data bytes,
    // parameter total length 32 matches. What is malformed is the advertising data itself (its first
    // AD structure claims 12 bytes of the 6): that belongs to the AD layer, not to HCI. All 120
    // such events in that file have this shape.
    @Test func wangdalianReportIsWellFormedHCI() {
        let e = HCIEvent.decode(Fixtures.hex(
            "3e 20 0d 01 00 00 00 76 35 e2 e0 1b cc 01 00 ff 7f c5 00 00 00 00 00 00 00 00 00 06 0c 00 2b ee dd cc"))
        #expect(e.malformed.isEmpty)
        let r = e.advertisingReports[0]
        #expect(r.eventType == 0x0000)
        #expect(r.eventTypeName == "Non-connectable, non-scannable, Complete")
        #expect(r.address == BDAddr("cc:1b:e0:e2:35:76")!)
        #expect(r.rssi == -59)
        #expect(r.data == [0x0C, 0x00, 0x2B, 0xEE, 0xDD, 0xCC])
        #expect(r.dataOffset == 28)
        #expect(r.ad.malformed.count == 1)
        #expect(r.ad.malformed.first?.offset == 28)
        #expect(r.ad.malformed.first?.layer == .ad)
    }

    // danisla__iot-bed frame 13 / TheoLestandi ble_capture frame 103 (btmon 2001):
    //   LE Advertising Report, ADV_IND, Public 68:9e:19:12:7e:7f, RSSI -76 dBm;
    //   ADV_IND, Random 50:f2:d6:78:e9:3e, Flags 0x02, Complete Local Name "Daniel's Tab S9", RSSI -38 dBm
    @Test(arguments: [
        ("3e 29 02 01 00 00 7f 7e 12 19 9e 68 1d 02 01 06 05 02 f0 ff b0 ff 0a ff 00 00 ff ff ff ff 64 00 ff 00 00 00 00 00 00 00 00 00 b4",
         "68:9e:19:12:7e:7f", Int8(-76)),
        ("3e 20 02 01 00 01 3e e9 78 d6 f2 50 14 02 01 02 10 09 44 61 6e 69 65 6c 27 73 20 54 61 62 20 53 39 da",
         "50:f2:d6:78:e9:3e", Int8(-38)),
    ])
    func moreLegacyReports(hex: String, address: String, rssi: Int8) {
        let e = HCIEvent.decode(Fixtures.hex(hex))
        #expect(e.malformed.isEmpty)
        #expect(e.advertisingReports.first?.address == BDAddr(address))
        #expect(e.advertisingReports.first?.rssi == rssi)
    }

    // LE Directed Advertising Report (§7.7.65.11): not in the corpus; spec layout with the
    // advertiser of cnrd frame 352 directing ADV_DIRECT_IND at a resolvable address, RSSI -60.
    @Test func directedReport() {
        let e = HCIEvent.decode(Fixtures.hex("3e 12 0b 01 01 01 ee 2e 5a 9d 45 e6 01 4a 55 17 ce 8c 63 c4"))
        #expect(e.malformed.isEmpty)
        let r = e.advertisingReports[0]
        #expect(r.eventTypeName == "ADV_DIRECT_IND")
        #expect(r.isDirected && r.isConnectable)
        #expect(r.directAddress == BDAddr("63:8c:ce:17:55:4a")!)
        #expect(r.directAddressType == 1)
        #expect(r.rssi == -60)
        #expect(r.data.isEmpty)
    }

    @Test("extended event type names follow the §7.7.65.13 legacy table, else list the bits", arguments: [
        (UInt16(0x13), "ADV_IND"), (UInt16(0x15), "ADV_DIRECT_IND"), (UInt16(0x12), "ADV_SCAN_IND"),
        (UInt16(0x10), "ADV_NONCONN_IND"), (UInt16(0x1B), "SCAN_RSP to an ADV_IND"),
        (UInt16(0x1A), "SCAN_RSP to an ADV_SCAN_IND"),
        (UInt16(0x0001), "Connectable, Complete"),
        (UInt16(0x0022), "Scannable, Incomplete, more data to come"),
        (UInt16(0x0045), "Connectable, Directed, Incomplete, truncated"),
        (UInt16(0x0100), "Non-connectable, non-scannable, Complete, RFU bits 0x0100"),
    ])
    func extendedNames(eventType: UInt16, name: String) {
        #expect(AdvertisingReport.extendedEventTypeName(eventType) == name)
    }

    @Test func dataStatusBits() {
        func report(_ t: UInt16) -> AdvertisingReport {
            AdvertisingReport(eventType: t, isLegacyEvent: false, addressType: 0, address: BDAddr(value: 1), rssi: -1)
        }
        #expect(report(0x0000).dataStatus == .complete)
        #expect(report(0x0020).dataStatus == .incompleteMoreToCome)
        #expect(report(0x0040).dataStatus == .incompleteTruncated)
        #expect(report(0x0060).dataStatus == .reserved)
    }
}
