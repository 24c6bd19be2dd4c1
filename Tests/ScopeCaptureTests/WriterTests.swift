import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func mode(_ path: String) -> Int? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return Int(st.st_mode & 0o777)
}

@Suite struct WriterTests {
    static let writable = CaptureFormat.allCases.filter(\.isWritable)

    static func record(_ kind: RecordKind, _ direction: Direction, micros: Int64 = 1_741_683_737_418_233,
                       payload: [UInt8] = [0x03, 0x0C, 0x00]) -> CaptureRecord {
        CaptureRecord(frame: 1, timestamp: Timestamp(microseconds: micros), direction: direction, kind: kind, payload: payload)
    }

    @Test("files are created with mode 0600", arguments: writable)
    func createdPrivate(_ format: CaptureFormat) throws {
        let tmp = try TemporaryDirectory()
        let fresh = tmp.path("fresh")
        var w = try CaptureWriter.make(format: format, path: fresh)
        try w.write(Self.record(.command, .sent))
        try w.close()
        #expect(mode(fresh) == 0o600)
        // An existing, world-readable file is brought down to 0600 too.
        let existing = tmp.path("existing")
        FileManager.default.createFile(atPath: existing, contents: Data([1, 2, 3]), attributes: [.posixPermissions: 0o644])
        var w2 = try CaptureWriter.make(format: format, path: existing)
        try w2.close()
        #expect(mode(existing) == 0o600)
    }

    @Test func unwritableFormatsAreRefused() throws {
        let tmp = try TemporaryDirectory()
        for format in CaptureFormat.allCases where !format.isWritable {
            let error = try #require(throws: CaptureError.self) { try CaptureWriter.make(format: format, path: tmp.path("x")) }
            #expect(error.kind == .usage)
            #expect(error.message.hasPrefix("cannot write \(format.rawValue): writable formats are btsnoop-1002, btsnoop-2001, pcap-201, pcap-254, pklg-be, pklg-le"))
        }
    }

    @Test func writeAfterCloseThrowsAndCloseTwiceDoesNothing() throws {
        let tmp = try TemporaryDirectory()
        var w = try CaptureWriter.make(format: .btsnoopH4, path: tmp.path("x"))
        try w.close()
        try w.close()
        let error = try #require(throws: CaptureError.self) { try w.write(Self.record(.command, .sent)) }
        #expect(error.kind == .usage)
    }

