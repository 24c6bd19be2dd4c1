import Foundation
import ScopeCapture
@testable import ScopeCommands
import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

/// What the decoded capture shows of its devices: every address and every device name that
/// `show -v` prints for it (the fields of every frame: HCI parameters and return parameters,
/// advertising reports and AD structures, SMP, monitor index records, MGMT parameters, notes
/// and logs), plus the names and addresses of PacketLogger paired-device records.
struct ShownIdentities {
    var addresses: Set<UInt64> = []
    var names: Set<[UInt8]> = []

    static let nameFields: Set<String> = ["Local Name", "Remote Name", "Name", "Short Name", "Complete Local Name", "Shortened Local Name"]

    init(_ path: String) throws {
        var reader = try CaptureReader.open(path: path)
        var dissector = Dissector()
        while let record = reader.next() {
            let kind = record.kind
            let payload = record.payload
            let frame = dissector.decode(record)
            var fields = FrameSummary.fields(frame)
            if kind == .packetLoggerText(PacketLoggerConfig.recordType) { fields += PacketLoggerConfig.fields(payload) }
            // NEW_INDEX's name is the kernel's interface name ("hci0"), not a device's.
            collect(fields, skipNames: kind == .newIndex)
        }
        reader.close()
    }

    mutating func collect(_ fields: [Field], skipNames: Bool) {
        for f in fields {
            for v in textAddresses(Array(f.value.utf8)) where !isPlaceholder(v) { addresses.insert(v) }
            if !skipNames, Self.nameFields.contains(f.name) {
                var value = f.value
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                let bytes = Array(value.utf8)
                if bytes.count >= 4, !value.contains("\u{FFFD}") { names.insert(bytes) }
            }
            collect(f.children, skipNames: skipNames)
        }
    }
}

/// Addresses written as text in `bytes`: six pairs of hex digits separated by ':' or '-'.
func textAddresses(_ bytes: [UInt8]) -> [UInt64] {
    func hex(_ c: UInt8) -> UInt64? {
        switch c {
        case 0x30...0x39: return UInt64(c - 0x30)
        case 0x41...0x46: return UInt64(c - 0x37)
        case 0x61...0x66: return UInt64(c - 0x57)
        default: return nil
        }
    }
    var out: [UInt64] = []
    var i = 0
    scan: while i + 17 <= bytes.count {
        var v: UInt64 = 0
        for k in 0..<6 {
            let at = i + 3 * k
            guard let hi = hex(bytes[at]), let lo = hex(bytes[at + 1]), k == 5 || bytes[at + 2] == 0x3A || bytes[at + 2] == 0x2D else {
                i += 1
                continue scan
            }
            v = v << 8 | hi << 4 | lo
        }
        out.append(v)
        i += 17
    }
    return out
}

/// Placeholder addresses (at most one byte other than 00 and FF, e.g. the 00:00:00:00:00:01…
/// Android puts in the resolving list): the redactor replaces them in their fields, but their
/// bytes occur in any file by chance, so nobody can search for them.
func isPlaceholder(_ v: UInt64) -> Bool {
    (0..<6).filter { k in let b = UInt8(truncatingIfNeeded: v >> (8 * UInt64(k))); return b != 0 && b != 0xFF }.count <= 1
}

/// What of `identities` is still in `bytes`: each address as 6 bytes in either byte order or as
/// text (either case, ':' or '-'), each name as its UTF-8 bytes.
func survivors(of identities: ShownIdentities, in bytes: [UInt8]) -> (addresses: [String], names: [String]) {
    var windows = Set<UInt64>()
    if bytes.count >= 6 {
        windows.reserveCapacity(bytes.count)
        for i in 0...(bytes.count - 6) {
            var v: UInt64 = 0
            for k in 0..<6 { v |= UInt64(bytes[i + k]) << (8 * UInt64(k)) }
            windows.insert(v)
        }
    }
    let textual = Set(textAddresses(bytes))
    var addresses: [String] = []
    for a in identities.addresses.sorted() {
        let reversed = a.byteSwapped >> 16
        if windows.contains(a) || windows.contains(reversed) || textual.contains(a) {
            addresses.append(BDAddr(value: a).description)
        }
    }
    let data = Data(bytes)
    let names = identities.names.filter { data.range(of: Data($0)) != nil }.map { String(decoding: $0, as: UTF8.self) }.sorted()
    return (addresses, names)
}

