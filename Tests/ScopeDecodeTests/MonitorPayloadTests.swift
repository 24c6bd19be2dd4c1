import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

/// Monitor meta records from real btmon captures, with btmon 5.66's decode above each.
@Suite("Monitor payloads")
struct MonitorPayloadTests {
    // captures/btvirt-le-pairing.btsnoop frame 3:
    // = New Index: 00:00:00:00:00:00 (Primary,Virtual,hci0)
    @Test func newIndex() {
        let (p, problems) = MonitorPayload.decode(kind: .newIndex, payload: Fixtures.hex("00000000000000006863693000000000"))
        #expect(problems.isEmpty)
        #expect(p == .newIndex(type: 0, bus: 0, address: BDAddr(value: 0), name: "hci0"))
        #expect(p.summary == "00:00:00:00:00:00 (Primary,Virtual,hci0)")
    }

    // mauricelam__btsnoop-rs__btsnoop_btmon.log frame 5:
    // = Index Info: E8:48:B8:C8:20:00 (Realtek Semiconductor Corporation)
    @Test func indexInfo() {
        let (p, _) = MonitorPayload.decode(kind: .indexInfo, payload: Fixtures.hex("0020c8b848e85d00"))
        #expect(p == .indexInfo(address: BDAddr("e8:48:b8:c8:20:00")!, manufacturer: 0x005D))
    }

    // mauricelam frame 8: = bluetoothd: Terminating
    @Test func userLogging() {
        let (p, _) = MonitorPayload.decode(kind: .userLogging, payload: Fixtures.hex("060b626c7565746f6f746864005465726d696e6174696e6700"))
        #expect(p == .userLogging(priority: 6, ident: "bluetoothd", message: "Terminating"))
    }

    // mauricelam frame 6: @ MGMT Open: bluetoothctl (privileged) version 1.22 {0x0002}
    @Test func controlOpen() {
        let (p, _) = MonitorPayload.decode(
            kind: .controlOpen, payload: Fixtures.hex("0200000002000116000100000010626c7565746f6f746863746c00000000"))
        #expect(p == .controlOpen(cookie: 2, format: 2, version: 1, revision: 22, flags: 1, ident: "bluetoothctl"))
        #expect(p.summary == "MGMT: bluetoothctl (privileged) version 1.22 {0x0002}")
    }

    // mauricelam frame 12: @ MGMT Command: Set Powered (0x0005) plen 1 {0x0001} [hci0]
    @Test func controlCommand() {
        let (p, _) = MonitorPayload.decode(kind: .controlCommand, payload: Fixtures.hex("01000000050000"))
        #expect(p == .control(cookie: 1, opcode: 5, parameters: [0], isEvent: false))
        #expect(p.summary == "Set Powered (0x0005) plen 1 {0x0001}")
        // mauricelam frame 19: @ MGMT Event: Advertising Removed (0x0024) plen 1 {0x0002}
        let (e, _) = MonitorPayload.decode(kind: .controlEvent, payload: Fixtures.hex("02000000240001"))
        #expect(e.summary == "Advertising Removed (0x0024) plen 1 {0x0002}")
    }

    @Test func mgmtTablesAreComplete() {
        // BlueZ doc/mgmt-api.txt: commands 0x0001–0x005A, events 0x0001–0x0032, no gaps.
        #expect(Set(MGMTNames.commands.keys) == Set(UInt16(1)...0x5A))
        #expect(Set(MGMTNames.events.keys) == Set(UInt16(1)...0x32))
        #expect(Set(MGMTNames.commands.values).count == MGMTNames.commands.count)
    }

    // btvirt-le-pairing frame 1: = Note: Linux version 6.1.0-56-amd64 (x86_64)
    @Test func systemNote() {
        let text = Fixtures.hex("4c696e75782076657273696f6e20362e312e302d35362d616d64363420287838365f36342900")
        #expect(MonitorPayload.decode(kind: .systemNote, payload: text).0 == .note("Linux version 6.1.0-56-amd64 (x86_64)"))
    }

    @Test func truncatedLayoutsAreMalformedNotFatal() {
        let full = Fixtures.hex("0200000002000116000100000010626c7565746f6f746863746c00000000")
        for n in 0..<full.count where n != 6 {
            let (p, problems) = MonitorPayload.decode(kind: .controlOpen, payload: Array(full.prefix(n)))
            #expect(p == .raw(Array(full.prefix(n))))
            #expect(problems.count == 1)
        }
        let (_, extra) = MonitorPayload.decode(kind: .openIndex, payload: [1, 2])
        #expect(extra.first?.message == "2 unexpected bytes")
    }
}
