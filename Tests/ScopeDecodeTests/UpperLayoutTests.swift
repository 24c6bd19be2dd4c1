import Testing

@testable import ScopeDecode

/// ``DecodedPDU/Upper`` is copied several times per ATT PDU on its way to the analysis; under
/// 128 bytes the copy is inline, from 129 bytes on it is a call to memcpy.
@Suite struct UpperLayoutTests {
    @Test func upperFitsInlineCopy() {
        #expect(MemoryLayout<DecodedPDU.Upper>.size < 128)
        #expect(MemoryLayout<ATTPDU>.size <= 64)
        #expect(MemoryLayout<GATTAnnotation?>.size <= 64)
    }

    /// The display properties, kept behind one reference, read back what was set, and an
    /// annotation whose display properties are emptied again equals one that never had them.
    @Test func displayPropertiesRoundTrip() {
        var note = GATTAnnotation()
        #expect(note.isEmpty)
        note.handleName = "Heart Rate Measurement"
        note.requestHandles = [0x0003, 0x0005]
        note.fields.append(Field("Handle", "0x0003"))
        note.inferredHandle = 0x0003
        #expect(note.handleName == "Heart Rate Measurement")
        #expect(note.requestHandles == [0x0003, 0x0005])
        #expect(note.fields == [Field("Handle", "0x0003")])
        #expect(!note.isEmpty)
        let copy = note
        note.fields.append(Field("Value", "01"))
        #expect(copy.fields.count == 1)
        #expect(note.fields.count == 2)

        note.handleName = nil
        note.requestHandles = []
        note.fields = []
        var plain = GATTAnnotation()
        plain.inferredHandle = 0x0003
        #expect(note == plain)
        #expect(note.hashValue == plain.hashValue)
        note.inferredHandle = nil
        #expect(note.isEmpty)

        let built = GATTAnnotation(handleName: "x", requestHandles: [1], fields: [Field("a", "b")])
        #expect(built.handleName == "x" && built.requestHandles == [1] && built.fields == [Field("a", "b")])
    }

    @Test func offsetAndLengthReadBack() {
        let pdu = ATTPDU.decode([0x1B, 0x03, 0x00, 0x01, 0x02], baseOffset: 8)
        #expect(pdu.baseOffset == 8)
        #expect(pdu.length == 5)
        #expect(pdu.handle == 0x0003)
        let error = ATTPDU.decode([0x01, 0x0A, 0x03, 0x00, 0x0A], baseOffset: 4)
        #expect(error.requestOpcodeInError == ATTOpcode(0x0A))
        #expect(error.errorCode == 0x0A)
        #expect(error.handle == 0x0003)
    }
}
