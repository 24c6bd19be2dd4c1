import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// Android's vendor LE Multi-Advertising command (OGF 0x3F OCF 0x154) and the Read RSSI answer,
/// from real captures (payload without the H4 byte). tshark 4.0.17 prints the vendor command as
/// "Vendor Command 0x0154 (opcode 0xFD54)" with its parameters undecoded; the fields below follow
/// AOSP's `btm_ble_multi_adv` (sub-command, then the BTM_BLE_MULTI_ADV_*_LEN layouts), read by
/// hand against the bytes.
@Suite("Vendor advertising and Read RSSI")
struct VendorAdvertisingAndRSSITests {
    func field(_ fields: [Field], _ name: String) -> Field? { fields.first { $0.name == name } }

    // palmarci__OpenGuardian__780g_pairing_with_mobile.pcapng frame 7 (a Nexus 5X advertising for
    // the MiniMed Mobile app): Set Parameters, interval 0x00a0-0x00d2, ADV_IND, own address random
    // 64:23:38:1b:ab:9f, channels 37-39, instance 1, TX power 1.
    @Test func multiAdvertisingSetParameters() throws {
        let c = HCICommand.decode(Fixtures.hex("54 fd 18 01 a0 00 d2 00 00 01 9f ab 1b 38 23 64 00 00 00 00 00 00 00 07 00 01 01"))
        #expect(c.opcode == .androidMultiAdvertising)
        #expect(c.malformed.isEmpty)
        #expect(field(c.fields, "Sub-command")?.value == "Set Parameters (0x01)")
        let v = try #require(field(c.fields, "Multi-Advertising"))
        #expect(v.value == "Set Parameters")
        #expect(field(v.children, "Advertising Interval Min")?.value == "100.000 ms (0x00a0)")
        #expect(field(v.children, "Advertising Type")?.value == "ADV_IND (0x00)")
        #expect(field(v.children, "Own Address")?.value == "64:23:38:1b:ab:9f")
        #expect(field(v.children, "Instance")?.value == "1")
        #expect(field(v.children, "TX Power")?.value == "1 dBm")
        guard case .androidMultiAdvertising(.parameters(let instance, let p))? = c.typed else {
            Issue.record("no typed view: \(String(describing: c.typed))")
            return
        }
        #expect(instance == 1)
        #expect(p.intervalMinMicros == 100_000)
        #expect(p.connectable && !p.directed)
    }

    // Frame 11: Write Advertising Data, 29 bytes (Flags, Medtronic manufacturer data naming
    // "Mobile 981983", TX power, service UUID 0xFE81), instance 1. Frame 15: Enable, instance 1;
    // frame 44: disable. Frame 16: Command Complete, Status 0x00, sub-command 0x05.
    @Test func multiAdvertisingDataAndEnable() throws {
        let data = HCICommand.decode(
            Fixtures.hex("54 fd 22 02 1d 02 01 02 12 ff f9 01 80 4d 6f 62 69 6c 65 20 39 38 31 39 38 33 00 02 0a 01 03 03 81 fe 00 00 01"))
        #expect(data.malformed.isEmpty)
        guard case .androidMultiAdvertising(.data(let instance, let d))? = data.typed else {
            Issue.record("no typed view")
            return
        }
        #expect(instance == 1)
        #expect(!d.scanResponse)
        #expect(d.length == 29)
        #expect(Array(d.data.prefix(3)) == [0x02, 0x01, 0x02])
        let variant = try #require(field(data.fields, "Multi-Advertising"))
        let ad = try #require(field(variant.children, "Advertising Data"))
        #expect(ad.children.contains { $0.name == "Manufacturer Specific Data" && $0.value.hasPrefix("Medtronic Inc. (0x01f9)") })

        let on = HCICommand.decode(Fixtures.hex("54 fd 03 05 01 01"))
        #expect(on.typed == .androidMultiAdvertising(.enable(instance: 1, enabled: true)))
        let off = HCICommand.decode(Fixtures.hex("54 fd 03 05 00 01"))
        #expect(off.typed == .androidMultiAdvertising(.enable(instance: 1, enabled: false)))
        // Frame 9, Set Random Address: decoded for show and the redactor, no typed view.
        let address = HCICommand.decode(Fixtures.hex("54 fd 08 04 9f ab 1b 38 23 64 01"))
        #expect(address.malformed.isEmpty)
        #expect(address.typed == nil)

        let answer = HCIEvent.decode(Fixtures.hex("0e 05 01 54 fd 00 05"))
        #expect(answer.malformed.isEmpty)
        #expect(answer.fields.contains { $0.name == "Sub-command" && $0.value == "Enable (0x05)" })
    }

    /// A sub-command no variant describes keeps its bytes, shown as hex (opaque to the redactor),
    /// and is no malformation; a cut variant is one.
    @Test func multiAdvertisingUndescribedAndCut() {
        let unknown = HCICommand.decode(Fixtures.hex("54 fd 03 09 01 02"))
        #expect(unknown.malformed.isEmpty)
        #expect(unknown.typed == nil)
        #expect(unknown.fields.contains { $0.name == "Multi-Advertising" && $0.value == "not described (0x09): 01 02" })
        let cut = HCICommand.decode(Fixtures.hex("54 fd 02 05 01"))
        #expect(!cut.malformed.isEmpty)
        #expect(cut.typed == nil)
    }

    // tonton81__test__btsnoop_hci.log frames 376/377 (tshark: "Sent Read RSSI", "Rcvd Command
    // Complete (Read RSSI)": Status Success, Connection Handle 0x0002, RSSI -50 dBm).
    @Test func readRSSIAnswer() {
        let command = HCICommand.decode(Fixtures.hex("05 14 02 02 00"))
        #expect(command.opcode == .readRSSI)
        let answer = HCIEvent.decode(Fixtures.hex("0e 07 01 05 14 00 02 00 ce"))
        #expect(answer.malformed.isEmpty)
        guard case .readRSSI(let r)? = answer.typed else {
            Issue.record("no typed view")
            return
        }
        #expect(r.handle == 0x0002)
        #expect(r.rssi == -50)
        // 127: not available — no reading.
        #expect(HCIEvent.decode(Fixtures.hex("0e 07 01 05 14 00 02 00 7f")).typed == nil)
    }
}
