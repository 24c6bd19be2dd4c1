import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport

/// What the corpus pin says about its files: `captures/corpus.tsv` (format and tshark's
/// packet count) and, for scenarios, `capture_info.packets` in each `*.truth.json`.
enum Corpus {
    struct Expectation: Sendable {
        var format: String
        var packets: Int
    }

    static let manifest: [String: Expectation] = {
        // The project's kernel-lab recordings (captures/README.md) and the frames tshark 4.0.17 reads.
        var out: [String: Expectation] = [
            "btvirt-le-pairing.btsnoop": Expectation(format: "btsnoop-2001", packets: 400),
            "btvirt-recorded-by-hciscope.btsnoop": Expectation(format: "btsnoop-2001", packets: 400),
            "btvirt-reset-links-up.btsnoop": Expectation(format: "btsnoop-2001", packets: 790),
        ]
        for row in Fixtures.corpusManifest where row.count("packets") >= 0 {
            out[row.file] = Expectation(format: row.format, packets: row.count("packets"))
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
            // The project's truth files name the format as hciscope does ("pklg-le"); the corpus's
            // say "btsnoop" or "pcap" (datalink 1002, link type 201).
            let stated = info["format"] as? String
            let format = stated.flatMap { $0.contains("-") ? $0 : nil } ?? (url.pathExtension == "pcap" ? "pcap-201" : "btsnoop-1002")
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
