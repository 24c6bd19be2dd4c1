import ScopeCore
import ScopeTestSupport
import Testing
@testable import ScopeDecode

@Suite("ACL header")
struct ACLTests {
    // Syed-Bipul-Rahman btsnoop frame 11 (rx), tshark:
    //   Connection Handle: 0x3a0, PB Flag: First Automatically Flushable Packet (2),
    //   BC Flag: Point-To-Point (0), Data Total Length: 27
    static let syedFrame11 = Fixtures.hex(
        "a0 23 1b 00 1b 00 04 00 1b 1b 00 3a 26 a2 10 00 00 00 00 ff 17 54 0b ff ff ff ff 0a 00 00 00")

    @Test func parsesFirstFlushableFragment() throws {
        let h = try ACLHeader.parse(Self.syedFrame11)
        #expect(h.handle == 0x03A0)
        #expect(h.packetBoundary == .firstFlushable)
        #expect(h.packetBoundary.isStart)
        #expect(h.broadcast == .pointToPoint)
        #expect(h.dataLength == 27)
        #expect(!h.isLikelyVendorDebug)
        #expect(h.summary == "Handle 0x03a0 flags 0x02 dlen 27")
    }

    // Syed frame 15 (rx): Connection Handle 0x3a0, PB Flag: Continuing Fragment (1), length 4.
    @Test func parsesContinuation() throws {
        let h = try ACLHeader.parse(Fixtures.hex("a0 13 04 00 53 06 0d 0a"))
        #expect(h.handle == 0x03A0)
        #expect(h.packetBoundary == .continuing)
        #expect(!h.packetBoundary.isStart)
        #expect(h.dataLength == 4)
    }

    // Syed frame 48019 (tx): Connection Handle 0x3f3, PB First Non-automatically Flushable (0),
    // Data Total Length 11 (SMP Pairing Request).
    @Test func parsesFirstNonFlushable() throws {
        let p = ACLPacket.decode(Fixtures.hex("f3 03 0b 00 07 00 06 00 01 04 00 2d 10 0f 0f"))
        #expect(p.header?.handle == 0x03F3)
        #expect(p.header?.packetBoundary == .firstNonFlushable)
        #expect(p.data.count == 11)
        #expect(p.malformed.isEmpty)
        #expect(!p.isCaptureTruncated)
    }

    // zabbits btsnoop frame 12 (rx): handle 0x0EDC, Broadcom vendor debug; tshark decodes it as
    // L2CAP CID 0x0000 — it is not L2CAP.
    @Test func flagsVendorDebugHandle() throws {
        let h = try ACLHeader.parse(
            Fixtures.hex(
                "dc 2e 1c 00 18 00 00 00 0a ff 05 01 11 00 33 04 00 70 0c 00 78 00 00 00 60 ea 09 00 60 ea 03 00"))
        #expect(h.handle == 0x0EDC)
        #expect(h.isLikelyVendorDebug)
        #expect(h.packetBoundary == .firstFlushable)
        #expect(h.dataLength == 28)
        #expect(h.fields.first?.value == "0x0edc (vendor debug)")
    }

    @Test func flagNamesAndDescriptions() {
        #expect(ACLPacketBoundary(rawValue: 0).description == "First Non-automatically-flushable Packet (0x0)")
        #expect(ACLPacketBoundary(rawValue: 3).isStart)
        #expect(ACLBroadcastFlag(rawValue: 1).description == "BR/EDR Broadcast (0x1)")
        #expect(ACLBroadcastFlag(rawValue: 2).name == nil)
        #expect(ACLBroadcastFlag(rawValue: 3).description == "Unknown (0x3)")
        // Only two bits are kept.
        #expect(ACLPacketBoundary(rawValue: 0xFE) == .firstFlushable)
    }

    @Test func shorterThanHeaderIsMalformed() {
        for n in 0..<ACLHeader.size {
            let p = ACLPacket.decode(Array(Self.syedFrame11.prefix(n)))
            #expect(p.header == nil)
            #expect(p.malformed.count == 1)
            #expect(p.malformed.first?.message == "ACL header truncated: \(n) of 4 bytes")
            #expect(p.malformed.first?.layer == .acl)
        }
    }

    /// Every strict prefix of a real packet is reported, never trapped on; the captured-short
    /// case says "truncated capture" with the original length.
    @Test func everyPrefixIsReported() {
        let full = Self.syedFrame11
        for n in 0..<full.count {
            let prefix = Array(full.prefix(n))
            let malformed = ACLPacket.decode(prefix)
            #expect(!malformed.malformed.isEmpty)
            let cut = ACLPacket.decode(prefix, originalLength: full.count)
            #expect(cut.isCaptureTruncated)
            if n >= 4 {
                #expect(cut.malformed.first?.message == "truncated capture (\(n) of 31 bytes)")
                #expect(cut.missingBytes == 31 - n)
                #expect(
                    malformed.malformed.first?.message
                        == "ACL data length 27 exceeds the \(n - 4) bytes present (\(31 - n) missing)")
            } else {
                #expect(cut.malformed.first?.message == "truncated capture (\(n) of 31 bytes): ACL header incomplete")
            }
        }
    }

    @Test func trailingBytesAreReported() {
        // danisla frame 296 (tx) with two extra bytes appended.
        let p = ACLPacket.decode(Fixtures.hex("02 00 0a 00 06 00 05 00 13 01 02 00 00 00 ee ff"))
        #expect(p.data.count == 10)
        #expect(p.malformed.first?.message == "2 trailing bytes after the ACL data (length 10)")
        #expect(p.malformed.first?.offset == 14)
    }
}