@Suite("Redact leaks", .serialized)
struct RedactLeakTests {
    /// Every capture (the project's own and, with `HCISCOPE_CORPUS`, the real corpus) redacted
    /// with the defaults: no address and no device name (4 bytes or more) that the decoded
    /// original shows is left anywhere in the redacted file's bytes.
    @Test(.timeLimit(.minutes(10)))
    func nothingTheDecoderShowsSurvivesRedaction() throws {
        var checked = 0, addresses = 0, names = 0
        for url in Fixtures.corpusFiles() {
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-leak-\(getpid())-\(url.lastPathComponent)").path
            defer { unlink(out) }
            let run = try redact([url.path, out, "--key", RedactTests.key])
            guard FileManager.default.fileExists(atPath: out) else {
                #expect(run.status == 2, "\(url.lastPathComponent): no output but status \(run.status)")
                continue  // not an HCI capture (sniffer link types)
            }
            let shown = try ShownIdentities(url.path)
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
            let left = survivors(of: shown, in: bytes)
            #expect(left.addresses.isEmpty, "\(url.lastPathComponent): \(left.addresses.count) of \(shown.addresses.count) addresses left: \(left.addresses.prefix(8))")
            #expect(left.names.isEmpty, "\(url.lastPathComponent): \(left.names.count) of \(shown.names.count) names left: \(left.names.prefix(8))")
            checked += 1
            addresses += shown.addresses.count
            names += shown.names.count
        }
        print("redact leaks: \(checked) captures, \(addresses) addresses and \(names) names checked")
        #expect(checked >= (Fixtures.corpusRoot != nil ? 50 : 5))
        #expect(addresses > 0 && names > 0)
    }

