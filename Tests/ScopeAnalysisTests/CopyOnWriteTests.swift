import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeAnalysis
@testable import ScopeDecode

/// `Connection` keeps its lists behind one copy-on-write reference (`CopyOnWrite`) so that a copy
/// retains one reference, not fifteen: a copy must still be a value of its own. And a frame's
/// arrays are swapped out, not copied, when the pipeline frees it (`DecodedFrame.takeArrays`):
/// what comes out must be the frame's own bytes and PDUs.
@Suite struct CopyOnWriteTests {
    @Test func aChangedCopyLeavesTheOriginalAlone() {
        var a = CopyOnWrite([1, 2, 3])
        let b = a
        a.value.append(4)
        #expect(a.value == [1, 2, 3, 4])
        #expect(b.value == [1, 2, 3])
        var c = b
        c.value[0] = 9
        #expect(b.value == [1, 2, 3])
        #expect(c.value == [9, 2, 3])
    }

    /// A connection of a shipped scenario (service discovery, then ATT traffic), through the real
    /// pipeline: a copy whose detail is dropped leaves the original's ATT PDUs and GATT database
    /// where they were.
    @Test func aConnectionCopyIsAValueOfItsOwn() throws {
        let analysis = try AnalysisBuilder.analyze(path: Fixtures.project("scenarios/gatt.discover-all-fires.btsnoop").path)
        let original = try #require(analysis.connections.first { !$0.att.isEmpty })
        let services = original.gatt.services.count + original.localGATT.services.count
        #expect(services > 0)
        var copy = original
        copy.dropJudgedDetail()
        copy.mtu = 512
        #expect(copy.att.isEmpty)
        #expect(!original.att.isEmpty)
        #expect(original.gatt.services.count + original.localGATT.services.count == services)
        #expect(original.mtu != 512)
        // The counts stay with both.
        #expect(copy.attCount == original.attCount)
    }

    /// Every frame of the shipped sample: the arrays taken out are the record's payload and the
    /// frame's PDUs, and the frame is left holding empty ones.
    @Test func takenArraysAreTheFramesOwn() throws {
        var reader = try CaptureReader.open(path: Fixtures.project("btvirt-le-pairing.btsnoop").path)
        defer { reader.close() }
        var dissector = Dissector()
        var frames = 0
        var withPDUs = 0
        while let record = reader.next() {
            let bytes = record.payload
            var frame = dissector.decode(record)
            let pduCount = frame.pdus.count
            let (payload, pdus) = frame.takeArrays()
            #expect(payload == bytes)
            #expect(pdus.count == pduCount)
            #expect(frame.record.payload.isEmpty && frame.pdus.isEmpty)
            frames += 1
            if pduCount > 0 { withPDUs += 1 }
        }
        #expect(frames > 100)
        #expect(withPDUs > 10)
    }
}
