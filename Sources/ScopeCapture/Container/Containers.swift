import ScopeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens what users hand over instead of a bare capture, by content (never by name):
/// compressed files (streamed through the system libraries), zip archives (Android bug
/// reports), tar archives and folders (iOS sysdiagnose, unpacked bug reports), text with a
/// btsnooz summary, btsnooz records after a btsnoop header. What it finds becomes one
/// ``CaptureReader`` whose ``CaptureReader/origin`` says what was opened.
enum Containers {
    /// Containers inside containers, at most (a .tar.gz in a zip is three).
    static let maximumDepth = 6
    /// The largest input held in memory whole (raw btsnooz records: they are timed backwards).
    static let maximumInMemory = 256 << 20

    // MARK: Entry point

    /// Opens whatever `input` holds. `path` names the file `input` reads directly (nil for
    /// standard input, decompressed data and archive members); `modified` is its modification
    /// time (Unix seconds), the only time anchor raw btsnooz records have.
    static func open(
        _ input: BufferedFileReader, path: String?, options: CaptureReader.Options, origin: CaptureOrigin, depth: Int,
        modified: Int?
    ) throws(CaptureError) -> CaptureReader {
        let name = input.name
        var origin = origin
        _ = try fillOrThrow(input, 6, name: name)
        var head = input.windowBytes()
        if let compression = Compression.detect(head) {
            guard depth < maximumDepth else {
                throw CaptureError(.unsupported, file: name, offset: 0, message: "containers nested more than \(maximumDepth) deep")
            }
            let inner = try Decompressor(compression, input: input, name: name)
            origin.layers.append(.compressed(compression.name))
            return try open(
                BufferedFileReader(input: inner, name: name), path: nil, options: options, origin: origin, depth: depth + 1,
                modified: modified)
        }
        if ZipArchive.isZip(head) {
            guard depth < maximumDepth else {
                throw CaptureError(.unsupported, file: name, offset: 0, message: "containers nested more than \(maximumDepth) deep")
            }
            return try openZip(input, path: path, options: options, origin: origin, depth: depth)
        }
        if !hasCaptureMagic(head) {
            _ = try fillOrThrow(input, 512, name: name)
            head = input.windowBytes()
            if TarArchive.isTar(head) {
                guard depth < maximumDepth else {
                    throw CaptureError(.unsupported, file: name, offset: 0, message: "containers nested more than \(maximumDepth) deep")
                }
                return try openTar(input, name: name, options: options, origin: origin, depth: depth)
            }
        }
        let sniffed: Sniffed
        do {
            sniffed = try CaptureReader.sniff(input)
        } catch {
            let w = input.windowBytes()
            if error.kind == .notACapture, looksLikeText(w) {
                return try openText(input, name: name, options: options, origin: origin)
            }
            input.close()
            throw error.with(file: name)
        }
        if sniffed.format.container == .btsnoop {
            _ = try fillOrThrow(input, BTSnoop.fileHeaderLength + 3 * (9 + 160), name: name)
            let w = input.windowBytes()
            if !firstBTSnoopRecordIsPlausible(w), BTSnooz.looksLikeRawV2(w, at: BTSnoop.fileHeaderLength) {
                return try openRawBTSnooz(input, name: name, options: options, origin: origin, sniffed: sniffed, modified: modified)
            }
        }
        if origin.members.isEmpty, !origin.layers.isEmpty {
            origin.members = [CaptureOrigin.Member(name: name, format: sniffed.format.rawValue)]
        }
        return try CaptureReader.openCapture(input, path: path, options: options, origin: origin)
    }

    private static func fillOrThrow(_ input: BufferedFileReader, _ n: Int, name: String) throws(CaptureError) -> Int {
        do { return try input.fill(atLeast: n) } catch { throw error.with(file: name) }
    }

    /// btsnoop, pcap and pcapng start with a magic (the sniffer's); only PacketLogger does not.
    static func hasCaptureMagic(_ b: [UInt8]) -> Bool {
        Sniffer.hasPrefix(b, Sniffer.btsnoopMagic) || Sniffer.pcapMagic(b) != nil || Sniffer.hasPrefix(b, Sniffer.pcapngMagic)
    }

