import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// Real event packets from the corpus (payload without the H4 byte), with tshark 4.0.17's
/// decode pasted above each.
@Suite("HCI events")
struct HCIEventTests {
    func field(_ fields: [Field], _ name: String) -> String? { fields.first { $0.name == name }?.value }

    // MARK: Command Complete / Command Status

    // mauricelam__btsnoop-rs frame 360: Rcvd Command Complete (Read Local Version Information)
    //   Number of Allowed Command Packets: 2, Status: Success (0x00), HCI Version: 5.1 (0x0a),
    //   HCI Revision: 57286 (0xdfc6), LMP Version: 5.1 (0x0a), Manufacturer: Realtek (0x005d),
    //   LMP Subversion: 55586 (0xd922)
    @Test func commandCompleteReadLocalVersion() {
        let e = HCIEvent.decode(Fixtures.hex("0e 0c 02 01 10 00 0a c6 df 0a 5d 00 22 d9"))
        #expect(e.code == .commandComplete)
        #expect(e.commandOpcode == .readLocalVersionInformation)
        #expect(e.numHCICommandPackets == 2)
        #expect(e.status == 0x00)
        #expect(e.statusCode == .success)
        #expect(Array(e.returnParameters) == Fixtures.hex("00 0a c6 df 0a 5d 00 22 d9"))
        #expect(e.returnParameters.startIndex == HCIEvent.parametersOffset + 3)
        #expect(e.handle == nil)
        #expect(e.malformed.isEmpty)
        let f = e.fields
        #expect(field(f, "Command Opcode") == "Read Local Version Information (0x04|0x0001)")
        #expect(field(f, "Num HCI Command Packets") == "2")
        #expect(field(f, "Status") == "Success (0x00)")
        #expect(field(f, "HCI Version") == "Bluetooth 5.1 (0x0a)")
        #expect(field(f, "HCI Subversion") == "0xdfc6")
        #expect(field(f, "LMP Version") == "Bluetooth 5.1 (0x0a)")
        #expect(field(f, "Company Identifier")?.hasSuffix("(0x005d)") == true)
        #expect(field(f, "LMP Subversion") == "0xd922")
        #expect(e.summary == "Command Complete (0x0e) Read Local Version Information (0x04|0x0001) Status: Success (0x00)")
    }

    // mauricelam__btsnoop-rs frame 362: Rcvd Command Complete (Read BD ADDR)
    //   Status: Success (0x00), BD_ADDR: e8:48:b8:c8:20:00
    @Test func commandCompleteReadBDADDR() {
        let e = HCIEvent.decode(Fixtures.hex("0e 0a 02 09 10 00 00 20 c8 b8 48 e8"))
        #expect(e.commandOpcode == .readBDADDR)
        #expect(field(e.fields, "BD_ADDR") == "e8:48:b8:c8:20:00")
        // Our own address is not a peer.
        #expect(e.addresses.isEmpty)
        #expect(e.malformed.isEmpty)
    }

    // mauricelam__btsnoop-rs frame 390: Rcvd Command Complete (LE Read Buffer Size [v1])
    //   Status: Success, LE ACL Data Packet Length: 27, Total Number LE ACL Data Packets: 8
    // frame 374: Rcvd Command Complete (Read Buffer Size)
    //   ACL Data Packet Length: 1021, Synchronous Data Packet Length: 255, Total Number ACL Data Packets: 6,
    //   Total Number Synchronous Data Packets: 12
    @Test func commandCompleteBufferSizes() {
        let le = HCIEvent.decode(Fixtures.hex("0e 07 02 02 20 00 1b 00 08"))
        #expect(le.commandOpcode == .leReadBufferSize)
        #expect(field(le.fields, "LE ACL Data Packet Length") == "27")
        #expect(field(le.fields, "Total Num LE ACL Data Packets") == "8")
        let br = HCIEvent.decode(Fixtures.hex("0e 0b 02 05 10 00 fd 03 ff 06 00 0c 00"))
        #expect(field(br.fields, "ACL Data Packet Length") == "1021")
        #expect(field(br.fields, "Synchronous Data Packet Length") == "255")
        #expect(field(br.fields, "Total Num ACL Data Packets") == "6")
        #expect(field(br.fields, "Total Num Synchronous Data Packets") == "12")
        #expect(le.malformed.isEmpty && br.malformed.isEmpty)
    }

