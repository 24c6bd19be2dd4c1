import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

/// The bounds of issue 29 on inputs small enough to build here: a merge of more members than may
/// be open gives the records of one merge of all, btsnooz read in two passes gives what the
/// capture inside holds, decoders refuse what asks for more than the limits, and names are
/// escaped.
@Suite struct LimitsTests {
    static func records(_ path: String, limits: CaptureLimits = CaptureLimits()) throws -> (CaptureReader, [CaptureRecord]) {
        var reader = try CaptureReader.open(path: path, options: CaptureReader.Options(limits: limits))
        var out: [CaptureRecord] = []
        while let r = reader.next() { out.append(r) }
        return (reader, out)
    }

    /// A folder of 40 PacketLogger logs, interleaved in time, merged two at a time (in passes
    /// through the spool file) and all at once: the same records in the same order, the same count
    /// per member.
    @Test func mergingInPassesGivesTheOrderOfOneMerge() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-passes-\(UUID().uuidString)")
        let logs = folder.appendingPathComponent("logs/Bluetooth")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let be = try Data(contentsOf: Fixtures.url("pklg/be.pklg"))
        for i in 0..<40 {
            // The same log, each copy moved i × 1.5 ms: copies interleave, and equal times occur.
            var bytes = [UInt8](be)
            var p = 0
            while p + 13 <= bytes.count {
                let length = Int(bytes[p]) << 24 | Int(bytes[p + 1]) << 16 | Int(bytes[p + 2]) << 8 | Int(bytes[p + 3])
                var micros = Int(bytes[p + 8]) << 24 | Int(bytes[p + 9]) << 16 | Int(bytes[p + 10]) << 8 | Int(bytes[p + 11])
                micros = (micros + (i / 2) * 1500) % 1_000_000
                for k in 0..<4 { bytes[p + 8 + k] = UInt8(truncatingIfNeeded: micros >> (24 - 8 * k)) }
                p += 4 + length
            }
            try Data(bytes).write(to: logs.appendingPathComponent(String(format: "bluetoothd-hci-%02d.pklg", i)))
        }
        let (all, once) = try Self.records(folder.path)
        let (passes, twoAtATime) = try Self.records(folder.path, limits: CaptureLimits(openMembers: 2))
        #expect(once.count == 40 * 26)
        #expect(once == twoAtATime)
        #expect(all.origin.members.map(\.records) == passes.origin.members.map(\.records))
        #expect(passes.origin.members.count == 40)
        #expect(passes.summary.exitClass == all.summary.exitClass)
    }

    /// btsnooz records are timed backwards from the last: read in two streaming passes, the
    /// summary's records equal the full log's (cut as the stack cuts them), whatever the version.
    @Test(arguments: ["btsnooz-v1.txt", "btsnooz-v2.txt", "btsnooz_hci.log"])
    func btsnoozInTwoPassesKeepsEveryTime(_ name: String) throws {
        let (reader, snooz) = try Self.records(Fixtures.url("containers/\(name)").path)
        let (_, full) = try Self.records(Fixtures.project("scenarios/gatt.polling-fires.btsnoop").path)
        #expect(snooz.count == full.count)
        let fullGaps = zip(full.dropFirst(), full).map { $0.timestamp.microseconds - $1.timestamp.microseconds }
        let snoozGaps = zip(snooz.dropFirst(), snooz).map { $0.timestamp.microseconds - $1.timestamp.microseconds }
        #expect(fullGaps == snoozGaps)
        if name.hasSuffix(".txt") { #expect(snooz.last?.timestamp == full.last?.timestamp) }
        #expect(reader.summary.exitClass == .ok)
    }

    @Test func aZstdWindowAboveTheLimitIsRefusedFromTheHeader() throws {
        let frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 30 << 3, 0x01, 0x00, 0x00]
        let outcome = DecompressionProbe.decompress(frame, as: .zstd)
        #expect(outcome.produced == 0)
        #expect(outcome.error?.kind == .limit)
        #expect(outcome.error?.message.contains("limits.zstd_window_log") == true)
        let small = DecompressionProbe.decompress(frame, as: .zstd, limits: CaptureLimits(zstdWindowLog: 12))
        #expect(small.error?.message.contains("2^12") == true)
    }

    @Test func xzAboveItsMemoryLimitIsRefused() throws {
        let xz = try [UInt8](Data(contentsOf: Fixtures.url("containers/pairing.btsnoop.xz")))
        #expect(DecompressionProbe.decompress(xz, as: .xz).error == nil)
        let refused = DecompressionProbe.decompress(xz, as: .xz, limits: CaptureLimits(xzMemoryBytes: 1 << 16))
        #expect(refused.error?.kind == .limit)
        #expect(refused.error?.message.contains("limits.xz_memory_mb") == true)
        let shared = DecompressionProbe.decompress(xz, as: .xz, limits: CaptureLimits(decoderMemoryBytes: 1 << 16))
        #expect(shared.error?.message.contains("limits.decoder_memory_mb") == true)
    }

    /// A gzip member that starts like one and then fails is damage; bytes after the last member
    /// that do not start like one are ignored (as gzip does).
    @Test func corruptSecondGzipMemberIsDamageNotGarbage() throws {
        let gz = try [UInt8](Data(contentsOf: Fixtures.url("containers/pairing.btsnoop.gz")))
        var damaged = gz + gz
        for i in (gz.count + 20)..<(gz.count + 40) { damaged[i] ^= 0x5A }
        let bad = DecompressionProbe.decompress(damaged, as: .gzip)
        #expect(bad.error?.kind == .damaged)
        let padded = DecompressionProbe.decompress(gz + [UInt8](repeating: 0, count: 100), as: .gzip)
        #expect(padded.error == nil)
    }

    @Test func aSpoolPastItsLimitStops() throws {
        let zip = try Data(contentsOf: Fixtures.url("containers/bugreport-full.zip"))
        let pipe = Pipe()
        let writer = Thread { pipe.fileHandleForWriting.write(zip); try? pipe.fileHandleForWriting.close() }
        writer.start()
        #expect {
            _ = try CaptureReader.open(
                fileDescriptor: pipe.fileHandleForReading.fileDescriptor, name: "<pipe>",
                options: CaptureReader.Options(limits: CaptureLimits(spoolBytes: 1024)))
        } throws: { ($0 as? CaptureError)?.kind == .limit }
    }

    @Test func namesAreEscaped() {
        #expect(SafeText.escaped("logs/btsnoop_hci.log") == "logs/btsnoop_hci.log")
        #expect(SafeText.escaped("a\u{1B}[2J\nb\\c\u{202E}d\u{85}") == "a\\x1B[2J\\nb\\\\c\\u{202E}d\\u{0085}")
    }
}
