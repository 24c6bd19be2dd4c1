import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// Real command packets from the corpus (payload without the H4 byte), with tshark 4.0.17's
/// decode pasted above each.
@Suite("HCI commands")
struct HCICommandTests {
    func field(_ fields: [Field], _ name: String) -> String? { fields.first { $0.name == name }?.value }

    // cnrd__yeelock frame 282: Sent LE Set Scan Parameters
    //   Scan Type: Active (0x01), Scan Interval: 18 (11.25 msec), Scan Window: 18 (11.25 msec)
    //   Own Address Type: (0x03), Scan Filter Policy: Accept all advertisements, except directed … (0x00)
    @Test func leSetScanParameters() {
        let c = HCICommand.decode(Fixtures.hex("0b 20 07 01 12 00 12 00 03 00"))
        #expect(c.opcode == .leSetScanParameters)
        #expect(c.parameterLength == 7)
        #expect(c.malformed.isEmpty)
        let f = c.fields
        #expect(field(f, "Opcode") == "LE Set Scan Parameters (0x08|0x000b)")
        #expect(field(f, "LE Scan Type") == "Active (0x01)")
        #expect(field(f, "LE Scan Interval") == "11.250 ms (0x0012)")
        #expect(field(f, "LE Scan Window") == "11.250 ms (0x0012)")
        // tshark labels 0x03 "Random (Static) Identity Address"; for Own_Address_Type the spec
        // (§7.8.10) means "RPA from the resolving list, else the random address".
        #expect(field(f, "Own Address Type") == "Resolvable Private, else Random (0x03)")
        #expect(field(f, "Scanning Filter Policy") == "Basic unfiltered (0x00)")
        #expect(c.summary.hasPrefix("LE Set Scan Parameters (0x08|0x000b) LE Scan Type: Active (0x01)"))
        #expect(c.addresses.isEmpty)
    }

    // cnrd__yeelock frames 284 and 286: Sent LE Set Scan Enable
    //   Scan Enable: true (0x01), Filter Duplicates: false (0x00)
    //   Scan Enable: false (0x00), Filter Duplicates: true (0x01)
    @Test func leSetScanEnable() {
        let on = HCICommand.decode(Fixtures.hex("0c 20 02 01 00"))
        #expect(on.opcode == .leSetScanEnable)
        #expect(field(on.fields, "LE Scan Enable") == "Enabled (0x01)")
        #expect(field(on.fields, "Filter Duplicates") == "Disabled (0x00)")
        #expect(on.summary == "LE Set Scan Enable (0x08|0x000c) LE Scan Enable: Enabled (0x01), Filter Duplicates: Disabled (0x00)")
        let off = HCICommand.decode(Fixtures.hex("0c 20 02 00 01"))
        #expect(field(off.fields, "LE Scan Enable") == "Disabled (0x00)")
        #expect(field(off.fields, "Filter Duplicates") == "Enabled (0x01)")
        #expect(off.malformed.isEmpty)
    }

    // Syed-Bipul-Rahman frame 228: Sent LE Set Extended Scan Parameters
    //   Own Address Type: Random Device Address (0x01), Scan Filter Policy: … (0x00)
    //   Scanning PHYs: 0x01, LE 1M; Scanning PHY: LE 1M (Scan Type Active, Interval 0x0ba1, Window 0x0144)
    @Test func leSetExtendedScanParameters() {
        let c = HCICommand.decode(Fixtures.hex("41 20 08 01 00 01 01 a1 0b 44 01"))
        #expect(c.opcode == .leSetExtendedScanParameters)
        #expect(c.malformed.isEmpty)
        let f = c.fields
        #expect(field(f, "Own Address Type") == "Random (0x01)")
        #expect(field(f, "Scanning PHYs") == "0x01 (LE 1M)")
        let phys = f.first { $0.name == "Scanning PHY" }
        #expect(phys?.value == "1")
        let first = phys?.children.first?.children ?? []
        #expect(field(first, "Scan Type") == "Active (0x01)")
        #expect(field(first, "Scan Interval") == "1860.625 ms (0x0ba1)")
        #expect(field(first, "Scan Window") == "202.500 ms (0x0144)")
    }

    // Syed-Bipul-Rahman frames 226 / 230: Sent LE Set Extended Scan Enable
    //   Scan Enable: false/true, Filter Duplicates: false (0x00), Duration: 0 (0 msec), Period: 0 (0 sec)
    @Test func leSetExtendedScanEnable() {
        let c = HCICommand.decode(Fixtures.hex("42 20 06 01 00 00 00 00 00"))
        #expect(c.opcode == .leSetExtendedScanEnable)
        #expect(c.malformed.isEmpty)
        #expect(field(c.fields, "Enable") == "Enabled (0x01)")
        #expect(field(c.fields, "Duration") == "0 ms (0x0000)")
        #expect(field(c.fields, "Period") == "0.00 s (0x0000)")
        let off = HCICommand.decode(Fixtures.hex("42 20 06 00 00 00 00 00 00"))
        #expect(field(off.fields, "Enable") == "Disabled (0x00)")
    }

