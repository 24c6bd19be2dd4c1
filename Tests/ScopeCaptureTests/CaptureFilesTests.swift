import Foundation
import ScopeCapture
import ScopeTestSupport
import Testing

/// `CaptureFiles`: what the folder walker of `analyze DIR` takes for a capture, on the fixtures
/// (good and broken captures, and the notes beside them) and the project's own captures.
@Suite struct CaptureFilesTests {
    /// Every fixture is recognised as the readers see it: a capture when `CaptureReader.open`
    /// opens it (same format), unreadable when it throws on a file that begins with a capture
    /// magic, and not a capture otherwise (the README, the generator script, the empty file, a
    /// btsnoop magic in the wrong case).
    @Test func fixturesAreRecognisedAsTheReadersSeeThem() throws {
        let root = Fixtures.url("").path
        let walk = CaptureFiles.walk(root)
        #expect(walk.problems.isEmpty)
        #expect(walk.files.count > 60)
        var counts = (capture: 0, unreadable: 0, other: 0)
        for path in walk.files {
            let recognition = CaptureFiles.recognise(path: path)
            let name = (path as NSString).lastPathComponent
            do {
                var reader = try CaptureReader.open(path: path)
                #expect(recognition == .capture(reader.format), "\(name)")
                reader.close()
                counts.capture += 1
            } catch {
                // Whatever its name, a file that begins with no capture's magic is another file
                // to a folder search (BTSNOOP in capitals included).
                // Archives with no capture inside (containers/*-nothing.*) are skipped too.
                if name.hasSuffix(".md") || name.hasSuffix(".py") || name == "empty.btsnoop" || name == "wrong-magic.btsnoop"
                    || name.contains("-nothing.")
                {
                    #expect(recognition == .notACapture, "\(name)")
                    counts.other += 1
                } else {
                    #expect(recognition == .unreadable(error), "\(name)")
                    counts.unreadable += 1
                }
            }
        }
        // Named cases: a header cut short, a link-layer sniffer, a btsnoop variant nobody reads
        // and a pcapng with a broken block are captures that cannot be read; notes are not captures.
        for name in ["truncated-file-header.btsnoop", "link-type-272.pcap", "datalink-1003.btsnoop", "block-length.pcapng",
                     "truncated-magic.pcap"] {
            guard case .unreadable(let e) = CaptureFiles.recognise(path: Fixtures.url("bad/\(name)").path) else {
                Issue.record("bad/\(name) should be an unreadable capture")
                continue
            }
            #expect(e.file == Fixtures.url("bad/\(name)").path)
        }
        #expect(CaptureFiles.recognise(path: Fixtures.url("README.md").path) == .notACapture)
        #expect(counts.capture > 0 && counts.unreadable > 0 && counts.other >= 3)
    }

    /// The walker descends into folders, sorts by name and leaves out dot entries; links to files
    /// count, links to folders are not followed (a link back to the root would loop).
    @Test func walkIsRecursiveSortedAndSkipsDotEntriesAndFolderLinks() throws {
        let fm = FileManager.default
        let root = fm.temporaryDirectory.appendingPathComponent("hciscope-walk-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: root) }
        let sample = Fixtures.project("btvirt-le-pairing.btsnoop").path
        try fm.createDirectory(at: root.appendingPathComponent("b/deeper"), withIntermediateDirectories: true)
        try fm.createDirectory(at: root.appendingPathComponent(".hidden"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: sample, toPath: root.appendingPathComponent("b/deeper/one.btsnoop").path)
        try fm.copyItem(atPath: sample, toPath: root.appendingPathComponent(".hidden/two.btsnoop").path)
        try fm.copyItem(atPath: sample, toPath: root.appendingPathComponent("a.log").path)
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("c-link.btsnoop").path, withDestinationPath: sample)
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("b/loop").path, withDestinationPath: root.path)
        let walk = CaptureFiles.walk(root.path)
        #expect(walk.files.map { String($0.dropFirst(root.path.count + 1)) } == ["a.log", "b/deeper/one.btsnoop", "c-link.btsnoop"])
        #expect(walk.problems.isEmpty)
        for file in walk.files { #expect(CaptureFiles.recognise(path: file) == .capture(.btsnoopMonitor)) }
        // A file given as the root is the walk.
        #expect(CaptureFiles.walk(sample).files == [sample])
    }
}