    @Test func unwritablePathsAreIOErrors() throws {
        let error = try #require(throws: CaptureError.self) {
            try CaptureWriter.make(format: .pcapH4PHDR, path: "/nonexistent-dir/x.pcap")
        }
        #expect(error.kind == .io)
        #expect(error.message == "cannot create: No such file or directory")
    }

    @Test("records a format cannot hold are skipped with the reason")
    func skipReasons() throws {
        let tmp = try TemporaryDirectory()
        let cases: [(CaptureFormat, CaptureRecord, SkippedRecords.Reason?)] = [
            (.btsnoopH4, Self.record(.newIndex, .unknown), .kind),
            (.btsnoopH4, Self.record(.acl, .unknown), .direction),
            (.btsnoopH4, Self.record(.acl, .received), nil),
            (.pcapH4PHDR, Self.record(.systemNote, .unknown), .kind),
            (.pcapH4PHDR, Self.record(.lmp, .sent), .kind),
            (.pcapH4PHDR, Self.record(.event, .received, micros: Int64(Int32.max) * 1_000_000 + 1_000_000), .timestamp),
            (.pcapH4PHDR, Self.record(.event, .received, micros: -1_051_674_456_214), nil),  // 1969 fits pcap
            (.pcapMonitor, Self.record(.packetLoggerText(0xF7), .unknown), .kind),
            (.btsnoopMonitor, Self.record(.unknownH4(9), .sent), .kind),
            (.btsnoopMonitor, Self.record(.command, .received), .direction),
            (.pklgBE, Self.record(.event, .received, micros: -1), .timestamp),
            (.pklgBE, Self.record(.deleteIndex, .unknown), .kind),
            (.pklgLE, Self.record(.lmp, .received), nil),
            (.pklgLE, Self.record(.command, .received), .direction),
        ]
        for (format, record, reason) in cases {
            var w = try CaptureWriter.make(format: format, path: tmp.path("x"))
            try w.write(record)
            try w.close()
            if let reason {
                #expect(w.skipped.counts == [SkippedRecords.Key(kind: record.kind, reason: reason): 1], "\(format) \(record.kind)")
                #expect(w.written == 0)
            } else {
                #expect(w.skipped.total == 0, "\(format) \(record.kind)")
                #expect(w.written == 1)
                let back = try readAll(tmp.path("x")).records
                #expect(back.map(\.timestamp) == [record.timestamp])
                #expect(back.map(\.kind) == [record.kind])
            }
        }
    }

    @Test func skippedDescription() throws {
        let tmp = try TemporaryDirectory()
        var w = try CaptureWriter.make(format: .pcapH4PHDR, path: tmp.path("x"))
        try w.write(Self.record(.newIndex, .unknown))
        try w.write(Self.record(.newIndex, .unknown))
        try w.write(Self.record(.acl, .unknown))
        try w.close()
        #expect(w.skipped.description == "3 records skipped: 2 New Index (kind not representable), 1 ACL Data (direction not representable)")
        #expect(SkippedRecords().description == "no records skipped")
    }

    /// btsnoop 1002: flags bit0 = received, bit1 = command/event; the H4 byte is counted in
    /// both lengths; timestamps are µs + 0x00dcddb30f2f8000.
    @Test func btsnoopRecordLayout() throws {
        let tmp = try TemporaryDirectory()
        var w = try CaptureWriter.make(format: .btsnoopH4, path: tmp.path("x"))
        var r = Self.record(.acl, .received, micros: 0, payload: [0x40, 0x00, 0x01, 0x00, 0xAA])
        r.originalLength = 9
        r.drops = 3
        try w.write(r)
        try w.close()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: tmp.path("x"))))
        #expect(bytes == Fixtures.hex("""
            6274736e 6f6f7000 00000001 000003ea
            0000000a 00000006 00000001 00000003 00dcddb3 0f2f8000
            02 40000100aa
            """))
    }

    /// pcap 254: {adapter, opcode} big-endian before the payload; lengths include them.
    @Test func pcapMonitorRecordLayout() throws {
        let tmp = try TemporaryDirectory()
        var w = try CaptureWriter.make(format: .pcapMonitor, path: tmp.path("x"))
        var r = Self.record(.acl, .sent, micros: 1_000_000_000_000_001, payload: [0x01, 0x02])
        r.adapter = 2
        try w.write(r)
        try w.close()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: tmp.path("x"))))
        // Header in host order (little-endian here), then ts 1000000000 s + 1 µs, caplen 6, len 6.
        #expect(bytes.count == 24 + 16 + 6)
        #expect(Array(bytes[20..<24]) == [254, 0, 0, 0])
        #expect(Array(bytes[24..<40]) == Fixtures.hex("00ca9a3b 01000000 06000000 06000000"))
        #expect(Array(bytes[40...]) == Fixtures.hex("0002 0004 0102"))
    }

    @Test func packetLoggerRecordLayout() throws {
        let tmp = try TemporaryDirectory()
        for (format, expected) in [
            (CaptureFormat.pklgBE, "0000000c 612e1636 00062efd 01 0e0100"),
            (.pklgLE, "0c000000 36162e61 fd2e0600 01 0e0100"),
        ] {
            var w = try CaptureWriter.make(format: format, path: tmp.path("x"))
            try w.write(Self.record(.event, .received, micros: 1_630_410_294_405_245, payload: [0x0E, 0x01, 0x00]))
            try w.close()
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: tmp.path("x")))) == Fixtures.hex(expected))
        }
    }
}
