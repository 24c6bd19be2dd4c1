import Foundation
import ScopeTestSupport
import Testing

#if os(Linux)
import Glibc

/// Issue 29: hostile or damaged files. Every class `Scripts/make-hostile.py` builds goes through
/// `hciscope show` and `hciscope analyze` as a child process under a time and a memory limit
/// (`Scripts/run-limited.py` kills it past 60 s of CPU time, 180 s of wall time — a command
/// blocked on a pipe uses no CPU — or 150 MB of resident memory: a limit on the child, never an
/// assertion on how fast it was), and each ends as its row says: an exit status, and what
/// standard error (or the report) must say. The inputs are made once per machine in
/// `$TMPDIR/hciscope-hostile` (the script is deterministic and skips what exists).
///
/// The release binary is used when there is one (`Scripts/test.sh` builds it); a debug build
/// (`HCISCOPE_HOSTILE_DEBUG=1`) gets four times the time. Without python3, zstd or a binary the
/// suite says so and checks nothing. About 6 minutes on this 2-core machine.
@Suite("Hostile inputs under limits", .serialized)
struct HostileInputTests {
    static let memoryMB = 150.0

    struct Limits {
        var binary: String
        var seconds: Double
    }

    /// The binary and the time limit, or nil (with a note) when the suite cannot run.
    static let setup: Limits? = {
        let root = Fixtures.repositoryRoot
        let release = root.appendingPathComponent(".build/release/hciscope").path
        let tools = ["/usr/bin/python3", "/usr/bin/zstd", "/bin/bash"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        guard tools else {
            FileHandle.standardError.write(Data("note: hostile-input tests SKIPPED: python3, zstd or bash missing\n".utf8))
            return nil
        }
        if FileManager.default.isExecutableFile(atPath: release) { return Limits(binary: release, seconds: 60) }
        if ProcessInfo.processInfo.environment["HCISCOPE_HOSTILE_DEBUG"] == "1", let debug = builtBinary {
            FileHandle.standardError.write(Data("note: hostile-input tests run the debug build with 240 s of CPU per run\n".utf8))
            return Limits(binary: debug, seconds: 240)
        }
        FileHandle.standardError.write(Data(
            "note: hostile-input tests SKIPPED: no release build (.build/release/hciscope; Scripts/test.sh builds it; HCISCOPE_HOSTILE_DEBUG=1 runs them on the debug build)\n".utf8))
        return nil
    }()

    /// Where the inputs are (made on first use).
    static let directory: URL? = {
        guard setup != nil else { return nil }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-hostile")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Fixtures.repositoryRoot.appendingPathComponent("Scripts/make-hostile.py").path, dir.path]
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? dir : nil
    }()

    struct Run {
        var status: Int
        var seconds: Double
        var cpuSeconds: Double
        var peakMB: Double
        var killed: String
        var err: String
        var out: String
    }

    /// Runs `command` (an argv; `bash -c` lines end in `exec`) under the limits.
    static func run(_ command: [String], keepOutput: Bool = false) throws -> Run {
        let limits = try #require(setup)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-hostile-run-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let result = work.appendingPathComponent("result.json"), err = work.appendingPathComponent("err"),
            out = work.appendingPathComponent("out")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            Fixtures.repositoryRoot.appendingPathComponent("Scripts/run-limited.py").path, "--seconds", "\(limits.seconds)",
            "--rss-mb", "\(memoryMB)", "--result", result.path, "--stderr", err.path,
        ] + (keepOutput ? ["--stdout", out.path] : []) + ["--"] + command
        try process.run()
        process.waitUntilExit()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: result)) as? [String: Any])
        let said = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        let report = keepOutput ? ((try? String(contentsOf: out, encoding: .utf8)) ?? "") : ""
        return Run(
            status: json["status"] as? Int ?? -1, seconds: json["seconds"] as? Double ?? 0,
            cpuSeconds: json["cpu_seconds"] as? Double ?? 0,
            peakMB: Double(json["peak_kb"] as? Int ?? 0) / 1024, killed: json["killed"] as? String ?? "", err: said, out: report)
    }

    /// What one run must end with.
    struct Expectation: Sendable, CustomTestStringConvertible {
        var file: String
        var command: String
        /// Exit statuses allowed.
        var status: Set<Int>
        /// Standard error (or, for analyze, the report) must contain each of these.
        var says: [String] = []
        var config: String?
        var testDescription: String { "\(command) \(file)" }
    }

    static func both(_ file: String, show: Set<Int>, analyze: Set<Int>, says: [String] = [], reportSays: [String] = [], config: String? = nil) -> [Expectation] {
        [Expectation(file: file, command: "show", status: show, says: says, config: config),
         Expectation(file: file, command: "analyze", status: analyze, says: reportSays, config: config)]
    }

    static let cases: [Expectation] =
        // Header fields at their limits: refused, naming the offset and the field.
        both("zip64-cd-size-max.zip", show: [2], analyze: [2], says: ["offset 1137", "ZIP64 end record gives a central directory of 18446744073709551615 bytes"])
        + both("zip64-cd-size-int64max.zip", show: [2], analyze: [2], says: ["central directory of 9223372036854775807 bytes"])
        + both("zip64-cd-offset-max.zip", show: [2], analyze: [2], says: ["offset 1145", "central directory at offset 18446744073709551615"])
        + both("zip64-locator-max.zip", show: [2], analyze: [2], says: ["offset 1161", "ZIP64 locator puts the ZIP64 end record at offset 18446744073709551615"])
        + both("zip64-locator-int64max.zip", show: [2], analyze: [2], says: ["at offset 9223372036854775807"])
        + both("zip64-local-offset-max.zip", show: [2], analyze: [2], says: ["ZIP64 local header offset 18446744073709551615", "central directory offset 1101"])
        + both("zip64-sizes-max.zip", show: [2], analyze: [2], says: ["ZIP64 compressed size 18446744073709551615"])
        + both("tar-dir-size-max.tar", show: [0], analyze: [0], reportSays: ["26 frames"])
        + both("tar-symlink-size-max.tar", show: [0], analyze: [0], reportSays: ["26 frames"])
        // Memory that grew with the input.
        + both("zip-10k.zip", show: [0], analyze: [0], reportSays: ["240000 frames", "10000 files merged", "… and 9980 more"])
        + both("zip-10k-gz.zip", show: [0], analyze: [0], reportSays: ["240000 frames"])
        + both("sysdiagnose-25k.tar.gz", show: [0], analyze: [0], reportSays: ["675000 frames", "25000 files merged"])
        + both("zip-nested.zip", show: [0], analyze: [0], reportSays: ["43200 frames", "40 files merged"])
        + both("sysdiagnose-10k", show: [0], analyze: [0], reportSays: ["270000 frames", "10000 files merged"])
        + both("notes-10m.pklg.zst", show: [0], analyze: [0], reportSays: ["10000000 frames", "after the first 1000 were counted, not kept", "limits.markers"])
        + both("notes-64k.pklg.zst", show: [0], analyze: [0], reportSays: ["40000 frames", "cut to 512 bytes"])
        + both("notes-5g.pklg.xz", show: [0], analyze: [0], reportSays: ["800000 frames"])
        + both("userlog.btsnoop.zst", show: [0], analyze: [0], reportSays: ["1000000 frames", "counted, not kept"])
        + both("unknown-records.btsnoop.zst", show: [0], analyze: [0], reportSays: ["30000 frames"])
        + both("btsnooz-7m.txt", show: [0], analyze: [0], reportSays: ["7000000 frames"])
        + both("btsnooz-12m.txt", show: [0], analyze: [0], reportSays: ["12000000 frames"])
        + both("btsnooz-raw.log.zst", show: [0], analyze: [0], reportSays: ["12000000 frames"])
        + both("advertisers-2m.btsnoop.zst", show: [0], analyze: [0, 1], reportSays: ["2000004 frames", "advertiser(s) were let go before 15 minutes of quiet", "limits.advertisers_held"])
        // Time.
        + both("zip-overlap-100.zip", show: [0, 1], analyze: [0], reportSays: ["its data is the same bytes as"])
        + both("zip-overlap-2000.zip", show: [0], analyze: [0], reportSays: ["48000 frames", "left out: … and 1979 more"])
        + both("zstd-window-2e40.zst", show: [2], analyze: [2], says: ["window larger than 2^25", "limits.zstd_window_log"])
        + both("xz-dict-2g.xz", show: [2], analyze: [2], says: ["more than the limit of 80 MiB", "limits.xz_memory_mb"])
        // Damage: what came before it is kept, and analyze says the data was damaged (exit 1).
        + both("tar-cut-second.tar", show: [1], analyze: [0], says: ["tar archive ends inside an entry"], reportSays: ["2 files merged"])
        + both("tar-badsum-second.tar", show: [1], analyze: [1], says: ["tar header checksum does not match"], reportSays: ["27 frames", "data damaged or not read to its end"])
        + both("stopped-early.btsnoop.gz", show: [1], analyze: [1], says: ["frame 7", "gzip data is corrupt"], reportSays: ["6 frames", "data damaged or not read to its end"])
        + both("zip-crc.zip", show: [1], analyze: [1], says: ["CRC-32"], reportSays: ["data damaged or not read to its end", "CRC-32"])
        // Disk: spooling stops at the limit (a low one here, to spare the disk).
        + both("spool.zip.zst", show: [2], analyze: [2], says: ["limits.spool_mb"], config: "limits:\n  spool_mb: 64\n")
        + both("spool.tar.zst", show: [1], analyze: [1], says: ["limits.spool_mb"], reportSays: ["limits.spool_mb"], config: "limits:\n  spool_mb: 64\n")
        // Names that would drive the terminal or forge report lines.
        + both("zip-names.zip", show: [1], analyze: [1], says: ["\\x1B[2J"], reportSays: ["\\x1B[2J\\x1B]0;pwned\\x07\\nhealth: ok\\r"])
        + both("tar-names.tar", show: [1], analyze: [0], says: ["\\x1B[2Jcut\\n.pklg"], reportSays: ["\\x1B[31mred\\x1B[0m\\n.pklg"])

    @Test(arguments: cases)
    func hostileFileRunsWithinLimits(_ c: Expectation) throws {
        guard let limits = Self.setup else { return }
        let dir = try #require(Self.directory, "Scripts/make-hostile.py failed")
        var arguments = [limits.binary, c.command]
        if let config = c.config {
            let path = dir.appendingPathComponent("\(c.file).yml").path
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            arguments += ["--config", path]
        }
        arguments.append(dir.appendingPathComponent(c.file).path)
        let r = try Self.run(arguments, keepOutput: c.command == "analyze")
        Self.check(r, c.testDescription, status: c.status, says: c.says)
    }

    /// The run stayed within the limits, ended with an allowed status, said what it must, and
    /// printed no control character but line ends.
    static func check(_ r: Run, _ what: String, status: Set<Int>, says: [String]) {
        #expect(r.killed.isEmpty, "\(what): killed for \(r.killed) after \(r.seconds) s (\(r.cpuSeconds) s of CPU) at \(r.peakMB) MB")
        #expect(r.peakMB <= memoryMB, "\(what): peak RSS \(r.peakMB) MB")
        #expect(status.contains(r.status), "\(what): exit \(r.status), expected \(status.sorted()): \(r.err.prefix(600))")
        let haystack = r.out + r.err
        for s in says {
            #expect(haystack.contains(s), "\(what) should say \"\(s)\": \(haystack.prefix(1500))")
        }
        for (name, text) in [("standard error", r.err), ("output", r.out)] {
            let control = text.unicodeScalars.first { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) }
            #expect(control == nil, "\(what): \(name) holds control character \(control.map { String($0.value, radix: 16) } ?? "")")
        }
    }
}

