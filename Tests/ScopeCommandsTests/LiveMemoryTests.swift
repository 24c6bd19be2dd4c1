#if os(Linux)
import Foundation
import Glibc
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

/// `capture --live` on a recording of any length holds flat memory. The release binary records
/// 2 M and then 10 M frames of a busy real session (the corpus's busiest Android log: scans on and
/// off, advertising, connections, GATT) that a local RTT server sends over and over in the monitor
/// TTY framing, with the sender's own timestamps (each pass squeezed into ten minutes at most, so
/// 10 M frames of the corpus log are a day of recording), decoding and analysing every frame for
/// the `--live` panel as it goes. Its peak RSS (from `wait4`) must stay under 50 MB and must not grow with the length.
///
/// The release binary is what `Scripts/test.sh` builds before the tests; the debug build would
/// take minutes for 12 M frames, so without a release build the test says so and does nothing.
@Suite("capture --live memory", .serialized)
struct LiveMemoryTests {
    static let limitBytes = 50 << 20
    /// How much more the 10 M-frame recording may hold at its peak than the 2 M one: the lists
    /// the reports show (the first 1000 scan sessions, requests, connections…) fill up in the
    /// first millions of frames and then stop. Measured: 25.0 MB at 2 M, 28.4 MB at 10 M (and
    /// 24.7 / 27.7 / 28.2 MB at 1 / 5 / 10 M by hand).
    static let growthBytes = 6 << 20
    /// One pass over the source lasts at most this long in sender time (and the next starts a
    /// 600th of it later); shorter when the longest run would not fit in the 32-bit counter of
    /// 1/10 ms (4.97 days), so the sender's clock never wraps.
    static let longestPassMicros: Int64 = 600_000_000
    static let longestRun = 10_000_000

    struct Run {
        var frames: Int
        var peakRSS: Int
        var status: Int32
        var said: String
    }

    /// One pass over the source capture in the monitor framing (TS32 first), the offsets of
    /// the TS32 values and their values for the first pass, and the packet count.
    struct Pass {
        var bytes: [UInt8]
        var stampOffsets: [Int]
        var stamps: [UInt32]
        var name: String
        /// How long a pass lasts in sender time, and the gap before the next.
        var micros: Int64
        var gapMicros: Int64
        /// Offsets of advertising report addresses whose bytes 3–4 take the pass's number: each
        /// pass then names new advertisers.
        var addressOffsets: [Int] = []
    }

    static func source() throws -> Pass? {
        try source([
            Fixtures.corpus("real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log"),
            Fixtures.corpus("real/jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log"),
            Fixtures.project("scenarios/conn.reconnect-by-scan-fires.btsnoop"),
        ])
    }

    /// The first of `candidates` that exists, as a pass.
    static func source(_ candidates: [URL?]) throws -> Pass? {
        for case let url? in candidates where FileManager.default.fileExists(atPath: url.path) {
            var reader = try CaptureReader.open(path: url.path)
            var records: [CaptureRecord] = []
            while let r = reader.next() {
                if r.kind.isHCI && !r.isTruncated { records.append(r) }
            }
            if let pass = pass(of: records, name: url.lastPathComponent) { return pass }
        }
        return nil
    }

    /// `records` as a pass; `rotatingAddresses`: each pass renames the advertisers.
    static func pass(of records: [CaptureRecord], name: String, rotatingAddresses: Bool = false) -> Pass? {
        guard let first = records.first?.timestamp.microseconds, let last = records.last?.timestamp.microseconds else { return nil }
        let span = max(1, last - first)
        let passes = Int64((longestRun + records.count - 1) / max(1, records.count))
        let micros = min(longestPassMicros, 400_000_000_000 / passes * 600 / 601)
        var pass = Pass(bytes: [], stampOffsets: [], stamps: [], name: name, micros: micros, gapMicros: micros / 600)
        for r in records {
            guard let opcode = MonitorOpcode.opcode(for: r.kind, direction: r.direction) else { continue }
            // TS32 counts 1/10 ms.
            let ts32 = UInt32((r.timestamp.microseconds - first) * micros / span / 100)
            pass.stampOffsets.append(pass.bytes.count + 7)
            pass.stamps.append(ts32)
            // LE Advertising Report: the address follows the event header (2 bytes), subevent,
            // report count, event type and address type; the payload follows the 11-byte header.
            if rotatingAddresses, r.kind == .event, r.payload.count > 12, r.payload[0] == 0x3E, r.payload[2] == 0x02 {
                pass.addressOffsets.append(pass.bytes.count + 11 + 6)
            }
            pass.bytes += StreamEncoding.monitorFrame(opcode: opcode, payload: r.payload, ts32: ts32)
        }
        return pass.stamps.isEmpty ? nil : pass
    }

