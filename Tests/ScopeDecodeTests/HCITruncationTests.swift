import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// Every strict prefix of a valid packet must decode without trapping and report a
/// malformation whose offset lies within (or at the end of) the prefix.
@Suite("HCI truncation")
struct HCITruncationTests {
    /// Real commands from the corpus (see HCICommandTests for their decodes).
    static let commands = [
        "0b 20 07 01 12 00 12 00 03 00",  // LE Set Scan Parameters (cnrd 282)
        "0d 20 19 60 00 30 00 00 02 75 19 1a bf c0 60 03 18 00 28 00 00 00 f4 01 00 00 00 00",  // LE Create Connection
        "43 20 3a 01 01 00 00 00 00 00 00 00 07 00 08 c0 00 08 00 10 00 00 00 f4 01 00 00 00 00 00 08 c0 00 08 00 10 00 00 00 f4 01 00 00 00 00 00 08 c0 00 08 00 10 00 00 00 f4 01 00 00 00 00",
        "57 fd 01 ff",  // vendor (dandwhelan 69)
    ]

    /// Real events from the corpus (see HCIEventTests / HCIAdvertisingReportTests).
    static let events = [
        "0e 0c 02 01 10 00 0a c6 df 0a 5d 00 22 d9",  // CC Read Local Version
        "0f 04 00 01 43 20",  // Command Status
        "05 04 00 a0 03 16",  // Disconnection Complete
        "13 05 01 a0 03 01 00",  // Number Of Completed Packets
        "3e 1f 0a 00 3a 00 00 00 75 19 1a bf c0 60 4a 55 17 ce 8c 63 00 00 00 00 00 00 24 00 00 00 f4 01 00",
        "3e 2a 02 01 00 01 ee 2e 5a 9d 45 e6 1e 02 01 06 1a ff 4c 00 02 15 fd a5 06 93 a4 e2 4f b1 af cf c6 eb 07 64 78 25 00 05 00 06 b0 b6",
        "3e 39 0d 01 13 00 02 9e 26 9a b0 04 d0 01 00 ff 7f c1 00 00 00 00 00 00 00 00 00 1f 02 01 02 1b ff 75 00 02 18 61 a1 b2 e8 b4 d0 e3 79 d7 3c 66 f7 e9 ee bb 3a d5 a7 c9 c2 56 28",
        "ff 04 57 01 02 03",  // vendor event
    ]

    @Test("every strict prefix of a command is malformed", arguments: commands)
    func commandPrefixes(hex: String) {
        let full = Fixtures.hex(hex)
        #expect(HCICommand.decode(full).malformed.isEmpty)
        for n in 0..<full.count {
            let c = HCICommand.decode(Array(full.prefix(n)))
            #expect(!c.malformed.isEmpty, "prefix \(n) of \(hex)")
            for m in c.malformed { #expect(m.offset >= 0 && m.offset <= n) }
            _ = c.fields
            _ = c.summary
            _ = c.addresses
        }
    }

    @Test("every strict prefix of an event is malformed", arguments: events)
    func eventPrefixes(hex: String) {
        let full = Fixtures.hex(hex)
        #expect(HCIEvent.decode(full).malformed.isEmpty)
        for n in 0..<full.count {
            let e = HCIEvent.decode(Array(full.prefix(n)))
            #expect(!e.malformed.isEmpty, "prefix \(n) of \(hex)")
            for m in e.malformed { #expect(m.offset >= 0 && m.offset <= n) }
            _ = e.fields
            _ = e.summary
            _ = e.addresses
        }
    }

    /// The same prefixes with the length byte patched to match: the packet is self-consistent,
    /// so the error must come from the parameter layout (or report decoder), at the right place.
    @Test("consistent-length prefixes are caught by the layouts", arguments: events.filter { !$0.hasPrefix("ff") })
    func layoutLevelTruncation(hex: String) {
        let full = Fixtures.hex(hex)
        for n in 2..<full.count {
            var p = Array(full.prefix(n))
            p[1] = UInt8(n - 2)
            let e = HCIEvent.decode(p)
            #expect(!e.malformed.isEmpty, "consistent prefix \(n) of \(hex)")
            for m in e.malformed {
                #expect(m.offset >= 2 && m.offset <= n)
                #expect(!m.message.contains("parameter total length"))
            }
        }
    }

    @Test("consistent-length command prefixes are caught by the layouts", arguments: commands.filter { !$0.hasPrefix("57") })
    func commandLayoutTruncation(hex: String) {
        let full = Fixtures.hex(hex)
        for n in 3..<full.count {
            var p = Array(full.prefix(n))
            p[2] = UInt8(n - 3)
            let c = HCICommand.decode(p)
            #expect(!c.malformed.isEmpty, "consistent prefix \(n) of \(hex)")
            // The fields decoded before the cut are kept.
            let decoded = c.fields.count - 2 - c.malformed.count
            #expect(decoded >= 0)
        }
    }

    @Test("partial decode keeps the fields before the cut")
    func partialFieldsKept() {
        // LE Create Connection cut after the peer address: 3 header + 12 parameter bytes.
        let full = Fixtures.hex("0d 20 19 60 00 30 00 00 02 75 19 1a bf c0 60 03 18 00 28 00 00 00 f4 01 00 00 00 00")
        var p = Array(full.prefix(15))
        p[2] = 12
        let c = HCICommand.decode(p)
        #expect(c.malformed.map(\.message) == ["Own Address Type: truncated: needed 1 byte, 0 available"])
        #expect(c.malformed.first?.offset == 15)
        #expect(c.fields.contains(Field("Peer Address", "60:c0:bf:1a:19:75")))
        #expect(c.addresses == [BDAddr("60:c0:bf:1a:19:75")!])
    }
}
