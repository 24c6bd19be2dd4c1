import Foundation
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// Decodes every HCI command and event in the btsnoop files of the shared corpus (a minimal
/// btsnoop reader lives here so the HCI layer can be swept before the capture readers land).
@Suite("HCI corpus sweep")
struct HCICorpusTests {
    enum Packet {
        case command([UInt8])
        case event([UInt8])
    }

    /// Commands and events of a btsnoop file (datalink 1002 H4 or 2001 Linux monitor), in order,
    /// with their 1-based frame numbers. Other records are skipped.
    static func packets(_ url: URL) -> [(frame: Int, packet: Packet)] {
        guard let data = try? Data(contentsOf: url), data.count >= 16 else { return [] }
        let bytes = [UInt8](data)
        guard bytes.starts(with: Array("btsnoop\0".utf8)) else { return [] }
        func be32(_ i: Int) -> Int { Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) }
        let datalink = be32(12)
        var out: [(Int, Packet)] = []
        var i = 16
        var frame = 0
        while i + 24 <= bytes.count {
            let included = be32(i + 4)
            let flags = be32(i + 8)
            let start = i + 24
            guard start + included <= bytes.count else { break }
            frame += 1
            let record = Array(bytes[start..<(start + included)])
            i = start + included
            switch datalink {
            case 1002:
                guard let type = record.first else { continue }
                if type == 0x01 { out.append((frame, .command(Array(record.dropFirst())))) }
                if type == 0x04 { out.append((frame, .event(Array(record.dropFirst())))) }
            case 2001:
                let opcode = flags & 0xFFFF
                if opcode == 2 { out.append((frame, .command(record))) }
                if opcode == 3 { out.append((frame, .event(record))) }
            default:
                return []
            }
        }
        return out
    }

    static var btsnoopFiles: [URL] {
        Fixtures.corpusFiles().filter { url in
            guard let h = try? FileHandle(forReadingFrom: url) else { return false }
            defer { try? h.close() }
            return (try? h.read(upToCount: 8)) == Data("btsnoop\0".utf8)
        }
    }

    @Test("every command and event of every btsnoop file decodes without trapping")
    func sweep() throws {
        let dump = ProcessInfo.processInfo.environment["HCISWEEP"] != nil
        var total = 0
        for url in Self.btsnoopFiles {
            var counts: [String: Int] = [:]
            for (frame, packet) in Self.packets(url) {
                total += 1
                switch packet {
                case .command(let p):
                    let c = HCICommand.decode(p)
                    _ = c.fields
                    _ = c.summary
                    _ = c.addresses
                    for m in c.malformed {
                        counts["cmd \(c.opcode): \(m.message)", default: 0] += 1
                        if dump, counts["cmd \(c.opcode): \(m.message)"] == 1 { print("  #\(frame) \(Hex.string(p, separator: " "))") }
                    }
                case .event(let p):
                    let e = HCIEvent.decode(p)
                    _ = e.fields
                    _ = e.summary
                    _ = e.addresses
                    for r in e.advertisingReports { _ = r.ad; _ = r.eventTypeName }
                    for m in e.malformed {
                        let key = "evt \(e.subevent?.description ?? e.code.description) \(e.commandOpcode?.description ?? ""): \(m.message)"
                        counts[key, default: 0] += 1
                        if dump, counts[key] == 1 { print("  #\(frame) \(Hex.string(p, separator: " "))") }
                    }
                }
            }
            if dump {
                print("== \(url.lastPathComponent)")
                for (k, v) in counts.sorted(by: { $0.key < $1.key }) { print("   \(v)× \(k)") }
            }
        }
        if Fixtures.corpusRoot != nil { #expect(total > 100_000) }
    }
}
