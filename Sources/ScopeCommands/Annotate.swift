import Foundation
import ScopeCapture
import ScopeCore
import ScopeReport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `analyze --annotate OUT.pcapng`: the analysed capture written again as pcapng, every finding
/// a packet comment on each of its evidence frames. The capture is read a second time (nothing
/// holds the frames during the analysis), frame for frame, so the numbering is the analysis'.
enum AnnotatedCapture {
    struct Summary {
        var linkType: UInt32
        var packets: Int
        var annotatedFrames: Int
        var placeholders: Int
    }

    /// Why `--annotate` cannot be used with these inputs, or nil.
    static func refusal(files: [String], output: String) -> String? {
        guard files.count == 1, let input = files.first else {
            return "--annotate writes one capture: give exactly one capture file (got \(files.count))"
        }
        if input == "-" {
            return "--annotate reads the capture a second time to write it, which standard input cannot do: save it to a file and analyse that"
        }
        if output == "-" { return "--annotate needs a file name (pcapng is not written to standard output)" }
        if sameFile(input, output) { return "--annotate \(output): that is the capture being analysed" }
        return nil
    }

    /// Reads `input` again and writes it to `output` (through a temporary file beside it, renamed
    /// over it at the end) with the comments of `annotations`.
    static func write(
        input: String, output: String, annotations: CaptureAnnotations, expectedRecords: Int, application: String
    ) throws -> Summary {
        var reader = try CaptureReader.open(path: input)
        let linkType = PcapngWriter.linkType(for: reader.format)
        let temporary = temporaryPath(beside: output)
        var writer = try PcapngWriter(
            path: temporary, linkType: linkType, sectionComment: annotations.sectionComment, application: application)
        do {
            var next: FrameNumber = 1
            var unreadable: [FrameNumber: [String]] = [:]
            var last = Timestamp(microseconds: 0)
            func noteUnreadable(_ diagnostics: [Diagnostic]) {
                for d in diagnostics where d.severity == .error {
                    guard let frame = d.frame, frame >= next else { continue }
                    unreadable[frame, default: []].append("hciscope: frame \(frame) could not be read: \(d.message)")
                }
            }
            // Frames the reader framed but did not deliver keep their number: a pseudo-header-only packet
            // with what the reader said about them.
            func fillGap(upTo frame: FrameNumber, at time: Timestamp) throws {
                while next < frame {
                    let said = unreadable.removeValue(forKey: next) ?? ["hciscope: frame \(next) could not be read"]
                    try writer.writeUnreadable(timestamp: time, comments: said + annotations.comments(on: next))
                    next += 1
                }
            }
            while let record = reader.next() {
                noteUnreadable(reader.drainDiagnostics())
                try fillGap(upTo: record.frame, at: record.timestamp)
                try writer.write(record, comments: annotations.comments(on: record.frame))
                next = record.frame + 1
                last = record.timestamp
            }
            noteUnreadable(reader.drainDiagnostics())
            try fillGap(upTo: reader.summary.frames + 1, at: last)
            guard reader.summary.records == expectedRecords else {
                throw CaptureError(
                    .io, file: input,
                    message: "changed while it was analysed (\(expectedRecords) records then, \(reader.summary.records) now); \(output) not written")
            }
            try writer.close()
            guard rename(temporary, output) == 0 else {
                throw CaptureError(.io, file: output, message: "cannot rename \(temporary) to it: \(String(cString: strerror(errno)))")
            }
        } catch {
            try? writer.close()
            unlink(temporary)
            throw error
        }
        return Summary(
            linkType: linkType, packets: writer.written, annotatedFrames: annotations.annotatedFrames,
            placeholders: writer.placeholders)
    }

    private static func temporaryPath(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp").path
    }

    /// True when both paths name one existing file (same device and inode).
    private static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}
