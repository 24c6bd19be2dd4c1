#if os(Linux)
import Glibc
import ScopeCore
import ScopeLive
import Testing

/// The monitor reader fed the kernel's exact framing (opcode LE16, index LE16, length LE16,
/// payload) through a socketpair, as `HCI_CHANNEL_MONITOR` delivers it.
@Suite("Monitor channel reader (socketpair)")
struct MonitorSourceTests {
    /// Frames from captures/btvirt-le-pairing.btsnoop: NEW_INDEX hci0, COMMAND Reset on hci0,
    /// EVENT Command Complete (Reset), ACL_TX SMP Pairing Request on hci1, SYSTEM_NOTE (global).
    static let messages: [(opcode: UInt16, index: UInt16, payload: [UInt8])] = [
        (0, 0, [0, 0, 0, 0, 0, 0, 0, 0, 0x68, 0x63, 0x69, 0x30, 0, 0, 0, 0]),
        (2, 0, [0x03, 0x0C, 0x00]),
        (3, 0, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        (4, 1, [0x2A, 0x00, 0x0B, 0x00, 0x07, 0x00, 0x06, 0x00, 0x01, 0x03, 0x00, 0x01, 0x10, 0x05, 0x05]),
        (12, 0xFFFF, Array("Bluetooth subsystem version 2.22".utf8) + [0]),
    ]

    static func frame(_ m: (opcode: UInt16, index: UInt16, payload: [UInt8])) -> [UInt8] {
        var w = ByteWriter()
        w.le16(m.opcode)
        w.le16(m.index)
        w.le16(UInt16(m.payload.count))
        w.append(m.payload)
        return w.bytes
    }

    struct Pair {
        var kernelSide: Int32
        var source: MonitorSource
        var stopRead: Int32
        var stopWrite: Int32

        init() {
            var fds: [Int32] = [0, 0]
            _ = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds)
            var stop: [Int32] = [0, 0]
            _ = pipe(&stop)
            kernelSide = fds[1]
            source = MonitorSource(fileDescriptor: fds[0], ownsDescriptor: true)
            stopRead = stop[0]
            stopWrite = stop[1]
        }

        func send(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { Glibc.send(kernelSide, $0.baseAddress, $0.count, 0) }
        }

        func stop() { _ = [UInt8(1)].withUnsafeBytes { Glibc.write(stopWrite, $0.baseAddress, 1) } }

        func closeAll() {
            close(kernelSide)
            close(stopRead)
            close(stopWrite)
        }
    }

    @Test func recordsKeepOpcodeIndexPayloadAndOrder() throws {
        let pair = Pair()
        defer { pair.closeAll() }
        for m in Self.messages { pair.send(Self.frame(m)) }
        shutdown(pair.kernelSide, Int32(SHUT_WR))
        var records: [CaptureRecord] = []
        let summary = try runLiveCapture(
            source: pair.source, stopFD: pair.stopRead, options: LiveCaptureOptions(),
            write: { records.append($0) })
        #expect(summary.stoppedBy == .endOfInput)
        #expect(summary.written == 5)
        #expect(records.map(\.frame) == [1, 2, 3, 4, 5])
        #expect(records.map(\.kind) == [.newIndex, .command, .event, .acl, .systemNote])
        #expect(records.map(\.adapter) == [0, 0, 0, 1, 0xFFFF])
        #expect(records[3].direction == .sent)
        #expect(records[2].direction == .received)
        #expect(records.map(\.payload) == Self.messages.map(\.payload))
        #expect(summary.controllers == [0, 1])
        // Timestamps are present and ordered (from SO_TIMESTAMP or the clock).
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
    }

    @Test func aStopMidStreamKeepsWhatWasQueued() throws {
        let pair = Pair()
        defer { pair.closeAll() }
        for m in Self.messages.prefix(3) { pair.send(Self.frame(m)) }
        pair.stop()
        var written = 0
        let summary = try runLiveCapture(
            source: pair.source, stopFD: pair.stopRead, options: LiveCaptureOptions(), write: { _ in written += 1 })
        #expect(summary.stoppedBy == .signal)
        #expect(written == 3)
    }

    @Test func malformedMessagesAreReportedAndSkipped() throws {
        let pair = Pair()
        defer { pair.closeAll() }
        pair.send([0x02, 0x00, 0x00])  // shorter than the header
        pair.send([0x02, 0x00, 0x00, 0x00, 0x09, 0x00, 0x03, 0x0C, 0x00])  // length 9, 3 bytes
        pair.send(Self.frame(Self.messages[1]))
        shutdown(pair.kernelSide, Int32(SHUT_WR))
        var problems: [String] = []
        var kinds: [RecordKind] = []
        let summary = try runLiveCapture(
            source: pair.source, stopFD: pair.stopRead, options: LiveCaptureOptions(),
            write: { kinds.append($0.kind) }, problem: { problems.append($0.message) })
        #expect(summary.malformed == 2)
        #expect(kinds == [.command])
        #expect(problems.first?.contains("6-byte header") == true)
        #expect(problems.last?.contains("header says 9 bytes, 3 arrived") == true)
    }

    @Test func countAndIndexLimits() throws {
        let pair = Pair()
        defer { pair.closeAll() }
        for m in Self.messages { pair.send(Self.frame(m)) }
        shutdown(pair.kernelSide, Int32(SHUT_WR))
        var adapters: [UInt16] = []
        let summary = try runLiveCapture(
            source: pair.source, stopFD: pair.stopRead, options: LiveCaptureOptions(index: 1),
            write: { adapters.append($0.adapter) })
        // hci1's ACL, hci0's NEW_INDEX (an index event) and the global note are kept.
        #expect(adapters == [0, 1, 0xFFFF])
        #expect(summary.skippedByIndex == 2)

        let again = Pair()
        defer { again.closeAll() }
        for m in Self.messages { again.send(Self.frame(m)) }
        let limited = try runLiveCapture(
            source: again.source, stopFD: again.stopRead, options: LiveCaptureOptions(count: 2), write: { _ in })
        #expect(limited.written == 2)
        #expect(limited.stoppedBy == .count)
    }
}
#endif
