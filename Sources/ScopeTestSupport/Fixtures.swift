import Foundation
import ScopeCore

/// Access to test fixtures, to the captures the project ships (`captures/`) and to the pinned
/// corpus of third-party real captures.
///
/// The corpus is found through one setting, the environment variable `HCISCOPE_CORPUS`: a folder
/// with `real/` (the captures pinned in `captures/corpus.tsv`, as `Scripts/fetch-corpus.sh` lays
/// them out) and optionally `scenarios/` (further generated sessions with `.truth.json` files).
/// `Scripts/test.sh` sets it. Without it, tests that need a particular real capture skip, tests
/// over "every capture" run on the project's own captures, and one line says so.
package enum Fixtures {
    /// URL of a fixture shipped in `Sources/ScopeTestSupport/Fixtures/`.
    package static func url(_ relativePath: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
    }

    /// The repository root (found from this source file's location).
    package static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `captures/` of this repository: the shipped samples and the project's own scenarios.
    package static var projectCaptures: URL { repositoryRoot.appendingPathComponent("captures") }

    /// The corpus root named by `HCISCOPE_CORPUS`, or nil. When it is unset (or names no folder),
    /// the first use prints one line saying what is skipped and how to get the corpus.
    package static let corpusRoot: URL? = {
        let value = ProcessInfo.processInfo.environment["HCISCOPE_CORPUS"] ?? ""
        var isDirectory: ObjCBool = false
        if !value.isEmpty, FileManager.default.fileExists(atPath: value, isDirectory: &isDirectory), isDirectory.boolValue {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        let why = value.isEmpty ? "HCISCOPE_CORPUS is not set" : "HCISCOPE_CORPUS=\(value) is not a folder"
        FileHandle.standardError.write(Data((
            "note: \(why): tests on the \(corpusManifest.count) third-party real captures pinned in captures/corpus.tsv "
            + "are skipped (tests over every capture use the project's own); get them with `bash Scripts/fetch-corpus.sh` "
            + "and run `HCISCOPE_CORPUS=\"$(bash Scripts/fetch-corpus.sh --print-dir)\" swift test`, or `bash Scripts/test.sh`\n").utf8))
        return nil
    }()

    /// A file of the corpus (`real/NAME`, `scenarios/NAME`), or nil when the corpus is absent or
    /// does not hold it.
    package static func corpus(_ relativePath: String) -> URL? {
        guard let url = corpusRoot?.appendingPathComponent(relativePath),
              FileManager.default.fileExists(atPath: url.path) else { return nil }
        return url
    }

    /// A capture the project ships, by its path under `captures/` (`scenarios/NAME`).
    package static func project(_ relativePath: String) -> URL {
        projectCaptures.appendingPathComponent(relativePath)
    }

    /// Every capture: the project's own (`captures/*` and `captures/scenarios/*`), then the
    /// corpus's (`real/*`, `scenarios/*`) when present. Metadata files (`.json`, `.tsv`, `.md`)
    /// are left out.
    package static func corpusFiles() -> [URL] {
        var roots = [projectCaptures, projectCaptures.appendingPathComponent("scenarios")]
        if let root = corpusRoot {
            roots += [root.appendingPathComponent("real"), root.appendingPathComponent("scenarios")]
        }
        return roots.flatMap(captureFiles(in:))
    }

    /// Only the corpus's captures (empty without it).
    package static func externalCorpusFiles() -> [URL] {
        guard let root = corpusRoot else { return [] }
        return ["real", "scenarios"].flatMap { captureFiles(in: root.appendingPathComponent($0)) }
    }

    /// The capture files directly in `directory`, sorted by name.
    package static func captureFiles(in directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { name in
            guard !name.hasPrefix("."), ![".json", ".tsv", ".md", ".py"].contains(where: { name.hasSuffix($0) }) else { return nil }
            let url = directory.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
            return url
        }
    }

    /// One row of `captures/corpus.tsv`: a pinned third-party capture and what tshark 4.0.17
    /// counts in it.
    package struct CorpusEntry: Sendable, CustomStringConvertible {
        package var columns: [String: String]
        package var file: String { columns["file"] ?? "" }
        package var format: String { columns["format"] ?? "" }
        /// An integer column (`packets`, `le_adv_reports`, `att`, …), -1 when absent.
        package func count(_ column: String) -> Int { columns[column].flatMap { Int($0) } ?? -1 }
        package var description: String { file }
    }

    /// `captures/corpus.tsv`, parsed (in the repository; present with or without the corpus).
    package static let corpusManifest: [CorpusEntry] = {
        let url = repositoryRoot.appendingPathComponent("captures/corpus.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) else { return [] }
        return lines.dropFirst().map { line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return CorpusEntry(columns: Dictionary(zip(header, cells), uniquingKeysWith: { a, _ in a }))
        }
    }()

    /// Hex text → bytes; traps on malformed literals (test code only).
    package static func hex(_ text: String) -> [UInt8] {
        guard let b = Hex.bytes(text) else { fatalError("bad hex literal in test: \(text)") }
        return b
    }
}

/// A scenario truth file (`NAME.truth.json`): the project's own in captures/scenarios (always
/// present), or the corpus's in `HCISCOPE_CORPUS/scenarios` (when it has them).
package struct ScenarioTruth: Sendable, CustomStringConvertible, Hashable {
    package var directory: URL
    package var name: String
    /// True for the project's own (captures/scenarios).
    package var isOwn: Bool

    package var description: String { (isOwn ? "own/" : "corpus/") + name }

    /// The truth file parsed.
    /// The truth, with the amendments of captures/external-scenario-amendments.json applied to a
    /// corpus scenario's `expected_rules` (the rules added or changed on purpose since the shared
    /// truths were written, derived by Scripts/scenario_truth.py: Scripts/external_amendments.py).
    package func load() throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CocoaError(.coderReadCorrupt)
        }
        if !isOwn, let amended = Self.amendments[name] {
            var rules = object["expected_rules"] as? [String: Any] ?? [:]
            for (rule, value) in amended {
                guard let fields = value as? [String: Any] else { continue }
                // An amendment with a status replaces the verdict; one without only adds (the
                // actors of a violation whose status stands).
                if fields["status"] != nil {
                    rules[rule] = fields
                } else {
                    var entry = rules[rule] as? [String: Any] ?? [:]
                    for (key, v) in fields { entry[key] = v }
                    rules[rule] = entry
                }
            }
            object["expected_rules"] = rules
        }
        return object
    }

    /// captures/external-scenario-amendments.json: per corpus truth file, per rule, the amended
    /// expectation, or only the actors of a violation that stands.
    nonisolated(unsafe) static let amendments: [String: [String: Any]] = {
        let url = Fixtures.project("external-scenario-amendments.json")
        guard let data = try? Data(contentsOf: url),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: [String: Any]]
        else { return [:] }
        return object
    }()

    /// The capture the truth describes.
    package func captureURL() throws -> URL {
        let truth = try load()
        let capture = (truth["capture"] as? String).map { ($0 as NSString).lastPathComponent }
            ?? String(name.dropLast(".truth.json".count)) + ".btsnoop"
        return directory.appendingPathComponent(capture)
    }

    static func files(in directory: URL, own: Bool) -> [ScenarioTruth] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".truth.json") }.sorted().map { ScenarioTruth(directory: directory, name: $0, isOwn: own) }
    }

    package static let own: [ScenarioTruth] = files(in: Fixtures.project("scenarios"), own: true)
    package static let external: [ScenarioTruth] = Fixtures.corpus("scenarios").map { files(in: $0, own: false) } ?? []
    package static var all: [ScenarioTruth] { own + external }
}
