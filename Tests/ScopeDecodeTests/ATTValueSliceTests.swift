import Foundation
import ScopeCore
import Testing

@testable import ScopeDecode

/// ATT values are slices of the bytes they were decoded from (no copy per PDU): on real
/// captures, every value is the expected tail of its L2CAP payload, shares its indices, and
/// reads through `startIndex` like the copy it replaced.
@Suite struct ATTValueSliceTests {
    @Test func valuesAreTheTailOfTheirPDUOnRealCaptures() {
        var checked = 0
        for url in DecodeDetailTests.btsnoopFiles {
            var dissector = Dissector(detail: .analysis)
            for record in DecodeDetailTests.records(url) {
                let frame = dissector.decode(record)
                for p in frame.pdus {
                    guard case .att(let att, _) = p.upper, att.malformed.isEmpty else { continue }
                    let bytes = p.pdu.payload
                    // Bytes before the value: opcode, then handle (and offset for Prepare Write).
                    let header: Int
                    switch att.opcode.rawValue {
                    case 0x0B, 0x0D, 0x0F: header = 1
                    case 0x12, 0x52, 0x1B, 0x1D: header = 3
                    case 0x16, 0x17: header = 5
                    default: continue
                    }
                    let expected = Array(bytes.dropFirst(header))
                    #expect(Array(att.value) == expected)
                    #expect(att.value.startIndex == bytes.startIndex + header)
                    #expect(att.value.endIndex == bytes.endIndex)
                    switch att.parameters {
                    case .value(let v), .handleValue(_, let v), .prepareWrite(_, _, let v): #expect(v == att.value)
                    default: Issue.record("opcode \(att.opcode.rawValue) without a value case")
                    }
                    let le16 = expected.count == 2 ? UInt16(expected[0]) | UInt16(expected[1]) << 8 : nil
                    #expect(GATTTracker.le16(att.value) == le16)
                    checked += 1
                }
            }
        }
        if checked == 0 { print("ATTValueSliceTests: no ATT values in the corpus (HCISCOPE_CORPUS not set?): SKIPPED") }
    }

    @Test func signedWriteValueAndSignature() {
        // Signed Write Command: handle 0x0021, value 01 02, 12-byte signature.
        let sig: [UInt8] = [0x05, 0, 0, 0] + [UInt8](repeating: 0xAA, count: 8)
        let bytes: [UInt8] = [0xD2, 0x21, 0x00, 0x01, 0x02] + sig
        let att = ATTPDU.decode(bytes, baseOffset: 9)
        #expect(Array(att.value) == [0x01, 0x02])
        #expect(att.value.startIndex == 3)
        guard case .signedWrite(0x0021, let v, let s) = att.parameters else {
            Issue.record("not a signed write")
            return
        }
        #expect(v == [0x01, 0x02])
        #expect(s == sig)
        // The same PDU two bytes into its buffer: the value keeps the buffer's indices.
        let inner = ([0x00, 0x00] + bytes)[2...]
        let shifted = ATTPDU.decode(inner, baseOffset: 9)
        #expect(shifted.value.startIndex == 5 && Array(shifted.value) == [0x01, 0x02])
        #expect(shifted.parameters == att.parameters)
    }
}
