import ScopeCore
import ScopeTestSupport
import Testing
@testable import ScopeDecode

@Suite("L2CAP signaling")
struct L2CAPSignalingTests {
    static func le(_ hex: String) -> SignalingPDU {
        SignalingPDU.decode(Fixtures.hex(hex), channel: .leSignaling, baseOffset: 8)
    }

    static func bredr(_ hex: String) -> SignalingPDU {
        SignalingPDU.decode(Fixtures.hex(hex), channel: .signaling, baseOffset: 8)
    }

    // danisla btsnoop frame 295 (rx), tshark: Connection Parameter Update Request, Identifier 0x01,
    // Min. Interval: 8 (10 msec), Max. Interval: 32 (40 msec), Slave Latency: 0,
    // Timeout Multiplier: 10 (0.1 sec)
    @Test func connectionParameterUpdateRequest() {
        let pdu = Self.le("12 01 08 00 08 00 20 00 00 00 0a 00")
        #expect(pdu.malformed.isEmpty)
        #expect(pdu.isLE)
        #expect(pdu.commands.count == 1)
        let c = pdu.commands[0]
        #expect(c.code == .connectionParameterUpdateRequest)
        #expect(c.identifier == 1)
        #expect(c.length == 8)
        #expect(c.offset == 8)
        #expect(
            c.parameters == .connectionParameterUpdateRequest(intervalMin: 8, intervalMax: 32, latency: 0, timeout: 10))
        #expect(
            pdu.summary
                == "Connection Parameter Update Request (id 1): interval 10.00 ms–40.00 ms, latency 0, timeout 100 ms")
        #expect(
            c.field.children.map(\.name) == [
                "Code", "Identifier", "Length", "Interval Min", "Interval Max", "Latency", "Timeout Multiplier",
            ])
        #expect(c.field.children[3].value == "8 (10.00 ms)")
    }

    // danisla frame 296 (tx), tshark: Connection Parameter Update Response (Accepted), Identifier 0x01
    @Test func connectionParameterUpdateResponse() {
        let pdu = Self.le("13 01 02 00 00 00")
        #expect(pdu.malformed.isEmpty)
        #expect(pdu.commands.first?.parameters == .connectionParameterUpdateResponse(result: 0))
        #expect(pdu.summary == "Connection Parameter Update Response (id 1): Connection Parameters accepted (0x0000)")
    }

    // 2m a2dp-captures frame 113 (tx): Information Request (Extended Features Mask), id 0x02
    // frame 123 (rx): Information Response (Extended Features Mask, Success):
    //   Features: EnhRetransmission Streaming FCS FixedChan (0x000000b8)
    @Test func informationRequestAndResponse() {
        let req = Self.bredr("0a 02 02 00 02 00")
        #expect(req.commands.first?.parameters == .informationRequest(infoType: 2))
        #expect(req.summary == "Information Request (id 2): Extended features supported (0x0002)")
        let rsp = Self.bredr("0b 02 08 00 02 00 00 00 b8 00 00 00")
        #expect(rsp.malformed.isEmpty)
        #expect(rsp.commands.first?.parameters == .informationResponse(infoType: 2, result: 0, data: [0xB8, 0, 0, 0]))
        let features = rsp.fields[0].children.first { $0.name == "Extended Features" }
        #expect(features?.value == "0x000000b8")
        #expect(
            features?.children.map(\.name) == [
                "Enhanced Retransmission Mode", "Streaming Mode", "FCS Option", "Fixed Channels",
            ])
    }

    // 2m a2dp-captures frames 128+130 reassembled: Information Response (Fixed Channels
    // Supported, Success), mask 0x36: L2CAP signaling, connectionless, (0x0004, 0x0005).
    @Test func fixedChannelsResponse() {
        let rsp = Self.bredr("0b 03 0c 00 03 00 00 00 36 00 00 00 00 00 00 00")
        #expect(rsp.malformed.isEmpty)
        let fixed = rsp.fields[0].children.first { $0.name == "Fixed Channels" }
        #expect(fixed?.value == "0000000000000036")
        #expect(
            fixed?.children.map(\.value) == [
                "L2CAP Signaling Channel (0x0001)", "Connectionless Channel (0x0002)", "Attribute Protocol (0x0004)",
                "LE L2CAP Signaling Channel (0x0005)",
            ])
    }

    // 2m frame 132 (tx): Connection Request (SDP, SCID: 0x0040), id 0x04
    // 2m frame 135 (rx): Connection Response - Pending (SCID: 0x0040), DCID 0x03c0,
    //   Result: Pending (0x0001), Status: Authorization pending (0x0002)
    // 2m frame 137 (rx): Connection Response - Success (SCID: 0x0040, DCID: 0x03c0)
    // soaresden frame 336 (tx): Connection Request (ATT, SCID: 0x0040)
    @Test func connectionRequestAndResponses() {
        #expect(
            Self.bredr("02 04 04 00 01 00 40 00").commands.first?.parameters
                == .connectionRequest(psm: 0x0001, sourceCID: 0x0040))
        #expect(
            Self.bredr("02 04 04 00 01 00 40 00").summary == "Connection Request (id 4): PSM SDP (0x0001), SCID 0x0040")
        #expect(
            Self.bredr("02 04 04 00 1f 00 40 00").summary == "Connection Request (id 4): PSM ATT (0x001f), SCID 0x0040")
        let pending = Self.bredr("03 04 08 00 c0 03 40 00 01 00 02 00")
        #expect(
            pending.commands.first?.parameters
                == .connectionResponse(destinationCID: 0x03C0, sourceCID: 0x0040, result: 1, status: 2))
        #expect(pending.fields[0].children.last?.value == "Authorization pending (0x0002)")
        let ok = Self.bredr("03 04 08 00 c0 03 40 00 00 00 00 00")
        #expect(ok.summary == "Connection Response (id 4): DCID 0x03c0, SCID 0x0040, Connection successful (0x0000)")
    }

    // 2m frame 138 (rx): Configure Request (DCID: 0x0040), Option: MTU 48
    // 2m frames 144+146 reassembled (rx): Configure Response - Success (SCID: 0x0040), MTU 256
    @Test func configuration() {
        let req = Self.bredr("04 01 08 00 40 00 00 00 01 02 30 00")
        #expect(req.malformed.isEmpty)
        guard case .configurationRequest(let dcid, let flags, let options)? = req.commands.first?.parameters else {
            Issue.record("not a configuration request")
            return
        }
        #expect(dcid == 0x0040 && flags == 0)
        #expect(options == [L2CAPConfigurationOption(rawType: 0x01, data: [0x30, 0x00], offset: 16)])
        #expect(options.first?.name == "MTU")
        #expect(req.summary == "Configuration Request (id 1): DCID 0x0040, options: MTU 48")
        let rsp = Self.bredr("05 05 0a 00 40 00 00 00 00 00 01 02 00 01")
        #expect(rsp.summary == "Configuration Response (id 5): SCID 0x0040, Success (0x0000), options: MTU 256")
        let mtu = rsp.fields[0].children.last
        #expect(mtu?.value == "MTU (0x01)")
        #expect(mtu?.children.last?.value == "256")
    }

    // 2m frame 159 (tx): Disconnection Request (SCID: 0x0040, DCID: 0x03c0), id 0x06
    // 2m frame 161 (rx): Disconnection Response (SCID: 0x0040, DCID: 0x03c0)
    @Test func disconnection() {
        #expect(
            Self.bredr("06 06 04 00 c0 03 40 00").commands.first?.parameters
                == .disconnectionRequest(destinationCID: 0x03C0, sourceCID: 0x0040))
        #expect(
            Self.bredr("07 06 04 00 c0 03 40 00").commands.first?.parameters
                == .disconnectionResponse(destinationCID: 0x03C0, sourceCID: 0x0040))
    }

    /// BR/EDR C-frames may carry several commands. Two real commands (2m frames 132 and 137)
    /// concatenated in one PDU.
    @Test func severalCommandsPerBREDRPDU() {
        let pdu = Self.bredr("02 04 04 00 01 00 40 00 03 04 08 00 c0 03 40 00 00 00 00 00")
        #expect(pdu.malformed.isEmpty)
        #expect(pdu.commands.map(\.code) == [.connectionRequest, .connectionResponse])
        #expect(pdu.commands.map(\.offset) == [8, 16])
        #expect(pdu.summary.contains("; Connection Response (id 4)"))
        // The same bytes on the LE channel: one command per PDU, the rest is reported, and
        // Connection Request is not an LE command.
        let le = Self.le("02 04 04 00 01 00 40 00 03 04 08 00 c0 03 40 00 00 00 00 00")
        #expect(le.commands.count == 1)
        #expect(
            le.malformed.map(\.message) == [
                "Connection Request (0x02) is not used on the LE signaling channel",
                "12 trailing bytes after the command (LE signaling carries one command per PDU)",
            ])
        #expect(le.malformed.last?.offset == 16)
    }

    // The following commands occur in no capture of the corpus; the bytes are built from the
    // Core v5.4 field layouts (Vol 3, Part A, §4.x) with realistic values.
    @Test func creditBasedCommands() {
        // §4.22 LE Credit Based Connection Request: SPSM 0x0080, SCID 0x0040, MTU 512, MPS 247, credits 10.
        let req = Self.le("14 02 0a 00 80 00 40 00 00 02 f7 00 0a 00")
        #expect(req.malformed.isEmpty)
        #expect(
            req.commands.first?.parameters
                == .leCreditBasedConnectionRequest(spsm: 0x80, sourceCID: 0x40, mtu: 512, mps: 247, initialCredits: 10))
        // §4.23 Response: DCID 0x0041, MTU 256, MPS 251, credits 8, result 0x0005.
        let rsp = Self.le("15 02 0a 00 41 00 00 01 fb 00 08 00 05 00")
        #expect(
            rsp.summary
                == "LE Credit Based Connection Response (id 2): DCID 0x0041, MTU 256, MPS 251, credits 8, Connection refused - insufficient authentication (0x0005)"
        )
        // §4.24 Flow Control Credit Indication: CID 0x0040, 5 credits.
        #expect(
            Self.le("16 03 04 00 40 00 05 00").commands.first?.parameters
                == .flowControlCreditIndication(cid: 0x40, credits: 5))
        // §4.25 Credit Based Connection Request (EATT): SPSM 0x0027, MTU 64, MPS 64, credits 3, SCIDs 0x0040 0x0041.
        let ecfc = Self.le("17 04 0c 00 27 00 40 00 40 00 03 00 40 00 41 00")
        #expect(ecfc.malformed.isEmpty)
        #expect(
            ecfc.commands.first?.parameters
                == .creditBasedConnectionRequest(
                    spsm: 0x27, mtu: 64, mps: 64, initialCredits: 3, sourceCIDs: [0x40, 0x41]))
        #expect(ecfc.summary.hasPrefix("Credit Based Connection Request (id 4): SPSM EATT (0x0027)"))
        // §4.26 Response: MTU 64, MPS 64, credits 3, result 0x0004, DCIDs 0x0050 0x0000.
        let ecfcRsp = Self.le("18 04 0c 00 40 00 40 00 03 00 04 00 50 00 00 00")
        #expect(
            ecfcRsp.commands.first?.parameters
                == .creditBasedConnectionResponse(
                    mtu: 64, mps: 64, initialCredits: 3, result: 4, destinationCIDs: [0x50, 0]))
        // §4.27/4.28 Reconfigure.
        #expect(
            Self.le("19 05 06 00 00 01 40 00 50 00").commands.first?.parameters
                == .creditBasedReconfigureRequest(mtu: 256, mps: 64, destinationCIDs: [0x50]))
        #expect(
            Self.le("1a 05 02 00 01 00").summary
                == "Credit Based Reconfigure Response (id 5): Reconfiguration failed - reduction in size of MTU not allowed (0x0001)"
        )
        // Too many CIDs (6).
        let six = Self.le("19 06 10 00 00 01 40 00 50 00 51 00 52 00 53 00 54 00 55 00")
        #expect(six.malformed.map(\.message) == ["Credit Based Reconfigure Request lists 6 CIDs (1 to 5 allowed)"])
    }

    // Built from the layouts of §4.1, §4.8/4.9 (not in the corpus).
    @Test func commandRejectAndEcho() {
        let reject = Self.le("01 07 02 00 00 00")
        #expect(reject.summary == "Command Reject (id 7): Command not understood (0x0000)")
        let mtu = Self.bredr("01 08 04 00 01 00 30 00")
        #expect(mtu.fields[0].children.last?.name == "Actual Signaling MTU")
        #expect(mtu.fields[0].children.last?.value == "48")
        let cid = Self.bredr("01 09 06 00 02 00 40 00 41 00")
        #expect(cid.fields[0].children.suffix(2).map(\.value) == ["0x0040", "0x0041"])
        #expect(Self.bredr("08 0a 03 00 61 62 63").commands.first?.parameters == .echo(data: [0x61, 0x62, 0x63]))
        #expect(Self.bredr("09 0a 00 00").commands.first?.parameters == .echo(data: []))
    }

    // AMP commands (withdrawn in Core v5.3), layouts of §4.14–§4.19.
    @Test func ampCommands() {
        #expect(
            Self.bredr("0c 01 05 00 01 00 40 00 01").commands.first?.parameters
                == .createChannelRequest(psm: 1, sourceCID: 0x40, controllerID: 1))
        #expect(
            Self.bredr("0e 02 03 00 40 00 00").commands.first?.parameters
                == .moveChannelRequest(initiatorCID: 0x40, destinationControllerID: 0))
        #expect(
            Self.bredr("11 03 02 00 40 00").commands.first?.parameters
                == .moveChannelConfirmationResponse(initiatorCID: 0x40))
        #expect(
            Self.le("0c 01 05 00 01 00 40 00 01").malformed.first?.message
                == "Create Channel Request (0x0c) is not used on the LE signaling channel")
    }

    @Test func faults() {
        #expect(Self.le("").malformed.map(\.message) == ["empty signaling PDU"])
        #expect(
            Self.le("12 00 08 00 08 00 20 00 00 00 0a 00").malformed.map(\.message) == ["identifier 0x00 is illegal"])
        #expect(
            Self.le("13 01 03 00 00 00 ff").malformed.map(\.message) == [
                "1 trailing byte in Connection Parameter Update Response"
            ])
        #expect(
            Self.le("13 01 01 00 00").malformed.map(\.message) == [
                "Connection Parameter Update Response too short: 1 byte of data"
            ])
        let unknown = Self.le("7f 01 02 00 aa bb")
        #expect(unknown.commands.first?.parameters == .raw([0xAA, 0xBB]))
        #expect(unknown.summary == "Unknown (0x7f) (id 1): aa bb")
        #expect(unknown.malformed.isEmpty)
    }

    /// Every strict prefix of a real command is reported, never trapped on.
    @Test(arguments: [
        "12 01 08 00 08 00 20 00 00 00 0a 00",
        "0b 02 08 00 02 00 00 00 b8 00 00 00",
        "03 04 08 00 c0 03 40 00 01 00 02 00",
        "05 05 0a 00 40 00 00 00 00 00 01 02 00 01",
        "06 06 04 00 c0 03 40 00",
    ])
    func everyPrefixIsReported(hex: String) {
        let bytes = Fixtures.hex(hex)
        for n in 0..<bytes.count {
            let pdu = SignalingPDU.decode(Array(bytes.prefix(n)), channel: .signaling, baseOffset: 8)
            #expect(!pdu.malformed.isEmpty, "prefix \(n)")
            for m in pdu.malformed { #expect(m.offset >= 8 && m.offset <= 8 + n) }
            _ = pdu.summary
            _ = pdu.fields
        }
    }

    @Test func codeTableIsComplete() {
        // Core v5.4, Vol 3, Part A, Table 4.2: codes 0x01–0x1A.
        #expect(SignalingCode.allKnown.count == 0x1A)
        let names = SignalingCode.allKnown.compactMap(\.name)
        #expect(names.count == 0x1A)
        #expect(Set(names).count == names.count)
        for code in SignalingCode.allKnown {
            #expect(code.description == "\(code.name ?? "") (\(Hex.prefixed(code.rawValue, digits: 2)))")
        }
        #expect(SignalingCode(0x00).name == nil)
        #expect(SignalingCode(0x1B).description == "Unknown (0x1b)")
        #expect(
            SignalingCode.connectionParameterUpdateRequest.isAllowedOnLE
                && !SignalingCode.connectionParameterUpdateRequest.isAllowedOnBREDR)
        #expect(
            SignalingCode.creditBasedConnectionRequest.isAllowedOnLE
                && SignalingCode.creditBasedConnectionRequest.isAllowedOnBREDR)
        for table in [
            SignalingValueNames.leCreditResult, SignalingValueNames.creditBasedResult,
            SignalingValueNames.connectionResult,
        ] {
            #expect(Set(table.values).count == table.count)
        }
    }
}
