import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

@Suite("HCI command tracker")
struct HCICommandTrackerTests {
    // whoisbe__pongbot: frame 1102 LE Start Encryption at 243.934564 s, frame 1104 Command Status at
    // 243.937107 s (tshark: [Command in frame: 1102], delta 2.543 ms).
    @Test func matchesCommandStatus() {
        var t = HCICommandTracker()
        t.sent(.leEnableEncryption, adapter: 0, frame: 1102, timestampMicros: 243_934_564)
        #expect(t.outstandingCount == 1)
        let m = t.answered(.leEnableEncryption, adapter: 0, frame: 1104, timestampMicros: 243_937_107)
        #expect(m == CommandMatch(commandFrame: 1102, commandTimestampMicros: 243_934_564, latencyMicros: 2_543))
        #expect(t.outstandingCount == 0)
        // Answered once only.
        #expect(t.answered(.leEnableEncryption, adapter: 0, frame: 1105, timestampMicros: 243_937_200) == nil)
    }

    @Test func keyedByAdapterAndOpcode() {
        var t = HCICommandTracker()
        t.sent(.reset, adapter: 0, frame: 1, timestampMicros: 100)
        t.sent(.reset, adapter: 1, frame: 2, timestampMicros: 150)
        t.sent(.readBDADDR, adapter: 0, frame: 3, timestampMicros: 160)
        #expect(t.answered(.reset, adapter: 1, frame: 4, timestampMicros: 200)?.commandFrame == 2)
        #expect(t.answered(.readBDADDR, adapter: 0, frame: 5, timestampMicros: 210)?.latencyMicros == 50)
        #expect(t.answered(.reset, adapter: 0, frame: 6, timestampMicros: 300)?.commandFrame == 1)
        #expect(t.answered(.reset, adapter: 2, frame: 7, timestampMicros: 300) == nil)
    }

    @Test func resentCommandReplacesUnanswered() {
        var t = HCICommandTracker()
        t.sent(.leSetScanEnable, adapter: 0, frame: 10, timestampMicros: 1_000)
        t.sent(.leSetScanEnable, adapter: 0, frame: 12, timestampMicros: 5_000)
        #expect(t.answered(.leSetScanEnable, adapter: 0, frame: 13, timestampMicros: 5_400)?.commandFrame == 12)
    }

    // A command sent again unanswered replaces the first, and the tracker says which (the
    // analysis learns of it from the frame, never matching commands itself).
    // HCI_LE_Set_Scan_Enable (opcode 0x200C, Core v5.4 Vol 4 Part E §7.8.11).
    @Test func namesTheCommandItReplaces() {
        var t = HCICommandTracker()
        #expect(t.sent(.leSetScanEnable, adapter: 0, frame: 10, timestampMicros: 1_000) == nil)
        let replaced = t.sent(.leSetScanEnable, adapter: 0, frame: 12, timestampMicros: 5_000)
        #expect(replaced == CommandMatch(commandFrame: 10, commandTimestampMicros: 1_000, latencyMicros: 4_000))
        #expect(t.sent(.leSetScanEnable, adapter: 1, frame: 13, timestampMicros: 5_100) == nil)
        #expect(t.answered(.leSetScanEnable, adapter: 0, frame: 14, timestampMicros: 5_400)?.commandFrame == 12)
    }

    // cnrd__yeelock frame 1: Command Status with opcode 0x0000 only grants credits.
    @Test func nopIsNeverMatched() {
        var t = HCICommandTracker()
        t.sent(.nop, adapter: 0, frame: 1, timestampMicros: 0)
        #expect(t.outstandingCount == 0)
        #expect(t.answered(.nop, adapter: 0, frame: 2, timestampMicros: 10) == nil)
    }

    @Test("timestamps running backwards give a negative latency; extremes saturate")
    func backwardsClock() {
        var t = HCICommandTracker()
        t.sent(.reset, adapter: 0, frame: 1, timestampMicros: 1_000)
        #expect(t.answered(.reset, adapter: 0, frame: 2, timestampMicros: 400)?.latencyMicros == -600)
        t.sent(.reset, adapter: 0, frame: 3, timestampMicros: .min)
        #expect(t.answered(.reset, adapter: 0, frame: 4, timestampMicros: .max)?.latencyMicros == .max)
        t.sent(.reset, adapter: 0, frame: 5, timestampMicros: .max)
        #expect(t.answered(.reset, adapter: 0, frame: 6, timestampMicros: .min)?.latencyMicros == .min)
    }

    /// Drives the tracker with decoded packets of a real capture: every Command Complete/Status
    /// in cnrd__yeelock (apart from NOP credits) matches a command sent earlier.
    @Test func matchesEveryAnswerInACapture() throws {
        guard let url = Fixtures.corpus("real/cnrd__yeelock__btsnoop_hci.log") else { return }
        var t = HCICommandTracker()
        var matched = 0
        var unmatched: [Int] = []
        for (frame, packet) in HCICorpusTests.packets(url) {
            switch packet {
            case .command(let p):
                t.sent(HCICommand.decode(p).opcode, adapter: 0, frame: frame, timestampMicros: Int64(frame))
            case .event(let p):
                let e = HCIEvent.decode(p)
                guard let op = e.commandOpcode, op != .nop else { continue }
                if let m = t.answered(op, adapter: 0, frame: frame, timestampMicros: Int64(frame)) {
                    matched += 1
                    #expect(m.commandFrame < frame)
                } else {
                    unmatched.append(frame)
                }
            }
        }
        #expect(matched > 200)
        #expect(unmatched.isEmpty)
    }
}
