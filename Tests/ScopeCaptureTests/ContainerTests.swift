import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

/// The container fixtures (ScopeTestSupport/Fixtures/containers, made by make_containers.py
/// with Python's zipfile/tarfile/gzip/lzma/bz2 and the zstd command from the project's own
/// captures): every record read through a container must be the record of the capture inside.
@Suite struct ContainerTests {
    static func fixture(_ name: String) -> String { Fixtures.url("containers/\(name)").path }
    static let pairing = Fixtures.repositoryRoot.appendingPathComponent("captures/btvirt-le-pairing.btsnoop").path
    static let polling = Fixtures.project("scenarios/gatt.polling-fires.btsnoop").path

    /// Same time, adapter, direction, kind, length and bytes (frame numbers aside).
    static func same(_ a: [CaptureRecord], _ b: [CaptureRecord], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.count == b.count, sourceLocation: sourceLocation)
        var differences: [String] = []
        for (x, y) in zip(a, b) {
            if x.timestamp != y.timestamp || x.adapter != y.adapter || x.direction != y.direction || x.kind != y.kind
                || x.payload != y.payload || x.originalLength != y.originalLength
            {
                differences.append("record \(y.frame): \(x) ≠ \(y)")
            }
        }
        #expect(differences.isEmpty, "\(differences.prefix(3))", sourceLocation: sourceLocation)
        #expect(a.map(\.frame) == Array(1...max(a.count, 1)).prefix(a.count).map { $0 }, sourceLocation: sourceLocation)
    }

    @Test("compressed captures read as the capture inside", arguments: [
        ("pairing.btsnoop.gz", "gzip"), ("pairing.btsnoop.xz", "xz"), ("pairing.btsnoop.bz2", "bzip2"),
        ("pairing.btsnoop.zst", "zstd"), ("pairing-two-members.btsnoop.gz", "gzip"),
    ])
    func compressed(_ name: String, _ compression: String) throws {
        let (records, reader) = try readAll(Self.fixture(name))
        Self.same(records, try readAll(Self.pairing).records)
        #expect(reader.format == .btsnoopMonitor)
        #expect(reader.origin.layers == [.compressed(compression)])
        #expect(reader.summary.exitClass == .ok)
        #expect(reader.diagnostics.isEmpty)
    }

    @Test func compressedPcapngAndPacketLogger() throws {
        Self.same(try readAll(Self.fixture("polling.pcapng.gz")).records,
                  try readAll(Fixtures.project("scenarios/gatt.polling-fires.pcapng").path).records)
        Self.same(try readAll(Self.fixture("legacy.pklg.xz")).records,
                  try readAll(Fixtures.project("scenarios/security.legacy-pairing-fires.be.pklg").path).records)
    }

    @Test func aCompressedFileCutShortKeepsWhatWasReadAndSaysWhere() throws {
        let (records, reader) = try readAll(Self.fixture("pairing-cut.btsnoop.gz"))
        let whole = try readAll(Self.pairing).records
        #expect(records.count > 100 && records.count < whole.count)
        Self.same(records, Array(whole.prefix(records.count)))
        let errors = reader.diagnostics.filter { $0.severity == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.message.contains("gzip data ends in the middle of a stream") == true)
        #expect(errors.first?.file == Self.fixture("pairing-cut.btsnoop.gz"))
        #expect(reader.summary.exitClass == .readWithErrors)
    }

    @Test func compressedInputFromAPipe() throws {
        for name in ["pairing.btsnoop.zst", "polling.pcapng.gz"] {
            let fd = open(Self.fixture(name), O_RDONLY)
            let (records, reader) = try readAll(fileDescriptor: fd)
            #expect(records.count == (name.hasPrefix("pairing") ? 400 : 75))
            #expect(reader.summary.exitClass == .ok)
        }
    }

    @Test func anAndroidBugReportMergesItsRotatedLogsAndLeavesTheFilteredOneOut() throws {
        let (records, reader) = try readAll(Self.fixture("bugreport-full.zip"))
        Self.same(records, try readAll(Self.polling).records)
        let o = reader.origin
        #expect(o.kind == .androidBugReport)
        #expect(o.layers == [.zip])
        #expect(o.members.map(\.name) == [
            "FS/data/misc/bluetooth/logs/btsnoop_hci.log.last", "FS/data/misc/bluetooth/logs/btsnoop_hci.log",
        ])
        #expect(o.members.map(\.records) == [37, 38])
        #expect(o.leftOut.map(\.name) == ["FS/data/misc/bluetooth/logs/btsnoop_hci.log.filtered"])
        #expect(!o.summaryOnly)
        #expect(reader.summary.exitClass == .ok)
    }

    @Test func aZipOnStandardInputIsSpooled() throws {
        let fd = open(Self.fixture("bugreport-full.zip"), O_RDONLY)
        let (records, reader) = try readAll(fileDescriptor: fd)
        #expect(records.count == 75)
        #expect(reader.origin.members.count == 2)
    }

    /// btsnooz keeps each packet's start (ACL outside L2CAP signalling: 14 bytes) and its
    /// original length; times are rebuilt backwards from the header's last timestamp.
    static func checkSummary(_ records: [CaptureRecord], exactTimes: Bool) throws {
        let full = try readAll(polling).records
        #expect(records.count == full.count)
        var cut = 0
        var differences: [String] = []
        for (r, f) in zip(records, full) {
            let timeMatches = exactTimes
                ? r.timestamp == f.timestamp
                : r.timestamp.microseconds - records[0].timestamp.microseconds == f.timestamp.microseconds - full[0].timestamp.microseconds
            if !timeMatches || r.direction != f.direction || r.kind != f.kind || r.originalLength != f.payload.count
                || !f.payload.starts(with: r.payload) || r.payload.count > 150
            {
                differences.append("\(f.frame)")
            }
            if r.payload.count < f.payload.count {
                cut += 1
                if r.kind == .acl { #expect(r.payload.count == 14 || f.payload.count > 150) }
            }
        }
        #expect(differences.isEmpty, "records differing: \(differences.prefix(5))")
        #expect(cut == 7)
    }

    @Test("the btsnooz summary of a bug report's text", arguments: ["btsnooz-v1.txt", "btsnooz-v2.txt", "bugreport-summary.zip"])
    func summary(_ name: String) throws {
        let (records, reader) = try readAll(Self.fixture(name))
        try Self.checkSummary(records, exactTimes: true)
        #expect(reader.origin.summaryOnly)
        #expect(reader.origin.kind == .androidBugReport)
        #expect(reader.origin.layers.contains(.btsnoozSummary(version: name.contains("v1") ? 1 : 2)))
        #expect(reader.summary.exitClass == .ok)
    }

    @Test func rawBTSnoozRecordsAfterABTSnoopHeader() throws {
        let (records, reader) = try readAll(Self.fixture("btsnooz_hci.log"))
        try Self.checkSummary(records, exactTimes: false)
        #expect(reader.origin.layers == [.btsnoozRecords])
        #expect(reader.diagnostics.contains { $0.severity == .warning && $0.message.contains("modification time") })
    }

    @Test func anIOSSysdiagnoseMergesItsPacketLoggerLogs() throws {
        let (records, reader) = try readAll(Self.fixture("sysdiagnose.tar.gz"))
        let hci = records.filter(\.kind.isHCI)
        let full = try readAll(Self.polling).records
        #expect(hci.count == full.count)
        #expect(zip(hci, full).allSatisfy { $0.timestamp == $1.timestamp && $0.payload == $1.payload && $0.kind == $1.kind })
        #expect(records.count == full.count + 4)  // a note and a config record before each log
        #expect(reader.origin.kind == .sysdiagnose)
        #expect(reader.origin.layers == [.compressed("gzip"), .tar])
        #expect(reader.origin.members.count == 2)
        #expect(reader.origin.members.allSatisfy { $0.name.contains("logs/Bluetooth/bluetoothd-hci-") })
    }

    @Test func unpackedFoldersReadLikeTheirArchives() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-folder-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-xzf", Self.fixture("sysdiagnose.tar.gz"), "-C", dir.path]
        try tar.run()
        tar.waitUntilExit()
        #expect(tar.terminationStatus == 0)
        let (records, reader) = try readAll(dir.path)
        #expect(records.count == 79)
        #expect(reader.origin.kind == .sysdiagnose)
        #expect(reader.origin.layers == [.folder])
        #expect(reader.origin.members.count == 2)
    }

    @Test("a container with no capture says what it found", arguments: [
        ("bugreport-nothing.zip", "an Android bug report of 2 members with no HCI capture and no BTSNOOP_LOG_SUMMARY"),
        ("sysdiagnose-nothing.tar.gz", "a tar archive of 1 entry with no HCI capture"),
    ])
    func nothingInside(_ name: String, _ message: String) {
        #expect {
            _ = try CaptureReader.open(path: Self.fixture(name))
        } throws: { error in
            guard let e = error as? CaptureError else { return false }
            return e.kind == .notACapture && e.message.hasPrefix(message) && e.file == Self.fixture(name)
        }
    }

    @Test func textWithoutASummaryIsNotACapture() throws {
        #expect {
            _ = try CaptureReader.open(path: Fixtures.url("README.md").path)
        } throws: { error in
            (error as? CaptureError)?.message.contains("without a BTSNOOP_LOG_SUMMARY block") == true
        }
    }

    /// Every capture the tests know (own and corpus), compressed with one of the four tools in
    /// turn (the system's gzip, xz, zstd, bzip2 commands), reads as the capture itself.
    @Test func everyCorpusCaptureReadsTheSameCompressed() throws {
        let tools = [("gzip", "gzip"), ("xz", "xz"), ("zstd", "zstd"), ("bzip2", "bzip2")]
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-compressed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var checked = 0
        for (i, url) in Fixtures.corpusFiles().enumerated() {
            guard let plain = try? readAll(url.path) else { continue }
            let (tool, layer) = tools[i % tools.count]
            let out = dir.appendingPathComponent(url.lastPathComponent + "." + tool)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool, "-c", url.path]
            FileManager.default.createFile(atPath: out.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "\(tool) is missing (Scripts/setup.sh --test installs it)")
            // Raw btsnooz records take their clock from the file's time: the copy keeps it.
            let modified = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]
            try FileManager.default.setAttributes([.modificationDate: modified as Any], ofItemAtPath: out.path)
            let (records, reader) = try readAll(out.path)
            #expect(reader.origin.layers == [.compressed(layer)] + plain.reader.origin.layers, "\(url.lastPathComponent)")
            #expect(records == plain.records, "\(url.lastPathComponent) through \(tool)")
            #expect(reader.summary.errors == plain.reader.summary.errors, "\(url.lastPathComponent)")
            checked += 1
        }
        #expect(checked >= 20)
    }
}