    // cnrd__yeelock frame 432: Sent LE Create Connection
    //   Scan Interval: 96 (60 msec), Scan Window: 48 (30 msec), Initiator Filter Policy: Use Peer Address (0x00)
    //   Peer Address Type: Public Identity Address (0x02), BD_ADDR: ONSemico_1a:19:75 (60:c0:bf:1a:19:75)
    //   Own Address Type: (0x03), Connection Interval Min: 24 (30 msec), Max: 40 (50 msec)
    //   Max Connection Latency: 0, Supervision Timeout: 500 (5 sec), Min/Max CE Length: 0
    @Test func leCreateConnection() {
        let c = HCICommand.decode(Fixtures.hex(
            "0d 20 19 60 00 30 00 00 02 75 19 1a bf c0 60 03 18 00 28 00 00 00 f4 01 00 00 00 00"))
        #expect(c.opcode == .leCreateConnection)
        #expect(c.parameterLength == 25)
        #expect(c.malformed.isEmpty)
        let f = c.fields
        #expect(field(f, "LE Scan Interval") == "60.000 ms (0x0060)")
        #expect(field(f, "LE Scan Window") == "30.000 ms (0x0030)")
        #expect(field(f, "Initiator Filter Policy") == "Use peer address (0x00)")
        #expect(field(f, "Peer Address Type") == "Public Identity (0x02)")
        #expect(field(f, "Peer Address") == "60:c0:bf:1a:19:75")
        #expect(field(f, "Connection Interval Min") == "30.00 ms (0x0018)")
        #expect(field(f, "Connection Interval Max") == "50.00 ms (0x0028)")
        #expect(field(f, "Max Latency") == "0")
        #expect(field(f, "Supervision Timeout") == "5000 ms (0x01f4)")
        #expect(c.addresses == [BDAddr("60:c0:bf:1a:19:75")!])
        #expect(c.summary == "LE Create Connection (0x08|0x000d) Peer Address: 60:c0:bf:1a:19:75, Peer Address Type: Public Identity (0x02)")
    }

    // dandwhelan__fossibot frame 285: Sent LE Extended Create Connection
    //   Initiator Filter Policy: Use White List. Ignore Peer Address (0x01), Own Address Type: Random (0x01)
    //   Peer Address Type: Public (0x00), BD_ADDR: 00:00:00:00:00:00, Initiating PHYs: 0x07, LE Coded, LE 2M, LE 1M
    //   each PHY: Scan Interval 2048 (1280 msec), Scan Window 192 (120 msec), Conn Interval 8..16 (10..20 msec),
    //   Max Connection Latency 0, Supervision Timeout 500 (5 sec), CE Length 0
    @Test func leExtendedCreateConnection() {
        let c = HCICommand.decode(Fixtures.hex("""
            43 20 3a 01 01 00 00 00 00 00 00 00 07
            00 08 c0 00 08 00 10 00 00 00 f4 01 00 00 00 00
            00 08 c0 00 08 00 10 00 00 00 f4 01 00 00 00 00
            00 08 c0 00 08 00 10 00 00 00 f4 01 00 00 00 00
            """))
        #expect(c.opcode == .leExtendedCreateConnectionV1)
        #expect(c.parameterLength == 58)
        #expect(c.malformed.isEmpty)
        let f = c.fields
        #expect(field(f, "Initiator Filter Policy") == "Use Filter Accept List (0x01)")
        #expect(field(f, "Initiating PHYs") == "0x07 (LE 1M, LE 2M, LE Coded)")
        let phys = f.first { $0.name == "Initiating PHY" }?.children ?? []
        #expect(phys.count == 3)
        for phy in phys {
            #expect(field(phy.children, "Scan Interval") == "1280.000 ms (0x0800)")
            #expect(field(phy.children, "Scan Window") == "120.000 ms (0x00c0)")
            #expect(field(phy.children, "Connection Interval Min") == "10.00 ms (0x0008)")
            #expect(field(phy.children, "Connection Interval Max") == "20.00 ms (0x0010)")
            #expect(field(phy.children, "Supervision Timeout") == "5000 ms (0x01f4)")
        }
        // The all-zero peer address is ignored with a Filter Accept List and names no device.
        #expect(c.addresses.isEmpty)
    }

