import ScopeCore
import ScopeTestSupport
import Testing
@testable import ScopeDecode

@Suite("L2CAP reassembly")
struct L2CAPReassemblerTests {
    // Syed-Bipul-Rahman btsnoop, handle 0x03A0 (rx). tshark:
    //   frame 11: PB First Automatically Flushable, Data Total Length 27, L2CAP Length 27, CID 0x0004
    //   frame 15: PB Continuing Fragment, Data Total Length 4
    //   "Reassembled BTHCI ACL (31 bytes): 1b 00 04 00 1b 1b 00 3a … 53 06 0d 0a"
    //   → Handle Value Notification, Handle: 0x001b
    static let first = Fixtures.hex(
        "a0 23 1b 00 1b 00 04 00 1b 1b 00 3a 26 a2 10 00 00 00 00 ff 17 54 0b ff ff ff ff 0a 00 00 00")
    static let continuation = Fixtures.hex("a0 13 04 00 53 06 0d 0a")
    static let reassembledPayload = Fixtures.hex(
        "1b 1b 00 3a 26 a2 10 00 00 00 00 ff 17 54 0b ff ff ff ff 0a 00 00 00 53 06 0d 0a")

    // 2m a2dp-captures btsnoop, handle 0x0002 (rx), BR/EDR signaling. tshark:
    //   frame 128: PB First Automatically Flushable, length 17, L2CAP Length 16, CID 0x0001
    //   frame 130: PB Continuing Fragment, length 3
    //   → Information Response (Fixed Channels Supported, Success)
    static let bredrFirst = Fixtures.hex("02 20 11 00 10 00 01 00 0b 03 0c 00 03 00 00 00 36 00 00 00 00")
    static let bredrContinuation = Fixtures.hex("02 10 03 00 00 00 00")

    // Syed frame 48042 (tx): Pairing Public Key, ACL length 69, L2CAP length 65, CID 0x0006.
    static let publicKey = Fixtures.hex(
        """
        f3 03 45 00 41 00 06 00 0c 89 73 22 4b 33 1f 10 69 89 87 51 20 fb 8b a0 97 be 76 45 2b 26 50
        6e e1 65 8c 6a 97 81 9a 44 d3 76 2c 07 25 34 28 c1 6b a1 96 27 42 e7 00 90 51 21 92 3a eb c6 9c
        36 fd 67 77 fc 2d 05 9c 3f 17
        """)

    @Test func reassemblesTwoFragments() {
        var r = L2CAPReassembler()
        let s1 = r.consume(adapter: 0, direction: .received, frame: 11, payload: Self.first, capturedTruncated: false)
        #expect(s1.completed.isEmpty)
        #expect(s1.malformed.isEmpty)
        #expect(s1.header?.handle == 0x03A0)
        #expect(r.pendingCount == 1)
        let s2 = r.consume(
            adapter: 0, direction: .received, frame: 15, payload: Self.continuation, capturedTruncated: false)
        #expect(s2.malformed.isEmpty)
        #expect(s2.completed.count == 1)
        let pdu = s2.completed[0]
        #expect(pdu.cid == 0x0004)
        #expect(pdu.channel == .att)
        #expect(pdu.handle == 0x03A0)
        #expect(pdu.direction == .received)
        #expect(pdu.fragments == [11, 15])
        #expect(pdu.completedIn == 15)
        #expect(Array(pdu.payload) == Self.reassembledPayload)
        #expect(pdu.declaredLength == 27)
        #expect(pdu.isReassembled)
        #expect(pdu.payloadOffset == 4)
        #expect(!pdu.isIncomplete)
        #expect(r.pendingCount == 0)
        #expect(r.finish().isEmpty)
        // The upper layer sees the whole notification.
        let att = ATTPDU.decode(pdu.payload, baseOffset: pdu.payloadOffset)
        #expect(att.opcode == .handleValueNotification)
        #expect(att.handle == 0x001B)
        #expect(att.value.count == 24)
    }

    @Test func reassemblesBREDRSignaling() {
        var r = L2CAPReassembler()
        _ = r.consume(adapter: 0, direction: .received, frame: 128, payload: Self.bredrFirst, capturedTruncated: false)
        let s = r.consume(
            adapter: 0, direction: .received, frame: 130, payload: Self.bredrContinuation, capturedTruncated: false)
        #expect(s.completed.count == 1)
        #expect(s.completed.first?.channel == .signaling)
        let sig = SignalingPDU.decode(s.completed[0].payload, channel: .signaling, baseOffset: 4)
        #expect(sig.malformed.isEmpty)
        #expect(sig.commands.first?.code == .informationResponse)
    }

