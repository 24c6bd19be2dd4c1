import ArgumentParser
import ScopeCapture
import ScopeCore
import ScopeDecode

/// `hciscope show`: a readable (or JSON Lines) dump of every frame.
package struct Show: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the frames of a capture, decoded (btmon style, or JSON Lines with --json).",
        discussion: """
            Formats are recognised by content: btsnoop (1001, 1002, 2001), pcap and pcapng (link types \
            187, 201, 254) and Apple PacketLogger (.pklg, both byte orders).
            Exit status: 0 the file was read entirely, 1 it was read with errors (each reported on \
            standard error with frame and offset), 2 it could not be read at all.
            """)

    @Argument(help: "Capture file to read ('-' for standard input).")
    var positionalFile: String?

    @Option(name: .customShort("r"), help: "Capture file to read, as in tcpdump/tshark ('-r -' reads standard input).")
    var read: String?

    /// The one input, from the argument or -r.
    var file: String { read ?? positionalFile ?? "-" }

    package func validate() throws {
        if read != nil && positionalFile != nil { throw ValidationError("give the capture once: as an argument or with -r") }
        if read == nil && positionalFile == nil { throw ValidationError("which capture? give a file (or '-' for standard input)") }
    }

    @Flag(name: .shortAndLong, help: "Print the decoded fields of every frame beneath its header line.")
    var verbose = false

    @Flag(help: "Print JSON Lines, one object per frame (keys documented in docs/JSON.md).")
    var json = false

    @Option(help: "Only frames of this controller index.")
    var adapter: UInt16?

    @Option(help: "Only frames about this connection handle (decimal or 0x-hex).", transform: parseInteger)
    var handle: UInt16?

    @Option(help: "Only frames naming this device address (aa:bb:cc:dd:ee:ff).", transform: parseAddress)
    var address: BDAddr?

    @Option(help: "Only frames carrying this layer: att, smp, adv, hci, l2cap (repeatable).")
    var layer: [LayerFilter] = []

    @Option(help: "Only frames in this range: N, A-B, A- or -B (1-based, inclusive).", transform: FrameRange.parse)
    var frames: FrameRange?

    @Option(help: "Configuration (YAML) whose limits apply to reading. Default: ./hciscope.yml when present.")
    var config: String?

    package init() {}

    package func run() throws {
        let status = execute(console: .standard)
        if status != 0 { throw ExitCode(status) }
    }

    /// Runs the command against `console`; returns the exit status.
    package func execute(console: Console) -> Int32 {
        let options: CaptureReader.Options
        switch ConfigFile.readerOptions(config, command: "show") {
        case .success(let o): options = o
        case .failure(let problem):
            console.err(problem.message)
            return 2
        }
        var sink = DiagnosticSink(console: console)
        guard var input = sink.open(file, options: options) else { return 2 }
        var dissector = Dissector()
        var text = FrameTextRenderer(verbose: verbose)
        var jsonLines = FrameJSONRenderer()
        var out = OutputBuffer(console: console)
        // The options read once: each read of an ArgumentParser property costs hundreds of
        // instructions, and the loop below runs once per frame.
        let json = json
        let lastFrame = frames?.upper
        let filter = FrameFilter(adapter: adapter, handle: handle, address: address, layers: layer, frames: frames)
        var malformedFrames = 0
        var stoppedEarly = false
        while let record = input.next() {
            // Relative times count from the capture's first frame, whatever the filters show.
            if text.firstTimestamp == nil { text.firstTimestamp = record.timestamp }
            let frame = dissector.decode(record)
            if !frame.allMalformations.isEmpty { malformedFrames += 1 }
            sink.report(input.drainDiagnostics())
            if let upper = lastFrame, record.frame > upper {
                stoppedEarly = true
                break
            }
            guard filter.accepts(frame) else { continue }
            if json {
                jsonLines.render(frame, into: &out.text)
            } else {
                text.render(frame, into: &out.text)
            }
            out.flushIfLarge()
        }
        out.flush()
        sink.report(input.drainDiagnostics())
        for m in dissector.finish() {
            sink.report([Diagnostic(.warning, layer: m.layer, file: file, message: m.message)])
        }
        if malformedFrames > 0 {
            sink.note("\(file): \(malformedFrames) frame\(malformedFrames == 1 ? "" : "s") with malformed content (shown in the output)")
        }
        // Past the last frame asked for, the rest of the file is not read: judge what was.
        return stoppedEarly ? (sink.errors > 0 ? 1 : 0) : sink.exitStatus(for: input)
    }
}

