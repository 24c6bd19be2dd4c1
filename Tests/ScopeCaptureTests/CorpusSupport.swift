import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport

/// What the shared corpus says about its files: `real/MANIFEST.tsv` (format and tshark's
/// packet count) and, for scenarios, `capture_info.packets` in each `*.truth.json`.
enum Corpus {
    struct Expectation: Sendable {
        var format: String
        var packets: Int
    }

    static let manifest: [String: Expectation] = {
        guard let url = Fixtures.shared("real/MANIFEST.tsv"),
              let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var out: [String: Expectation] = [:]
        let lines = text.split(separator: "\n")
        guard let head = lines.first?.split(separator: "\t", omittingEmptySubsequences: false) else { return [:] }
        guard let fileColumn = head.firstIndex(of: "file"), let formatColumn = head.firstIndex(of: "format"),
              let packetsColumn = head.firstIndex(of: "packets") else { return [:] }
        for line in lines.dropFirst() {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard cols.count > max(fileColumn, formatColumn, packetsColumn), let n = Int(cols[packetsColumn]) else { continue }
            out[String(cols[fileColumn])] = Expectation(format: String(cols[formatColumn]), packets: n)
        }
        return out
    }()

    /// The expectation for a corpus file, or nil when none is recorded.
    static func expectation(_ url: URL) -> Expectation? {
        let name = url.lastPathComponent
        if let e = manifest[name] { return e }
        // scenarios/NAME.btsnoop → NAME.truth.json; NAME.pcap → NAME.pcap.truth.json or NAME.truth.json.
        let dir = url.deletingLastPathComponent()
        let base = url.deletingPathExtension().lastPathComponent
        for candidate in [name + ".truth.json", base + ".truth.json"] {
            let truth = dir.appendingPathComponent(candidate)
            guard let data = try? Data(contentsOf: truth),
                  let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let info = json["capture_info"] as? [String: Any],
                  let packets = info["packets"] as? Int else { continue }
            let format = url.pathExtension == "pcap" ? "pcap-201" : "btsnoop-1002"
            return Expectation(format: format, packets: packets)
        }
        return nil
    }

    /// Link types of the sniffer files in the corpus (not HCI).
    static func isHCI(_ url: URL) -> Bool {
        guard let e = expectation(url) else { return true }
        return !(e.format.hasSuffix("-272") || e.format.hasSuffix("-256") || e.format.hasSuffix("-251") || e.format.hasSuffix("-255"))
    }

    static var hciFiles: [URL] { Fixtures.corpusFiles().filter(isHCI) }
    static var nonHCIFiles: [URL] { Fixtures.corpusFiles().filter { !isHCI($0) } }
}
