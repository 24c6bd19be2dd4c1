import Foundation
import ScopeCapture
import ScopeCommands
import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

/// Runs `hciscope redact ARGS` in-process.
func redact(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let command = try Redact.parse(arguments)
    let captured = CapturedConsole()
    let status = try command.execute(console: captured.console)
    return (status, captured.out, captured.err)
}

/// The text report of `hciscope analyze FILE`, with addresses and the file name masked and its
/// lines sorted (pseudonyms may change the order of devices listed by address).
func maskedReport(_ path: String) throws -> (status: Int32, lines: [String]) {
    let command = try Analyze.parse([path, "--no-color", "--fail-on", "info"])
    let captured = CapturedConsole()
    let status = command.execute(console: captured.console, isTerminal: false)
    let address = /[0-9a-f]{2}(:[0-9a-f]{2}){5}/
    // pcapng is written as pcap of the same link type (libpcap's dumper writes pcap only), and
    // btsnoop 1001 as 1002 (README: the nearest format hciscope writes).
    let lines = captured.out.replacingOccurrences(of: path, with: "FILE").replacingOccurrences(of: "  pcapng-", with: "  pcap-")
        .replacingOccurrences(of: "  btsnoop-1001,", with: "  btsnoop-1002,").split(separator: "\n").map {
        String($0).replacing(address, with: "ADDR")
    }
    return (status, lines.sorted())
}

@Suite("Redact", .serialized)
struct RedactTests {
    static let key = "000102030405060708090a0b0c0d0e0f"

    func temp(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-redact-\(getpid())-\(name)").path
    }

    func records(_ path: String) throws -> [CaptureRecord] {
        var reader = try CaptureReader.open(path: path)
        var out: [CaptureRecord] = []
        while let r = reader.next() { out.append(r) }
        return out
    }

    /// The shipped pairing capture: LE legacy pairing keys distributed over SMP, LTK handed to the
    /// controller. After redaction no key byte remains, lengths are unchanged, addresses are
    /// pseudonyms that keep the random-address bits, and the mapping is consistent.
    @Test func shippedCaptureLosesItsKeysAndKeepsItsShape() throws {
        let out = temp("sample.btsnoop")
        defer { unlink(out) }
        let run = try redact([shippedSample, out, "--key", Self.key])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.contains("secret field(s) zeroed"))
        let before = try records(shippedSample), after = try records(out)
        #expect(before.count == after.count)
        var dissector = Dissector()
        var secretsSeen = 0
        for (a, b) in zip(before, after) {
            #expect(a.payload.count == b.payload.count && a.kind == b.kind && a.timestamp == b.timestamp)
            let frame = dissector.decode(b)
            for pdu in frame.pdus {
                if case .smp(let smp) = pdu.upper, !SecretFields.smp(code: smp.code.rawValue).isEmpty {
                    secretsSeen += 1
                    #expect(pdu.pdu.payload.dropFirst().allSatisfy { $0 == 0 }, "frame \(b.frame): SMP secret left")
                }
            }
            if case .command(let c) = frame.packet, c.opcode.rawValue == 0x2019 || c.opcode.rawValue == 0x201A {
                secretsSeen += 1
                #expect(b.payload.suffix(16).allSatisfy { $0 == 0 }, "frame \(b.frame): LTK left")
            }
            let original = BDAddr("00:aa:01:00:00:00")!.littleEndianBytes
            #expect(!contains(b.payload, original), "frame \(b.frame): address left")
        }
        #expect(secretsSeen >= 6)
        // Same key → same output; another key → other pseudonyms.
        let again = temp("again.btsnoop"), other = temp("other.btsnoop")
        defer { unlink(again); unlink(other) }
        _ = try redact([shippedSample, again, "--key", Self.key])
        _ = try redact([shippedSample, other, "--key", "ffeeddccbbaa99887766554433221100"])
        #expect(FileManager.default.contents(atPath: again) == FileManager.default.contents(atPath: out))
        #expect(FileManager.default.contents(atPath: other) != FileManager.default.contents(atPath: out))
        let mode = try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func keepOUIKeepsTheManufacturerOfPublicAddresses() throws {
        var r = Redactor(options: .init(key: Array(0..<16), keepOUI: true))
        let pub = BDAddr("00:13:e0:49:b9:ca")!
        // Connection Complete (BR/EDR): status, handle, BD_ADDR, link type, encryption.
        let event = CaptureRecord(frame: 1, timestamp: Timestamp(microseconds: 0), direction: .received, kind: .event,
                                  payload: [0x03, 0x0B, 0x00, 0x2A, 0x00] + pub.littleEndianBytes + [0x01, 0x00])
        r.learn(event)
        r.finishLearning()
        let p = try #require(r.pseudonym(of: pub))
        #expect(p != pub && p.value >> 24 == pub.value >> 24)
        #expect(r.redact(event).payload.count == event.payload.count)
        // A resolvable private address keeps its 01 sub-type bits.
        var r2 = Redactor(options: .init(key: Array(0..<16)))
        let rpa = BDAddr("4c:11:22:33:44:55")!
        // LE Advertising Report: subevent, num, event type, address type 1 (random), address, length 0, RSSI.
        let report = CaptureRecord(frame: 1, timestamp: Timestamp(microseconds: 0), direction: .received, kind: .event,
                                   payload: [0x3E, 0x0C, 0x02, 0x01, 0x00, 0x01] + rpa.littleEndianBytes + [0x00, 0xC0])
        r2.learn(report)
        r2.finishLearning()
        #expect(r2.pseudonym(of: rpa).map { $0.value >> 46 } == 0b01)
    }

