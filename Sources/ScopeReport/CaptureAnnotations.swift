import ScopeCore
import ScopeRules

/// A report's findings as comments on their evidence frames, for a copy of the capture that
/// carries them (`analyze --annotate`, written as pcapng packet comments: Wireshark's
/// `frame.comment`). Each finding listed in the report becomes one comment on each of its
/// evidence frames, in the report's order (most severe first); findings only counted (beyond
/// `FindingList.limit` per rule and severity) are named in the section comment.
package struct CaptureAnnotations: Sendable {
    /// Evidence frames listed in a comment before it only counts the rest.
    package static let listedEvidence = 12

    /// Indices into `texts`, per frame.
    private let byFrame: [FrameNumber: [Int]]
    /// One comment per listed finding.
    private let texts: [String]
    /// For the pcapng section header: who wrote it, what it holds, how to filter.
    package let sectionComment: String

    package init(_ report: Report) {
        var byFrame: [FrameNumber: [Int]] = [:]
        var texts: [String] = []
        for finding in report.findings where !finding.evidence.isEmpty {
            texts.append(Self.comment(finding))
            for frame in Set(finding.evidence) { byFrame[frame, default: []].append(texts.count - 1) }
        }
        self.byFrame = byFrame
        self.texts = texts

        let counts = Severity.allCases.reversed().map { "\(report.findingCount($0)) \($0.rawValue)" }
        var section = "\(report.tool.name) \(report.tool.version) analyze of \(report.capture.file) "
            + "(\(report.capture.format), \(report.capture.frames) frames): findings \(counts.joined(separator: ", ")). "
            + "Each finding is a comment on its evidence frames, starting \"\(Self.prefix) RULE (severity)\"; "
            + "Wireshark filter: frame.comment contains \"\(Self.prefix)\"."
        if report.omittedFindings > 0 {
            section += " \(report.omittedFindings) further findings were counted but not listed (each rule lists "
                + "\(FindingList.limit) per severity) and carry no comment."
        }
        sectionComment = section
    }

    /// The comments on `frame` (empty for most).
    package func comments(on frame: FrameNumber) -> [String] {
        byFrame[frame].map { $0.map { texts[$0] } } ?? []
    }

    /// Frames that carry at least one comment.
    package var annotatedFrames: Int { byFrame.count }

    /// What every comment starts with.
    package static let prefix = "hciscope"

    /// `hciscope scan.duplicates-allowed (warning): SUBJECT: MESSAGE Fix: RECOMMENDATION
    /// Evidence: frames 31, 40.` — the rule id first, so that `frame.comment contains "scan."`
    /// selects a rule family.
    package static func comment(_ f: Finding) -> String {
        var text = "\(prefix) \(f.rule) (\(f.severity.rawValue)): \(f.subject): \(sentence(f.message))"
        if let fix = f.recommendation, !fix.isEmpty { text += " Fix: \(sentence(fix))" }
        let listed = f.evidence.prefix(listedEvidence).map(String.init).joined(separator: ", ")
        if f.evidence.count == 1 {
            text += " Evidence: frame \(listed)."
        } else if f.evidence.count <= listedEvidence {
            text += " Evidence: frames \(listed)."
        } else {
            text += " Evidence: \(f.evidence.count) frames: \(listed), …"
        }
        return text
    }

    /// `text` ending in a full stop.
    private static func sentence(_ text: String) -> String {
        let trimmed = text.trimmingTrailingSpaces
        guard let last = trimmed.last else { return trimmed }
        return ".!?".contains(last) ? trimmed : trimmed + "."
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\n" { s = s.dropLast() }
        return String(s)
    }
}
