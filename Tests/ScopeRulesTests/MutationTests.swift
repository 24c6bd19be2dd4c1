import Foundation
import ScopeAnalysis
import ScopeCapture
import ScopeCore
import ScopeDecode
import ScopeRules
import ScopeTestSupport
import Testing

/// Structural mutations of real captures of every format: truncation at every record boundary
/// (sampled) and inside records, seeded bit flips in record headers and length fields, duplicated
/// and reordered records. Reader → Dissector → AnalysisBuilder → RuleEngine must never crash or
/// hang, must read in bounded memory, and must give partial results with a diagnostic.
@Suite("Mutation", .serialized)
struct MutationTests {
    /// Small real captures of each format (bytes kept under ~60 KB so the whole run stays short).
    static let files = [
        "real/felixwatts__batteread__capture.btsnoop",
        "real/danisla__iot-bed__btsnoop_hci.log",
        "real/TheoLestandi__Projet_RP__ble_capture.snoop",
        "real/mauricelam__btsnoop-rs__btsnoop_btmon.log",
        "real/mikeryan__crackle__le_secure_connections.pcapng",
        "real/lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng",
        "scenarios/good_central.pcap",
        "real/Matheus-Garbelini__esp32_bluetooth_classic_sniffer__hci_dump.pklg",
        "real/ap4y__iSAP__hci_dump.pklg",
    ]
    /// The project's own captures of every format (fixtures and shipped samples): mutated on every
    /// run, with or without the corpus.
    static let ownFiles: [(name: String, url: URL)] = [
        ("fixture btsnoop/h4.btsnoop", Fixtures.url("btsnoop/h4.btsnoop")),
        ("fixture btsnoop/h1.btsnoop", Fixtures.url("btsnoop/h1.btsnoop")),
        ("fixture btsnoop/monitor.btsnoop", Fixtures.url("btsnoop/monitor.btsnoop")),
        ("fixture pcap/h4phdr-us-le.pcap", Fixtures.url("pcap/h4phdr-us-le.pcap")),
        ("fixture pcap/monitor-254.pcap", Fixtures.url("pcap/monitor-254.pcap")),
        ("fixture pcapng/h4phdr-201.pcapng", Fixtures.url("pcapng/h4phdr-201.pcapng")),
        ("fixture pklg/be.pklg", Fixtures.url("pklg/be.pklg")),
        ("fixture pklg/le.pklg", Fixtures.url("pklg/le.pklg")),
        ("captures/btvirt-le-pairing.btsnoop", Fixtures.project("btvirt-le-pairing.btsnoop")),
        ("captures/scenarios/gatt.polling-fires.btsnoop", Fixtures.project("scenarios/gatt.polling-fires.btsnoop")),
    ]
    static let maxBytes = 64 * 1024

