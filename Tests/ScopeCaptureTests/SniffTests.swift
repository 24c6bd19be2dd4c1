import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

/// Content sniffing on hand-made headers (FORMATS.md §1, §3, §4).
@Suite struct SniffTests {
    static func btsnoop(datalink: UInt32) -> [UInt8] {
        var w = ByteWriter()
        w.append(Array("btsnoop".utf8) + [0])
        w.be32(1)
        w.be32(datalink)
        return w.bytes
    }

    static func pcap(linkType: UInt32, magic: UInt32 = 0xA1B2_C3D4, bigEndian: Bool = false) -> [UInt8] {
        var w = ByteWriter()
        if bigEndian {
            w.be32(magic); w.be16(2); w.be16(4)
            for v: UInt32 in [0, 0, 262_144, linkType] { w.be32(v) }
        } else {
            w.le32(magic); w.le16(2); w.le16(4)
            for v: UInt32 in [0, 0, 262_144, linkType] { w.le32(v) }
        }
        return w.bytes
    }

    /// SHB (no options) + optional extra blocks + IDB, little-endian.
    static func pcapng(linkType: UInt16, before: [UInt8] = []) -> [UInt8] {
        var w = ByteWriter()
        w.le32(0x0A0D_0D0A); w.le32(28); w.le32(0x1A2B_3C4D); w.le16(1); w.le16(0); w.le64(UInt64.max); w.le32(28)
        w.append(before)
        w.le32(1); w.le32(20); w.le16(linkType); w.le16(0); w.le32(262_144); w.le32(20)
        return w.bytes
    }

    @Test(arguments: [(UInt32(1001), CaptureFormat.btsnoopH1), (1002, .btsnoopH4), (2001, .btsnoopMonitor)])
    func btsnoopDatalinks(_ datalink: UInt32, _ format: CaptureFormat) throws {
        let s = try CaptureFormat.sniff(Self.btsnoop(datalink: datalink))
        #expect(s.format == format)
        #expect(s.format.btsnoopDatalink == datalink)
        #expect(s.headerLength == 16)
        #expect(s.btsnoopVersion == 1)
    }

    @Test(arguments: [
        (UInt32(1003), "btsnoop datalink 1003 (BCSP) is not supported"),
        (1004, "btsnoop datalink 1004 (HCI Three-wire/H5) is not supported"),
        (2002, "btsnoop datalink 2002 (BlueZ simulator, link-layer PHY packets) is not HCI; not supported"),
        (7, "unknown btsnoop datalink 7"),
    ])
    func refusedDatalinks(_ datalink: UInt32, _ message: String) throws {
        let error = try #require(throws: CaptureError.self) { try CaptureFormat.sniff(Self.btsnoop(datalink: datalink)) }
        #expect(error.kind == .unsupported)
        #expect(error.message == message)
        #expect(error.offset == 12)
    }

    @Test("all four pcap magics", arguments: [
        (UInt32(0xA1B2_C3D4), false, Sniffed.TimestampPrecision.microseconds),
        (0xA1B2_C3D4, true, .microseconds),
        (0xA1B2_3C4D, false, .nanoseconds),
        (0xA1B2_3C4D, true, .nanoseconds),
    ])
    func pcapMagics(_ magic: UInt32, _ bigEndian: Bool, _ precision: Sniffed.TimestampPrecision) throws {
        for (linkType, format) in [(UInt32(187), CaptureFormat.pcapH4), (201, .pcapH4PHDR), (254, .pcapMonitor)] {
            let s = try CaptureFormat.sniff(Self.pcap(linkType: linkType, magic: magic, bigEndian: bigEndian))
            #expect(s.format == format)
            #expect(s.byteOrder == (bigEndian ? .big : .little))
            #expect(s.timestampPrecision == precision)
        }
    }

