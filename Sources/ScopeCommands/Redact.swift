import ArgumentParser
import ScopeCapture
import ScopeCore
import ScopeDecode

#if canImport(Glibc)
import Glibc
#endif

/// `hciscope redact IN OUT`: a shareable copy of a capture, without its secrets.
package struct Redact: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "redact",
        abstract: "Write a copy of a capture with keys and secrets removed, addresses pseudonymised and device names replaced.",
        discussion: """
            Every record of every format goes through the redactor. Link keys, LTKs, IRKs, CSRKs, EDIV/Rand, \
            passkeys, PIN codes, OOB data, public keys and DHKeys are overwritten with zeros (HCI commands and \
            events, SMP, MGMT, PacketLogger paired-device records). Every Bluetooth address the capture names \
            (found from the HCI and MGMT parameter layouts, local addresses included, monitor index records, \
            PacketLogger paired devices, and addresses written as text in notes and logs) becomes a pseudonym \
            from a keyed mapping (SipHash-2-4) wherever it occurs, in either byte order: the same device keeps the \
            same pseudonym throughout the file, random addresses keep their sub-type bits. Device names are \
            replaced wherever they occur (--no-names keeps them). Bytes whose layout hciscope does not know \
            (vendor commands and events, unknown record types, PacketLogger LMP and config records) are zeroed \
            unless --keep-unknown. Bytes are edited in place, so every record keeps its length; the output has \
            the input's format when hciscope can write it (else the nearest: btsnoop 1001 → 1002, pcapng → pcap, \
            pcap 187 → 201, PacketLogger little-endian → big-endian). The output is created with mode 0600, written \
            beside the output and renamed to it once complete (a failure leaves no file); an output that is the \
            input (the same file, or a link to it) is refused. Nothing leaves the machine.
            """)

    @Argument(help: "Capture to read (a file: it is read twice).")
    var input: String

    @Argument(help: "File to write.")
    var output: String

    @Option(help: "Key of the address mapping, 32 hex digits (default: random for this run, so pseudonyms differ between runs).")
    var key: String?

    @Flag(help: "Keep the first 3 bytes (the OUI) of addresses not seen as random.")
    var keepOUI = false

    @Flag(inversion: .prefixedNo, help: "Replace device names (the default; --no-names keeps them): names in advertising data and EIR, remote and local names, MGMT names, PacketLogger paired devices, and wherever else they occur.")
    var names = true

    @Flag(help: "Keep bytes whose layout hciscope does not know (vendor commands and events, unknown record types, PacketLogger LMP and config records) instead of zeroing them.")
    var keepUnknown = false

    @Option(help: "Configuration (YAML) whose limits apply to reading. Default: ./hciscope.yml when present.")
    var config: String?

    package init() {}

    package func run() throws {
        let status = try execute(console: .standard)
        if status != 0 { throw ExitCode(status) }
    }

    static func writableFormat(for format: CaptureFormat) -> CaptureFormat {
        if format.isWritable { return format }
        switch format {
        case .btsnoopH1: return .btsnoopH4
        case .pcapH4, .pcapngH4, .pcapngH4PHDR: return .pcapH4PHDR
        case .pcapngMonitor: return .pcapMonitor
        default: return .btsnoopH4
        }
    }

    package func execute(console: Console) throws -> Int32 {
        guard input != "-" else { throw ValidationError("redact reads its input twice: pass a file, not '-'") }
        guard CaptureFiles.isRegularFile(input) || CaptureFiles.isDirectory(input) else {
            console.err("hciscope redact: \(SafeText.escaped(input)): redact reads its input twice, which a pipe, FIFO or device cannot give: save it to a file and redact that")
            return 2
        }
        if let refusal = sameFileRefusal(input: input, output: output, command: "redact") {
            console.err(refusal)
            return 2
        }
        let options: CaptureReader.Options
        switch ConfigFile.readerOptions(config, command: "redact") {
        case .success(let o): options = o
        case .failure(let problem):
            console.err(problem.message)
            return 2
        }
        let keyBytes: [UInt8]
        if let key {
            guard let bytes = Hex.bytes(key), bytes.count == 16 else { throw ValidationError("--key must be 32 hex digits") }
            keyBytes = bytes
        } else {
            var rng = SystemRandomNumberGenerator()
            keyBytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        }
        var redactor = Redactor(options: .init(key: keyBytes, keepOUI: keepOUI, names: names, keepUnknown: keepUnknown))
        var sink = DiagnosticSink(console: console)

        guard var first = sink.open(input, options: options) else { return 2 }
        while let record = first.next() { redactor.learn(record) }
        first.close()
        redactor.finishLearning()

        guard var reader = sink.open(input, options: options) else { return 2 }
        let target = Self.writableFormat(for: reader.format)
        guard let writer = copyRecords(from: &reader, to: output, format: target, sink: &sink, transform: { redactor.redact($0) }) else {
            return 2
        }
        let s = redactor.statistics
        var summary = "\(input) (\(reader.format.rawValue)) → \(output) (\(target.rawValue)): \(writer.written) records; "
        summary += "\(s.secretFields) secret field(s) zeroed, \(s.addresses) address(es) pseudonymised (\(s.addressOccurrences) occurrence(s))"
        if names { summary += ", \(s.names) name(s) replaced" }
        if !keepUnknown { summary += ", \(s.opaqueBytes) byte(s) of unknown layout zeroed in \(s.opaqueRecords) record(s)" }
        if writer.skipped.total > 0 { summary += "; not representable in \(target.rawValue), skipped: \(writer.skipped)" }
        sink.note(summary)
        return sink.exitStatus(for: reader)
    }
}