    /// Every capture redacted: each SMP PDU the decoder reassembles from the output has its
    /// secret fields zeroed, those split over several ACL records (LE Secure Connections' public
    /// keys) included: the redactor places each record's bytes in its PDU with the decoder's own
    /// reassembly (`ACLStep.placement`).
    @Test(.timeLimit(.minutes(10)))
    func smpSecretsAreZeroedAcrossFragments() throws {
        var secretPDUs = 0, fragmented = 0
        for url in Fixtures.corpusFiles() {
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-smp-\(getpid())-\(url.lastPathComponent)").path
            defer { unlink(out) }
            _ = try redact([url.path, out, "--key", RedactTests.key])
            guard FileManager.default.fileExists(atPath: out) else { continue }
            var reader = try CaptureReader.open(path: out)
            var dissector = Dissector()
            while let record = reader.next() {
                for pdu in dissector.decode(record).pdus {
                    guard case .smp(let smp) = pdu.upper else { continue }
                    let payload = Array(pdu.pdu.payload)
                    let secrets = SecretFields.smp(code: smp.code.rawValue)
                    guard !secrets.isEmpty else { continue }
                    secretPDUs += 1
                    if !pdu.pdu.earlierFragments.isEmpty { fragmented += 1 }
                    for r in secrets {
                        let field = payload[r.clamped(to: 0..<payload.count)]
                        #expect(field.allSatisfy { $0 == 0 }, "\(url.lastPathComponent) frame \(record.frame): SMP code \(smp.code.rawValue) secret \(r) left")
                    }
                }
            }
            reader.close()
        }
        print("redact SMP: \(secretPDUs) SMP PDUs with secrets checked, \(fragmented) of them split over several ACL records")
        #expect(secretPDUs > 0)
        if Fixtures.corpusRoot != nil { #expect(fragmented > 0) }
    }

    /// The oracle finds what it should: on an unredacted copy every address and name is found.
    @Test func theOracleSeesTheOriginal() throws {
        let path = Fixtures.project("btvirt-le-pairing.btsnoop").path
        let shown = try ShownIdentities(path)
        #expect(shown.addresses.contains(BDAddr("00:aa:01:00:00:00")!.value))
        #expect(shown.names.contains(Array("klab-adv".utf8)))
        let left = survivors(of: shown, in: try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(left.addresses.count == shown.addresses.count && left.names.count == shown.names.count)
    }
}

/// Records the redactor used to leave in clear, from real captures.
@Suite("Redact record kinds")
struct RedactRecordKindTests {
    static let key: [UInt8] = Array(0..<16)

    func record(_ kind: RecordKind, _ hex: String, direction: Direction = .unknown) -> CaptureRecord {
        CaptureRecord(frame: 1, timestamp: Timestamp(microseconds: 0), direction: direction, kind: kind, payload: Fixtures.hex(hex))
    }

    func redacted(_ records: [CaptureRecord], _ options: Redactor.Options = .init(key: key)) -> (Redactor, [CaptureRecord]) {
        var r = Redactor(options: options)
        for x in records { r.learn(x) }
        r.finishLearning()
        let out = records.map { r.redact($0) }
        return (r, out)
    }

    /// havvk__even-g2-smart-classroom__bt3.pklg (iOS 27 PacketLogger), record 11, type 0xFD: a
    /// paired device "Hawk的Apple Watch" (the space is U+00A0), f0:04:e1:3d:c6:cc, 16 opaque bytes;
    /// record 5, a note naming the phone's address as text.
    @Test func packetLoggerPairedDeviceAndNoteAddress() throws {
        let config = record(.packetLoggerText(0xFD),
                            "015000134861776be79a844170706c65c2a05761746368ccc63de104f08beff6d66427213718176113c72fe9b8")
        let note = record(.systemNote, "416464726573733a2038303a39363a39383a34323a35343a4230")  // "Address: 80:96:98:42:54:B0"
        let (r, out) = redacted([config, note])
        let p = out[0].payload
        #expect(p.count == config.payload.count && p[0..<4] == config.payload[0..<4])
        #expect(!contains(p, Array("Apple".utf8)), "name left")
        let watch = BDAddr("f0:04:e1:3d:c6:cc")!
        #expect(Array(p[23..<29]) == r.pseudonym(of: watch)?.littleEndianBytes)
        #expect(p[29...].allSatisfy { $0 == 0 }, "opaque bytes left")
        let phone = try #require(r.pseudonym(of: BDAddr("80:96:98:42:54:b0")!))
        #expect(String(decoding: out[1].payload, as: UTF8.self) == "Address: " + phone.description.uppercased())
    }

    /// The shipped pairing capture: LE Set Random Address (0x2005) names hci1's own random
    /// address 0c:fc:d6:60:54:9b, a `.local` address field the old redactor did not learn.
    @Test func localRandomAddressIsPseudonymised() throws {
        var reader = try CaptureReader.open(path: shippedSample)
        var records: [CaptureRecord] = []
        while let x = reader.next() { records.append(x) }
        let (r, out) = redacted(records)
        let local = BDAddr("0c:fc:d6:60:54:9b")!
        let pseudonym = try #require(r.pseudonym(of: local))
        #expect(pseudonym.value >> 46 == local.value >> 46)  // static/resolvable bits kept
        for (a, b) in zip(records, out) where a.kind == .command && a.payload.starts(with: [0x05, 0x20]) {
            #expect(Array(b.payload[3..<9]) == pseudonym.littleEndianBytes)
        }
        #expect(!out.contains { contains($0.payload, local.littleEndianBytes) })
    }

    /// The same iOS log, frame 52: a Broadcom vendor event (0xFF) whose layout is unknown. Zeroed
    /// after its header by default, kept with --keep-unknown.
    @Test func unknownLayoutsAreZeroedUnlessKept() {
        let vendor = record(.event, "ff065a0150000000", direction: .received)
        let (_, zeroed) = redacted([vendor])
        #expect(zeroed[0].payload == [0xFF, 0x06, 0, 0, 0, 0, 0, 0])
        let (_, kept) = redacted([vendor], .init(key: Self.key, keepUnknown: true))
        #expect(kept[0].payload == vendor.payload)
        // An LMP record of a PacketLogger log: no layout, zeroed.
        let (_, lmp) = redacted([record(.lmp, "0102030405060708")])
        #expect(lmp[0].payload.allSatisfy { $0 == 0 })
    }
}