    @Test("link-layer sniffer link types are refused by name", arguments: [
        (UInt32(251), "BLUETOOTH_LE_LL"), (255, "BLUETOOTH_BREDR_BB"), (256, "BLUETOOTH_LE_LL_WITH_PHDR"), (272, "NORDIC_BLE"),
    ])
    func snifferLinkTypes(_ linkType: UInt32, _ name: String) throws {
        let message = "link type \(linkType) (\(name)) is a link-layer sniffer capture, not HCI"
        let e1 = try #require(throws: CaptureError.self) { try CaptureFormat.sniff(Self.pcap(linkType: linkType)) }
        #expect(e1.message == message)
        #expect(e1.kind == .notHCI(linkType: linkType))
        let e2 = try #require(throws: CaptureError.self) {
            try CaptureFormat.sniff(Self.pcapng(linkType: UInt16(linkType)))
        }
        #expect(e2.message == message)
    }

    @Test func otherLinkTypesAreRefused() throws {
        let error = try #require(throws: CaptureError.self) { try CaptureFormat.sniff(Self.pcap(linkType: 1)) }
        #expect(error.message.hasPrefix("pcap link type 1 is not a Bluetooth HCI link type"))
    }

    @Test func pcapngFindsTheInterfaceAfterOtherBlocks() throws {
        // A Name Resolution Block (type 4, end-of-records only) before the IDB.
        var nrb = ByteWriter()
        nrb.le32(4); nrb.le32(16); nrb.le32(0); nrb.le32(16)
        let s = try CaptureFormat.sniff(Self.pcapng(linkType: 201, before: nrb.bytes))
        #expect(s.format == .pcapngH4PHDR)
        #expect(s.headerLength == 28)
        // A packet block before any interface is not a valid file.
        var epb = ByteWriter()
        epb.le32(6); epb.le32(32); for _ in 0..<5 { epb.le32(0) }; epb.le32(32)
        let error = try #require(throws: CaptureError.self) {
            try CaptureFormat.sniff(Self.pcapng(linkType: 201, before: epb.bytes))
        }
        #expect(error.kind == .notACapture)
    }

    @Test("headers cut short", arguments: [
        (Array("btsn".utf8), "truncated btsnoop file header: 4 of 16 bytes"),
        (Array("btsnoop".utf8) + [0, 0, 0], "truncated btsnoop file header: 10 of 16 bytes"),
        ([0xD4, 0xC3, 0xB2], "truncated file header: 3 bytes of a pcap/pcapng magic"),
        ([0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0], "truncated pcap file header: 8 of 24 bytes"),
        ([0x0A, 0x0D, 0x0D, 0x0A, 28, 0, 0, 0, 0x4D, 0x3C, 0x2B, 0x1A], "truncated pcapng Section Header Block: 12 of 28 bytes"),
    ])
    func truncatedHeaders(_ bytes: [UInt8], _ message: String) throws {
        let error = try #require(throws: CaptureError.self) { try CaptureFormat.sniff(bytes) }
        #expect(error.kind == .truncatedHeader)
        #expect(error.message == message)
        #expect(error.exitClass == .couldNotRead)
    }

    @Test func notACapture() throws {
        let text = Array("hello, this is a text file\n".utf8)
        let error = try #require(throws: CaptureError.self) { try CaptureFormat.sniff(text) }
        #expect(error.kind == .notACapture)
        #expect(error.message == "not a capture file: first bytes 68 65 6c 6c 6f 2c 20 74 match no btsnoop, pcap, pcapng or PacketLogger header")
        let empty = try #require(throws: CaptureError.self) { try CaptureFormat.sniff([]) }
        #expect(empty.message == "empty file: not a capture")
    }

    /// The first records of the corpus PacketLogger files (BTstack big-endian; iOS
    /// little-endian), as hex from `xxd`.
    @Test func packetLoggerByteOrders() throws {
        // Matheus-Garbelini hci_dump.pklg: length 0x5e, 1630410294 s, 405245 µs, type 0xfc.
        let be = Fixtures.hex("0000005e 612e1636 00062efd fc") + [UInt8](repeating: 0x41, count: 0x5E - 9)
        #expect(try CaptureFormat.sniff(be).format == .pklgBE)
        // havvk bt3.pklg: length 0x1c, 1784912406 s, 257000 µs, type 0xfc.
        let le = Fixtures.hex("1c000000 169a636a e8eb0300 fc") + [UInt8](repeating: 0x41, count: 0x1C - 9)
        #expect(try CaptureFormat.sniff(le).format == .pklgLE)
        // A record with microseconds ≥ 1,000,000 or an unknown type is not PacketLogger.
        let badMicros = Fixtures.hex("0000000d 612e1636 000f4240 00") + [0, 0, 0, 0]
        #expect(throws: CaptureError.self) { try CaptureFormat.sniff(badMicros) }
        let badType = Fixtures.hex("0000000d 612e1636 00000000 44") + [0, 0, 0, 0]
        #expect(throws: CaptureError.self) { try CaptureFormat.sniff(badType) }
    }

    @Test func packetLoggerChecksSeveralRecords() throws {
        var w = ByteWriter()
        for i in 0..<4 {
            w.be32(9 + 3); w.be32(1_630_410_294); w.be32(UInt32(i)); w.u8(0x00); w.append([0x03, 0x0C, 0x00])
        }
        #expect(try CaptureFormat.sniff(w.bytes).format == .pklgBE)
        // The third record's type is garbage: not a PacketLogger file.
        var bytes = w.bytes
        bytes[2 * 16 + 12] = 0x44
        #expect(throws: CaptureError.self) { try CaptureFormat.sniff(bytes) }
    }
}