    /// Mostly printable text, no NUL (a bug report's main text, a log).
    static func looksLikeText(_ b: [UInt8]) -> Bool {
        let look = b.prefix(4096)
        guard !look.isEmpty, !look.contains(0) else { return false }
        let printable = look.reduce(0) { n, c in n + ((c >= 0x20 && c < 0x7F) || c == 0x09 || c == 0x0A || c == 0x0D || c >= 0x80 ? 1 : 0) }
        return printable * 100 >= look.count * 95
    }

    /// The record after a btsnoop header reads as a btsnoop record (lengths that fit, flags
    /// that a 1001/1002 writer sets, a time after 1990).
    static func firstBTSnoopRecordIsPlausible(_ b: [UInt8]) -> Bool {
        let p = BTSnoop.fileHeaderLength
        guard b.count >= p + 24 else { return true }
        let original = Sniffer.be32(b, p), included = Sniffer.be32(b, p + 4), flags = Sniffer.be32(b, p + 8)
        let datalink = Sniffer.be32(b, 12)
        guard included >= 1, included <= original, included <= 65_541 else { return false }
        if datalink == 1001 || datalink == 1002, flags > 3 { return false }
        let t = Int64(bitPattern: Sniffer.be64(b, p + 16)) &- BTSnoop.unixEpochOffset
        return t > 631_152_000_000_000  // 1990-01-01
    }

    // MARK: btsnooz

    /// Text (an Android bug report's main text, or the block alone): the btsnooz summary in it.
    static func openText(_ input: BufferedFileReader, name: String, options: CaptureReader.Options, origin: CaptureOrigin) throws(CaptureError) -> CaptureReader {
        defer { input.close() }
        guard let block = try findSummary(in: input, name: name) else {
            throw CaptureError(
                .notACapture, file: name, offset: 0,
                message: "text (\(grouped(input.offset)) bytes) without a BTSNOOP_LOG_SUMMARY block: not a capture, and not a bug report text with a btsnooz summary")
        }
        var origin = origin
        return try summaryReader(block, name: name, options: options, origin: &origin)
    }

    static func summaryReader(_ block: [UInt8], name: String, options: CaptureReader.Options, origin: inout CaptureOrigin) throws(CaptureError) -> CaptureReader {
        var log = DiagnosticLog(file: name, limit: options.diagnosticLimit)
        let (version, entries) = try BTSnooz.decodeSummary(base64: block, name: name, log: &log)
        origin.layers.append(.btsnoozSummary(version: version))
        origin.summaryOnly = true
        if origin.kind == .capture { origin.kind = .androidBugReport }
        origin.members = [CaptureOrigin.Member(name: name + " (BTSNOOP_LOG_SUMMARY)", format: "btsnooz v\(version)")]
        let source = PreparedSource(entries: entries, length: block.count, diagnostics: log.drain())
        let sniffed = Sniffed(format: .btsnoopH4, byteOrder: .little, timestampPrecision: nil, headerLength: 0, btsnoopVersion: nil)
        return CaptureReader(name: name, sniffed: sniffed, source: .prepared(source), options: options, origin: origin)
    }