    @Test(.timeLimit(.minutes(2)))
    func mutatedCapturesNeverCrashAndReportPartialResults() throws {
        // A fetched corpus holds real/ only; a scenarios/ file is mutated where the corpus has it.
        let corpus = Fixtures.corpusRoot == nil ? [] : Self.files.compactMap { name -> (name: String, url: URL?)? in
            let url = Fixtures.corpus(name)
            return url == nil && name.hasPrefix("scenarios/") ? nil : (name, url)
        }
        let inputs: [(name: String, url: URL?)] = Self.ownFiles.map { ($0.name, Optional($0.url)) } + corpus
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-mutation-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var total = 0
        var worst = 0.0
        for (name, url) in inputs {
            guard let url, let data = FileManager.default.contents(atPath: url.path) else {
                Issue.record("corpus file missing: \(name)")
                continue
            }
            let original = [UInt8](data.prefix(Self.maxBytes))
            guard let layout = RecordLayout(original) else {
                Issue.record("\(name): no record layout")
                continue
            }
            let records = layout.split(original)
            #expect(records.count > 2, "\(name): \(records.count) records")
            var rng = SplitMix(seed: UInt64(name.utf8.count) &* 7919 &+ UInt64(original.count))
            for mutant in Mutant.all(original, layout: layout, records: records, rng: &rng) {
                let path = dir.appendingPathComponent("m\(total)").path
                try Data(mutant.bytes).write(to: URL(fileURLWithPath: path))
                let start = Date()
                let outcome = Self.run(path: path)
                let elapsed = Date().timeIntervalSince(start)
                worst = max(worst, elapsed)
                total += 1
                let what = "\(name) \(mutant.label)"
                #expect(elapsed < 5, "\(what): \(elapsed) s")
                if let peak = outcome.peakBuffer { #expect(peak <= 1 << 20, "\(what): buffer grew to \(peak) bytes") }
                #expect(outcome.frames <= mutant.bytes.count / 4 + 1, "\(what): \(outcome.frames) frames")
                #expect(outcome.verdicts == RuleRegistry.all.count, "\(what)")
                if mutant.expectsDiagnostic {
                    #expect(outcome.diagnosed, "\(what): no diagnostic for a record cut short")
                }
            }
        }
        print("mutation: \(total) mutants of \(inputs.count) captures, slowest \(String(format: "%.3f", worst)) s")
        #expect(total > 200)
    }

    struct Outcome {
        var frames = 0
        var diagnosed = false
        var verdicts = 0
        var peakBuffer: Int?
    }

    /// The `analyze` pipeline, with the reader's statistics kept. A file the reader refuses is an
    /// outcome too (an error with a message, never a crash).
    static func run(path: String) -> Outcome {
        var outcome = Outcome()
        guard var reader = try? CaptureReader.open(path: path) else {
            outcome.diagnosed = true
            outcome.verdicts = RuleRegistry.all.count
            return outcome
        }
        var dissector = Dissector()
        var builder = AnalysisBuilder(file: path, format: reader.format)
        while let record = reader.next() {
            builder.consume(dissector.decode(record))
            if reader.diagnostics.count >= 500 { builder.noteReaderDiagnostics(reader.drainDiagnostics()) }
        }
        let diagnostics = reader.drainDiagnostics()
        builder.noteReaderDiagnostics(diagnostics)
        _ = dissector.finish()
        outcome.peakBuffer = reader.bufferStatistics?.peakBufferSize
        let summary = reader.summary
        let result = builder.finish()
        outcome.frames = result.capture.frames
        outcome.diagnosed = !diagnostics.isEmpty || summary.errors > 0 || summary.warnings > 0 || !summary.complete
            || result.capture.health.readErrors > 0
        outcome.verdicts = RuleEngine.evaluate(result).count
        return outcome
    }
}

/// Where records start in each format: a fixed file header, then records whose total size a
/// header field gives.
struct RecordLayout {
    enum Kind { case btsnoop, pcap(bigEndian: Bool), pcapng(bigEndian: Bool), pklg(bigEndian: Bool) }
    var kind: Kind
    var fileHeader: Int
    /// Bytes of each record's own header (where lengths live).
    var recordHeader: Int

    init?(_ b: [UInt8]) {
        guard b.count >= 24 else { return nil }
        if b.starts(with: Array("btsnoop".utf8)) {
            (kind, fileHeader, recordHeader) = (.btsnoop, 16, 24)
        } else if b.starts(with: [0xd4, 0xc3, 0xb2, 0xa1]) || b.starts(with: [0x4d, 0x3c, 0xb2, 0xa1]) {
            (kind, fileHeader, recordHeader) = (.pcap(bigEndian: false), 24, 16)
        } else if b.starts(with: [0xa1, 0xb2, 0xc3, 0xd4]) || b.starts(with: [0xa1, 0xb2, 0x3c, 0x4d]) {
            (kind, fileHeader, recordHeader) = (.pcap(bigEndian: true), 24, 16)
        } else if b.starts(with: [0x0a, 0x0d, 0x0d, 0x0a]) {
            (kind, fileHeader, recordHeader) = (.pcapng(bigEndian: b[8] == 0x1a), 0, 8)
        } else {
            let be = Self.u32(b, 0, bigEndian: true), le = Self.u32(b, 0, bigEndian: false)
            (kind, fileHeader, recordHeader) = (.pklg(bigEndian: be < le), 0, 13)
        }
    }