    // whoisbe__pongbot frame 1102: Sent LE Start Encryption (handle 0x0044, Random Number 0,
    //   EDIV 0, LTK 609e633f99c985feba41224aac2d831d)
    @Test func leEnableEncryption() {
        let c = HCICommand.decode(Fixtures.hex(
            "19 20 1c 44 00 00 00 00 00 00 00 00 00 00 00 60 9e 63 3f 99 c9 85 fe ba 41 22 4a ac 2d 83 1d"))
        #expect(c.opcode == .leEnableEncryption)
        #expect(c.opcode.name == "LE Enable Encryption")
        #expect(c.malformed.isEmpty)
        #expect(field(c.fields, "Connection Handle") == "0x0044")
        #expect(field(c.fields, "Long Term Key") == "60 9e 63 3f 99 c9 85 fe ba 41 22 4a ac 2d 83 1d")
    }

    // cnrd__yeelock frame 66: Sent LE Add Device to Resolving List (public identity 00:…:00,
    //   Peer IRK all zero, Local IRK 3134393fe671559c35a1fbadbfa8e1d9)
    @Test func leAddDeviceToResolvingList() {
        let c = HCICommand.decode(Fixtures.hex("""
            27 20 27 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
            31 34 39 3f e6 71 55 9c 35 a1 fb ad bf a8 e1 d9
            """))
        #expect(c.opcode == .leAddDeviceToResolvingList)
        #expect(c.malformed.isEmpty)
        #expect(field(c.fields, "Local IRK") == "31 34 39 3f e6 71 55 9c 35 a1 fb ad bf a8 e1 d9")
    }

    // whoisbe__pongbot frame 680: Sent Read RSSI (Connection Handle 0x0042)
    @Test func readRSSI() {
        let c = HCICommand.decode(Fixtures.hex("05 14 02 42 00"))
        #expect(c.opcode == .readRSSI)
        #expect(field(c.fields, "Connection Handle") == "0x0042")
    }

    // dandwhelan__fossibot frame 69: Sent Vendor Command 0xfd57 — tshark's Broadcom dissector
    //   calls it "LE Advertising Filter", Subcode: Unknown (0xff), then [Malformed Packet: HCI BROADCOM].
    //   The HCI packet is well formed (1 parameter byte, as stated); its meaning is vendor-defined,
    //   so we show the opcode as Vendor and the parameters raw.
    @Test func vendorCommand() {
        let c = HCICommand.decode(Fixtures.hex("57 fd 01 ff"))
        #expect(c.opcode.isVendor)
        #expect(c.opcode.description == "Vendor (0x3f|0x0157)")
        #expect(c.malformed.isEmpty)
        #expect(c.fields == [
            Field("Opcode", "Vendor (0x3f|0x0157)"),
            Field("Parameter Total Length", "1"),
            Field("Parameters", "ff"),
        ])
        #expect(c.summary == "Vendor (0x3f|0x0157)")
    }

    // mauricelam__btsnoop-rs (btmon 2001) frame 22: Sent Reset (no parameters)
    @Test func reset() {
        let c = HCICommand.decode(Fixtures.hex("03 0c 00"))
        #expect(c.opcode == .reset)
        #expect(c.parameters.isEmpty)
        #expect(c.malformed.isEmpty)
        #expect(c.summary == "Reset (0x03|0x0003)")
    }

    @Test("parameter block shorter or longer than stated")
    func lengthMismatch() {
        // LE Set Scan Enable (cnrd frame 284) with its last byte cut off
        let short = HCICommand.decode(Fixtures.hex("0c 20 02 01"))
        #expect(short.parameters == [0x01])
        #expect(short.malformed.count == 1)
        #expect(short.malformed.first?.offset == 4)
        #expect(short.malformed.first?.message == "truncated: parameter total length 2, 1 byte present")
        // … and with an extra byte appended
        let long = HCICommand.decode(Fixtures.hex("0c 20 02 01 00 ee"))
        #expect(long.parameters == [0x01, 0x00])
        #expect(long.malformed.first?.offset == 5)
        #expect(long.malformed.first?.message == "1 trailing byte after parameter total length 2")
        // … and with a consistent header but a parameter too many for the command
        let extra = HCICommand.decode(Fixtures.hex("0c 20 03 01 00 ee"))
        #expect(extra.malformed.map(\.message) == ["1 trailing byte"])
        #expect(extra.malformed.first?.offset == 5)
        #expect(extra.fields.last == Field("Malformed", "hci at offset 5: 1 trailing byte"))
    }

    // scenarios/adv_payload_rejected frame 35: LE Set Advertising Data with a 40-byte length
    // byte and 40 bytes of data (the spec's field is 31 bytes): the host sent an illegal command.
    @Test func oversizedLegacyAdvertisingData() {
        let c = HCICommand.decode(Fixtures.hex("""
            08 20 29 28 02 01 06 11 07 21 7f 4e 9a 3c 0d f1 b6 2b 4e 7d 8a 40 0c 1e 5b 12 ff 59 00 02 01
            a4 c7 e9 ff 42 4d 2d 38 20 76 31 2e 30
            """))
        #expect(c.malformed.map(\.message) == [
            "Advertising Data Length 40 exceeds the 31-byte Advertising Data field", "9 trailing bytes",
        ])
    }
}