    // mauricelam__btsnoop-rs frame 388: Rcvd Command Complete (LE Read Local Supported Features)
    //   LE Features: 0x0000000000665fbd — LE Encryption, Extended Reject Indication, Slave-initiated
    //   Features Exchange, LE Ping, LE Data Packet Length Extension, Extended Scanner Filter Policies,
    //   LE 2M PHY, Stable Modulation Index TX/RX, LE Coded PHY, LE Extended Advertising,
    //   Channel Selection Algorithm #2, Connection CTE Request/Response, Antenna Switching AoD/AoA
    @Test func commandCompleteLEFeatures() {
        let e = HCIEvent.decode(Fixtures.hex("0e 0c 02 03 20 00 bd 5f 66 00 00 00 00 00"))
        let value = field(e.fields, "LE Features") ?? ""
        #expect(value.hasPrefix("0x0000000000665fbd (LE Encryption, Extended Reject Indication,"))
        #expect(value.contains("LE Coded PHY"))
        #expect(!value.contains("LE Periodic Advertising"))
        #expect(!value.contains("unknown"))
    }

    // whoisbe__pongbot frame 681: Rcvd Command Complete (Read RSSI)
    //   Status: Success (0x00), Connection Handle: 0x0042, RSSI: -69 dBm
    @Test func commandCompleteReadRSSI() {
        let e = HCIEvent.decode(Fixtures.hex("0e 07 01 05 14 00 42 00 bb"))
        #expect(e.commandOpcode == .readRSSI)
        #expect(e.handle == 0x0042)
        #expect(field(e.fields, "RSSI") == "-69 dBm")
    }

