#if os(Linux)
import Dispatch
import Foundation
import Glibc
import ScopeCapture
import ScopeCommands
import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

/// `hciscope capture --h4-proxy` end to end with Bumble (PyPI `bumble`): a Bumble controller
/// served as H4 over TCP behind the proxy, a Bumble host connecting through it on a UNIX
/// socket, scanning, connecting to a second Bumble device on the same LocalLink and reading
/// its Device Name over ATT (Scripts/bumble-h4-session.py). The session succeeding proves the
/// bytes went through unchanged; the recorded file must decode to the same session.
@Suite("capture --h4-proxy with Bumble", .serialized)
struct CaptureProxyTests {
    static let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/bumble-h4-session.py").path

    /// True when python3 can import bumble; otherwise says loudly why the test is skipped.
    static func bumbleAvailable() -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import bumble"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus == 0 { return true }
        } catch {}
        FileHandle.standardError.write(Data(
            "\n*** SKIPPED capture --h4-proxy Bumble test: `python3 -c 'import bumble'` failed; install it with `pip install bumble` (Scripts/setup.sh --test does) ***\n\n".utf8))
        return false
    }

    /// A TCP port free right now on 127.0.0.1.
    static func freePort() -> UInt16? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return ok ? UInt16(bigEndian: address.sin_port) : nil
    }

    final class Outcome: @unchecked Sendable {
        var status: Int32?  // written before `done` is signalled, read after
        let done = DispatchSemaphore(value: 0)
    }

    @Test(arguments: ["btsnoop", "pcap"])
    func bumbleSessionThroughTheProxyIsRecordedAndDecodes(ext: String) throws {
        guard Self.bumbleAvailable() else { return }
        let port = try #require(Self.freePort())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-h4-\(getpid())-\(ext)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socketPath = directory.appendingPathComponent("p.sock").path
        let output = directory.appendingPathComponent("session.\(ext)").path

        // The proxy, in-process on its own thread (it blocks in poll).
        let console = CapturedConsole()
        let outcome = Outcome()
        let arguments = ["--h4-proxy", "unix:\(socketPath)", "--controller", "tcp:127.0.0.1:\(port)", "-w", output, "-q", "--analyze"]
        let printer = console.console
        let thread = Thread {
            outcome.status = (try? Capture.parse(arguments))?.execute(console: printer) ?? 64
            outcome.done.signal()
        }
        thread.start()
        // Wait until it listens.
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socketPath) { usleep(20_000) }
        #expect(FileManager.default.fileExists(atPath: socketPath), "the proxy did not start listening: \(console.err)")

        // The Bumble controller (behind the proxy), its peer and the host (through the proxy).
        let bumble = Process()
        bumble.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        bumble.arguments = ["python3", Self.script, "tcp-server:127.0.0.1:\(port)", "unix:\(socketPath)"]
        let out = Pipe(), err = Pipe()
        bumble.standardOutput = out
        bumble.standardError = err
        try bumble.run()
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaints = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        bumble.waitUntilExit()
        #expect(bumble.terminationStatus == 0, "Bumble's session failed:\n\(said)\n\(complaints)")
        #expect(said.contains("RESULT device_name=hciscope-peer"))
        #expect(said.contains("SESSION OK"))

        let finished = outcome.done.wait(timeout: .now() + 30) == .success
        try #require(finished, "the proxy did not stop after the host closed: \(console.err)")
        #expect(outcome.status == 0, "\(console.err)")
        #expect(console.err.contains("stopped by the host closing its connection"), "\(console.err)")

        // The file decodes to the same session.
        var reader = try CaptureReader.open(path: output)
        #expect(reader.format == (ext == "pcap" ? .pcapH4PHDR : .btsnoopH4))
        var dissector = Dissector()
        var commands: [UInt16] = []
        var subevents: [UInt8] = []
        var attSent: [UInt8] = []
        var attReceived: [(UInt8, [UInt8])] = []
        var malformed = 0
        var records = 0
        while let record = reader.next() {
            records += 1
            let frame = dissector.decode(record)
            malformed += frame.allMalformations.count
            switch frame.packet {
            case .command(let c):
                #expect(record.direction == .sent)
                commands.append(c.opcode.rawValue)
            case .event(let e):
                #expect(record.direction == .received)
                if let s = e.subevent { subevents.append(s.rawValue) }
            default: break
            }
            for pdu in frame.pdus {
                if case .att(let att, _) = pdu.upper {
                    if record.direction == .sent { attSent.append(att.opcode.rawValue) } else { attReceived.append((att.opcode.rawValue, Array(att.value))) }
                }
            }
        }
        #expect(reader.diagnostics.isEmpty, "\(reader.diagnostics)")
        #expect(malformed == 0)
        #expect(console.err.contains("\(records) frames"), "summary line and file disagree: \(console.err)")
        #expect(commands.first == 0x0C03, "HCI Reset first")
        // LE Set (Extended) Scan Enable, on then off; LE (Extended) Create Connection.
        #expect(commands.contains(0x2042) || commands.contains(0x200C))
        #expect(commands.contains(0x2043) || commands.contains(0x200D))
        // Advertising report (legacy 0x02 or extended 0x0D), connection complete (0x01 / 0x0A).
        #expect(subevents.contains(0x0D) || subevents.contains(0x02))
        #expect(subevents.contains(0x01) || subevents.contains(0x0A))
        // ATT Read Request and its Read Response carrying the peer's name.
        #expect(attSent.contains(0x0A))
        #expect(attReceived.contains { $0.0 == 0x0B && $0.1 == Array("hciscope-peer".utf8) })
        // Disconnect command (0x0406) and Disconnection Complete are there too.
        #expect(commands.contains(0x0406))

        // --analyze: the radio-usage summary of the recorded file on standard output.
        #expect(console.out.contains("hciscope "), "no report: \(console.out)")
        #expect(console.out.contains("1 scan session(s), 1 device(s), 1 connection(s)"), "\(console.out)")
        #expect(console.out.contains("Headline figures"))
        #expect(console.out.contains("Rules ("))
    }

    @Test func optionsThatDoNotGoTogetherAreRefused() {
        #expect(throws: (any Error).self) { try Capture.parse(["--h4-proxy", "tcp::9000", "-w", "x.btsnoop"]) }
        #expect(throws: (any Error).self) { try Capture.parse(["-w", "x.btsnoop", "-W", "3"]) }
        #expect(throws: (any Error).self) { try Capture.parse(["-w", "-", "-C", "1"]) }
        #expect(throws: (any Error).self) { try Capture.parse(["--h4-proxy", "tcp::9000", "--controller", "tcp::9001", "-i", "0", "-w", "x"]) }
    }

    @Test func aBadEndpointIsExplained() throws {
        let console = CapturedConsole()
        let status = try Capture.parse(["--h4-proxy", "udp:1.2.3.4:5", "--controller", "tcp::9001", "-w", "/tmp/never.btsnoop", "-q"])
            .execute(console: console.console)
        #expect(status == 2)
        #expect(console.err.contains("unknown endpoint") && console.err.contains("fix: write tcp:HOST:PORT"))
    }
}
#endif
