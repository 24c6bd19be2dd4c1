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