    /// Runs `hciscope capture --rtt 127.0.0.1:PORT -w /dev/null --live` against a server that
    /// sends whole passes (each a pass length and a 600th of it later than the one before) until at
    /// least `frames` frames went out, then closes.
    static func record(binary: String, pass: Pass, frames: Int, directory: URL) throws -> Run {
        let (listener, port) = try #require(loopbackListener())
        defer { close(listener) }

        let errPath = directory.appendingPathComponent("live-\(frames).err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // The peak RSS comes from a small parent that forks and waits for hciscope: a process
        // spawned straight from this one starts with this process's high-water mark (Linux
        // carries the old address space's into `ru_maxrss` at exec, and posix_spawn's child
        // shares this address space until then).
        let rssPath = directory.appendingPathComponent("live-\(frames).rss").path
        let script = """
            import os, sys
            pid = os.fork()
            if pid == 0:
                os.execv(sys.argv[2], sys.argv[2:])
            _, status, usage = os.wait4(pid, 0)
            open(sys.argv[1], "w").write("%d %d" % (usage.ru_maxrss, os.waitstatus_to_exitcode(status)))
            """
        let argv = ["/usr/bin/env", "python3", "-c", script, rssPath, binary, "capture", "--rtt", "127.0.0.1:\(port)", "-w", "/dev/null", "--live"]
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        try #require(posix_spawn(&pid, "/usr/bin/env", &actions, nil, &cArgs, environ) == 0)
        var sent = 0
        var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        if poll(&ready, 1, 30_000) == 1 {
            let fd = accept(listener, nil, nil)
            if fd >= 0 {
                var bytes = pass.bytes
                var round: Int64 = 0
                writing: while sent < frames {
                    // This pass's timestamps: the first pass's, moved on by whole passes.
                    let shift = UInt32(truncatingIfNeeded: round * (pass.micros + pass.gapMicros) / 100)
                    bytes.withUnsafeMutableBytes { out in
                        for (offset, stamp) in zip(pass.stampOffsets, pass.stamps) {
                            out.storeBytes(of: (stamp &+ shift).littleEndian, toByteOffset: offset, as: UInt32.self)
                        }
                        for offset in pass.addressOffsets {
                            out.storeBytes(of: UInt16(truncatingIfNeeded: round).littleEndian, toByteOffset: offset + 3, as: UInt16.self)
                        }
                    }
                    var offset = 0
                    while offset < bytes.count {
                        let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                        if n < 0 {
                            if errno == EINTR { continue }
                            break writing
                        }
                        offset += n
                    }
                    sent += pass.stamps.count
                    round += 1
                }
                close(fd)
            }
        }
        var waitStatus: Int32 = 0
        while waitpid(pid, &waitStatus, 0) < 0 && errno == EINTR {}
        let said = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        let measured = ((try? String(contentsOfFile: rssPath, encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int($0) }
        guard measured.count == 2 else { return Run(frames: sent, peakRSS: 0, status: -1, said: "no measurement (python3?): " + said) }
        // ru_maxrss is in kilobytes on Linux.
        return Run(frames: sent, peakRSS: measured[0] * 1024, status: Int32(measured[1]), said: said)
    }

    @Test func tenMillionFramesFlat() throws {
        try Self.flat(try #require(try Self.source()))
    }

    /// One connection open for the whole recording: a corpus log of a phone's GATT traffic on
    /// links whose setup was captured before it started (ACL only, no Connection Complete, no
    /// Disconnection, every frame an ATT PDU), sent over and over on the same handles, so 10 M
    /// frames are 10 M ATT PDUs on the same 60 connections. The connection rules follow their PDUs
    /// (`ConnectionFollower`); the connections hold at most 50,000 between them. Before that, they
    /// held every PDU: `analyze` of a 1 M-frame replay peaked at 110 MB. Each rediscovery's
    /// requests, MTU exchange, CCCD writes and encryption changes are counted past the first 64
    /// the connection keeps (`BoundedPrefix`, tallies by handle). Measured: 20.3 MB at 2 M and
    /// 20.7 MB at 10 M.
    @Test func connectionOpenForTenMillionFramesFlat() throws {
        guard let pass = try Self.source([Fixtures.corpus("real/syssi__esphome-lumentree__btsnoop_hci.log")]) else {
            FileHandle.standardError.write(Data("note: long-connection live memory test SKIPPED: needs the corpus (HCISCOPE_CORPUS)\n".utf8))
            return
        }
        try Self.flat(pass)
    }

    /// A scan left running among phones whose private addresses rotate: 200 advertisers, each
    /// with a new address every 2,000 reports (a minute of sender time), and every pass new ones,
    /// so 10 M frames name a million advertisers, about 3,000 of them within any 15 minutes. Each
    /// advertiser after the first 1,000 leaves once quiet for 15 minutes. Before that, every one
    /// stayed: a 2 M-frame scan of 200,000 addresses peaked at 134 MB (`bench.sh --addresses`).
    @Test func rotatingAddressesForTenMillionFramesFlat() throws {
        var s = SessionScript()
        s.at(0)
        s.scanParameters(active: false)
        s.scanEnable(true, filterDuplicates: false)
        for i in 0..<20_000 {
            s.at(Double(10 + i * 10))
            // Byte 0: the advertiser; byte 1: its address's epoch; bytes 3–4: the pass; top bits 01.
            let address = BDAddr(value: 0x4000_0000_0000 | UInt64(i / 2000) << 8 | UInt64(i % 200))
            s.advertisingReport(address, addressType: 0x01, data: [0x02, 0x01, 0x1A, 0x03, 0x03, 0x0F, 0x18])
        }
        try Self.flat(try #require(Self.pass(of: s.records, name: "200 rotating advertisers", rotatingAddresses: true)))
    }

    /// Records 2 M and then 10 M frames of `pass` and checks the peak RSS of both.
    static func flat(_ pass: Pass) throws {
        let binary = Fixtures.repositoryRoot.appendingPathComponent(".build/release/hciscope").path
        guard FileManager.default.isExecutableFile(atPath: binary), FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            FileHandle.standardError.write(Data("note: live memory test SKIPPED: no release build (.build/release/hciscope; Scripts/test.sh builds it) or no python3\n".utf8))
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-live-memory-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let short = try record(binary: binary, pass: pass, frames: 2_000_000, directory: directory)
        let long = try record(binary: binary, pass: pass, frames: longestRun, directory: directory)
        for run in [short, long] {
            #expect(run.status == 0, "exit status \(run.status): \(run.said.suffix(400))")
            #expect(run.said.contains("\(run.frames) frames written to /dev/null"), "\(run.said.suffix(400))")
        }
        let mb = { (b: Int) in String(format: "%.1f MB", Double(b) / 1_048_576) }
        FileHandle.standardError.write(Data(
            "live memory (\(pass.name), \(pass.stamps.count) frames a pass): \(short.frames) frames peak RSS \(mb(short.peakRSS)), \(long.frames) frames peak RSS \(mb(long.peakRSS))\n".utf8))
        #expect(long.frames >= 10_000_000)
        #expect(long.peakRSS <= limitBytes, "peak RSS \(mb(long.peakRSS)) after \(long.frames) frames")
        #expect(long.peakRSS <= short.peakRSS + growthBytes, "peak RSS grew from \(mb(short.peakRSS)) (\(short.frames) frames) to \(mb(long.peakRSS)) (\(long.frames) frames)")
    }
}
#endif
