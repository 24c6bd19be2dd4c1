#if os(Linux)
import Glibc
#endif
import ScopeCore
import ScopeLive
import Testing

/// The incremental H4 framer (STYLE idiom 14c: byte by byte, random splits and all at once
/// give the same packets).
@Suite("H4 framer")
struct H4FramerTests {
    /// One of each type, from the Bumble session through the proxy: HCI Reset; Command
    /// Complete (Reset); ACL ATT Read By Group Type Request on handle 0x0001; an SCO packet;
    /// an ISO packet whose length field carries RFU top bits (0xC004 → 4 bytes).
    static let packets: [H4Packet] = [
        H4Packet(type: 0x01, bytes: [0x03, 0x0C, 0x00]),
        H4Packet(type: 0x04, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        H4Packet(type: 0x02, bytes: [0x01, 0x00, 0x0B, 0x00, 0x07, 0x00, 0x04, 0x00, 0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]),
        H4Packet(type: 0x03, bytes: [0x02, 0x00, 0x03, 0xAA, 0xBB, 0xCC]),
        H4Packet(type: 0x05, bytes: [0x20, 0x00, 0x04, 0xC0, 1, 2, 3, 4]),
        H4Packet(type: 0x01, bytes: [0x01, 0x20, 0x08] + [UInt8](repeating: 0xFF, count: 8)),
    ]

    static var stream: [UInt8] { packets.flatMap { [$0.type] + $0.bytes } }

    static func frame(_ chunks: [[UInt8]]) -> ([H4Packet], H4Framer) {
        var framer = H4Framer()
        var out: [H4Packet] = []
        for chunk in chunks { out += framer.push(chunk) }
        return (out, framer)
    }

    /// A seeded generator (SplitMix64) so a failing split can be reproduced.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func allAtOnceByteByByteAndRandomSplitsAgree() {
        let bytes = Self.stream
        let (whole, w) = Self.frame([bytes])
        #expect(whole == Self.packets)
        #expect(w.buffered == 0 && w.failure == nil)
        let (single, _) = Self.frame(bytes.map { [$0] })
        #expect(single == Self.packets)
        for seed in UInt64(1)...200 {
            var rng = Seeded(state: seed)
            var chunks: [[UInt8]] = []
            var i = 0
            while i < bytes.count {
                let n = Int.random(in: 0...min(12, bytes.count - i), using: &rng)
                chunks.append(Array(bytes[i..<(i + n)]))
                i += n
            }
            let (split, _) = Self.frame(chunks)
            #expect(split == Self.packets, "seed \(seed)")
        }
    }

    @Test func incompletePacketsWaitForTheirBytes() {
        var framer = H4Framer()
        #expect(framer.push([0x02, 0x01, 0x00]).isEmpty)  // ACL header not complete
        #expect(framer.push([0x02, 0x00, 0xAA]).isEmpty)  // length 2, 1 byte
        #expect(framer.buffered == 6)
        #expect(framer.push([0xBB, 0x04]) == [H4Packet(type: 0x02, bytes: [0x01, 0x00, 0x02, 0x00, 0xAA, 0xBB])])
        #expect(framer.buffered == 1)
        #expect(framer.push([0x13, 0x00]) == [H4Packet(type: 0x04, bytes: [0x13, 0x00])])
        #expect(framer.consumed == 10)
    }

    @Test func anUnknownTypeByteStopsFramingAndSaysWhere() {
        var framer = H4Framer()
        let first = framer.push([0x01, 0x03, 0x0C, 0x00, 0x07, 0x01, 0x02])
        #expect(first == [H4Packet(type: 0x01, bytes: [0x03, 0x0C, 0x00])])
        #expect(framer.failure == H4Framer.Failure(typeByte: 0x07, offset: 4))
        #expect(framer.failure?.description.contains("unknown H4 packet type 0x07 at byte 4") == true)
        // Later bytes, even valid packets, are not framed any more (the stream position is lost).
        #expect(framer.push([0x01, 0x03, 0x0C, 0x00]).isEmpty)
        #expect(framer.consumed == 11)
    }

    @Test func anUnknownTypeAfterASplitReportsItsStreamOffset() {
        var framer = H4Framer()
        _ = framer.push([0x04, 0x0E])
        _ = framer.push([0x01, 0x00])
        #expect(framer.push([0xFF]).isEmpty)
        #expect(framer.failure?.offset == 4)
    }

