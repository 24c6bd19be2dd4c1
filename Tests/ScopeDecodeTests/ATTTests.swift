import ScopeCore
import ScopeTestSupport
import Testing
@testable import ScopeDecode

@Suite("ATT")
struct ATTTests {
    static func att(_ hex: String) -> ATTPDU { ATTPDU.decode(Fixtures.hex(hex), baseOffset: 8) }

    // cnrd/yeelock frame 459 (rx), tshark: Error Response - Attribute Not Found, Handle: 0x0013,
    //   Request Opcode in Error: Read By Group Type Request (0x10)
    // Syed frame 48015 (rx): Error Response - Insufficient Authentication, Handle 0x0013, Write Request
    @Test func errorResponse() {
        let pdu = Self.att("01 10 13 00 0a")
        #expect(pdu.malformed.isEmpty)
        #expect(pdu.opcode == .errorResponse)
        #expect(pdu.opcode.kind == .response)
        #expect(pdu.handle == 0x0013)
        #expect(pdu.errorCode == 0x0A)
        #expect(pdu.error == .attributeNotFound)
        #expect(pdu.requestOpcodeInError == .readByGroupTypeRequest)
        #expect(pdu.handles == [0x0013])
        #expect(
            pdu.summary
                == "Error Response - Attribute Not Found (0x0a), Handle: 0x0013, Request: Read By Group Type Request")
        let auth = Self.att("01 12 13 00 05")
        #expect(auth.error == .insufficientAuthentication)
        #expect(auth.error?.isSecurityError == true)
        #expect(auth.requestOpcodeInError == .writeRequest)
    }

    // Syed frame 34845 (rx): Exchange MTU Request, Client Rx MTU: 517; frame 34852 (tx): Server Rx MTU: 517
    @Test func exchangeMTU() {
        let req = Self.att("02 05 02")
        #expect(req.mtu == 517)
        #expect(req.handle == nil)
        #expect(req.summary == "Exchange MTU Request, Client Rx MTU: 517")
        #expect(Self.att("03 05 02").summary == "Exchange MTU Response, Server Rx MTU: 517")
        #expect(Self.att("03 14 00").malformed.map(\.message) == ["Rx MTU 20 is below the minimum ATT_MTU of 23"])
    }

    // yeelock frame 479 (tx): Find Information Request, Handles: 0x0009..0x0009
    // yeelock frame 496 (rx): Find Information Response, 16-bit UUIDs:
    //   0x000d Client Characteristic Configuration (0x2902), 0x000e Characteristic User Description (0x2901)
    @Test func findInformation() {
        let req = Self.att("04 09 00 09 00")
        #expect(req.range == ATTHandleRange(start: 9, end: 9))
        #expect(req.handle == nil)
        #expect(req.summary == "Find Information Request, Handles: 0x0009..0x0009")
        let rsp = Self.att("05 01 0d 00 02 29 0e 00 01 29")
        #expect(rsp.malformed.isEmpty)
        #expect(
            rsp.parameters
                == .findInformationResponse(
                    format: 1,
                    entries: [
                        ATTHandleUUID(handle: 0x0D, uuid: ATTUUID(0x2902)),
                        ATTHandleUUID(handle: 0x0E, uuid: ATTUUID(0x2901)),
                    ]))
        #expect(rsp.handles == [0x000D, 0x000E])
        #expect(rsp.summary.contains("0x000d: Client Characteristic Configuration (0x2902)"))
        // 128-bit format with the 16-byte UUID of yeelock's service (frame 456), built from §3.4.3.2.
        let wide = Self.att("05 02 0a 00 39 3a 04 2f 66 74 64 94 a3 4f c0 6f ca 3d af 58")
        #expect(wide.malformed.isEmpty)
        if case .findInformationResponse(2, let e) = wide.parameters {
            #expect(e.first?.uuid.string == "58af3dca-6fc0-4fa3-9464-74662f043a39")
        } else {
            Issue.record("not decoded: \(wide.parameters)")
        }
        #expect(
            Self.att("05 03 0d 00 02 29").malformed.map(\.message) == [
                "Find Information Response format 0x03 is reserved"
            ])
        #expect(
            Self.att("05 01 0d 00 02").malformed.map(\.message) == [
                "3 trailing bytes do not form a complete 4-byte entry", "Find Information Response without entries",
            ])
    }

    // whoisbe frame 1101 (rx): Find By Type Value Request, Primary Service, Handles: 0x0001..0xffff, Value: 0x1800
    // whoisbe frame 1105 (tx): Find By Type Value Response: Found Attribute Handle 0x0014, Group End Handle 0x001a
    // connect_cancel_retry scenario frame 32 (tx): the same request with a 128-bit service UUID
    @Test func findByTypeValue() {
        let req = Self.att("06 01 00 ff ff 00 28 00 18")
        #expect(
            req.parameters
                == .findByTypeValueRequest(
                    range: ATTHandleRange(start: 1, end: 0xFFFF), type: 0x2800, value: [0x00, 0x18]))
        #expect(req.attributeType == ATTUUID(0x2800))
        #expect(req.value == [0x00, 0x18])
        #expect(
            req.summary
                == "Find By Type Value Request, Primary Service (0x2800), Handles: 0x0001..0xffff, Value: \(ATTUUID(0x1800))"
        )
        let rsp = Self.att("07 14 00 1a 00")
        #expect(rsp.parameters == .findByTypeValueResponse(handles: [ATTHandleRange(start: 0x14, end: 0x1A)]))
        #expect(rsp.handles == [0x0014])
        let wide = Self.att("06 01 00 ff ff 00 28 5b 4a 3f 2e 1d 0c 55 9e 1b 4d 2e 6a 00 00 3c 7f")
        #expect(wide.malformed.isEmpty)
        #expect(ATTUUID(littleEndian: wide.value)?.string == "7f3c0000-6a2e-4d1b-9e55-0c1d2e3f4a5b")
    }

    // yeelock frame 460 (tx): Read By Type Request, Include (0x2802), Handles: 0x0001..0x0005
    // yeelock frame 466 (rx): Read By Type Response, Length 7: 0x0002 → props 0x02 value 0x0003
    //   Device Name (0x2a00); 0x0004 → props 0x02 value 0x0005 Appearance (0x2a01)
    // yeelock frame 487 (rx): Read By Type Response, Length 21: 0x000b → props 0x20 (Indicate),
    //   value 0x000c, UUID 58af3dca-6fc0-4fa3-9464-74662f043a3a
    @Test func readByType() {
        let req = Self.att("08 01 00 05 00 02 28")
        #expect(req.parameters == .typedRange(range: ATTHandleRange(start: 1, end: 5), type: ATTUUID(0x2802)))
        #expect(req.summary == "Read By Type Request, Handles: 0x0001..0x0005, Type: Include (0x2802)")
        let rsp = Self.att("09 07 02 00 02 03 00 00 2a 04 00 02 05 00 01 2a")
        #expect(rsp.malformed.isEmpty)
        #expect(
            rsp.parameters
                == .attributeDataList(
                    length: 7,
                    entries: [
                        ATTAttributeData(handle: 2, value: [0x02, 0x03, 0x00, 0x00, 0x2A]),
                        ATTAttributeData(handle: 4, value: [0x02, 0x05, 0x00, 0x01, 0x2A]),
                    ]))
        #expect(rsp.handles == [2, 4])
        let wide = Self.att("09 15 0b 00 20 0c 00 3a 3a 04 2f 66 74 64 94 a3 4f c0 6f ca 3d af 58")
        #expect(wide.malformed.isEmpty)
        #expect(wide.handles == [0x000B])
        #expect(
            Self.att("09 01 02 00").malformed.first?.message
                == "attribute data length 1 is shorter than the 2-byte handle part")
        #expect(
            Self.att("08 01 00 05 00 02 28 00").malformed.first?.message
                == "attribute type must be a 2- or 16-byte UUID, got 3 bytes")
    }

    // whoisbe frame 1133 (tx): Read Request, Handle: 0x0052; frame 1137 (rx): Read Response, 16 bytes
    @Test func readRequestAndResponse() {
        let req = Self.att("0a 52 00")
        #expect(req.handle == 0x0052)
        #expect(req.opcode.expectedResponse == .readResponse)
        let rsp = Self.att("0b ac 2f 26 45 81 82 4b e5 91 e0 29 92 e6 b4 0e bb")
        #expect(rsp.handle == nil)  // tshark shows a generated handle from the request: GATTTracker
        #expect(rsp.value.count == 16)
        #expect(rsp.summary == "Read Response, 16 bytes")
        #expect(rsp.opcode.answeredRequest == .readRequest)
        #expect(Self.att("0b").value.isEmpty)
        #expect(Self.att("0b").malformed.isEmpty)
    }

    // Syed frame 47912 (tx): Read Multiple Request, Handles: 0x0012 0x0017; 47916 (rx): Read Multiple Response 01 00 01 00
    @Test func readMultiple() {
        let req = Self.att("0e 12 00 17 00")
        #expect(req.parameters == .handles([0x12, 0x17]))
        #expect(req.handles == [0x12, 0x17])
        #expect(req.summary == "Read Multiple Request, Handles: 0x0012 0x0017")
        #expect(Self.att("0f 01 00 01 00").parameters == .value([1, 0, 1, 0]))
        #expect(
            Self.att("0e 12 00").malformed.map(\.message) == ["Read Multiple Request needs at least 2 handles, got 1"])
    }

    // yeelock frame 451 (tx): Read By Group Type Request, Primary Service, Handles: 0x0001..0xffff
    // yeelock frame 453 (rx): Read By Group Type Response, Length 6: 0x0001..0x0005 Generic Access (0x1800),
    //   0x0006..0x0009 Generic Attribute (0x1801)
    // yeelock frame 456 (rx): Length 20: 0x000a..0x0012, UUID 58af3dca-6fc0-4fa3-9464-74662f043a39
    @Test func readByGroupType() {
        let req = Self.att("10 01 00 ff ff 00 28")
        #expect(req.attributeType == ATTUUID(0x2800))
        #expect(req.range == ATTHandleRange(start: 1, end: 0xFFFF))
        let rsp = Self.att("11 06 01 00 05 00 00 18 06 00 09 00 01 18")
        #expect(
            rsp.parameters
                == .attributeDataList(
                    length: 6,
                    entries: [
                        ATTAttributeData(handle: 1, endGroupHandle: 5, value: [0x00, 0x18]),
                        ATTAttributeData(handle: 6, endGroupHandle: 9, value: [0x01, 0x18]),
                    ]))
        #expect(rsp.handles == [1, 6])
        let wide = Self.att("11 14 0a 00 12 00 39 3a 04 2f 66 74 64 94 a3 4f c0 6f ca 3d af 58")
        #expect(wide.malformed.isEmpty)
        if case .attributeDataList(20, let e) = wide.parameters {
            #expect(e.first?.endGroupHandle == 0x12)
            #expect(ATTUUID(littleEndian: e.first?.value ?? [])?.string == "58af3dca-6fc0-4fa3-9464-74662f043a39")
        } else {
            Issue.record("not decoded")
        }
    }

    // yeelock frame 502 (tx): Write Request, Handle: 0x0010, 20 bytes; frame 504 (rx): Write Response
    @Test func writeRequestAndResponse() {
        let req = Self.att("12 10 00 01 50 5c 84 ff 2f 00 99 cf 13 d7 4d 5b 24 6c 38 eb 6c f7 02")
        #expect(req.handle == 0x0010)
        #expect(req.value.count == 20)
        #expect(req.summary == "Write Request, Handle: 0x0010, 20 bytes")
        let rsp = Self.att("13")
        #expect(rsp.parameters == .none)
        #expect(rsp.malformed.isEmpty)
        #expect(Self.att("13 00").malformed.map(\.message) == ["1 trailing byte after Write Response"])
    }

    // whoisbe frame 357 (tx): Prepare Write Request, Handle: 0x0008, Offset: 110, 40-byte part value;
    // frame 362 (rx): Prepare Write Response (same); 363 (tx): Execute Write Request, Immediately
    // Write All; 365 (rx): Execute Write Response
    @Test func preparedWrites() {
        let part =
            "72 0b aa e9 ec 8c 2c e3 a4 6a 18 66 25 ea 4e 01 00 2a 10 f8 42 21 1b f5 b0 97 34 74 f3 1d 38 c5 1f 6e 60"
        let req = Self.att("16 08 00 6e 00 " + part)
        #expect(req.parameters == .prepareWrite(handle: 8, offset: 110, value: Fixtures.hex(part)[...]))
        #expect(req.handle == 8)
        #expect(req.summary == "Prepare Write Request, Handle: 0x0008, Offset: 110, 35 bytes")
        #expect(Self.att("17 08 00 6e 00 " + part).handle == 8)
        #expect(Self.att("18 01").parameters == .executeWrite(flags: 1))
        #expect(
            Self.att("18 01").summary == "Execute Write Request, Immediately write all pending prepared values (0x01)")
        #expect(Self.att("19").malformed.isEmpty)
        #expect(Self.att("18 02").malformed.map(\.message) == ["Execute Write flags 0x02 is reserved"])
    }

    // danisla frame 282 (rx): Handle Value Notification, Handle: 0x001b, 17 bytes
    // yeelock frame 505 (rx): Handle Value Indication, Handle: 0x000c; frame 506 (tx): Confirmation
    // Syed frame 122 (tx): Write Command, Handle: 0x0020
    @Test func notificationIndicationCommand() {
        let ntf = Self.att("1b 1b 00 ed fe 16 ff ff fb ff 00 00 00 00 00 00 00 ff 07")
        #expect(ntf.opcode.kind == .notification)
        #expect(ntf.handle == 0x001B)
        #expect(ntf.value == Fixtures.hex("ed fe 16 ff ff fb ff 00 00 00 00 00 00 00 ff 07")[...])
        let ind = Self.att("1d 0c 00 02 40 5c 84 ff 1f 0e cc c0 c6 80 d7 d7 81 20 ae 90 d9 80 07")
        #expect(ind.opcode.kind == .indication)
        #expect(ind.opcode.expectedResponse == .handleValueConfirmation)
        #expect(ind.handle == 0x000C)
        #expect(Self.att("1e").opcode.kind == .confirmation)
        let cmd = Self.att("52 20 00 3a 26 a2 02 62 fa 26 02 0d 0a")
        #expect(cmd.opcode.isCommand)
        #expect(cmd.opcode.method == 0x12)
        #expect(cmd.opcode.kind == .command)
        #expect(cmd.handle == 0x0020)
        #expect(cmd.value.count == 10)
    }

    // Not in the corpus; built from the Core v5.4 layouts (§3.4.4.5/6, §3.4.4.11/12, §3.4.7.4, §3.4.5.4).
    @Test func opcodesWithoutCorpusSamples() {
        #expect(Self.att("0c 52 00 16 00").parameters == .handleOffset(handle: 0x52, offset: 22))
        #expect(Self.att("0c 52 00 16 00").handle == 0x52)
        #expect(Self.att("0d 01 02 03").value == [1, 2, 3])
        #expect(Self.att("20 12 00 17 00").parameters == .handles([0x12, 0x17]))
        #expect(
            Self.att("21 01 00 01 02 00 02 03").parameters
                == .lengthValueList(values: [[1], [2, 3]], lastTruncated: false))
        #expect(
            Self.att("21 01 00 01 05 00 02 03").parameters
                == .lengthValueList(values: [[1], [2, 3]], lastTruncated: true))
        let multi = Self.att("23 10 00 02 00 00 44 12 00 01 00 05")
        #expect(
            multi.parameters
                == .handleValueList([
                    ATTHandleValue(handle: 0x10, value: [0, 0x44]), ATTHandleValue(handle: 0x12, value: [5]),
                ]))
        #expect(multi.handles == [0x10, 0x12])
        #expect(multi.malformed.isEmpty)
        #expect(
            Self.att("23 10 00 05 00 00 44").malformed.first?.message.hasPrefix(
                "Multiple Handle Value Notification truncated") == true)
        let signed = Self.att("d2 20 00 01 02 05 00 00 00 a1 a2 a3 a4 a5 a6 a7 a8")
        #expect(signed.opcode.hasAuthenticationSignature && signed.opcode.isCommand)
        #expect(
            signed.parameters
                == .signedWrite(
                    handle: 0x20, value: [1, 2], signature: Fixtures.hex("05 00 00 00 a1 a2 a3 a4 a5 a6 a7 a8")))
        #expect(signed.fields.last?.children.first?.value == "5")
        #expect(
            Self.att("d2 20 00 01 02").malformed.map(\.message) == ["authentication signature truncated: 2 of 12 bytes"]
        )
    }

    @Test func unknownAndEmpty() {
        let unknown = Self.att("3f 01 02")
        #expect(unknown.opcode.name == nil)
        #expect(unknown.opcode.description == "Unknown (0x3f)")
        #expect(unknown.parameters == .raw([1, 2]))
        #expect(unknown.malformed.isEmpty)
        let empty = ATTPDU.decode([], baseOffset: 8)
        #expect(empty.malformed == [Malformation(layer: .att, offset: 8, message: "empty ATT PDU")])
    }

    /// Strict prefixes shorter than each PDU's fixed part are reported (offset inside the PDU),
    /// the fields read before the cut are kept, and nothing traps on any prefix.
    @Test(arguments: [
        ("01 10 13 00 0a", 5), ("02 05 02", 3), ("04 09 00 09 00", 5), ("05 01 0d 00 02 29 0e 00 01 29", 6),
        ("06 01 00 ff ff 00 28 00 18", 7), ("07 14 00 1a 00", 5), ("08 01 00 05 00 02 28", 7),
        ("09 07 02 00 02 03 00 00 2a 04 00 02 05 00 01 2a", 9), ("0a 52 00", 3), ("0c 52 00 16 00", 5),
        ("0e 12 00 17 00", 5), ("10 01 00 ff ff 00 28", 7), ("11 06 01 00 05 00 00 18 06 00 09 00 01 18", 8),
        ("12 10 00 01 50", 3), ("16 08 00 6e 00 72 0b", 5), ("18 01", 2), ("1b 1b 00 ed fe", 3),
        ("1d 0c 00 02 40", 3), ("52 20 00 3a 26", 3), ("23 10 00 02 00 00 44 12 00 01 00 05", 12),
    ])
    func prefixesBelowTheFixedPartAreReported(hex: String, minimum: Int) {
        let bytes = Fixtures.hex(hex)
        for n in 0..<bytes.count {
            let pdu = ATTPDU.decode(Array(bytes.prefix(n)), baseOffset: 8)
            if n < minimum {
                #expect(!pdu.malformed.isEmpty, "prefix \(n) of \(hex)")
            }
            for m in pdu.malformed { #expect(m.offset >= 8 && m.offset <= 8 + n) }
            _ = pdu.summary
            _ = pdu.fields
        }
        // A truncated Error Response keeps what it read.
        let cut = ATTPDU.decode(Fixtures.hex("01 10 13 00"), baseOffset: 0)
        #expect(cut.handle == 0x13 && cut.requestOpcodeInError == .readByGroupTypeRequest && cut.errorCode == nil)
        #expect(cut.malformed.map(\.message) == ["Error Response truncated: truncated: needed 1 byte, 0 available"])
    }

    @Test func opcodeTableIsComplete() {
        // Core v5.4, Vol 3, Part F, §3.4.8, Table 3.37.
        let spec: [UInt8] = [
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11,
            0x12, 0x13, 0x16, 0x17, 0x18, 0x19, 0x1B, 0x1D, 0x1E, 0x20, 0x21, 0x23, 0x52, 0xD2,
        ]
        #expect(ATTOpcode.allKnown.map(\.rawValue) == spec)
        let names = ATTOpcode.allKnown.compactMap(\.name)
        #expect(names.count == spec.count)
        #expect(Set(names).count == names.count)
        for op in ATTOpcode.allKnown {
            #expect(op.description == "\(op.name ?? "") (\(Hex.prefixed(op.rawValue, digits: 2)))")
            if let rsp = op.expectedResponse, op.kind == .request {
                #expect(rsp.kind == .response, "\(op)")
                #expect(rsp.answeredRequest == op)
            }
        }
        #expect(ATTOpcode.allKnown.filter { $0.kind == .request }.count == 12)
        #expect(ATTOpcode(0x14).name == nil)
    }

    @Test func errorCodeTableIsComplete() {
        // Table 3.4 (0x01–0x13) and CSS Part B §1.2 (0xFC–0xFF).
        let spec: [UInt8] = Array(0x01...0x13) + [0xFC, 0xFD, 0xFE, 0xFF]
        #expect(ATTErrorCode.allNamed.map(\.rawValue) == spec)
        let names = ATTErrorCode.allNamed.compactMap(\.name)
        #expect(Set(names).count == spec.count)
        #expect(ATTErrorCode(0x85).description == "Application Error (0x85)")
        #expect(ATTErrorCode(0x9F).isApplicationError && !ATTErrorCode(0xA0).isApplicationError)
        #expect(ATTErrorCode(0x14).description == "Unknown (0x14)")
        #expect(ATTErrorCode(0xE0).name == nil && ATTErrorCode(0xE0).isCommonProfileError)
        #expect(ATTErrorCode.writeRequestRejected.name == "Write Request Rejected")
        // Table 3.4's name for 0x0C, as tshark's btatt.error_code says it (it was "Encryption Key
        // Size Too Short" here, and security.insufficient-auth kept its own table of names).
        #expect(ATTErrorCode.insufficientEncryptionKeySize.name == "Insufficient Encryption Key Size")
        #expect(
            ATTErrorCode.cccdImproperlyConfigured.name
                == "Client Characteristic Configuration Descriptor Improperly Configured")
        #expect(ATTErrorCode.procedureAlreadyInProgress.name == "Procedure Already in Progress")
        #expect(ATTErrorCode.outOfRange.name == "Out of Range")
    }

    @Test func uuids() {
        let u = ATTUUID(0x2902)
        #expect(u.uuid16 == 0x2902)
        #expect(u.string == "0x2902")
        #expect(u.description == "Client Characteristic Configuration (0x2902)")
        // A 16-bit UUID written out in 128 bits is the same UUID.
        let long = ATTUUID(littleEndian: Fixtures.hex("fb 34 9b 5f 80 00 00 80 00 10 00 00 02 29 00 00"))
        #expect(long == u)
        #expect(ATTUUID(littleEndian: [1, 2, 3]) == nil)
        #expect(ATTUUID(uuid32: 0x1234_5678).string == "0x12345678")
        #expect(
            ATTUUID(0xFFF1).description
                == (AssignedNumbers.uuid16Name(0xFFF1).map { "\($0) (0xfff1)" } ?? "Unknown (0xfff1)"))
    }
}