    // dandwhelan__fossibot frame 70: Rcvd Command Complete for vendor 0xfd57
    //   (tshark's Broadcom dissector: Status Success, Subcode Unknown (0xff), Scan Condition Unknown (0x07))
    @Test func commandCompleteVendor() {
        let e = HCIEvent.decode(Fixtures.hex("0e 07 01 57 fd 00 ff 07 00"))
        #expect(e.commandOpcode?.isVendor == true)
        #expect(e.status == 0x00)
        #expect(e.malformed.isEmpty)
        #expect(e.fields == [
            Field("Event Code", "Command Complete (0x0e)"),
            Field("Parameter Total Length", "7"),
            Field("Num HCI Command Packets", "1"),
            Field("Command Opcode", "Vendor (0x3f|0x0157)"),
            Field("Return Parameters", "00 ff 07 00"),
        ])
    }

    // mauricelam__btsnoop-rs frame 23: Rcvd Command Complete (Reset), Status: Success
    @Test func commandCompleteReset() {
        let e = HCIEvent.decode(Fixtures.hex("0e 04 03 03 0c 00"))
        #expect(e.commandOpcode == .reset)
        #expect(e.numHCICommandPackets == 3)
        #expect(e.status == 0)
        #expect(e.malformed.isEmpty)
    }

    // Syed-Bipul-Rahman frame 7869: Rcvd Command Status (LE Extended Create Connection)
    //   Status: Pending (0x00), Number of Allowed Command Packets: 1, Command Opcode: 0x2043
    @Test func commandStatus() {
        let e = HCIEvent.decode(Fixtures.hex("0f 04 00 01 43 20"))
        #expect(e.code == .commandStatus)
        #expect(e.status == 0)
        #expect(e.numHCICommandPackets == 1)
        #expect(e.commandOpcode == .leExtendedCreateConnectionV1)
        #expect(e.malformed.isEmpty)
        #expect(field(e.fields, "Command Opcode") == "LE Extended Create Connection [v1] (0x08|0x0043)")
        #expect(e.summary == "Command Status (0x0f) LE Extended Create Connection [v1] (0x08|0x0043) Status: Success (0x00)")
    }

    // cnrd__yeelock frame 1: Rcvd Command Status (No Operation): credits only, opcode 0x0000
    @Test func commandStatusNOP() {
        let e = HCIEvent.decode(Fixtures.hex("0f 04 00 01 00 00"))
        #expect(e.commandOpcode == .nop)
        #expect(e.commandOpcode?.description == "NOP (0x00|0x0000)")
    }

    // soaresden__IX7TrackerPro frame 299: Command Status for vendor 0xfc5b with 5 parameter bytes.
    //   tshark: Status Unknown Connection Identifier (0x02), 1 packet, opcode 0xfc5b — and silently
    //   ignores the fifth byte. Command Status has exactly 4 parameters (§7.7.15): we flag it.
    @Test func commandStatusWithExtraByte() {
        let e = HCIEvent.decode(Fixtures.hex("0f 05 02 01 5b fc 02"))
        #expect(e.status == 0x02)
        #expect(e.commandOpcode == HCIOpcode(rawValue: 0xFC5B))
        #expect(e.malformed.map(\.message) == ["1 trailing byte"])
        #expect(e.malformed.first?.offset == 6)
    }

    // MARK: Connections

    // danisla__iot-bed frame 71: Rcvd LE Meta (LE Connection Complete)
    //   Status: Success, Connection Handle: 0x0002, Role: Master (0x00), Peer Address Type: Public (0x00),
    //   BD_ADDR: 68:9e:19:12:7e:7f, Connection Interval: 39 (48.75 msec), Latency: 0,
    //   Supervision Timeout: 2000 (20 sec), Central Clock Accuracy: 50 ppm (0x05)
    @Test func leConnectionComplete() {
        let e = HCIEvent.decode(Fixtures.hex("3e 13 01 00 02 00 00 00 7f 7e 12 19 9e 68 27 00 00 00 d0 07 05"))
        #expect(e.code == .leMeta)
        #expect(e.subevent == .connectionComplete)
        #expect(e.status == 0)
        #expect(e.handle == 0x0002)
        #expect(e.malformed.isEmpty)
        #expect(e.addresses == [BDAddr("68:9e:19:12:7e:7f")!])
        let f = e.fields
        #expect(field(f, "Subevent Code") == "LE Connection Complete (0x01)")
        #expect(field(f, "Role") == "Central (0x00)")
        #expect(field(f, "Connection Interval") == "48.75 ms (0x0027)")
        #expect(field(f, "Supervision Timeout") == "20000 ms (0x07d0)")
        #expect(field(f, "Central Clock Accuracy") == "50 ppm (0x05)")
    }

    // cnrd__yeelock frame 442: Rcvd LE Meta (LE Enhanced Connection Complete)
    //   Status: Success, Handle: 0x003a, Role: Master, Peer Address Type: Public (0x00),
    //   BD_ADDR: 60:c0:bf:1a:19:75, Local RPA: 63:8c:ce:17:55:4a, Peer RPA: 00:00:00:00:00:00,
    //   Connection Interval: 36 (45 msec), Latency 0, Supervision Timeout: 500 (5 sec), Accuracy 500 ppm
    @Test func leEnhancedConnectionComplete() {
        let e = HCIEvent.decode(Fixtures.hex(
            "3e 1f 0a 00 3a 00 00 00 75 19 1a bf c0 60 4a 55 17 ce 8c 63 00 00 00 00 00 00 24 00 00 00 f4 01 00"))
        #expect(e.subevent == .enhancedConnectionCompleteV1)
        #expect(e.status == 0)
        #expect(e.handle == 0x003A)
        #expect(e.malformed.isEmpty)
        #expect(field(e.fields, "Local Resolvable Private Address") == "63:8c:ce:17:55:4a")
        #expect(field(e.fields, "Connection Interval") == "45.00 ms (0x0024)")
        // The local RPA is ours; the all-zero peer RPA names nobody.
        #expect(e.addresses == [BDAddr("60:c0:bf:1a:19:75")!])
        #expect(e.summary.hasPrefix("LE Enhanced Connection Complete [v1] (0x0a) Status: Success (0x00), Connection Handle: 0x003a"))
    }

    // Syed-Bipul-Rahman frame 7856: LE Enhanced Connection Complete after a cancelled create:
    //   Status: Unknown Connection Identifier (0x02), everything else zero.
    @Test func leEnhancedConnectionCompleteFailed() {
        let e = HCIEvent.decode(Fixtures.hex(
            "3e 1f 0a 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"))
        #expect(e.status == 0x02)
        #expect(e.statusCode?.name == "Unknown Connection Identifier")
        #expect(e.addresses.isEmpty)
    }

    // Syed-Bipul-Rahman frame 33930: Rcvd Disconnect Complete
    //   Status: Success, Connection Handle: 0x03a0, Reason: Connection Terminated by Local Host (0x16)
    @Test func disconnectionComplete() {
        let e = HCIEvent.decode(Fixtures.hex("05 04 00 a0 03 16"))
        #expect(e.code == .disconnectionComplete)
        #expect(e.status == 0)
        #expect(e.handle == 0x03A0)
        #expect(field(e.fields, "Reason") == "Connection Terminated By Local Host (0x16)")
        #expect(e.summary == "Disconnection Complete (0x05) Status: Success (0x00), Connection Handle: 0x03a0, Reason: Connection Terminated By Local Host (0x16)")
    }

    // Syed-Bipul-Rahman frame 34886: Rcvd LE Meta (LE Connection Update Complete)
    //   Status: Success, Handle 0x03b3, Connection Interval: 6 (7.5 msec), Latency 0, Timeout: 500 (5 sec)
    @Test func leConnectionUpdateComplete() {
        let e = HCIEvent.decode(Fixtures.hex("3e 0a 03 00 b3 03 06 00 00 00 f4 01"))
        #expect(e.subevent == .connectionUpdateComplete)
        #expect(e.handle == 0x03B3)
        #expect(e.status == 0)
        #expect(field(e.fields, "Connection Interval") == "7.50 ms (0x0006)")
        #expect(field(e.fields, "Supervision Timeout") == "5000 ms (0x01f4)")
    }

    // Syed-Bipul-Rahman frame 47769: Rcvd LE Meta (LE PHY Update Complete)
    //   Status: Success, Handle 0x03f3, TX PHY: LE 2M (0x02), RX PHY: LE 2M (0x02)
    @Test func lePHYUpdateComplete() {
        let e = HCIEvent.decode(Fixtures.hex("3e 06 0c 00 f3 03 02 02"))
        #expect(e.subevent == .phyUpdateComplete)
        #expect(e.handle == 0x03F3)
        #expect(field(e.fields, "TX PHY") == "LE 2M (0x02)")
        #expect(field(e.fields, "RX PHY") == "LE 2M (0x02)")
    }

    // Syed-Bipul-Rahman frame 47771: Rcvd LE Meta (LE Data Length Change)
    //   Handle 0x03f3, Max TX Octets 27, Max TX Time 328, Max RX Octets 251, Max RX Time 2120
    @Test func leDataLengthChange() {
        let e = HCIEvent.decode(Fixtures.hex("3e 0b 07 f3 03 1b 00 48 01 fb 00 48 08"))
        #expect(e.subevent == .dataLengthChange)
        #expect(e.handle == 0x03F3)
        #expect(e.status == nil)
        #expect(field(e.fields, "Max TX Octets") == "27")
        #expect(field(e.fields, "Max TX Time") == "328 µs (0x0148)")
        #expect(field(e.fields, "Max RX Octets") == "251")
        #expect(field(e.fields, "Max RX Time") == "2120 µs (0x0848)")
    }

    // jpvargasdev frame 242: Rcvd LE Meta (LE Channel Selection Algorithm), Handle 0x0002, #1 (0x00)
    @Test func leChannelSelectionAlgorithm() {
        let e = HCIEvent.decode(Fixtures.hex("3e 04 14 02 00 00"))
        #expect(e.handle == 0x0002)
        #expect(field(e.fields, "Channel Selection Algorithm") == "#1 (0x00)")
    }

    // cnrd__yeelock frame 445: Rcvd LE Meta (LE Read Remote Features Complete)
    //   Status: Success, Handle 0x003a, LE Features 0x01ff
    @Test func leReadRemoteFeaturesComplete() {
        let e = HCIEvent.decode(Fixtures.hex("3e 0c 04 00 3a 00 ff 01 00 00 00 00 00 00"))
        #expect(e.handle == 0x003A)
        #expect(field(e.fields, "LE Features")?.hasPrefix("0x00000000000001ff (LE Encryption,") == true)
    }

    // whoisbe__pongbot frame 1112: Rcvd Read Remote Version Information Complete
    //   Status: Success, Handle 0x0044, LMP Version 5.1 (0x0a), Manufacturer 0x09ac, Subversion 0x0114
    @Test func readRemoteVersionComplete() {
        let e = HCIEvent.decode(Fixtures.hex("0c 08 00 44 00 0a ac 09 14 01"))
        #expect(e.status == 0)
        #expect(e.handle == 0x0044)
        #expect(field(e.fields, "Version") == "Bluetooth 5.1 (0x0a)")
        #expect(field(e.fields, "Subversion") == "0x0114")
    }

    // MARK: Security

    // 2m__a2dp-captures frame 170: Rcvd Encryption Change — Status Success, Handle 0x0002,
    //   Encryption Enable: Enabled with E0 (0x01)
    // zabbits__btsnoop frame 302: same with Encryption Enable 0x02 (AES-CCM for BR/EDR)
    @Test func encryptionChangeV1() {
        let e = HCIEvent.decode(Fixtures.hex("08 04 00 02 00 01"))
        #expect(e.code == .encryptionChangeV1)
        #expect(e.status == 0)
        #expect(e.handle == 0x0002)
        #expect(field(e.fields, "Encryption Enabled") == "On (E0 for BR/EDR, AES-CCM for LE) (0x01)")
        let aes = HCIEvent.decode(Fixtures.hex("08 04 00 02 00 02"))
        #expect(field(aes.fields, "Encryption Enabled") == "On (AES-CCM for BR/EDR) (0x02)")
    }

    // whoisbe__pongbot frame 1115 and soaresden frame 335: tshark 4.0 shows "Rcvd Unknown 0x59";
    // it is Encryption Change [v2] (Core v5.3+, §7.7.8): Status, Handle, Encryption_Enabled,
    // Encryption_Key_Size.
    @Test func encryptionChangeV2() {
        let e = HCIEvent.decode(Fixtures.hex("59 05 00 44 00 01 10"))
        #expect(e.code == .encryptionChangeV2)
        #expect(e.status == 0)
        #expect(e.handle == 0x0044)
        #expect(field(e.fields, "Encryption Key Size") == "16")
        let br = HCIEvent.decode(Fixtures.hex("59 05 00 33 00 02 10"))
        #expect(br.handle == 0x0033)
        #expect(br.malformed.isEmpty)
    }

    // MARK: Flow control, errors, vendor

    // Syed-Bipul-Rahman frame 123: Rcvd Number of Completed Packets
    //   Number of Connection Handles: 1, Connection Handle: 0x03a0, Number of Completed Packets: 1
    @Test func numberOfCompletedPackets() {
        let e = HCIEvent.decode(Fixtures.hex("13 05 01 a0 03 01 00"))
        #expect(e.code == .numberOfCompletedPackets)
        #expect(e.handle == nil)  // a list of handles, not one connection
        #expect(e.malformed.isEmpty)
        let handles = e.fields.first { $0.name == "Handle" }
        #expect(handles?.value == "1")
        let first = handles?.children.first?.children ?? []
        #expect(field(first, "Connection Handle") == "0x03a0")
        #expect(field(first, "Num Completed Packets") == "1")
    }

    // Number Of Completed Packets naming two handles: the two corpus events
    // "13 05 01 a0 03 01 00" (Syed frame 123) and "13 05 01 42 00 02 00" (whoisbe frame 459) merged,
    // as controllers send them (handle/count pairs, §7.7.19).
    @Test func numberOfCompletedPacketsTwoHandles() {
        let e = HCIEvent.decode(Fixtures.hex("13 09 02 a0 03 01 00 42 00 02 00"))
        #expect(e.malformed.isEmpty)
        let items = e.fields.first { $0.name == "Handle" }?.children ?? []
        #expect(items.count == 2)
        #expect(field(items[1].children, "Connection Handle") == "0x0042")
        #expect(field(items[1].children, "Num Completed Packets") == "2")
    }

    // Hardware Error (§7.7.16) and Data Buffer Overflow (§7.7.26): no corpus capture has one; the
    // parameter layouts are from the spec (Hardware_Code 0x01; Link_Type ACL).
    @Test func hardwareErrorAndBufferOverflow() {
        let hw = HCIEvent.decode(Fixtures.hex("10 01 01"))
        #expect(hw.code == .hardwareError)
        #expect(hw.summary == "Hardware Error (0x10) Hardware Code: 0x01")
        let ov = HCIEvent.decode(Fixtures.hex("1a 01 01"))
        #expect(field(ov.fields, "Link Type") == "ACL (0x01)")
    }

    // Vendor event 0xFF (Broadcom/Realtek debug events look like this: vendor-defined bytes).
    @Test func vendorEvent() {
        let e = HCIEvent.decode(Fixtures.hex("ff 04 57 01 02 03"))
        #expect(e.code == .vendor)
        #expect(e.malformed.isEmpty)
        #expect(field(e.fields, "Vendor Parameters") == "57 01 02 03")
        #expect(e.summary == "Vendor (0xff)")
    }

    @Test("unknown event code shows raw parameters")
    func unknownEvent() {
        let e = HCIEvent.decode(Fixtures.hex("4a 02 01 02"))
        #expect(e.code.description == "Unknown (0x4a)")
        #expect(e.malformed.isEmpty)
        #expect(field(e.fields, "Parameters") == "01 02")
    }

    @Test("Command Complete with only a failing status, as controllers send for errors")
    func statusOnlyFailure() {
        // Read RSSI answered with "Unknown Connection Identifier" and nothing else.
        let e = HCIEvent.decode(Fixtures.hex("0e 04 01 05 14 02"))
        #expect(e.status == 0x02)
        #expect(e.malformed.isEmpty)
        #expect(field(e.fields, "Status") == "Unknown Connection Identifier (0x02)")
        // A success that is cut short is malformed.
        let short = HCIEvent.decode(Fixtures.hex("0e 04 01 05 14 00"))
        #expect(short.malformed.map(\.message) == ["Connection Handle: truncated: needed 2 bytes, 0 available"])
        #expect(short.malformed.first?.offset == 6)
    }
}