    #if os(Linux)
    @Test func endpointsParse() throws {
        #expect(try H4Endpoint(parsing: "tcp:127.0.0.1:9000") == .tcp(host: "127.0.0.1", port: 9000))
        #expect(try H4Endpoint(parsing: "tcp:[::1]:9000") == .tcp(host: "::1", port: 9000))
        #expect(try H4Endpoint(parsing: "tcp::9000") == .tcp(host: "", port: 9000))
        #expect(try H4Endpoint(parsing: "unix:/tmp/x.sock") == .unix(path: "/tmp/x.sock"))
        #expect(throws: LiveError.self) { try H4Endpoint(parsing: "tcp:host") }
        #expect(throws: LiveError.self) { try H4Endpoint(parsing: "udp:1.2.3.4:5") }
        #expect(throws: LiveError.self) { try H4Endpoint(parsing: "unix:") }
    }
    #endif
}

#if os(Linux)
/// The proxy between two socketpairs: what one side writes reaches the other unchanged, and
/// every complete packet is recorded with its direction.
@Suite("H4 proxy (socketpairs)")
struct H4ProxyTests {
    struct Side {
        var outer: Int32  // the host stack's or the controller's end
        var inner: Int32  // the proxy's end
        init() {
            var fds: [Int32] = [0, 0]
            _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
            outer = fds[0]
            inner = fds[1]
        }
        func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { Glibc.send(outer, $0.baseAddress, $0.count, 0) } }
        /// Everything queued for `outer` now.
        func drain() -> [UInt8] {
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(outer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n <= 0 { break }
                all += buffer[0..<n]
            }
            return all
        }
        func closeAll() {
            close(outer)
            close(inner)
        }
    }

    static let hostBytes: [UInt8] = [0x01, 0x03, 0x0C, 0x00] + [0x02, 0x01, 0x00, 0x02, 0x00, 0xAA, 0xBB]
    static let controllerBytes: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00] + [0x04, 0x13, 0x00]

    func run(_ hostBytes: [UInt8], _ controllerBytes: [UInt8], options: LiveCaptureOptions = LiveCaptureOptions(), closeHost: Bool = true)
        throws -> (records: [CaptureRecord], summary: H4ProxySummary, atController: [UInt8], atHost: [UInt8], problems: [String])
    {
        let host = Side(), controller = Side()
        defer {
            host.closeAll()
            controller.closeAll()
        }
        var stop: [Int32] = [0, 0]
        _ = pipe(&stop)
        defer {
            close(stop[0])
            close(stop[1])
        }
        controller.send(controllerBytes)
        host.send(hostBytes)
        if closeHost { shutdown(host.outer, Int32(SHUT_WR)) } else { _ = [UInt8(1)].withUnsafeBytes { write(stop[1], $0.baseAddress, 1) } }
        var records: [CaptureRecord] = []
        var problems: [String] = []
        let summary = try runH4Proxy(
            host: host.inner, controller: controller.inner, stopFD: stop[0], options: options,
            write: { records.append($0) }, problem: { problems.append($0.message) })
        return (records, summary, controller.drain(), host.drain(), problems)
    }

    @Test func forwardsUnchangedAndRecordsBothDirections() throws {
        let r = try run(Self.hostBytes, Self.controllerBytes)
        #expect(r.atController == Self.hostBytes)
        #expect(r.atHost == Self.controllerBytes)
        #expect(r.summary.stoppedBy == .hostClosed)
        #expect(r.summary.sent == 2 && r.summary.received == 2)
        let sent = r.records.filter { $0.direction == .sent }
        let received = r.records.filter { $0.direction == .received }
        #expect(sent.map(\.kind) == [.command, .acl])
        #expect(sent.map(\.payload) == [[0x03, 0x0C, 0x00], [0x01, 0x00, 0x02, 0x00, 0xAA, 0xBB]])
        #expect(received.map(\.kind) == [.event, .event])
        #expect(r.records.map(\.frame) == [1, 2, 3, 4])
    }

    @Test func anUnknownTypeStopsRecordingThatDirectionButNotForwarding() throws {
        let garbage: [UInt8] = [0x01, 0x03, 0x0C, 0x00, 0x99, 0x01, 0x02, 0x03]
        let r = try run(garbage, Self.controllerBytes)
        #expect(r.atController == garbage)
        #expect(r.records.filter { $0.direction == .sent }.count == 1)
        #expect(r.records.filter { $0.direction == .received }.count == 2)
        #expect(r.summary.framingFailures.count == 1)
        #expect(r.problems.first?.contains("host → controller: unknown H4 packet type 0x99 at byte 4") == true)
    }

    @Test func countAndStopSignal() throws {
        let counted = try run(Self.hostBytes, Self.controllerBytes, options: LiveCaptureOptions(count: 1))
        #expect(counted.records.count == 1)
        #expect(counted.summary.stoppedBy == .count)
        let stopped = try run(Self.hostBytes, Self.controllerBytes, closeHost: false)
        #expect(stopped.summary.stoppedBy == .signal)
    }
}
#endif
