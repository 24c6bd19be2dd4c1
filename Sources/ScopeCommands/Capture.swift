import ArgumentParser
import Foundation
import ScopeCapture
import ScopeCore

#if os(Linux)
import CBluetooth
import Glibc
import ScopeLive
#endif

/// `hciscope capture`: record the Linux Bluetooth monitor channel.
public struct Capture: ParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Record HCI traffic live from the Linux Bluetooth monitor channel.",
        discussion: """
            Records everything the monitor channel delivers — every controller, index added/removed/opened/\
            closed, commands, events, ACL/SCO/ISO both ways, system notes, user logging, management traffic \
            — with kernel timestamps, into btsnoop 2001 or pcap (link type 254). Each record is on disk before \
            the next is read; SIGINT/SIGTERM end the capture cleanly and the file is always a valid capture. \
            Files are created with mode 0600 (they can hold link keys). Needs CAP_NET_RAW (root, or \
            `setcap cap_net_raw+ep`).
            """)

    @Option(name: .customShort("w"), help: "File to write (btsnoop 2001, or pcap 254 for .pcap); '-' for standard output.")
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

    @Flag(help: "List the controllers and exit.")
    var list = false

    public init() {}

    enum LiveFormat: String, ExpressibleByArgument, CaseIterable {
        case btsnoop, pcap
    }

    public func validate() throws {
        if !list && write == nil { throw ValidationError("say where to write: -w FILE (or --list)") }
        if let count, count < 1 { throw ValidationError("-c needs a positive count") }
        if let duration, duration <= 0 { throw ValidationError("--duration needs a positive number of seconds") }
    }

    public func run() throws {
        #if os(Linux)
        let console = Console.standard
        if list {
            throw ExitCode(listControllers(console: console))
        }
        guard let path = write else { throw ExitCode(2) }
        let target: CaptureFormat = (format ?? (path.lowercased().hasSuffix(".pcap") ? .pcap : .btsnoop)) == .pcap ? .pcapMonitor : .btsnoopMonitor
        do {
            // Signals are blocked before anything else so no stop is lost.
            let stop = try StopSignals()
            let source = try MonitorSource.open()
            var writer: CaptureWriter
            do {
                writer = try CaptureWriter.make(format: target, path: path)
                // The header reaches the disk only once the socket is bound: a reader can take
                // the header as the sign that recording has started.
                try writer.flush()
            } catch {
                console.err("hciscope capture: \(error)")
                throw ExitCode(2)
            }
            let interactive = !quiet && isatty(2) == 1
            let options = LiveCaptureOptions(
                count: count, durationMicros: duration.map { Int64($0 * 1_000_000) }, index: index)
            let summary = try runLiveCapture(
                source: source, stopFD: stop.fd, options: options,
                write: { (record: CaptureRecord) throws(LiveError) in
                    do {
                        try writer.write(record)
                        try writer.flush()
                    } catch {
                        throw LiveError("\(error)", fix: "free disk space or choose another output; the file is valid up to the last whole record")
                    }
                },
                status: interactive
                    ? { s in
                        console.err("\r\u{1B}[K\(s.written) frames, \(s.controllers.count) controller\(s.controllers.count == 1 ? "" : "s"), \(s.kernelDrops) dropped\u{1B}[1A")
                    } : nil,
                problem: { console.err("hciscope capture: \($0)") })
            do { try writer.close() } catch {
                console.err("hciscope capture: \(error)")
                throw ExitCode(1)
            }
            if interactive { console.err("") }
            console.err(
                "hciscope capture: \(summary.written) frames written to \(path) (\(target.rawValue)); "
                    + "\(summary.kernelDrops) dropped by the kernel; stopped by \(summary.stoppedBy.rawValue)"
                    + (summary.skippedByIndex > 0 ? "; \(summary.skippedByIndex) records of other controllers not kept" : ""))
        } catch let error as LiveError {
            console.err("hciscope capture: \(error)")
            throw ExitCode(2)
        }
        #else
        throw ValidationError("live capture needs Linux (the Bluetooth monitor channel)")
        #endif
    }

    #if os(Linux)
    /// Lists controllers through libbluetooth (`hci_devinfo`).
    func listControllers(console: Console) -> Int32 {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        if probe < 0 {
            let code = errno
            if code == EAFNOSUPPORT || code == EPROTONOSUPPORT {
                console.err("hciscope capture: this kernel has no Bluetooth support (no AF_BLUETOOTH): no controllers to list")
                return 2
            }
        } else {
            close(probe)
        }
        var found = 0
        for id in Int32(0)..<64 {
            var info = hci_dev_info()
            guard hci_devinfo(id, &info) == 0 else { continue }
            found += 1
            let name = withUnsafeBytes(of: &info.name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            let address = withUnsafeBytes(of: &info.bdaddr) { BDAddr(littleEndian: Array($0)) }
            let up = (info.flags & (1 << UInt32(HCI_UP))) != 0
            console.out("\(name)\tindex \(id)\t\(address)\t\(up ? "up" : "down")\n")
        }
        if found == 0 { console.err("hciscope capture: no Bluetooth controllers") }
        return 0
    }
    #endif
}
