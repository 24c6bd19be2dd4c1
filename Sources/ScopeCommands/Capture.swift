import ArgumentParser
import Foundation
import ScopeAnalysis
import ScopeCapture
import ScopeCore
import ScopeReport
import ScopeRules

// The live layer (monitor socket, libpcap live source, H4 proxy, signalfd) is Linux-only and
// left out of the package elsewhere (macOS, or HCISCOPE_PORTABLE=1 on Linux: Package.swift). The
// command stays, so `--help` is the same everywhere, and says where it cannot record.
#if canImport(ScopeLive)
import Glibc
import ScopeLive
#endif

/// `hciscope capture`: record the Linux Bluetooth monitor channel, the H4 stream between a host
/// stack and a controller (`--h4-proxy`), or what an embedded stack sends: the monitor protocol on
/// a serial port (`--tty`) or an RTT channel (`--rtt`), or a raw H4 byte stream (`--h4-file`).
package struct Capture: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Record HCI traffic live from the Linux Bluetooth monitor channel, an H4 proxy, or an embedded stack's serial port or RTT channel.",
        discussion: """
            Records everything the monitor channel delivers — every controller, index added/removed/opened/\
            closed, commands, events, ACL/SCO/ISO both ways, system notes, user logging, management traffic \
            — with kernel timestamps, into btsnoop 2001 or pcap (link type 254). Each record is on disk before \
            the next is read; SIGINT/SIGTERM end the capture cleanly and the file is always a valid capture. \
            Files are created with mode 0600 (they can hold link keys). Needs CAP_NET_RAW (root, or \
            `setcap cap_net_raw+ep`).

            Where the kernel has no Bluetooth (containers, CI, emulators), --h4-proxy LISTEN --controller \
            TARGET sits between a host stack and an H4 controller (tcp:HOST:PORT or unix:/path): it accepts \
            one host connection on LISTEN, connects to TARGET, forwards bytes unchanged both ways and records \
            every complete H4 packet (host → controller as sent, controller → host as received) into btsnoop \
            1002 or pcap (link type 201). It stops when either side closes.

            Embedded stacks: --tty DEVICE [--baud N] reads the monitor protocol that Zephyr sends with \
            CONFIG_BT_DEBUG_MONITOR_UART=y (the framing btmon --tty reads) from a serial port set to raw \
            mode (default 115200 baud); --rtt HOST:PORT reads the same protocol from an RTT server's TCP \
            port (Zephyr CONFIG_BT_DEBUG_MONITOR_RTT=y; OpenOCD `rtt server start PORT CHANNEL`, or \
            J-Link's port 19021 for channel 0); --h4-file PATH reads raw H4 packets (type byte + HCI \
            packet) from a file, a FIFO or '-' (standard input); H4 gives commands and events a direction \
            but not data, so say which way ACL/SCO/ISO went with --data-direction. Records go to btsnoop \
            2001 or pcap 254. \
            Timestamps come from the sender's clock when it sends one (anchored to the host clock at the \
            first record), else the host's receive time; bytes that are not a frame are skipped with a \
            diagnostic naming their offsets, and drops the sender reports are counted in the file.

            -C MB starts a new file when the current one exceeds MB megabytes (10^6 bytes), naming them \
            FILE.0, FILE.1, …; -W N keeps at most N files, reusing the names from FILE.0 (as tcpdump does). \
            Each file is a complete capture.
            """)

    @Option(name: .customShort("w"), help: "File to write (btsnoop 2001, or pcap 254 for .pcap); '-' for standard output. Default: captures/hciscope-YYYYMMDD-HHMMSS.btsnoop.")
    var write: String?

    @Option(help: "Output format: btsnoop (2001) or pcap (254); default from the file extension.")
    var format: LiveFormat?

    @Option(name: .customShort("i"), help: "Keep only this controller index (index events are still recorded).")
    var index: UInt16?

    @Option(name: .customShort("c"), help: "Stop after this many records.")
    var count: Int?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Flag(name: .shortAndLong, help: "No live status line.")
    var quiet = false

    @Option(help: "Where monitor records come from: socket (AF_BLUETOOTH monitor channel) or pcap (libpcap's bluetooth-monitor device).")
    var source: LiveSourceKind = .socket

    enum LiveSourceKind: String, ExpressibleByArgument, CaseIterable {
        case socket, pcap
    }

    @Flag(help: "Show a refreshing view of the radio activity (scans, devices, connections, pairing) while recording.")
    var live = false

    @Flag(help: "List the controllers and exit.")
    var list = false

    @Option(name: .customLong("h4-proxy"), help: ArgumentHelp("Record as an H4 proxy: accept the host stack here (tcp:HOST:PORT or unix:/path).", valueName: "LISTEN"))
    var h4Proxy: String?

    @Option(help: ArgumentHelp("With --h4-proxy: the H4 controller to connect to (tcp:HOST:PORT or unix:/path).", valueName: "TARGET"))
    var controller: String?

    @Option(help: ArgumentHelp("Record the monitor protocol an embedded stack sends on this serial port (Zephyr CONFIG_BT_DEBUG_MONITOR_UART; btmon --tty).", valueName: "DEVICE"))
    var tty: String?

    @Option(help: ArgumentHelp("With --tty: the line speed (default 115200).", valueName: "N"))
    var baud: Int?

    @Option(help: ArgumentHelp("Record the monitor protocol from an RTT server's TCP port (Zephyr CONFIG_BT_DEBUG_MONITOR_RTT through OpenOCD or J-Link).", valueName: "HOST:PORT"))
    var rtt: String?

    @Option(name: .customLong("h4-file"), help: ArgumentHelp("Record raw H4 packets (type byte + HCI packet) from a file, a FIFO or '-' (standard input).", valueName: "PATH"))
    var h4File: String?

    @Option(name: .customLong("data-direction"), help: ArgumentHelp("With --h4-file: the direction of ACL, SCO and ISO packets, which H4 does not record (sent: host → controller; received: controller → host). Without it they cannot be written and are counted as skipped.", valueName: "sent|received"))
    var dataDirection: DataDirection?

    enum DataDirection: String, ExpressibleByArgument, CaseIterable {
        case sent, received
    }

    @Option(name: .customShort("C"), help: ArgumentHelp("Start a new file when the current one exceeds this many megabytes (10^6 bytes).", valueName: "MB"))
    var fileSize: Double?

    @Option(name: .customShort("W"), help: ArgumentHelp("With -C: keep at most this many files (FILE.0 … FILE.N-1, reused in turn).", valueName: "FILES"))
    var fileCount: Int?

    @Flag(help: "At the end, print the radio-usage summary of the recorded file (hciscope analyze) on standard output.")
    var analyze = false

    @Option(help: ArgumentHelp("Drop privileges to this user (and its group) once the socket is open.", valueName: "NAME"))
    var user: String?

    package init() {}

    /// `captures/hciscope-YYYYMMDD-HHMMSS.btsnoop` (UTC), the folder created when missing.
    static func defaultPath() -> String {
        var now = time(nil)
        var t = tm()
        gmtime_r(&now, &t)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let stamp = "\(t.tm_year + 1900)\(two(t.tm_mon + 1))\(two(t.tm_mday))-\(two(t.tm_hour))\(two(t.tm_min))\(two(t.tm_sec))"
        mkdir("captures", 0o700)
        return "captures/hciscope-\(stamp).btsnoop"
    }

    enum LiveFormat: String, ExpressibleByArgument, CaseIterable {
        case btsnoop, pcap
    }

    package func validate() throws {
        if let count, count < 1 { throw ValidationError("-c needs a positive count") }
        if let duration, duration <= 0 { throw ValidationError("--duration needs a positive number of seconds") }
        if (h4Proxy == nil) != (controller == nil) {
            throw ValidationError("--h4-proxy LISTEN and --controller TARGET go together")
        }
        let sources = [h4Proxy, tty, rtt, h4File].compactMap { $0 }.count
        if sources > 1 { throw ValidationError("--h4-proxy, --tty, --rtt and --h4-file are different sources: choose one") }
        let stream = tty != nil || rtt != nil || h4File != nil
        if let baud {
            guard tty != nil else { throw ValidationError("--baud sets the speed of a serial port: it goes with --tty") }
            guard baud > 0 else { throw ValidationError("--baud needs a positive rate") }
        }
        if dataDirection != nil && h4File == nil { throw ValidationError("--data-direction says which way H4 data went: it goes with --h4-file") }
        if stream && index != nil { throw ValidationError("-i selects a monitor-channel controller; --tty, --rtt and --h4-file record one") }
        if stream && list { throw ValidationError("--list lists monitor-channel controllers; not with --tty, --rtt or --h4-file") }
        if stream && source == .pcap { throw ValidationError("--source picks the monitor-channel reader; not with --tty, --rtt or --h4-file") }
        if h4Proxy != nil && index != nil { throw ValidationError("-i selects a monitor-channel controller; an H4 proxy records one") }
        if h4Proxy != nil && list { throw ValidationError("--list lists monitor-channel controllers; not with --h4-proxy") }
        if let fileSize {
            guard fileSize > 0 else { throw ValidationError("-C needs a positive number of megabytes") }
            if write == "-" { throw ValidationError("-C rotates files: it cannot write to standard output") }
        }
        if let fileCount {
            guard fileCount >= 1 else { throw ValidationError("-W needs at least one file") }
            guard fileSize != nil else { throw ValidationError("-W needs -C (the size at which to start the next file)") }
        }
        if analyze && write == "-" { throw ValidationError("--analyze reads the recorded file back: write to a file, not '-'") }
    }

    package func run() throws {
        let status = execute(console: .standard)
        if status != 0 { throw ExitCode(status) }
    }

    /// Runs the command against `console`; returns the exit status (0 done, 1 the file could
    /// not be finished, 2 could not record).
    package func execute(console: Console) -> Int32 {
        #if canImport(ScopeLive)
        if list { return listControllers(console: console) }
        let path = write ?? Self.defaultPath()
        let proxy = h4Proxy != nil
        let wantsPcap = (format ?? (path.lowercased().hasSuffix(".pcap") ? .pcap : .btsnoop)) == .pcap
        let target: CaptureFormat = proxy ? (wantsPcap ? .pcapH4PHDR : .btsnoopH4) : (wantsPcap ? .pcapMonitor : .btsnoopMonitor)
        let options = LiveCaptureOptions(count: count, durationMicros: duration.map { Int64($0 * 1_000_000) }, index: index)
        let interactive = !quiet && isatty(2) == 1
        // Decoding for the status line and --live happens after each record is on disk.
        var tracker: LiveTracker? = interactive || live ? LiveTracker() : nil
        var panelLines = 0
        func showPanel(controllers: Int, drops: UInt32) {
            guard let tracker else { return }
            if live {
                let lines = tracker.panel(controllers: controllers, drops: drops, now: MonitorSource.now())
                // Move up over the previous panel and redraw it.
                let up = panelLines > 0 ? "\u{1B}[\(panelLines)A" : ""
                console.err(up + lines.map { "\r\u{1B}[K" + $0 }.joined(separator: "\n"))
                panelLines = lines.count
            } else {
                console.err("\r\u{1B}[K" + tracker.statusLine(controllers: controllers, drops: drops) + "\u{1B}[1A")
            }
        }
        var writer: RotatingCaptureWriter
        var line: String
        do {
            // Signals are blocked before anything else so no stop is lost.
            let stop = try StopSignals()
            func openOutput() throws(LiveError) -> RotatingCaptureWriter {
                if let user { try dropPrivileges(to: user) }
                do {
                    var w = try RotatingCaptureWriter.make(
                        format: target, path: path, maxBytes: fileSize.map { Int($0 * 1_000_000) }, maxFiles: fileCount)
                    // The header reaches the disk only once the socket is open: a reader can take
                    // the header as the sign that recording has started.
                    try w.flush()
                    return w
                } catch {
                    throw LiveError("\(error)", fix: "choose a writable output")
                }
            }
            func writeRecord(_ record: CaptureRecord) throws(LiveError) {
                do {
                    try writer.write(record)
                    try writer.flush()
                } catch {
                    throw LiveError("\(error)", fix: "free disk space or choose another output; the file is valid up to the last whole record")
                }
                tracker?.consume(record)
            }
            if let listen = h4Proxy, let controller {
                let listenAt = try H4Endpoint(parsing: listen)
                let targetAt = try H4Endpoint(parsing: controller)
                let listener = try listenAt.listen()
                defer {
                    close(listener)
                    if case .unix(let socketPath) = listenAt { unlink(socketPath) }
                }
                writer = try openOutput()
                if !quiet { console.err("hciscope capture: waiting for the host on \(listenAt); controller at \(targetAt)") }
                guard let hostFD = try acceptOne(listener: listener, stopFD: stop.fd) else {
                    try? writer.close()
                    console.err("hciscope capture: stopped before a host connected; 0 frames written to \(path)")
                    return 0
                }
                defer { close(hostFD) }
                let controllerFD = try targetAt.connect()
                defer { close(controllerFD) }
                let summary = try runH4Proxy(
                    host: hostFD, controller: controllerFD, stopFD: stop.fd, options: options,
                    write: writeRecord,
                    status: interactive
                        ? { s in console.err("\r\u{1B}[K\(s.written) frames (\(s.sent) to the controller, \(s.received) from it)\u{1B}[1A") }
                        : nil,
                    problem: { console.err("hciscope capture: \($0)") })
                line = "\(summary.written) frames (\(summary.sent) host → controller, \(summary.received) controller → host) "
                    + "written to \(writer.paths.joined(separator: ", ")) (\(target.rawValue)); "
                    + "\(summary.bytesToController) + \(summary.bytesToHost) bytes forwarded; stopped by \(summary.stoppedBy.rawValue)"
                    + (summary.framingFailures.isEmpty ? "" : "; recording stopped early: " + summary.framingFailures.joined(separator: "; "))
            } else if tty != nil || rtt != nil || h4File != nil {
                let input: StreamInput
                if let tty {
                    input = try StreamInput.serial(path: tty, baud: baud ?? 115_200)
                } else if let rtt {
                    input = try StreamInput.rtt(rtt)
                } else {
                    input = try StreamInput.file(path: h4File ?? "-")
                }
                writer = try openOutput()
                let what = h4File != nil ? "H4 packets" : "the monitor protocol"
                if !quiet { console.err("hciscope capture: recording \(what) from \(input.name)") }
                // The first problems are shown as they come; the rest are counted.
                var shown = 0
                func record<Framing: StreamFraming>(_ decoder: StreamDeframer<Framing>) throws(LiveError) -> (StreamCaptureSummary, StreamDeframer<Framing>) {
                    var decoder = decoder
                    let summary = try runStreamCapture(
                        input: input, decoder: &decoder, stopFD: stop.fd, options: options, write: writeRecord,
                        diagnostic: { d in
                            shown += 1
                            if shown <= Self.streamProblemsShown { console.err("hciscope capture: \(d)") }
                        },
                        status: interactive || live ? { s in showPanel(controllers: 1, drops: s.senderDrops) } : nil)
                    return (summary, decoder)
                }
                let summary: StreamCaptureSummary
                var dropDetail = ""
                if h4File != nil {
                    let direction: Direction = dataDirection == .sent ? .sent : dataDirection == .received ? .received : .unknown
                    summary = try record(H4StreamDecoder(source: input.name, dataDirection: direction)).0
                } else {
                    let (s, decoder) = try record(MonitorStreamDecoder(source: input.name))
                    summary = s
                    let kinds = MonitorStreamFraming.DropKind.allCases.compactMap { kind in
                        decoder.framing.senderDrops[kind].map { "\(kind) \($0)" }
                    }
                    if !kinds.isEmpty { dropDetail = " (" + kinds.joined(separator: ", ") + ")" }
                }
                // Frames the output format cannot hold are counted apart (below).
                line = "\(summary.written - writer.skipped.total) frames written to \(writer.paths.joined(separator: ", ")) (\(target.rawValue)); "
                    + "\(summary.bytesRead) bytes read from \(input.name), \(summary.skippedBytes) not part of any frame"
                    + (summary.truncatedFrames > 0 ? ", \(summary.truncatedFrames) frames cut short" : "")
                    + (h4File == nil ? "; \(summary.senderDrops) records dropped by the sender\(dropDetail)" : "")
                    + "; stopped by \(summary.stoppedBy.rawValue)"
                    + (summary.diagnostics > Self.streamProblemsShown
                        ? "; \(summary.diagnostics - Self.streamProblemsShown) more problems with the stream not shown" : "")
            } else {
                let source: any LiveSource = self.source == .pcap ? try PcapLiveSource() : try MonitorSource.open()
                if let index {
                    if !Controllers.mayExist(index: index) {
                        throw LiveError(
                            "controller index \(index) (hci\(index)) is not present",
                            fix: "`hciscope capture --list` shows the controllers; leave out -i to record them all")
                    }
                }
                writer = try openOutput()
                let summary = try runLiveCapture(
                    source: source, stopFD: stop.fd, options: options,
                    write: writeRecord,
                    status: interactive || live ? { s in showPanel(controllers: s.controllers.count, drops: s.kernelDrops) } : nil,
                    problem: { console.err("hciscope capture: \($0)") })
                line = "\(summary.written) frames written to \(writer.paths.joined(separator: ", ")) (\(target.rawValue)); "
                    + "\(summary.kernelDrops) dropped by the kernel; stopped by \(summary.stoppedBy.rawValue)"
                    + (summary.skippedByIndex > 0 ? "; \(summary.skippedByIndex) records of other controllers not kept" : "")
            }
        } catch {
            console.err("hciscope capture: \(error)")
            return 2
        }
        do { try writer.close() } catch {
            console.err("hciscope capture: \(error)")
            return 1
        }
        if interactive && !live { console.err("") }
        if writer.filesStarted > writer.paths.count { line += "; \(writer.filesStarted - writer.paths.count) older files overwritten" }
        if writer.skipped.total > 0 {
            line += "; \(writer.skipped)"
            if h4File != nil && dataDirection == nil && writer.skipped.byReason[.direction] != nil {
                line += "; H4 does not say which way data packets went: give --data-direction sent|received to keep them"
            }
        }
        console.err("hciscope capture: " + line)
        if analyze { return printAnalysis(of: writer.paths, console: console) }
        return 0
        #else
        console.err(Self.notOnThisPlatform)
        return 2
        #endif
    }

    /// How many stream problems (garbage skipped, frames cut short, sender drops) are printed as
    /// they come; the summary line counts the rest.
    static let streamProblemsShown = 20

    /// What `capture` says where the live layer is not built (macOS; HCISCOPE_PORTABLE=1).
    static let notOnThisPlatform = """
        hciscope capture: recording needs Linux (the kernel's Bluetooth monitor channel, libpcap's \
        bluetooth-monitor device or an H4 socket); this build has no live layer. On macOS, record with \
        Apple's PacketLogger (Additional Tools for Xcode) or take a sysdiagnose from an iPhone, then run \
        `hciscope analyze FILE.pklg`; show, analyze, convert and redact work here on any capture.
        """

    /// `--analyze`: the radio-usage summary of each recorded file, as `hciscope analyze` prints it.
    func printAnalysis(of files: [String], console: Console) -> Int32 {
        var status: Int32 = 0
        for file in files {
            do {
                let (analysis, verdicts) = try RuleEngine.analyze(path: file)
                let report = Report(analysis: analysis, verdicts: verdicts, tool: ToolInfo(version: BuildInfo.version), config: ConfigSummary())
                console.out(TextReporter(color: false).render(report))
            } catch {
                console.err("hciscope capture: cannot analyze \(file): \(error)")
                status = 1
            }
        }
        return status
    }

    #if canImport(ScopeLive)
    /// `--user`: switches to NAME's user and group (and only its primary group), for good.
    func dropPrivileges(to name: String) throws(LiveError) {
        guard let entry = getpwnam(name) else { throw LiveError("--user \(name): no such user", fix: "name an existing account") }
        let uid = entry.pointee.pw_uid
        var gid = entry.pointee.pw_gid
        if getuid() == uid && geteuid() == uid { return }
        guard setgroups(1, &gid) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
            throw LiveError("--user \(name): cannot drop privileges", fix: "only root can switch users; run without --user", errno: errno)
        }
        // Must not be able to get root back.
        guard setuid(0) != 0 else { throw LiveError("--user \(name): privileges could be regained; refusing to go on") }
    }

    /// Lists the controllers (`Controllers.list`, libbluetooth).
    func listControllers(console: Console) -> Int32 {
        do {
            let found = try Controllers.list()
            for c in found { console.out("\(c.name)\tindex \(c.index)\t\(c.address)\t\(c.isUp ? "up" : "down")\n") }
            if found.isEmpty { console.err("hciscope capture: no Bluetooth controllers") }
            return 0
        } catch {
            console.err("hciscope capture: \(error.message)")
            return 2
        }
    }
    #endif
}