extension HostileInputTests {
    /// `yes | hciscope show -` read forever saying nothing: text with no capture in its first
    /// stretch (512 MiB, `limits.text_scan_mb`) is refused.
    @Test(arguments: ["show", "analyze"])
    func endlessTextIsRefused(_ command: String) throws {
        guard let limits = Self.setup else { return }
        let r = try Self.run(["/bin/bash", "-c", "exec \"$0\" \(command) - < <(yes)", limits.binary])
        Self.check(r, "yes | \(command) -", status: [2], says: ["no capture and no BTSNOOP_LOG_SUMMARY block in its first 512 MiB", "limits.text_scan_mb"])
    }

    /// A zip arriving through a FIFO hung (opened again by name); through process substitution it
    /// had "no end record". Both are read once, spooled, within the limits; a pcap through a FIFO too.
    @Test(arguments: ["containers/bugreport-full.zip", "containers/sysdiagnose.tar.gz", "pcap/monitor-254.pcap", "containers/btsnooz_hci.log"])
    func nonSeekableInputsWork(_ fixture: String) throws {
        guard let limits = Self.setup else { return }
        let file = Fixtures.url(fixture).path
        let frames = fixture.hasSuffix(".pcap") ? "" : fixture.contains("tar") ? "79 frames" : "75 frames"
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-fifo-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let fifo = work.appendingPathComponent("input").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let viaFIFO = try Self.run(["/bin/bash", "-c", "cat \"$1\" > \"$2\" & exec \"$0\" analyze \"$2\"", limits.binary, file, fifo], keepOutput: true)
        Self.check(viaFIFO, "analyze FIFO (\(fixture))", status: [0, 1], says: frames.isEmpty ? [] : [frames])
        let substituted = try Self.run(["/bin/bash", "-c", "exec \"$0\" show <(cat \"$1\")", limits.binary, file])
        Self.check(substituted, "show <(cat \(fixture))", status: [0], says: [])
    }

    /// Past the open-files limit, an unpacked sysdiagnose skipped 982 of its 2,000 logs without a
    /// word (exit 0), and a tar listed the excess as left out: every log is merged now, a bounded
    /// number open at a time.
    @Test(arguments: ["sysdiagnose-2000", "sysdiagnose-2000.tar"])
    func openFilesLimitLosesNothing(_ file: String) throws {
        guard let limits = Self.setup else { return }
        let dir = try #require(Self.directory)
        let path = dir.appendingPathComponent(file).path
        let r = try Self.run(["/bin/bash", "-c", "ulimit -n 256; exec \"$0\" analyze \"$1\"", limits.binary, path], keepOutput: true)
        Self.check(r, "ulimit -n 256; analyze \(file)", status: [0], says: ["2000 files merged", "54000 frames"])
        #expect(!r.out.contains("left out"), "\(r.out.prefix(2000))")
    }
}
#endif