    @Test func siphashMatchesTheReferenceVector() {
        // SipHash-2-4 paper, Appendix A: key 00..0f, message 00..0e → a129ca6149be45e5.
        #expect(SipHash24(key: Array(0..<16)).hash(Array(0..<15)) == 0xa129_ca61_49be_45e5)
    }

    /// Every capture of the shared corpus: the redacted file gives the same report (addresses
    /// masked): headline figures, rule verdict statuses, findings and their counts. Bytes of
    /// unknown layout are zeroed as by default; names are kept (`--no-names`) because reports
    /// name devices.
    @Test(.timeLimit(.minutes(5)))
    func analysisIsUnchangedByRedactionOverTheCorpus() throws {
        let files = Fixtures.corpusFiles()
        guard !files.isEmpty else { return }
        var compared = 0
        for url in files {
            let out = temp("corpus-" + url.lastPathComponent)
            defer { unlink(out) }
            let run = try redact([url.path, out, "--key", Self.key, "--no-names"])
            if run.status == 2 && !FileManager.default.fileExists(atPath: out) {
                continue  // not an HCI capture (sniffer link types): nothing to redact
            }
            var a = try maskedReport(url.path), b = try maskedReport(out)
            // Android's raw btsnooz records are written out as a btsnoop log: what the report
            // says of their origin (the summary's missing detail, the clock taken from the file's
            // time, the platform it implies, the idle tails a summary cannot show) is gone;
            // everything else stays.
            if try CaptureReader.open(path: url.path).origin.layers.contains(.btsnoozRecords) {
                let origin = ["btsnooz", "health:", "platform:", "btsnoop-1002, ", "idle tail ("]
                a.lines.removeAll { line in origin.contains { line.contains($0) } }
                b.lines.removeAll { line in origin.contains { line.contains($0) } }
                // A single connection's timing line ends with its idle tail, when it has one.
                func withoutIdleTail(_ line: String) -> String {
                    guard let r = line.range(of: ", idle tail ") else { return line }
                    return String(line[..<r.lowerBound])
                }
                a.lines = a.lines.map(withoutIdleTail)
                b.lines = b.lines.map(withoutIdleTail)
            }
            #expect(a.status == b.status, "\(url.lastPathComponent)")
            let only = (a.lines.filter { !b.lines.contains($0) }.prefix(4), b.lines.filter { !a.lines.contains($0) }.prefix(4))
            let same = a.lines == b.lines
            #expect(same, "\(url.lastPathComponent): original only \(only.0), redacted only \(only.1)")
            compared += 1
        }
        print("redact: \(compared) corpus captures compared")
        #expect(compared > (Fixtures.corpusRoot != nil ? 50 : 5))
    }
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
    return false
}