    static func u32(_ b: [UInt8], _ at: Int, bigEndian: Bool) -> Int {
        guard at + 4 <= b.count else { return Int.max }
        let v = (0..<4).map { Int(b[at + $0]) }
        return bigEndian ? v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3] : v[3] << 24 | v[2] << 16 | v[1] << 8 | v[0]
    }

    /// Total size of the record at `at`, or nil when it does not fit.
    func size(_ b: [UInt8], at: Int) -> Int? {
        let n: Int
        switch kind {
        case .btsnoop: n = 24 &+ Self.u32(b, at + 4, bigEndian: true)
        case .pcap(let be): n = 16 &+ Self.u32(b, at + 8, bigEndian: be)
        case .pcapng(let be): n = Self.u32(b, at + 4, bigEndian: be)
        case .pklg(let be): n = 4 &+ Self.u32(b, at, bigEndian: be)
        }
        guard n >= 4, n < Int.max / 2, at + n <= b.count else { return nil }
        return n
    }

    /// Record ranges (pcapng: blocks after the section header block).
    func split(_ b: [UInt8]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var at = fileHeader
        while let n = size(b, at: at) {
            out.append(at..<(at + n))
            at += n
        }
        if case .pcapng = kind, !out.isEmpty { out.removeFirst() }
        return out
    }
}

struct Mutant {
    var label: String
    var bytes: [UInt8]
    /// A record was cut short: the reader must say so.
    var expectsDiagnostic = false

    static func all(_ b: [UInt8], layout: RecordLayout, records: [Range<Int>], rng: inout SplitMix) -> [Mutant] {
        var out: [Mutant] = []
        let stride = max(1, records.count / 12)
        // Truncation at record boundaries (sampled evenly) and inside records.
        for i in Swift.stride(from: 0, to: records.count, by: stride) {
            let r = records[i]
            out.append(Mutant(label: "cut at record \(i) start", bytes: Array(b[..<r.lowerBound])))
            let inside = r.lowerBound + 1 + Int(rng.next() % UInt64(max(1, r.count - 1)))
            out.append(Mutant(label: "cut inside record \(i) at \(inside)", bytes: Array(b[..<inside]), expectsDiagnostic: true))
            let inHeader = r.lowerBound + 1 + Int(rng.next() % UInt64(layout.recordHeader - 1))
            out.append(Mutant(label: "cut in header of record \(i) at \(inHeader)", bytes: Array(b[..<min(inHeader, b.count)]), expectsDiagnostic: true))
        }
        // Bit flips in record headers (lengths, flags, types) and in the first payload bytes.
        for k in 0..<30 {
            var m = b
            var where_: [Int] = []
            for _ in 0...(rng.next() % 3) {
                let r = records[Int(rng.next() % UInt64(records.count))]
                let span = min(r.count, layout.recordHeader + 6)
                let at = r.lowerBound + Int(rng.next() % UInt64(span))
                m[at] ^= UInt8(truncatingIfNeeded: 1 << (rng.next() % 8))
                where_.append(at)
            }
            if k % 5 == 0, layout.fileHeader > 0 {
                let at = Int(rng.next() % UInt64(layout.fileHeader))
                m[at] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                where_.append(at)
            }
            out.append(Mutant(label: "flips at \(where_)", bytes: m))
        }
        // Duplicated and reordered records.
        for _ in 0..<8 {
            let i = Int(rng.next() % UInt64(records.count))
            var m = Array(b[..<records[i].upperBound])
            m += b[records[i]]
            m += b[records[i].upperBound...]
            out.append(Mutant(label: "record \(i) duplicated", bytes: m))
            let j = Int(rng.next() % UInt64(records.count)), k = Int(rng.next() % UInt64(records.count))
            var order = Array(records.indices)
            order.swapAt(j, k)
            var r = Array(b[..<(records.first?.lowerBound ?? 0)])
            for x in order { r += b[records[x]] }
            r += b[(records.last?.upperBound ?? b.count)...]
            out.append(Mutant(label: "records \(j) and \(k) swapped", bytes: r))
        }
        return out
    }
}

/// A seeded generator so every run tries the same mutants.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
