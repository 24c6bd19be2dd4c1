import ArgumentParser
import ScopeCapture
import ScopeCore

/// `hciscope convert`: rewrite a capture in another format.
package struct Convert: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a capture between btsnoop, pcap and PacketLogger formats.",
        discussion: """
            The output format comes from --format, else from the output file's extension \
            (.btsnoop/.log/.cfa → btsnoop, .pcap → pcap, .pklg → PacketLogger); btsnoop and pcap pick the \
            Linux monitor variant (2001 / 254) when the input has several controllers or monitor records, \
            the H4 variant (1002 / 201) otherwise. Records the target cannot represent are counted and \
            reported, never silently dropped. Output files are created with mode 0600, written beside the \
            output and renamed to it once complete (a failure leaves no file); an output that is the input \
            (the same file, or a link to it) is refused.
            """)

    @Argument(help: "Capture to read ('-' for standard input).")
    var input: String

    @Argument(help: "File to write.")
    var output: String

    @Option(help: "Output format: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: OutputFormat?

    @Option(help: "Configuration (YAML) whose limits apply to reading. Default: ./hciscope.yml when present.")
    var config: String?

    package init() {}

    package func run() throws {
        let status = try execute(console: .standard)
        if status != 0 { throw ExitCode(status) }
    }

    /// Runs the conversion against `console`; returns the exit status (2 when the input could
    /// not be read or the output not written).
    package func execute(console: Console) throws -> Int32 {
        if let refusal = sameFileRefusal(input: input, output: output, command: "convert") {
            console.err(refusal)
            return 2
        }
        let options: CaptureReader.Options
        switch ConfigFile.readerOptions(config, command: "convert") {
        case .success(let o): options = o
        case .failure(let problem):
            console.err(problem.message)
            return 2
        }
        var sink = DiagnosticSink(console: console)
        guard var reader = sink.open(input, options: options) else { return 2 }
        let target = try resolveFormat(reader: reader)
        guard let writer = copyRecords(from: &reader, to: output, format: target, sink: &sink) else { return 2 }
        var summary = "\(input) (\(reader.format.rawValue)) → \(output) (\(target.rawValue)): \(writer.written) records written"
        if writer.skipped.total > 0 {
            summary += "; not representable in \(target.rawValue), skipped: \(writer.skipped)"
        }
        sink.note(summary)
        return sink.exitStatus(for: reader)
    }

    /// --format, else the extension plus what the input holds.
    private func resolveFormat(reader: CaptureReader) throws -> CaptureFormat {
        let monitorish = [.btsnoopMonitor, .pcapMonitor, .pcapngMonitor].contains(reader.format)
        if let format { return format.resolve(monitor: monitorish) }
        let lower = output.lowercased()
        if lower.hasSuffix(".pcap") || lower.hasSuffix(".cap") { return monitorish ? .pcapMonitor : .pcapH4PHDR }
        if lower.hasSuffix(".pklg") { return .pklgBE }
        if lower.hasSuffix(".btsnoop") || lower.hasSuffix(".log") || lower.hasSuffix(".cfa") || lower.hasSuffix(".snoop") {
            return monitorish ? .btsnoopMonitor : .btsnoopH4
        }
        throw ValidationError("cannot tell the output format from '\(output)': pass --format (\(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
    }
}

/// `--format` values for writers.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case btsnoop, btsnoop1002 = "btsnoop-1002", btsnoop2001 = "btsnoop-2001"
    case pcap, pcap201 = "pcap-201", pcap254 = "pcap-254"
    case pklg

    func resolve(monitor: Bool) -> CaptureFormat {
        switch self {
        case .btsnoop: return monitor ? .btsnoopMonitor : .btsnoopH4
        case .btsnoop1002: return .btsnoopH4
        case .btsnoop2001: return .btsnoopMonitor
        case .pcap: return monitor ? .pcapMonitor : .pcapH4PHDR
        case .pcap201: return .pcapH4PHDR
        case .pcap254: return .pcapMonitor
        case .pklg: return .pklgBE
        }
    }
}
