import ScopeCore
import ScopeTestSupport
import Testing
@testable import ScopeDecode

@Suite("SMP")
struct SMPTests {
    static func smp(_ hex: String) -> SMPPDU { SMPPDU.decode(Fixtures.hex(hex), baseOffset: 8) }

    // Syed frame 48019 (tx), tshark: Pairing Request, IO Capability: Keyboard, Display (0x04),
    //   OOB Data Flags: Not Present (0x00), AuthReq: 0x2d (Bonding, MITM, SC; tshark 4.0 calls bit 5
    //   "Reserved": it is CT2 since Core v5.0), Max Encryption Key Size: 16,
    //   Initiator/Responder Key Distribution: 0x0f (LTK, IRK, CSRK, Link Key)
    @Test func pairingRequest() {
        let pdu = Self.smp("01 04 00 2d 10 0f 0f")
        #expect(pdu.malformed.isEmpty)
        #expect(pdu.code == .pairingRequest)
        let f = pdu.pairingFeatures
        #expect(f?.ioCapability == .keyboardDisplay)
        #expect(f?.oobDataFlag == 0)
        #expect(f?.authReq.bonding == true)
        #expect(f?.authReq.mitm == true)
        #expect(f?.authReq.secureConnections == true)
        #expect(f?.authReq.keypress == false)
        #expect(f?.authReq.ct2 == true)
        #expect(f?.authReq.reservedBits == 0)
        #expect(f?.maxEncryptionKeySize == 16)
        #expect(f?.initiatorKeyDistribution.description == "EncKey, IdKey, SignKey, LinkKey")
        #expect(
            pdu.summary
                == "Pairing Request: KeyboardDisplay, Bonding, MITM, SC, CT2, key size 16, initiator keys EncKey, IdKey, SignKey, LinkKey, responder keys EncKey, IdKey, SignKey, LinkKey"
        )
        let auth = pdu.fields.first { $0.name == "AuthReq" }
        #expect(auth?.value == "0x2d: Bonding, MITM, SC, CT2")
        #expect(auth?.children.map(\.value) == ["Bonding (1)", "True", "True", "False", "True"])
    }

    // Syed frame 48028 (rx): Pairing Response, KeyboardDisplay, AuthReq 0x2d, key size 16,
    //   Initiator/Responder Key Distribution 0x0b (LTK, IRK, Link Key)
    @Test func pairingResponse() {
        let pdu = Self.smp("02 04 00 2d 10 0b 0b")
        #expect(pdu.pairingFeatures?.responderKeyDistribution.description == "EncKey, IdKey, LinkKey")
        #expect(pdu.pairingFeatures?.responderKeyDistribution.signKey == false)
    }

    // Syed frame 48042 (tx): Pairing Public Key, X 8973224b…44d3, Y 762c0725…3f17
    @Test func publicKey() {
        let pdu = Self.smp(
            """
            0c 89 73 22 4b 33 1f 10 69 89 87 51 20 fb 8b a0 97 be 76 45 2b 26 50 6e e1 65 8c 6a 97 81 9a 44 d3
            76 2c 07 25 34 28 c1 6b a1 96 27 42 e7 00 90 51 21 92 3a eb c6 9c 36 fd 67 77 fc 2d 05 9c 3f 17
            """)
        #expect(pdu.malformed.isEmpty)
        guard case .publicKey(let x, let y) = pdu.parameters else {
            Issue.record("not a public key")
            return
        }
        #expect(Hex.string(x) == "8973224b331f106989875120fb8ba097be76452b26506ee1658c6a97819a44d3")
        #expect(Hex.string(y) == "762c07253428c16ba1962742e700905121923aebc69c36fd6777fc2d059c3f17")
    }

    // Syed frame 48052 (rx): Pairing Confirm, 21d8278d08035cef6ee2282877529930
    // Syed frame 48057 (tx): Pairing Random, fb69029b3a69e435c86b6a1a5ee868d8
    // pairing_secure_connections scenario frame 70 (tx): Pairing DHKey Check, 6481ca847299d77905a7ef57d1ed9414
    @Test func confirmRandomDHKeyCheck() {
        #expect(
            Self.smp("03 21 d8 27 8d 08 03 5c ef 6e e2 28 28 77 52 99 30").parameters
                == .confirm(Fixtures.hex("21d8278d08035cef6ee2282877529930")))
        #expect(
            Self.smp("04 fb 69 02 9b 3a 69 e4 35 c8 6b 6a 1a 5e e8 68 d8").fields.last?.value
                == "fb69029b3a69e435c86b6a1a5ee868d8")
        let check = Self.smp("0d 64 81 ca 84 72 99 d7 79 05 a7 ef 57 d1 ed 94 14")
        #expect(check.code.name == "Pairing DHKey Check")
        #expect(check.parameters == .dhKeyCheck(Fixtures.hex("6481ca847299d77905a7ef57d1ed9414")))
    }

    // Syed frame 48550 (tx): Pairing Failed, Reason: Unspecified Reason (0x08)
    // bbmp/AndroidPad frame 13108 (tx): Pairing Failed: Pairing Not Supported (0x05)
    @Test func pairingFailed() {
        #expect(Self.smp("05 08").failureReason == .unspecifiedReason)
        #expect(Self.smp("05 08").summary == "Pairing Failed: Unspecified Reason (0x08)")
        #expect(Self.smp("05 05").failureReason == .pairingNotSupported)
        #expect(Self.smp("05 10").summary == "Pairing Failed: Unknown (0x10)")
    }

    // bbmp/AndroidPad frame 484 (rx), tshark: Security Request, AuthReq: 0x01, Bonding
    @Test func securityRequest() {
        let pdu = Self.smp("0b 01")
        #expect(pdu.authReq == SMPAuthReq(rawValue: 0x01))
        #expect(pdu.summary == "Security Request: Bonding")
        #expect(Self.smp("0b c0").summary == "Security Request: No Bonding, reserved 0xc0")
    }

    // pairing_just_works scenario frames 70–73 (rx), tshark: Encryption Information, LTK
    //   78297f96be86a2dd5940ddcbb9372103; Master Identification (Central Identification since
    //   v5.3), EDIV 0x0000, Rand 0; Identity Information, IRK 0…0; Identity Address Information,
    //   Public, 00:1a:7d:0f:99:0c
    @Test func keyDistribution() {
        #expect(
            Self.smp("06 78 29 7f 96 be 86 a2 dd 59 40 dd cb b9 37 21 03").parameters
                == .encryptionInformation(ltk: Fixtures.hex("78297f96be86a2dd5940ddcbb9372103")))
        let central = Self.smp("07 00 00 00 00 00 00 00 00 00 00")
        #expect(central.parameters == .centralIdentification(ediv: 0, rand: 0))
        #expect(central.code.name == "Central Identification")
        #expect(
            Self.smp("08 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00").parameters
                == .identityInformation(irk: Array(repeating: 0, count: 16)))
        let address = Self.smp("09 00 0c 99 0f 7d 1a 00")
        #expect(
            address.parameters
                == .identityAddressInformation(addressType: 0, address: BDAddr("00:1a:7d:0f:99:0c") ?? BDAddr(value: 0))
        )
        #expect(address.summary == "Identity Address Information: 00:1a:7d:0f:99:0c (public)")
        // Not in the corpus: built from §3.6.4 and §3.6.6 layouts.
        #expect(
            Self.smp("07 34 12 01 02 03 04 05 06 07 08").parameters
                == .centralIdentification(ediv: 0x1234, rand: 0x0807_0605_0403_0201))
        #expect(
            Self.smp("0a 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff").fields.last?.value
                == "00112233445566778899aabbccddeeff")
    }

    // Built from §3.5.8 (no keypress notification in the corpus).
    @Test func keypressNotification() {
        #expect(Self.smp("0e 01").summary == "Pairing Keypress Notification: Passkey digit entered (0x01)")
        #expect(Self.smp("0e 05").summary == "Pairing Keypress Notification: Unknown (0x05)")
    }

    @Test func faults() {
        #expect(SMPPDU.decode([], baseOffset: 8).malformed.map(\.message) == ["empty SMP PDU"])
        #expect(Self.smp("05 08 00").malformed.map(\.message) == ["1 trailing byte after Pairing Failed"])
        #expect(Self.smp("05 08 00").failureReason == .unspecifiedReason)
        #expect(
            Self.smp("01 04 02 2d 05 0f 0f").malformed.map(\.message) == [
                "OOB data flag 0x02 is reserved", "maximum encryption key size 5 is outside 7–16",
            ])
        let unknown = Self.smp("0f 01 02")
        #expect(unknown.code.description == "Unknown (0x0f)")
        #expect(unknown.parameters == .raw([1, 2]))
        #expect(unknown.malformed.isEmpty)
    }

    /// Every SMP command has a fixed size: every strict prefix is malformed, never trapped on.
    @Test(arguments: [
        "01 04 00 2d 10 0f 0f", "02 04 00 2d 10 0b 0b", "03 21 d8 27 8d 08 03 5c ef 6e e2 28 28 77 52 99 30",
        "05 08", "06 78 29 7f 96 be 86 a2 dd 59 40 dd cb b9 37 21 03", "07 00 00 00 00 00 00 00 00 00 00",
        "09 00 0c 99 0f 7d 1a 00", "0b 01", "0d 64 81 ca 84 72 99 d7 79 05 a7 ef 57 d1 ed 94 14", "0e 01",
    ])
    func everyPrefixIsMalformed(hex: String) {
        let bytes = Fixtures.hex(hex)
        for n in 0..<bytes.count {
            let pdu = SMPPDU.decode(Array(bytes.prefix(n)), baseOffset: 8)
            #expect(pdu.malformed.count == 1, "prefix \(n)")
            #expect((pdu.malformed.first?.offset ?? -1) == 8 + n)
            _ = pdu.summary
            _ = pdu.fields
        }
    }

    @Test func tablesAreComplete() {
        // Core v5.4, Vol 3, Part H, Table 3.3: 0x01–0x0E.
        let names = SMPCode.allKnown.compactMap(\.name)
        #expect(names.count == 14)
        #expect(Set(names).count == 14)
        for c in SMPCode.allKnown { #expect(c.pduSize != nil) }
        #expect(SMPCode(0).name == nil)
        // Table 3.7: reasons 0x01–0x0F.
        let reasons = SMPPairingFailedReason.allKnown.compactMap(\.name)
        #expect(reasons.count == 15)
        #expect(Set(reasons).count == 15)
        #expect(SMPPairingFailedReason.keyRejected.name == "Key Rejected")
        // Table 3.4: IO capabilities 0x00–0x04.
        #expect(
            (0...4).compactMap { SMPIOCapability(rawValue: UInt8($0)).name } == [
                "DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay",
            ])
        #expect(SMPIOCapability(rawValue: 5).description == "Unknown (0x05)")
        #expect(SMPKeyDistribution(rawValue: 0xF1).description == "EncKey, reserved 0xf0")
        #expect(SMPAuthReq(rawValue: 0x03).bondingName == "Reserved (3)")
    }
}