    /// The base64 text between the summary's BEGIN and END lines, read through `input` in
    /// chunks (a bug report text is tens of MiB); nil when there is none.
    static func findSummary(in input: ByteInput, name: String) throws(CaptureError) -> [UInt8]? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var window: [UInt8] = []
        var collecting = false
        var collected: [UInt8] = []
        while true {
            let n = try input.read(into: buffer)
            if n == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            if collecting {
                let from = max(collected.count - BTSnooz.endMarker.count, 0)
                collected.append(contentsOf: chunk)
                if let end = BTSnooz.find(BTSnooz.endMarker, in: collected, from: from) { return Array(collected[0..<end]) }
                if collected.count > BTSnooz.maximumSummary * 2 {
                    throw CaptureError(.unsupported, file: name, message: "the BTSNOOP_LOG_SUMMARY block has no END line in its first \(BTSnooz.maximumSummary >> 19) MiB")
                }
                continue
            }
            window.append(contentsOf: chunk)
            if let begin = BTSnooz.find(BTSnooz.beginMarker, in: window) {
                // The block starts on the line after the BEGIN line.
                if let eol = window[begin...].firstIndex(of: 0x0A) {
                    collecting = true
                    collected = Array(window[(eol + 1)...])
                    window = []
                    if let end = BTSnooz.find(BTSnooz.endMarker, in: collected) { return Array(collected[0..<end]) }
                    continue
                }
                window = Array(window[begin...])
            } else if window.count > BTSnooz.beginMarker.count {
                window = Array(window.suffix(BTSnooz.beginMarker.count - 1))
            }
        }
        if collecting {
            throw CaptureError(.truncatedHeader, file: name, message: "the BTSNOOP_LOG_SUMMARY block has no END line: the text is cut short")
        }
        return nil
    }

    /// A btsnoop header followed by raw btsnooz version 2 records (a `btsnooz_hci.log` as
    /// some Android builds write it). Its records carry deltas only: the last one is put at
    /// the file's modification time, and a warning says so.
    static func openRawBTSnooz(
        _ input: BufferedFileReader, name: String, options: CaptureReader.Options, origin: CaptureOrigin, sniffed: Sniffed,
        modified: Int?
    ) throws(CaptureError) -> CaptureReader {
        defer { input.close() }
        var data: [UInt8] = []
        while true {
            let have = try fillOrThrow(input, 1 << 20, name: name)
            if have == 0 { break }
            data.append(contentsOf: input.windowBytes())
            input.consume(have)
            if data.count > maximumInMemory {
                throw CaptureError(.unsupported, file: name, message: "btsnooz records larger than \(maximumInMemory >> 20) MiB")
            }
        }
        var log = DiagnosticLog(file: name, limit: options.diagnosticLimit)
        let anchor = Int64(modified ?? 0) * 1_000_000
        log.warning(
            frame: nil, offset: 16,
            "btsnooz version 2 records after a btsnoop header: they hold time differences only, so the last record is placed at "
                + (modified == nil ? "the Unix epoch (no file time is known)" : "the file's modification time (\(Timestamp(microseconds: anchor)) UTC)")
                + "; times between records are exact")
        let entries = BTSnooz.records(data, from: BTSnoop.fileHeaderLength, version: 2, lastTimestamp: anchor, name: name, log: &log)
        var origin = origin
        origin.layers.append(.btsnoozRecords)
        origin.summaryOnly = true
        origin.members = [CaptureOrigin.Member(name: name, format: "btsnooz v2")]
        let source = PreparedSource(entries: entries, length: data.count, diagnostics: log.drain())
        return CaptureReader(name: name, sniffed: sniffed, source: .prepared(source), options: options, origin: origin, format: .btsnoopH4)
    }

    // MARK: Archives

    /// A capture found in a container, opened, with what it is for the choice between them.
    struct Candidate {
        enum Role: Int, Comparable {
            /// A full snoop log (or any capture not known to be less).
            case full
            /// Android's filtered log (ACL cut short).
            case filtered
            /// btsnooz history (~150 bytes per packet).
            case btsnooz
            static func < (a: Role, b: Role) -> Bool { a.rawValue < b.rawValue }

            var leftOutReason: String {
                switch self {
                case .full: return "a full log"
                case .filtered: return "a filtered log (ACL cut short) of traffic the chosen logs cover"
                case .btsnooz: return "btsnooz history (packets cut to ~150 bytes) of traffic the chosen logs cover"
                }
            }
        }
        var name: String
        var reader: CaptureReader
        var role: Role
    }

    static func role(of reader: CaptureReader, name: String) -> Candidate.Role {
        if reader.origin.summaryOnly { return .btsnooz }
        let base = name.split(separator: "/").last.map(String.init)?.lowercased() ?? ""
        return base.contains("filtered") ? .filtered : .full
    }

    /// One reader from the best candidates (the lowest role present), merged in time order;
    /// the others are closed and listed as left out.
    static func assemble(
        _ candidates: [Candidate], leftOut: [CaptureOrigin.LeftOut], name: String, options: CaptureReader.Options,
        origin: CaptureOrigin
    ) -> CaptureReader? {
        guard let best = candidates.map(\.role).min() else { return nil }
        var origin = origin
        origin.leftOut = leftOut
        var chosen: [Candidate] = []
        for var c in candidates {
            if c.role == best {
                chosen.append(c)
            } else {
                c.reader.close()
                origin.leftOut.append(CaptureOrigin.LeftOut(name: c.name, reason: c.role.leftOutReason))
            }
        }
        origin.members = chosen.map { CaptureOrigin.Member(name: $0.name, format: $0.reader.format.rawValue) }
        if chosen.contains(where: { $0.reader.origin.summaryOnly }) { origin.summaryOnly = true }
        let first = chosen[0].reader
        let formats = Set(chosen.map(\.reader.format))
        if chosen.count == 1, !first.origin.layers.isEmpty {
            origin.layers += first.origin.layers
        }
        let source = MergedSource(members: chosen.map(\.reader))
        return CaptureReader(
            name: name, sniffed: first.sniffed, source: .merged(source), options: options, origin: origin,
            format: formats.count == 1 ? first.format : first.format)
    }

    /// What a member's first bytes say: worth opening as a capture (or a compressed one)?
    static func isCaptureHead(_ head: [UInt8]) -> Bool {
        if Compression.detect(head) != nil || hasCaptureMagic(head) { return true }
        if (try? CaptureFormat.sniff(head))?.format.container == .packetLogger { return true }
        return false
    }

    /// A zip archive (an Android bug report): its captures, the best of them merged; with none,
    /// the btsnooz summary of its text.
    static func openZip(
        _ input: BufferedFileReader, path: String?, options: CaptureReader.Options, origin: CaptureOrigin, depth: Int
    ) throws(CaptureError) -> CaptureReader {
        let name = input.name
        let archive: ZipArchive
        if let path {
            input.close()
            archive = try ZipArchive(path: path, name: name)
        } else {
            // A zip is read from its end: standard input and zips inside containers are first
            // copied to an unlinked temporary file.
            let spooled = try TemporaryFile.spool(input, name: name)
            archive = try ZipArchive(file: spooled, name: name)
        }
        var origin = origin
        origin.layers.append(.zip)
        let names = archive.entries.map(\.name)
        let isBugReport = names.contains { $0.hasPrefix("FS/") || $0.contains("bugreport") || $0.contains("dumpstate") }
        origin.kind = isBugReport ? .androidBugReport : .archive
        var candidates: [Candidate] = []
        var leftOut: [CaptureOrigin.LeftOut] = []
        var texts: [ZipArchive.Entry] = []
        var seen: [String: String] = [:]  // size+crc → member already taken
        for entry in archive.entries where !entry.isDirectory && entry.size > 0 {
            let member = "\(name):\(entry.name)"
            let head: [UInt8]
            do { head = try archive.head(of: entry, count: 512) } catch {
                if isCaptureName(entry.name) { leftOut.append(.init(name: entry.name, reason: error.message)) }
                continue
            }
            if isCaptureHead(head) {
                let key = "\(entry.size)/\(entry.crc)"
                if let twin = seen[key] {
                    leftOut.append(.init(name: entry.name, reason: "the same bytes as \(twin)"))
                    continue
                }
                do {
                    let reader = try open(
                        BufferedFileReader(input: try archive.input(for: entry), name: member), path: nil, options: options,
                        origin: CaptureOrigin(), depth: depth + 1, modified: entry.modified)
                    seen[key] = entry.name
                    candidates.append(Candidate(name: entry.name, reader: reader, role: role(of: reader, name: entry.name)))
                } catch {
                    leftOut.append(.init(name: entry.name, reason: error.message))
                }
            } else if looksLikeText(head) {
                texts.append(entry)
            }
        }
        if let reader = assemble(candidates, leftOut: leftOut, name: name, options: options, origin: origin) {
            return reader
        }
        // No capture: the btsnooz summary of the largest text that has one (the main text).
        for entry in texts.sorted(by: { $0.size > $1.size }) {
            let member = "\(name):\(entry.name)"
            guard let block = try findSummary(in: try archive.input(for: entry), name: member) else { continue }
            var o = origin
            o.leftOut = leftOut
            o.kind = .androidBugReport
            return try summaryReader(block, name: member, options: options, origin: &o)
        }
        let why = leftOut.isEmpty ? "" : "; captures that could not be read: " + leftOut.map { "\($0.name) (\($0.reason))" }.joined(separator: ", ")
        throw CaptureError(
            .notACapture, file: name, offset: 0,
            message: (isBugReport ? "an Android bug report" : "a zip archive") + " of \(plural(archive.entries.count, "member")) "
                + "with no HCI capture and no BTSNOOP_LOG_SUMMARY block in its text\(why)"
                + (isBugReport ? " (turn on \"Enable Bluetooth HCI snoop log\" in Developer options, toggle Bluetooth, reproduce, then take the bug report)" : ""))
    }

    /// Names a capture usually has, for saying why a member that failed early was one.
    static func isCaptureName(_ n: String) -> Bool {
        let l = n.lowercased()
        return l.contains("btsnoop") || l.contains("btsnooz") || l.hasSuffix(".pklg") || l.hasSuffix(".pcap") || l.hasSuffix(".pcapng")
    }

    /// A tar archive (an iOS sysdiagnose): its captures copied out to unlinked temporary files
    /// (a tar is read front to back, and merging needs them side by side), the best merged.
    static func openTar(
        _ input: BufferedFileReader, name: String, options: CaptureReader.Options, origin: CaptureOrigin, depth: Int
    ) throws(CaptureError) -> CaptureReader {
        defer { input.close() }
        let tar = TarArchive(input, name: name)
        var origin = origin
        origin.layers.append(.tar)
        var candidates: [Candidate] = []
        var leftOut: [CaptureOrigin.LeftOut] = []
        var entries = 0
        var sawBluetoothLogs = false
        while let entry = try tar.next() {
            entries += 1
            guard entry.isFile, entry.size > 0 else { continue }
            if entry.name.contains("logs/Bluetooth/") { sawBluetoothLogs = true }
            let want = min(512, entry.size)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: want, alignment: 8)
            defer { buffer.deallocate() }
            var got = 0
            while got < want {
                let n = try tar.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[got...]))
                if n == 0 { break }
                got += n
            }
            let head = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            guard isCaptureHead(head) else { continue }
            let member = "\(name):\(entry.name)"
            do {
                let file = try TemporaryFile.spool(PrefixedInput(prefix: head, rest: tar), name: member)
                let reader = try open(
                    BufferedFileReader(input: FileRangeInput(file, offset: 0, count: file.size), name: member), path: nil,
                    options: options, origin: CaptureOrigin(), depth: depth + 1, modified: entry.modified)
                candidates.append(Candidate(name: entry.name, reader: reader, role: role(of: reader, name: entry.name)))
            } catch {
                leftOut.append(.init(name: entry.name, reason: error.message))
            }
        }
        let pklg = candidates.contains { $0.reader.format.container == .packetLogger }
        origin.kind = sawBluetoothLogs || pklg ? .sysdiagnose : .archive
        if let reader = assemble(candidates, leftOut: leftOut, name: name, options: options, origin: origin) { return reader }
        let why = leftOut.isEmpty ? "" : "; captures that could not be read: " + leftOut.map { "\($0.name) (\($0.reason))" }.joined(separator: ", ")
        throw CaptureError(
            .notACapture, file: name, offset: 0,
            message: "a tar archive of \((entries == 1 ? "1 entry" : "\(grouped(entries)) entries")) with no HCI capture\(why)"
                + (sawBluetoothLogs ? "" : " (an iOS sysdiagnose holds logs/Bluetooth/*.pklg when the Bluetooth logging profile is installed on the device)"))
    }

    // MARK: Folders

    /// Modification time of `path` in Unix seconds, or nil.
    static func modificationTime(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        return Int(info.st_mtimespec.tv_sec)
        #else
        return Int(info.st_mtim.tv_sec)
        #endif
    }

    /// A folder (an unpacked sysdiagnose or bug report): its captures, the best merged; with
    /// none, the btsnooz summary of a text file in it.
    static func openFolder(_ root: String, name: String, options: CaptureReader.Options) throws(CaptureError) -> CaptureReader {
        var origin = CaptureOrigin()
        origin.layers.append(.folder)
        var candidates: [Candidate] = []
        var leftOut: [CaptureOrigin.LeftOut] = []
        var texts: [String] = []
        let all = CaptureFiles.walk(root, wholeContainers: false).files
        let prefix = root.hasSuffix("/") ? root : root + "/"
        for path in all {
            let relative = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
            guard let head = try? readHead(path, 512) else { continue }
            if isCaptureHead(head) {
                do {
                    let input = try BufferedFileReader.open(path: path)
                    let reader = try open(
                        input, path: path, options: options, origin: CaptureOrigin(), depth: 1, modified: modificationTime(path))
                    candidates.append(Candidate(name: relative, reader: reader, role: role(of: reader, name: relative)))
                } catch {
                    leftOut.append(.init(name: relative, reason: error.message))
                }
            } else if looksLikeText(head) {
                texts.append(path)
            }
        }
        let names = all.map { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0 }
        if names.contains(where: { $0.hasPrefix("FS/data/misc/bluetooth") || $0.contains("bugreport") }) {
            origin.kind = .androidBugReport
        } else if names.contains(where: { $0.contains("logs/Bluetooth/") }) || candidates.contains(where: { $0.reader.format.container == .packetLogger }) {
            origin.kind = .sysdiagnose
        } else {
            origin.kind = .archive
        }
        if let reader = assemble(candidates, leftOut: leftOut, name: name, options: options, origin: origin) { return reader }
        if origin.kind == .androidBugReport || candidates.isEmpty {
            for path in texts.sorted(by: { (fileSize($0) ?? 0) > (fileSize($1) ?? 0) }) {
                let input = try BufferedFileReader.open(path: path)
                defer { input.close() }
                guard let block = try findSummary(in: input, name: path) else { continue }
                var o = origin
                o.leftOut = leftOut
                return try summaryReader(block, name: path, options: options, origin: &o)
            }
        }
        let why = leftOut.isEmpty ? "" : "; captures that could not be read: " + leftOut.map { "\($0.name) (\($0.reason))" }.joined(separator: ", ")
        throw CaptureError(
            .notACapture, file: name,
            message: "a folder of \(plural(all.count, "file")) with no HCI capture and no BTSNOOP_LOG_SUMMARY block in its text files\(why)")
    }

    static func fileSize(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    static func readHead(_ path: String, _ count: Int) throws(CaptureError) -> [UInt8] {
        let input = try BufferedFileReader.open(path: path)
        defer { input.close() }
        let n = try input.fill(atLeast: count)
        return Array(input.windowBytes().prefix(n))
    }
}

/// Files hciscope writes for itself while reading a container: created with mode 0600 in
/// `$TMPDIR` (or /tmp) and unlinked at once, so they vanish when closed, whatever happens.
enum TemporaryFile {
    /// Copies all of `input` into a new unlinked temporary file, opened for reading.
    static func spool(_ input: ByteInput, name: String) throws(CaptureError) -> SharedFile {
        let dir = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((dir + "/hciscope-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw POSIX.ioError("cannot create a temporary file in \(dir)", file: name, errno: errno) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        unlink(path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let n: Int
            do { n = try input.read(into: buffer) } catch {
                _ = POSIX.closeDescriptor(fd)
                throw error
            }
            if n == 0 { break }
            let status = POSIX.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            if status != 0 {
                _ = POSIX.closeDescriptor(fd)
                throw POSIX.ioError("cannot write a temporary file in \(dir)", file: name, errno: status)
            }
            total += n
        }
        return SharedFile(fd: fd, name: name, size: total)
    }
}
