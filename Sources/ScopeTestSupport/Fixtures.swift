import Foundation
import ScopeCore

/// Access to test fixtures and to the shared corpus beside the checkout.
public enum Fixtures {
    /// URL of a fixture shipped in `Sources/ScopeTestSupport/Fixtures/`.
    public static func url(_ relativePath: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
    }

    /// The repository root (found from this source file's location).
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `../shared/captures` beside the checkout, or nil (with a loud message) when absent.
    public static var sharedCaptures: URL? {
        let url = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/captures")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        FileHandle.standardError.write(
            Data("⚠️  ../shared/captures not found beside the checkout: corpus tests are SKIPPED\n".utf8))
        return nil
    }

    /// Every file (not `.json`/`.tsv`/`.md`) under `../shared/captures/real` and `scenarios`.
    public static func corpusFiles() -> [URL] {
        guard let root = sharedCaptures else { return [] }
        var out: [URL] = []
        for sub in ["real", "scenarios"] {
            let dir = root.appendingPathComponent(sub)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names.sorted() where !name.hasSuffix(".json") && !name.hasSuffix(".tsv") && !name.hasSuffix(".md") {
                out.append(dir.appendingPathComponent(name))
            }
        }
        return out
    }

    /// A file from `../shared/captures/<relativePath>`, or nil when the corpus is absent.
    public static func shared(_ relativePath: String) -> URL? {
        sharedCaptures?.appendingPathComponent(relativePath)
    }

    /// Hex text → bytes; traps on malformed literals (test code only).
    public static func hex(_ text: String) -> [UInt8] {
        guard let b = Hex.bytes(text) else { fatalError("bad hex literal in test: \(text)") }
        return b
    }
}
