import Foundation
import ScopeCapture
import ScopeCommands
import ScopeCore
import ScopeTestSupport
import Testing

/// `analyze --annotate OUT.pcapng`, checked the way a user would: the annotated file is read
/// back by tshark (Wireshark's reader and dissectors), and each finding of the JSON report must
/// be a comment on each of its evidence frames, with tshark numbering the frames as hciscope does.
@Suite struct AnnotateTests {
    /// The project's own captures (the scenarios cover every rule violated, in every format the
    /// project reads), then the corpus's real ones when `HCISCOPE_CORPUS` is set.
    static let captures: [URL] = Fixtures.corpusFiles()

    @Test(.enabled(if: Tshark.path != nil, "tshark not installed"), arguments: captures)
    func everyFindingIsACommentOnEachEvidenceFrame(capture: URL) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("annotated.pcapng").path
        let run = try analyze([capture.path, "--format", "json", "--fail-on", "error", "--annotate", out])
        guard run.status != 2 else {
            // Not an HCI capture (a link-layer sniffer file): nothing is written, and it says so.
            #expect(run.err.contains("not written"))
            #expect(!FileManager.default.fileExists(atPath: out))
            return
        }
        let findings = try reportFindings(run.out)

        // hciscope's numbering: every framed record, delivered or not.
        var reader = try CaptureReader.open(path: capture.path)
        var delivered = Set<FrameNumber>()
        while let r = reader.next() { delivered.insert(r.frame) }
        let frames = reader.summary.frames

        let annotated = try Tshark.comments(out)
        #expect(annotated.count == frames, "tshark reads \(annotated.count) frames, hciscope numbered \(frames)")
        // tshark numbers the source's frames the same way.
        if let source = try? Tshark.comments(capture.path) { #expect(source.count == frames) }

        var expected: [FrameNumber: [Finding]] = [:]
        for f in findings { for frame in Set(f.evidence) { expected[frame, default: []].append(f) } }
        for (index, comments) in annotated.enumerated() {
            let frame = index + 1
            let own = comments.filter { !$0.hasPrefix("hciscope: ") }  // notes about the frame itself
            let wanted = expected[frame] ?? []
            #expect(own.count == wanted.count, "frame \(frame): \(own.count) comments, \(wanted.count) findings")
            for f in wanted {
                let match = own.contains { c in
                    c.hasPrefix("hciscope \(f.rule) (\(f.severity)): \(f.subject): ") && c.contains(f.message)
                        && (f.recommendation.map { c.contains("Fix: \($0)") } ?? true)
                }
                #expect(match, "frame \(frame): no comment for \(f.rule) (\(f.subject))")
            }
            let notes = comments.filter { $0.hasPrefix("hciscope: ") }
            if delivered.contains(frame) {
                #expect(notes.isEmpty, "frame \(frame): \(notes)")
            } else {
                #expect(notes.contains { $0.hasPrefix("hciscope: frame \(frame) could not be read") })
            }
        }

        // The filter a Wireshark user types: frame.comment contains "scan.".
        let filtered = Set(try Tshark.frames(out, filter: "frame.comment contains \"scan.\""))
        let scanText = Set(findings.filter { $0.text.contains("scan.") }.flatMap(\.evidence))
        #expect(filtered == scanText)
        #expect(Set(findings.filter { $0.rule.hasPrefix("scan.") }.flatMap(\.evidence)).isSubset(of: filtered))
    }

    @Test(.enabled(if: Tshark.path != nil, "tshark not installed"))
    func framesNotDeliveredKeepTheirNumberAndSayWhy() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("annotated.pcapng").path
        // An empty btsnoop 1002 record as frame 3 (Fixtures/README.md): framed, not delivered.
        let run = try analyze([Fixtures.url("bad/no-h4-byte.btsnoop").path, "--annotate", out])
        #expect(run.status != 2)
        let comments = try Tshark.comments(out)
        #expect(comments.count == 25)
        #expect(comments[2] == ["hciscope: frame 3 could not be read: record has no H4 packet type byte (included length 0); not delivered"])
        // hciscope reads the annotated file with the same numbering: frame 3 again not delivered.
        var reader = try CaptureReader.open(path: out)
        var frames: [FrameNumber] = []
        while let r = reader.next() { frames.append(r.frame) }
        #expect(frames == [1, 2] + Array(4...25))
        #expect(reader.summary.frames == 25)
    }

    @Test func standardInputAndSeveralFilesAreRefused() throws {
        let stdin = try analyze(["-", "--annotate", "/tmp/never-written.pcapng"])
        #expect(stdin.status == 2)
        #expect(stdin.err.contains("standard input"))
        let two = try analyze([shippedSample, shippedSample, "--annotate", "/tmp/never-written.pcapng"])
        #expect(two.status == 2)
        #expect(two.err.contains("exactly one capture file"))
        let itself = try analyze([shippedSample, "--annotate", shippedSample])
        #expect(itself.status == 2)
        #expect(itself.err.contains("the capture being analysed"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written.pcapng"))
    }

    @Test func annotatedFileIsReplacedWholeAndNothingElseIsLeft() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("annotated.pcapng").path
        try "an older file that must not survive in part".write(toFile: out, atomically: true, encoding: .utf8)
        let run = try analyze([shippedSample, "--annotate", out])
        #expect(run.status == 0)
        #expect(run.err.contains("400 frames (pcapng, LINKTYPE 254), findings on 4"))
        var reader = try CaptureReader.open(path: out)
        #expect(reader.format == .pcapngMonitor)
        var count = 0
        while reader.next() != nil { count += 1 }
        #expect(count == 400)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["annotated.pcapng"])
    }

    // MARK: Support

    struct Finding {
        var rule, severity, subject, message: String
        var recommendation: String?
        var evidence: [FrameNumber]
        var text: String { [rule, subject, message, recommendation ?? ""].joined(separator: " ") }
    }

    func reportFindings(_ json: String) throws -> [Finding] {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let list = object?["findings"] as? [[String: Any]] ?? []
        return list.map { f in
            Finding(
                rule: f["rule"] as? String ?? "", severity: f["severity"] as? String ?? "",
                subject: f["subject"] as? String ?? "", message: f["message"] as? String ?? "",
                recommendation: f["recommendation"] as? String, evidence: f["evidence"] as? [Int] ?? [])
        }
    }

    func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-annotate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

/// What the --annotate tests ask tshark.
extension Tshark {
    /// A separator no comment holds (ASCII unit separator).
    static let aggregator = "\u{1F}"

    /// Each frame's comments, in frame order (`frame.number` checked to count 1, 2, 3, …).
    static func comments(_ file: String) throws -> [[String]] {
        let text = try run(["-r", file, "-T", "fields", "-e", "frame.number", "-e", "frame.comment",
                            "-E", "occurrence=a", "-E", "aggregator=\(aggregator)"])
        var result: [[String]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard Int(parts[0]) == result.count + 1 else { throw Failure(message: "unexpected line: \(line.prefix(80))") }
            let field = parts.count > 1 ? String(parts[1]) : ""
            result.append(field.isEmpty ? [] : field.components(separatedBy: aggregator))
        }
        return result
    }

    /// Frame numbers that pass the display filter.
    static func frames(_ file: String, filter: String) throws -> [FrameNumber] {
        try run(["-r", file, "-Y", filter, "-T", "fields", "-e", "frame.number"])
            .split(separator: "\n").compactMap { Int($0) }
    }
}
