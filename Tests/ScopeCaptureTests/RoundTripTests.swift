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

/// Checks that `back` is what `format` should give for `original`.
func expectSame(_ back: CaptureRecord, _ original: CaptureRecord, in format: CaptureFormat, _ context: String) {
    #expect(back.kind == original.kind, "\(context)")
    #expect(back.timestamp == original.timestamp, "\(context)")
    #expect(back.payload == original.payload, "\(context)")
    if original.direction != .unknown {
        #expect(back.direction == original.direction, "\(context)")
    } else {
        let implied: Direction = original.kind == .command ? .sent : original.kind == .event ? .received : .unknown
        #expect(back.direction == implied, "\(context)")
    }
    switch format.container {
    case .packetLogger:
        #expect(back.originalLength == original.payload.count, "\(context): PacketLogger has no original length")
    default:
        #expect(back.originalLength == original.originalLength, "\(context)")
    }
    if format == .btsnoopMonitor || format == .pcapMonitor {
        #expect(back.adapter == original.adapter, "\(context)")
    } else {
        #expect(back.adapter == 0, "\(context)")
    }
    #expect(back.drops == (format.container == .btsnoop ? original.drops : 0), "\(context)")
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
            for (i, (b, o)) in zip(back, expected).enumerated() {
                #expect(b.frame == i + 1)
                expectSame(b, o, in: format, "\(url.lastPathComponent) → \(format) frame \(o.frame)")
                if b.payload != o.payload || b.timestamp != o.timestamp { break }  // one failure is enough
            }
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
        guard let url = Fixtures.shared(file), FileManager.default.fileExists(atPath: url.path) else { return }
        let tmp = try TemporaryDirectory()
        var writer = try CaptureWriter.make(format: format, path: tmp.path("x"))
        for r in try readAll(url.path).records { try writer.write(r) }
        try writer.close()
        #expect(writer.skipped.total == count)
    }

    @Test func skippedRecordsAreCountedByKindAndReason() throws {
        guard let url = Fixtures.shared("real/felixwatts__batteread__capture.btsnoop"),
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