    @Test func singleFragmentPDU() {
        var r = L2CAPReassembler()
        let s = r.consume(adapter: 0, direction: .sent, frame: 48042, payload: Self.publicKey, capturedTruncated: false)
        #expect(s.completed.count == 1)
        let pdu = s.completed[0]
        #expect(pdu.channel == .smp)
        #expect(pdu.payload.count == 65)
        #expect(pdu.fragments == [48042])
        #expect(!pdu.isReassembled)
        #expect(pdu.payloadOffset == 8)
    }

    @Test func continuationWithoutStart() {
        var r = L2CAPReassembler()
        let s = r.consume(
            adapter: 0, direction: .received, frame: 15, payload: Self.continuation, capturedTruncated: false)
        #expect(s.completed.isEmpty)
        #expect(
            s.malformed == [
                Malformation(layer: .l2cap, offset: 4, message: "continuation without start (4 bytes): 53 06 0d 0a")
            ])
        #expect(r.pendingCount == 0)
    }

    @Test func newStartDiscardsIncompletePDU() {
        var r = L2CAPReassembler()
        _ = r.consume(adapter: 0, direction: .received, frame: 11, payload: Self.first, capturedTruncated: false)
        let s = r.consume(adapter: 0, direction: .received, frame: 12, payload: Self.first, capturedTruncated: false)
        #expect(
            s.malformed.map(\.message) == [
                "incomplete PDU discarded: got 27 of 31 bytes, frame 11 (new start on handle 0x03a0)"
            ])
        let s2 = r.consume(
            adapter: 0, direction: .received, frame: 15, payload: Self.continuation, capturedTruncated: false)
        #expect(s2.completed.first?.fragments == [12, 15])
    }

    @Test func overrunDeliversPDUAndReportsExtraBytes() {
        var r = L2CAPReassembler()
        _ = r.consume(adapter: 0, direction: .received, frame: 11, payload: Self.first, capturedTruncated: false)
        // Frame 15 with two bytes more than the L2CAP length needs (ACL length 6).
        let s = r.consume(
            adapter: 0, direction: .received, frame: 15, payload: Fixtures.hex("a0 13 06 00 53 06 0d 0a ee ff"),
            capturedTruncated: false)
        #expect(s.completed.first.map { Array($0.payload) } == Self.reassembledPayload)
        #expect(
            s.malformed == [
                Malformation(
                    layer: .l2cap, offset: 8,
                    message: "L2CAP overrun: 2 bytes beyond the L2CAP length 27 (CID 0x0004): ee ff")
            ])

        // Single fragment: danisla frame 296 (Connection Parameter Update Response, L2CAP length 6)
        // sent with ACL length 16 (six bytes appended).
        var r2 = L2CAPReassembler()
        let s2 = r2.consume(
            adapter: 0, direction: .sent, frame: 296,
            payload: Fixtures.hex("02 00 10 00 06 00 05 00 13 01 02 00 00 00 01 02 03 04 05 06"),
            capturedTruncated: false)
        #expect(s2.completed.first.map { Array($0.payload) } == Fixtures.hex("13 01 02 00 00 00"))
        #expect(
            s2.malformed.map(\.message) == [
                "L2CAP overrun: 6 bytes beyond the L2CAP length 6 (CID 0x0005): 01 02 03 04 05 06"
            ])
        #expect(s2.malformed.first?.offset == 14)
    }

    @Test func finishListsIncompletePDUs() {
        var r = L2CAPReassembler()
        _ = r.consume(adapter: 0, direction: .received, frame: 11, payload: Self.first, capturedTruncated: false)
        _ = r.consume(adapter: 0, direction: .received, frame: 128, payload: Self.bredrFirst, capturedTruncated: false)
        let left = r.finish()
        #expect(
            left.map(\.message) == [
                "incomplete PDU at end of capture: adapter 0, handle 0x03a0 (received), got 27 of 31 bytes, frame 11",
                "incomplete PDU at end of capture: adapter 0, handle 0x0002 (received), got 17 of 20 bytes, frame 128",
            ])
        #expect(r.pendingCount == 0)
        #expect(r.finish().isEmpty)
    }

    @Test func resetForgetsTheHandle() {
        var r = L2CAPReassembler()
        _ = r.consume(adapter: 0, direction: .received, frame: 11, payload: Self.first, capturedTruncated: false)
        _ = r.consume(adapter: 0, direction: .received, frame: 128, payload: Self.bredrFirst, capturedTruncated: false)
        let dropped = r.reset(adapter: 0, handle: 0x03A0)
        #expect(
            dropped.map(\.message) == [
                "incomplete PDU discarded at disconnection: adapter 0, handle 0x03a0 (received), got 27 of 31 bytes, frame 11"
            ])
        #expect(r.reset(adapter: 1, handle: 0x0002).isEmpty)  // other adapter: untouched
        let s = r.consume(
            adapter: 0, direction: .received, frame: 15, payload: Self.continuation, capturedTruncated: false)
        #expect(s.malformed.first?.message.hasPrefix("continuation without start") == true)
        #expect(r.pendingCount == 1)
    }

    /// State is keyed by adapter, handle and direction: the same fragments under another key
    /// never complete each other's PDU.
    @Test func keyedByAdapterHandleAndDirection() {
        var r = L2CAPReassembler()
        _ = r.consume(adapter: 0, direction: .received, frame: 11, payload: Self.first, capturedTruncated: false)
        let otherDirection = r.consume(
            adapter: 0, direction: .sent, frame: 12, payload: Self.continuation, capturedTruncated: false)
        #expect(otherDirection.completed.isEmpty)
        #expect(otherDirection.malformed.count == 1)
        let otherAdapter = r.consume(
            adapter: 1, direction: .received, frame: 13, payload: Self.continuation, capturedTruncated: false)
        #expect(otherAdapter.completed.isEmpty)
        #expect(otherAdapter.malformed.count == 1)
        let same = r.consume(
            adapter: 0, direction: .received, frame: 15, payload: Self.continuation, capturedTruncated: false)
        #expect(same.completed.first?.fragments == [11, 15])
    }

    /// An Android "filtered" log keeps 14 bytes of each ACL packet: the PDU is delivered short,
    /// flagged as a capture limit, and the record reports "truncated capture (N of M bytes)".
    @Test func captureTruncatedSingleFragment() {
        var r = L2CAPReassembler()
        let cut = Array(Self.publicKey.prefix(14))
        let s = r.consume(adapter: 0, direction: .sent, frame: 48042, payload: cut, capturedTruncated: true)
        #expect(s.malformed == [Malformation(layer: .acl, offset: 14, message: "truncated capture (14 of 73 bytes)")])
        #expect(s.completed.count == 1)
        let pdu = s.completed[0]
        #expect(Array(pdu.payload) == Array(Self.publicKey[8..<14]))
        #expect(pdu.declaredLength == 65)
        #expect(pdu.missingBytes == 59)
        #expect(pdu.isCaptureTruncated)
        // SMP then reports the short PDU; the dissector knows it is a capture limit.
        let smp = SMPPDU.decode(pdu.payload, baseOffset: pdu.payloadOffset)
        #expect(smp.code == .pairingPublicKey)
        #expect(smp.malformed.first?.message == "Pairing Public Key truncated: 6 of 65 bytes")
    }

    @Test func captureTruncatedFirstOfTwoFragments() {
        var r = L2CAPReassembler()
        _ = r.consume(
            adapter: 0, direction: .received, frame: 11, payload: Array(Self.first.prefix(10)), capturedTruncated: true)
        let s = r.consume(
            adapter: 0, direction: .received, frame: 15, payload: Self.continuation, capturedTruncated: false)
        #expect(s.completed.count == 1)
        #expect(s.completed.first.map { Array($0.payload) } == Fixtures.hex("1b 1b"))
        #expect(s.completed.first?.missingBytes == 25)
        #expect(s.completed.first?.isCaptureTruncated == true)
    }

    /// A record that claims more ACL data than it holds, without the capture having cut it, is a
    /// malformed packet (not a capture limit).
    @Test func shortRecordWithoutCaptureCut() {
        var r = L2CAPReassembler()
        let s = r.consume(
            adapter: 0, direction: .sent, frame: 1, payload: Array(Self.publicKey.prefix(20)), capturedTruncated: false)
        #expect(s.malformed.first?.message == "ACL data length 69 exceeds the 16 bytes present (53 missing)")
        #expect(s.completed.first?.isCaptureTruncated == false)
        #expect(s.completed.first?.missingBytes == 53)
    }

    /// Every prefix of every fragment, fed in every position of a reassembly, with and without
    /// the capture-cut flag: reported, never trapped on.
    @Test(arguments: [false, true])
    func truncationNeverTraps(captureCut: Bool) {
        let packets = [Self.first, Self.continuation, Self.bredrFirst, Self.bredrContinuation, Self.publicKey]
        for packet in packets {
            for n in 0..<packet.count {
                let cut = Array(packet.prefix(n))
                var fresh = L2CAPReassembler()
                let a = fresh.consume(
                    adapter: 0, direction: .received, frame: 1, payload: cut, capturedTruncated: captureCut)
                #expect(!a.malformed.isEmpty)
                var mid = L2CAPReassembler()
                _ = mid.consume(
                    adapter: 0, direction: .received, frame: 1, payload: Self.first, capturedTruncated: false)
                _ = mid.consume(adapter: 0, direction: .received, frame: 2, payload: cut, capturedTruncated: captureCut)
                _ = mid.consume(
                    adapter: 0, direction: .received, frame: 3, payload: Self.continuation, capturedTruncated: false)
                _ = mid.finish()
            }
        }
    }

    /// Re-fragmenting a real PDU at seeded random points gives back the same PDU.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomFragmentationGivesSamePDU(seed: UInt64) {
        var rng = L2CAPSplitMix(seed: seed)
        let l2cap = Array(Self.publicKey[4...])  // basic header + SMP public key
        var r = L2CAPReassembler()
        var offset = 0
        var frame = 0
        var completed: [L2CAPPDU] = []
        while offset < l2cap.count {
            let n = min(l2cap.count - offset, 1 + Int(rng.next() % 27))
            let pb: UInt8 = offset == 0 ? 0x00 : 0x10
            let chunk = [0xF3, 0x03 | pb, UInt8(n), 0x00] + l2cap[offset..<(offset + n)]
            frame += 1
            let s = r.consume(adapter: 0, direction: .sent, frame: frame, payload: chunk, capturedTruncated: false)
            #expect(s.malformed.isEmpty)
            completed += s.completed
            offset += n
        }
        #expect(completed.count == 1)
        #expect(completed.first.map { Array($0.payload) } == Array(Self.publicKey[8...]))
        #expect(completed.first?.fragments == Array(1...frame))
    }

    /// Fragments of two connections interleaved in any order give the same PDUs as each
    /// connection fed alone.
    @Test(arguments: [11, 22, 33, 44])
    func interleavingTwoConnections(seed: UInt64) {
        let a: [(Int, [UInt8])] = [
            (11, Self.first), (15, Self.continuation), (16, Self.first), (17, Self.continuation),
        ]
        let b: [(Int, [UInt8])] = [(128, Self.bredrFirst), (130, Self.bredrContinuation), (131, Self.publicKey)]
        func run(_ seq: [(Int, [UInt8])]) -> [L2CAPPDU] {
            var r = L2CAPReassembler()
            var out: [L2CAPPDU] = []
            for (f, p) in seq {
                let s = r.consume(adapter: 0, direction: .received, frame: f, payload: p, capturedTruncated: false)
                #expect(s.malformed.isEmpty)
                out += s.completed
            }
            return out
        }
        let alone = run(a) + run(b)
        var rng = L2CAPSplitMix(seed: seed)
        var ia = 0
        var ib = 0
        var mixed: [(Int, [UInt8])] = []
        while ia < a.count || ib < b.count {
            if ib == b.count || (ia < a.count && rng.next() % 2 == 0) {
                mixed.append(a[ia])
                ia += 1
            } else {
                mixed.append(b[ib])
                ib += 1
            }
        }
        let together = run(mixed)
        #expect(together.count == alone.count)
        #expect(Set(together) == Set(alone))
    }

    @Test func channelIDNames() {
        #expect(ChannelID.att.description == "Attribute Protocol (0x0004)")
        #expect(ChannelID.leSignaling.description == "LE L2CAP Signaling Channel (0x0005)")
        #expect(ChannelID.signaling.name == "L2CAP Signaling Channel")
        #expect(ChannelID.smp.name == "Security Manager Protocol")
        #expect(ChannelID.bredrSMP.name == "BR/EDR Security Manager")
        #expect(ChannelID.connectionless.name == "Connectionless Channel")
        #expect(ChannelID(0x0041).description == "Dynamic (0x0041)")
        #expect(ChannelID(0x0041).isDynamic)
        #expect(ChannelID(0x0010).description == "Unknown (0x0010)")
        #expect(ChannelID(0x0010).name == nil)
        #expect(ChannelID.leSignaling.isSignaling && ChannelID.signaling.isSignaling && !ChannelID.att.isSignaling)
        // Completeness: every fixed channel of Tables 2.1/2.2 has a name.
        for cid: UInt16 in [0x0000, 0x0001, 0x0002, 0x0003, 0x0004, 0x0005, 0x0006, 0x0007, 0x003F] {
            #expect(ChannelID(cid).name != nil)
        }
        #expect(Set(ChannelID.names.values).count == ChannelID.names.count)
        #expect(PSM.att.description == "ATT (0x001f)")
        #expect(PSM(0x1001).description == "Unknown (0x1001)")
        #expect(Set(PSM.names.values).count == PSM.names.count)
    }
}

/// Seeded generator for reproducible property tests.
struct L2CAPSplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