/// `--layer` values.
enum LayerFilter: String, ExpressibleByArgument, CaseIterable {
    case att, smp, adv, hci, l2cap
}

/// `--frames` values.
struct FrameRange: Sendable {
    var lower: Int
    var upper: Int?

    func contains(_ n: Int) -> Bool { n >= lower && (upper.map { n <= $0 } ?? true) }

    static func parse(_ text: String) throws -> FrameRange {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        func number(_ s: String) throws -> Int {
            guard let n = Int(s), n >= 1 else { throw ValidationError("'\(text)' is not a frame range (N, A-B, A- or -B)") }
            return n
        }
        switch parts.count {
        case 1:
            let n = try number(parts[0])
            return FrameRange(lower: n, upper: n)
        case 2:
            let lower = parts[0].isEmpty ? 1 : try number(parts[0])
            let upper = parts[1].isEmpty ? nil : try number(parts[1])
            if let upper, upper < lower { throw ValidationError("frame range '\(text)' ends before it starts") }
            return FrameRange(lower: lower, upper: upper)
        default:
            throw ValidationError("'\(text)' is not a frame range (N, A-B, A- or -B)")
        }
    }
}

func parseInteger(_ text: String) throws -> UInt16 {
    let value: UInt16? = text.lowercased().hasPrefix("0x") ? UInt16(text.dropFirst(2), radix: 16) : UInt16(text)
    guard let value else { throw ValidationError("'\(text)' is not a 16-bit number (decimal or 0x-hex)") }
    return value
}

func parseAddress(_ text: String) throws -> BDAddr {
    guard let a = BDAddr(text) else { throw ValidationError("'\(text)' is not a Bluetooth address (aa:bb:cc:dd:ee:ff)") }
    return a
}

/// The conjunction of `show`'s filters.
struct FrameFilter {
    var adapter: UInt16?
    var handle: UInt16?
    var address: BDAddr?
    var layers: [LayerFilter]
    var frames: FrameRange?

    func accepts(_ frame: DecodedFrame) -> Bool {
        let r = frame.record
        if let frames, !frames.contains(r.frame) { return false }
        if let adapter, r.adapter != adapter { return false }
        if let handle, FrameFacts.handle(frame) != handle { return false }
        if let address, !FrameFacts.addresses(frame).contains(address) { return false }
        if !layers.isEmpty, !layers.contains(where: { FrameFacts.carries($0, frame) }) { return false }
        return true
    }
}

/// Facts about a frame used by filters.
enum FrameFacts {
    static func handle(_ frame: DecodedFrame) -> UInt16? {
        switch frame.packet {
        case .event(let e): return e.handle
        case .acl(let h), .vendorDebugACL(let h): return h?.handle
        case .sco(let h): return h?.handle
        case .iso(let h): return h?.handle
        default: return nil
        }
    }

    static func addresses(_ frame: DecodedFrame) -> [BDAddr] {
        switch frame.packet {
        case .command(let c): return c.addresses
        case .event(let e): return e.addresses
        default: return []
        }
    }

    static func carries(_ layer: LayerFilter, _ frame: DecodedFrame) -> Bool {
        switch layer {
        case .hci:
            if case .command = frame.packet { return true }
            if case .event = frame.packet { return true }
            return false
        case .adv:
            if case .event(let e) = frame.packet { return !e.advertisingReports.isEmpty }
            if case .command(let c) = frame.packet { return c.opcode.isAdvertisingOrScanning }
            return false
        case .l2cap:
            return !frame.pdus.isEmpty
        case .att:
            return frame.pdus.contains { if case .att = $0.upper { return true } else { return false } }
        case .smp:
            return frame.pdus.contains { if case .smp = $0.upper { return true } else { return false } }
        }
    }
}

extension HCIOpcode {
    /// LE commands about advertising, scanning and periodic advertising sync (for `--layer adv`):
    /// OGF 0x08, OCF 0x0006–0x000C (legacy), 0x0035–0x0042 except the extended create connection,
    /// 0x0044–0x0048 (periodic sync), 0x007F (extended advertising parameters v2).
    var isAdvertisingOrScanning: Bool {
        guard ogf == 0x08 else { return false }
        switch ocf {
        case 0x0006...0x000C, 0x0035...0x0042, 0x0044...0x0048, 0x007F: return true
        default: return false
        }
    }
}
