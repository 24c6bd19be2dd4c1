import ScopeCore
import ScopeTestSupport
import Testing
@testable import ScopeDecode

@Suite("L2CAP dynamic channels")
struct L2CAPChannelMapTests {
    static func observe(
        _ map: inout L2CAPChannelMap, _ hex: String, _ direction: Direction, frame: Int, handle: UInt16 = 0x33,
        le: Bool = false
    ) {
        let pdu = SignalingPDU.decode(Fixtures.hex(hex), channel: le ? .leSignaling : .signaling, baseOffset: 8)
        #expect(pdu.malformed.isEmpty)
        map.observe(pdu, adapter: 0, handle: handle, direction: direction, frame: frame)
    }

    // soaresden btsnoop, handle 0x0033 (BR/EDR), tshark:
    //   336 (tx) Connection Request (ATT, SCID: 0x0040)
    //   338 (rx) Connection Response - Success (SCID: 0x0040, DCID: 0x004e)
    //   346 (tx) on CID 0x004e: Read By Type Request, Database Hash — ATT over BR/EDR
    //   394 (rx) Connection Request (SDP, SCID: 0x004f); 395 (tx) Connection Response - Success (DCID 0x0041)
    //   429 (rx) Disconnection Request (DCID 0x0041, SCID 0x004f); 430 (tx) Disconnection Response
    @Test func learnsATTOverBREDR() {
        var map = L2CAPChannelMap()
        Self.observe(&map, "02 04 04 00 1f 00 40 00", .sent, frame: 336)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .sent, cid: 0x4E) == nil)
        Self.observe(&map, "03 04 08 00 4e 00 40 00 00 00 00 00", .received, frame: 338)
        let sent = map.channel(adapter: 0, handle: 0x33, direction: .sent, cid: 0x4E)
        #expect(sent?.psm == .att)
        #expect(sent?.mode == .basic)
        #expect(sent?.openedIn == 338)
        #expect(sent?.cidBySent == 0x4E && sent?.cidByReceived == 0x40)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .received, cid: 0x40)?.psm == .att)
        // Keyed by direction, handle and adapter.
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .received, cid: 0x4E) == nil)
        #expect(map.channel(adapter: 0, handle: 0x34, direction: .sent, cid: 0x4E) == nil)
        #expect(map.channel(adapter: 1, handle: 0x33, direction: .sent, cid: 0x4E) == nil)

        // The peer opens SDP; then closes it.
        Self.observe(&map, "02 05 04 00 01 00 4f 00", .received, frame: 394)
        Self.observe(&map, "03 05 08 00 41 00 4f 00 00 00 00 00", .sent, frame: 395)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .received, cid: 0x41)?.psm == .sdp)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .sent, cid: 0x4F)?.psm == .sdp)
        Self.observe(&map, "06 07 04 00 41 00 4f 00", .received, frame: 429)
        Self.observe(&map, "07 07 04 00 41 00 4f 00", .sent, frame: 430)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .received, cid: 0x41) == nil)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .sent, cid: 0x4F) == nil)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .sent, cid: 0x4E)?.psm == .att)
        map.reset(adapter: 0, handle: 0x33)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .sent, cid: 0x4E) == nil)
    }

    // 2m a2dp-captures frames 132/135/137: Connection Request (SDP) → Pending → Success.
    @Test func pendingThenSuccess() {
        var map = L2CAPChannelMap()
        Self.observe(&map, "02 04 04 00 01 00 40 00", .sent, frame: 132, handle: 2)
        Self.observe(&map, "03 04 08 00 c0 03 40 00 01 00 02 00", .received, frame: 135, handle: 2)
        #expect(map.channel(adapter: 0, handle: 2, direction: .sent, cid: 0x03C0) == nil)
        Self.observe(&map, "03 04 08 00 c0 03 40 00 00 00 00 00", .received, frame: 137, handle: 2)
        #expect(map.channel(adapter: 0, handle: 2, direction: .sent, cid: 0x03C0)?.psm == .sdp)
    }

    // LE and enhanced credit based channels (layouts of §4.22–§4.26; not in the corpus).
    @Test func creditBasedChannels() {
        var map = L2CAPChannelMap()
        Self.observe(&map, "14 02 0a 00 80 00 40 00 00 02 f7 00 0a 00", .sent, frame: 1, le: true)
        Self.observe(&map, "15 02 0a 00 41 00 00 01 fb 00 08 00 00 00", .received, frame: 2, le: true)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .sent, cid: 0x41)?.mode == .leCreditBased)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .received, cid: 0x40)?.psm == PSM(0x80))
        // EATT: two channels, the second refused (DCID 0).
        Self.observe(&map, "17 04 0c 00 27 00 40 00 40 00 03 00 42 00 43 00", .received, frame: 3, le: true)
        Self.observe(&map, "18 04 0c 00 40 00 40 00 03 00 04 00 50 00 00 00", .sent, frame: 4, le: true)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .received, cid: 0x50)?.psm == .eatt)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .sent, cid: 0x42)?.mode == .enhancedCreditBased)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .sent, cid: 0x43) == nil)
        // A refused LE credit based connection opens nothing.
        Self.observe(&map, "14 06 0a 00 81 00 44 00 00 02 f7 00 0a 00", .sent, frame: 5, le: true)
        Self.observe(&map, "15 06 0a 00 00 00 00 00 00 00 00 00 02 00", .received, frame: 6, le: true)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .received, cid: 0x44) == nil)
    }

    // A Retransmission and Flow Control option (mode 0x03, ERTM) on a configured channel.
    @Test func retransmissionModeFromConfiguration() {
        var map = L2CAPChannelMap()
        Self.observe(&map, "02 04 04 00 03 00 40 00", .sent, frame: 1)
        Self.observe(&map, "03 04 08 00 c0 03 40 00 00 00 00 00", .received, frame: 2)
        Self.observe(&map, "04 05 0f 00 c0 03 00 00 04 09 03 0a 05 00 00 00 00 f4 01", .sent, frame: 3)
        #expect(map.channel(adapter: 0, handle: 0x33, direction: .sent, cid: 0x03C0)?.mode == .retransmission(mode: 3))
        #expect(
            map.channel(adapter: 0, handle: 0x33, direction: .received, cid: 0x40)?.mode == .retransmission(mode: 3))
    }
}