@Suite struct CaptureFormatTests {
    @Test func rawValuesAreTheCommandLineSpellings() {
        #expect(CaptureFormat.allCases.map(\.rawValue) == [
            "btsnoop-1001", "btsnoop-1002", "btsnoop-2001", "pcap-187", "pcap-201", "pcap-254",
            "pcapng-187", "pcapng-201", "pcapng-254", "pklg-be", "pklg-le",
        ])
        #expect(CaptureFormat.allCases.filter(\.isWritable) == [.btsnoopH4, .btsnoopMonitor, .pcapH4PHDR, .pcapMonitor, .pklgBE, .pklgLE])
        #expect(CaptureFormat.pcapH4PHDR.description == "pcap LINKTYPE 201 (BLUETOOTH_HCI_H4_WITH_PHDR)")
    }

    @Test func whatEachFormatCanHold() {
        // btsnoop 1002 / pcap 201: HCI packets with a direction.
        for f in [CaptureFormat.btsnoopH4, .pcapH4PHDR] {
            #expect(f.canRepresent(.acl, direction: .sent))
            #expect(f.canRepresent(.acl, direction: .received))
            #expect(!f.canRepresent(.acl, direction: .unknown))
            #expect(f.canRepresent(.command, direction: .unknown))
            #expect(f.canRepresent(.unknownH4(0x07), direction: .received))
            #expect(!f.canRepresent(.newIndex, direction: .unknown))
            #expect(!f.canRepresent(.systemNote, direction: .unknown))
            #expect(!f.canRepresent(.lmp, direction: .sent))
        }
        // Monitor: every monitor kind, no PacketLogger-only kinds.
        for f in [CaptureFormat.btsnoopMonitor, .pcapMonitor] {
            #expect(f.canRepresent(.newIndex, direction: .unknown))
            #expect(f.canRepresent(.unknownMonitor(99), direction: .unknown))
            #expect(f.canRepresent(.iso, direction: .sent))
            #expect(!f.canRepresent(.command, direction: .received))
            #expect(!f.canRepresent(.lmp, direction: .sent))
            #expect(!f.canRepresent(.packetLoggerText(0xF7), direction: .unknown))
            #expect(!f.canRepresent(.unknownH4(7), direction: .sent))
        }
        // PacketLogger: HCI with implied or known direction, LMP, its text records.
        #expect(CaptureFormat.pklgBE.canRepresent(.lmp, direction: .received))
        #expect(CaptureFormat.pklgBE.canRepresent(.systemNote, direction: .unknown))
        #expect(CaptureFormat.pklgBE.canRepresent(.packetLoggerText(0xFD), direction: .unknown))
        #expect(!CaptureFormat.pklgBE.canRepresent(.command, direction: .received))
        #expect(!CaptureFormat.pklgLE.canRepresent(.newIndex, direction: .unknown))
        // H1: commands sent, events received, ACL; nothing else.
        #expect(CaptureFormat.btsnoopH1.canRepresent(.acl, direction: .sent))
        #expect(!CaptureFormat.btsnoopH1.canRepresent(.sco, direction: .sent))
        // pcap 187 keeps no direction: only commands and events come back with theirs.
        #expect(CaptureFormat.pcapH4.canRepresent(.acl, direction: .unknown))
        #expect(!CaptureFormat.pcapH4.canRepresent(.acl, direction: .sent))
    }
}
