import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-capture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

func readAll(_ path: String) throws -> (records: [CaptureRecord], reader: CaptureReader) {
    var reader = try CaptureReader.open(path: path)
    var out: [CaptureRecord] = []
    while let r = reader.next() { out.append(r) }
    return (out, reader)
}

/// Whether `format` keeps this record, decided independently of the writers: the kind and
/// direction (``CaptureFormat/canRepresent(_:direction:)``) and the timestamp range.
func keeps(_ format: CaptureFormat, _ r: CaptureRecord) -> Bool {
    guard format.canRepresent(r.kind, direction: r.direction) else { return false }
    let seconds = r.timestamp.secondsAndMicros.seconds
    switch format.container {
    case .packetLogger: return seconds >= 0 && seconds <= Int64(UInt32.max)
    case .pcap, .pcapng: return seconds >= Int64(Int32.min) && seconds <= Int64(Int32.max)
    case .btsnoop: return true
    }
}

/// What differs between `back` and what `format` should give for `original`, or nil.
/// (Plain comparisons: calling `#expect` for every field of every record of the corpus would
/// dominate the run time.)
func difference(_ back: CaptureRecord, _ original: CaptureRecord, in format: CaptureFormat) -> String? {
    if back.kind != original.kind { return "kind \(back.kind) ≠ \(original.kind)" }
    if back.timestamp != original.timestamp { return "timestamp \(back.timestamp) ≠ \(original.timestamp)" }
    if back.payload != original.payload { return "payload differs" }
    let direction: Direction
    if original.direction != .unknown {
        direction = original.direction
    } else {
        direction = original.kind == .command ? .sent : original.kind == .event ? .received : .unknown
    }
    if back.direction != direction { return "direction \(back.direction) ≠ \(direction)" }
    // PacketLogger has no original length: it reads back as the payload length.
    let originalLength = format.container == .packetLogger ? original.payload.count : original.originalLength
    if back.originalLength != originalLength { return "original length \(back.originalLength) ≠ \(originalLength)" }
    let adapter = format == .btsnoopMonitor || format == .pcapMonitor ? original.adapter : 0
    if back.adapter != adapter { return "adapter \(back.adapter) ≠ \(adapter)" }
    let drops = format.container == .btsnoop ? original.drops : 0
    if back.drops != drops { return "drops \(back.drops) ≠ \(drops)" }
    return nil
}

@Suite struct RoundTripTests {
    static let writable = CaptureFormat.allCases.filter(\.isWritable)

    @Test("every HCI corpus file survives every writable format", arguments: Corpus.hciFiles)
    func roundTrip(_ url: URL) throws {
        let source = try readAll(url.path).records
        let tmp = try TemporaryDirectory()
        for format in Self.writable {
            let path = tmp.path("out.\(format.rawValue)")
            var writer = try CaptureWriter.make(format: format, path: path)
            for r in source { try writer.write(r) }
            try writer.close()

            let expected = source.filter { keeps(format, $0) }
            // Independently of canRepresent: HCI traffic from H4 captures fits every format
            // but PacketLogger (pre-1970 times) losslessly.
            if source.allSatisfy({ $0.kind.isHCI && $0.direction != .unknown }), format.container != .packetLogger {
                #expect(writer.skipped.total == 0, "\(url.lastPathComponent) → \(format): \(writer.skipped)")
            }
            #expect(writer.written == expected.count, "\(url.lastPathComponent) → \(format)")
            #expect(writer.skipped.total == source.count - expected.count, "\(url.lastPathComponent) → \(format)")

            if expected.isEmpty && format.container == .packetLogger {
                // PacketLogger has no file header: with no records the file is empty, which
                // no reader can tell from any other empty file.
                #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0)
                continue
            }
            let (back, reader) = try readAll(path)
            #expect(reader.format == format)
            #expect(reader.summary.errors == 0, "\(url.lastPathComponent) → \(format): \(reader.diagnostics)")
            #expect(back.count == expected.count, "\(url.lastPathComponent) → \(format)")
            let firstDifference = zip(back, expected).enumerated().lazy.compactMap { i, pair -> String? in
                let (b, o) = pair
                if b.frame != i + 1 { return "frame \(i + 1) numbered \(b.frame)" }
                return difference(b, o, in: format).map { "frame \(o.frame) → \(b.frame): \($0)" }
            }.first
            #expect(firstDifference == nil, "\(url.lastPathComponent) → \(format)")
            try FileManager.default.removeItem(atPath: path)
        }
    }

    @Test("what each format skips", arguments: [
        // (file, format, expected skips by kind) from the corpus: monitor meta records have no
        // place in H4 formats; PacketLogger cannot hold pre-1970 times.
        ("real/felixwatts__batteread__capture.btsnoop", CaptureFormat.btsnoopH4, 6),
        ("real/felixwatts__batteread__capture.btsnoop", CaptureFormat.pklgBE, 4),  // its 2 System Notes become 0xFC notes
        ("real/felixwatts__batteread__capture.btsnoop", CaptureFormat.pcapMonitor, 0),
        ("real/mchwalisz__lightsapp-cli__btsnoop_hci.log", CaptureFormat.pklgLE, 1147),
        ("real/mchwalisz__lightsapp-cli__btsnoop_hci.log", CaptureFormat.pcapH4PHDR, 0),
    ])
    func skips(_ file: String, _ format: CaptureFormat, _ count: Int) throws {
        guard let url = Fixtures.corpus(file), FileManager.default.fileExists(atPath: url.path) else { return }
        let tmp = try TemporaryDirectory()
        var writer = try CaptureWriter.make(format: format, path: tmp.path("x"))
        for r in try readAll(url.path).records { try writer.write(r) }
        try writer.close()
        #expect(writer.skipped.total == count)
    }

    @Test func skippedRecordsAreCountedByKindAndReason() throws {
        guard let url = Fixtures.corpus("real/felixwatts__batteread__capture.btsnoop"),
              FileManager.default.fileExists(atPath: url.path) else { return }
        let tmp = try TemporaryDirectory()
        var writer = try CaptureWriter.make(format: .pcapH4PHDR, path: tmp.path("x.pcap"))
        let records = try readAll(url.path).records
        for r in records { try writer.write(r) }
        try writer.close()
        // felixwatts: 6 monitor meta records (notes, New Index, Open Index, Index Info).
        let kinds = Dictionary(grouping: records, by: \.kind).mapValues(\.count)
        #expect(writer.skipped.byKind == kinds)
        #expect(writer.skipped.byReason == [.kind: 6])
        #expect(writer.written == 0)
        #expect(writer.skipped.description.hasPrefix("6 records skipped: "))
    }
}
