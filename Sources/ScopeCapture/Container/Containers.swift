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
///
/// What this costs is bounded by the input's ``CaptureLimits`` (``OpenContext``), whatever the
/// input claims: members are opened one at a time to see what they are and merged a bounded
/// number at a time, spooled bytes are counted, decoders share one memory budget. Nothing is
/// skipped without being named: a member that cannot be read is listed as left out with its
/// reason and reported as a diagnostic of the capture; a damaged archive keeps every member
/// read before the damage.
enum Containers {
    /// Containers inside containers, at most (a .tar.gz in a zip is three).
    static let maximumDepth = 6

    // MARK: Entry point

    /// Opens whatever `input` holds. `path` names the regular file `input` reads directly (nil
    /// for standard input, pipes, FIFOs, decompressed data and archive members: those are never
    /// opened again by name); `modified` is its modification time (Unix seconds), the only time
    /// anchor raw btsnooz records have.
    static func open(
        _ input: BufferedFileReader, path: String?, context: OpenContext, origin: CaptureOrigin, depth: Int,
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
            let inner = try Decompressor(compression, input: input, name: name, context: context)
            origin.layers.append(.compressed(compression.name))
            return try open(
                BufferedFileReader(input: inner, name: name), path: nil, context: context, origin: origin, depth: depth + 1,
                modified: modified)
        }
        if ZipArchive.isZip(head) {
            guard depth < maximumDepth else {
                throw CaptureError(.unsupported, file: name, offset: 0, message: "containers nested more than \(maximumDepth) deep")
            }
            return try openZip(input, path: path, context: context, origin: origin, depth: depth)
        }
        if !hasCaptureMagic(head) {
            _ = try fillOrThrow(input, 512, name: name)
            head = input.windowBytes()
            if TarArchive.isTar(head) {
                guard depth < maximumDepth else {
                    throw CaptureError(.unsupported, file: name, offset: 0, message: "containers nested more than \(maximumDepth) deep")
                }
                return try openTar(input, name: name, context: context, origin: origin, depth: depth)
            }
        }
        let sniffed: Sniffed
        do {
            sniffed = try CaptureReader.sniff(input)
        } catch {
            // What the data could not be read as says less than why it could not be read.
            if let damage = input.deferredError {
                input.close()
                throw damage.with(file: name)
            }
            let w = input.windowBytes()
            if error.kind == .notACapture, looksLikeText(w) {
                return try openText(input, name: name, context: context, origin: origin)
            }
            input.close()
            throw error.with(file: name)
        }
        if sniffed.format.container == .btsnoop {
            _ = try fillOrThrow(input, BTSnoop.fileHeaderLength + 3 * (9 + 160), name: name)
            let w = input.windowBytes()
            if !firstBTSnoopRecordIsPlausible(w), BTSnooz.looksLikeRawV2(w, at: BTSnoop.fileHeaderLength) {
                return try openRawBTSnooz(
                    input, path: path, name: name, context: context, origin: origin, sniffed: sniffed, modified: modified)
            }
        }
        if origin.members.isEmpty, !origin.layers.isEmpty {
            origin.members = [CaptureOrigin.Member(name: name, format: sniffed.format.rawValue)]
        }
        return try CaptureReader.openCapture(input, path: path, options: context.options, origin: origin)
    }

    private static func fillOrThrow(_ input: BufferedFileReader, _ n: Int, name: String) throws(CaptureError) -> Int {
        do { return try input.peek(atLeast: n) } catch { throw error.with(file: name) }
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
    static func openText(_ input: BufferedFileReader, name: String, context: OpenContext, origin: CaptureOrigin) throws(CaptureError) -> CaptureReader {
        defer { input.close() }
        guard let block = try findSummary(in: input, name: name, context: context) else {
            throw CaptureError(
                .notACapture, file: name, offset: 0,
                message: "text (\(grouped(input.offset)) bytes) without a BTSNOOP_LOG_SUMMARY block: not a capture, and not a bug report text with a btsnooz summary")
        }
        var origin = origin
        return try summaryReader(block, name: name, context: context, origin: &origin)
    }

    static func summaryReader(_ block: [UInt8], name: String, context: OpenContext, origin: inout CaptureOrigin) throws(CaptureError) -> CaptureReader {
        let (version, last, records) = try BTSnooz.decodeSummary(base64: block, name: name)
        origin.layers.append(.btsnoozSummary(version: version))
        origin.summaryOnly = true
        if origin.kind == .capture { origin.kind = .androidBugReport }
        origin.members = [CaptureOrigin.Member(name: name + " (BTSNOOP_LOG_SUMMARY)", format: "btsnooz v\(version)")]
        let source = try BTSnoozSource(
            name: name, version: version, lastTimestamp: last, base: 0, diagnosticLimit: context.options.diagnosticLimit
        ) { () throws(CaptureError) -> ByteInput in
            try Decompressor(.gzip, input: MemoryInput(records), name: name, context: context)
        }
        let sniffed = Sniffed(format: .btsnoopH4, byteOrder: .little, timestampPrecision: nil, headerLength: 0, btsnoopVersion: nil)
        return CaptureReader(name: name, sniffed: sniffed, source: .btsnooz(source), options: context.options, origin: origin)
    }

    /// The base64 text between the summary's BEGIN and END lines, read through `input` in
    /// chunks (a bug report text is tens of MiB); nil when there is none. Text is searched for
    /// the BEGIN line up to ``CaptureLimits/textScanBytes`` (then refused), and the block may be
    /// at most ``CaptureLimits/btsnoozSummaryBytes``.
    static func findSummary(in input: ByteInput, name: String, context: OpenContext) throws(CaptureError) -> [UInt8]? {
        let limits = context.limits
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var window: [UInt8] = []
        var collecting = false
        var collected: [UInt8] = []
        var scanned = 0
        while true {
            let n = try input.read(into: buffer)
            if n == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            if collecting {
                let from = max(collected.count - BTSnooz.endMarker.count, 0)
                collected.append(contentsOf: chunk)
                if let end = BTSnooz.find(BTSnooz.endMarker, in: collected, from: from) { return Array(collected[0..<end]) }
                if collected.count > limits.btsnoozSummaryBytes {
                    throw CaptureError(
                        .limit, file: name,
                        message: "the BTSNOOP_LOG_SUMMARY block has no END line in its first \(CaptureLimits.size(limits.btsnoozSummaryBytes)) "
                            + "(limits.btsnooz_summary_mb in hciscope.yml)")
                }
                continue
            }
            scanned += n
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
                if window.count > 1 << 20 {
                    throw CaptureError(.damaged, file: name, offset: scanned - window.count, message: "the BTSNOOP_LOG_SUMMARY line does not end")
                }
            } else if window.count > BTSnooz.beginMarker.count {
                window = Array(window.suffix(BTSnooz.beginMarker.count - 1))
            }
            if scanned > limits.textScanBytes {
                throw CaptureError(
                    .limit, file: name, offset: scanned,
                    message: "text with no capture and no BTSNOOP_LOG_SUMMARY block in its first \(CaptureLimits.size(limits.textScanBytes)) "
                        + "(limits.text_scan_mb in hciscope.yml): not a capture; reading stopped there")
            }
        }
        if collecting {
            throw CaptureError(.cutShort, file: name, message: "the BTSNOOP_LOG_SUMMARY block has no END line: the text is cut short")
        }
        return nil
    }

    /// A btsnoop header followed by raw btsnooz version 2 records (a `btsnooz_hci.log` as
    /// some Android builds write it). Its records carry deltas only: the last one is put at
    /// the file's modification time, and a warning says so. The records are read twice (times
    /// backwards): a regular file again by its path, anything else from a spool file.
    static func openRawBTSnooz(
        _ input: BufferedFileReader, path: String?, name: String, context: OpenContext, origin: CaptureOrigin, sniffed: Sniffed,
        modified: Int?
    ) throws(CaptureError) -> CaptureReader {
        let anchor = Int64(modified ?? 0) * 1_000_000
        let warning = Diagnostic(
            .warning, layer: .capture, file: name, offset: 16,
            message: "btsnooz version 2 records after a btsnoop header: they hold time differences only, so the last record is placed at "
                + (modified == nil ? "the Unix epoch (no file time is known)" : "the file's modification time (\(Timestamp(microseconds: anchor)) UTC)")
                + "; times between records are exact")
        var pending = [warning]
        let reopen: () throws(CaptureError) -> ByteInput
        if let path {
            input.close()
            reopen = { () throws(CaptureError) -> ByteInput in
                let again = try BufferedFileReader.open(path: path)
                _ = try again.fill(atLeast: BTSnoop.fileHeaderLength)
                again.consume(BTSnoop.fileHeaderLength)
                return again
            }
        } else {
            input.consume(BTSnoop.fileHeaderLength)
            let spool = try SpoolFile(name: name, context: context)
            let (offset, count, failure) = try spool.append(input, name: name, what: "btsnooz records read from a stream")
            input.close()
            if let failure {
                pending.append(Diagnostic(
                    .error, layer: .capture, file: name, offset: BTSnoop.fileHeaderLength + count, code: failure.stoppingCode,
                    message: "\(failure.message); the rest is not read"))
            }
            reopen = { spool.range(offset: offset, count: count) }
        }
        let source = try BTSnoozSource(
            name: name, version: 2, lastTimestamp: anchor, base: BTSnoop.fileHeaderLength,
            diagnosticLimit: context.options.diagnosticLimit, pending: pending, open: reopen)
        var origin = origin
        origin.layers.append(.btsnoozRecords)
        origin.summaryOnly = true
        origin.members = [CaptureOrigin.Member(name: name, format: "btsnooz v2")]
        return CaptureReader(name: name, sniffed: sniffed, source: .btsnooz(source), options: context.options, origin: origin, format: .btsnoopH4)
    }

    // MARK: Archives

    /// A capture found in a container: what it is (seen by opening it once) and how to open it
    /// again for the merge.
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
        var role: Role
        var format: CaptureFormat
        var sniffed: Sniffed
        var summaryOnly: Bool
        var layers: [CaptureOrigin.Layer]
        var open: () throws(CaptureError) -> CaptureReader

        /// Opens the member once to see what it is, and closes it.
        static func make(name: String, open: @escaping () throws(CaptureError) -> CaptureReader) throws(CaptureError) -> Candidate {
            var reader = try open()
            defer { reader.close() }
            let role: Role
            if reader.origin.summaryOnly {
                role = .btsnooz
            } else {
                let base = name.split(separator: "/").last.map(String.init)?.lowercased() ?? ""
                role = base.contains("filtered") ? .filtered : .full
            }
            return Candidate(
                name: name, role: role, format: reader.format, sniffed: reader.sniffed, summaryOnly: reader.origin.summaryOnly,
                layers: reader.origin.layers, open: open)
        }
    }

    /// What a container's members gave: the captures, the ones left out (and why), and the
    /// diagnostics of those that could not be read.
    struct Found {
        var candidates: [Candidate] = []
        var leftOut: [CaptureOrigin.LeftOut] = []
        var problems: [Diagnostic] = []

        /// A member that could not be read: named as left out, and an error of the capture.
        mutating func unreadable(_ name: String, container: String, _ error: CaptureError) {
            leftOut.append(.init(name: name, reason: error.message, unreadable: true))
            problems.append(Diagnostic(
                .error, layer: .capture, file: error.file ?? container, offset: error.offset,
                code: error.kind == .limit ? .limitReached : .dataDamaged, message: "\(name) not read: \(error.message)"))
        }

        var why: String {
            let unreadable = leftOut.filter(\.unreadable)
            guard !unreadable.isEmpty else { return "" }
            let listed = unreadable.prefix(10).map { "\($0.name) (\($0.reason))" }.joined(separator: ", ")
            return "; captures that could not be read: " + listed + (unreadable.count > 10 ? ", and \(unreadable.count - 10) more" : "")
        }
    }

    /// One reader from the best candidates (the lowest role present), merged in time order;
    /// the others are listed as left out.
    static func assemble(_ found: Found, name: String, context: OpenContext, origin: CaptureOrigin) -> CaptureReader? {
        guard let best = found.candidates.map(\.role).min() else { return nil }
        var origin = origin
        origin.leftOut = found.leftOut
        var chosen: [Candidate] = []
        for c in found.candidates {
            if c.role == best {
                chosen.append(c)
            } else {
                origin.leftOut.append(CaptureOrigin.LeftOut(name: c.name, reason: c.role.leftOutReason))
            }
        }
        origin.members = chosen.map { CaptureOrigin.Member(name: $0.name, format: $0.format.rawValue) }
        if chosen.contains(where: \.summaryOnly) { origin.summaryOnly = true }
        let first = chosen[0]
        if chosen.count == 1, !first.layers.isEmpty {
            origin.layers += first.layers
        }
        let source = MergedSource(
            members: chosen.map { MergeMember(name: $0.name, open: $0.open) }, name: name, context: context,
            diagnostics: found.problems)
        return CaptureReader(
            name: name, sniffed: first.sniffed, source: .merged(source), options: context.options, origin: origin, format: first.format)
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
        _ input: BufferedFileReader, path: String?, context: OpenContext, origin: CaptureOrigin, depth: Int
    ) throws(CaptureError) -> CaptureReader {
        let name = input.name
        let archive: ZipArchive
        if let path {
            input.close()
            archive = try ZipArchive(path: path, name: name, limits: context.limits)
        } else {
            // A zip is read from its end: standard input, pipes and zips inside containers are
            // first copied to an unlinked temporary file (within the spool limit).
            let spool = try SpoolFile(name: name, context: context)
            let (_, _, failure) = try spool.append(input, name: name, what: "a zip read from a stream")
            input.close()
            if let failure { throw failure }
            archive = try ZipArchive(file: spool.file, name: name, limits: context.limits)
        }
        var origin = origin
        origin.layers.append(.zip)
        let names = archive.entries.map(\.name)
        let isBugReport = names.contains { $0.hasPrefix("FS/") || $0.contains("bugreport") || $0.contains("dumpstate") }
        origin.kind = isBugReport ? .androidBugReport : .archive
        var found = Found()
        for r in archive.rejected {
            if r.damaged {
                found.unreadable(r.name, container: name, CaptureError(.damaged, file: name, message: r.reason))
            } else {
                found.leftOut.append(.init(name: r.name, reason: r.reason))
            }
        }
        var texts: [ZipArchive.Entry] = []
        var seen: [String: String] = [:]  // size+crc → member already taken
        for entry in archive.entries where !entry.isDirectory && entry.size > 0 {
            let member = "\(name):\(entry.name)"
            let head: [UInt8]
            do { head = try archive.head(of: entry, count: 512) } catch {
                if isCaptureName(entry.name) { found.unreadable(entry.name, container: name, error) }
                continue
            }
            if isCaptureHead(head) {
                let key = "\(entry.size)/\(entry.crc)"
                if let twin = seen[key] {
                    found.leftOut.append(.init(name: entry.name, reason: "the same bytes as \(twin)"))
                    continue
                }
                do {
                    let candidate = try Candidate.make(name: entry.name) { () throws(CaptureError) -> CaptureReader in
                        try open(
                            BufferedFileReader(input: try archive.input(for: entry), name: member), path: nil, context: context,
                            origin: CaptureOrigin(), depth: depth + 1, modified: entry.modified)
                    }
                    seen[key] = entry.name
                    found.candidates.append(candidate)
                } catch {
                    found.unreadable(entry.name, container: name, error)
                }
            } else if looksLikeText(head) {
                texts.append(entry)
            }
        }
        if let reader = assemble(found, name: name, context: context, origin: origin) {
            return reader
        }
        // No capture: the btsnooz summary of the largest text that has one (the main text).
        for entry in texts.sorted(by: { $0.size > $1.size }) {
            let member = "\(name):\(entry.name)"
            guard let block = try findSummary(in: try archive.input(for: entry), name: member, context: context) else { continue }
            var o = origin
            o.leftOut = found.leftOut
            o.kind = .androidBugReport
            return try summaryReader(block, name: member, context: context, origin: &o)
        }
        throw CaptureError(
            .notACapture, file: name, offset: 0,
            message: (isBugReport ? "an Android bug report" : "a zip archive") + " of \(plural(archive.listed, "member")) "
                + "with no HCI capture and no BTSNOOP_LOG_SUMMARY block in its text\(found.why)"
                + (isBugReport ? " (turn on \"Enable Bluetooth HCI snoop log\" in Developer options, toggle Bluetooth, reproduce, then take the bug report)" : ""))
    }

    /// Names a capture usually has, for saying why a member that failed early was one.
    static func isCaptureName(_ n: String) -> Bool {
        let l = n.lowercased()
        return l.contains("btsnoop") || l.contains("btsnooz") || l.hasSuffix(".pklg") || l.hasSuffix(".pcap") || l.hasSuffix(".pcapng")
    }

    /// A tar archive (an iOS sysdiagnose): its captures copied out, one after another, into one
    /// unlinked temporary file (a tar is read front to back, and merging needs them side by
    /// side), the best merged. An archive damaged or cut short keeps every member before the
    /// damage (and what was read of a member cut short), and says where it stopped.
    static func openTar(
        _ input: BufferedFileReader, name: String, context: OpenContext, origin: CaptureOrigin, depth: Int
    ) throws(CaptureError) -> CaptureReader {
        defer { input.close() }
        let tar = TarArchive(input, name: name)
        var origin = origin
        origin.layers.append(.tar)
        var found = Found()
        var entries = 0
        var sawBluetoothLogs = false
        var spool: SpoolFile?
        reading: while true {
            let entry: TarArchive.Entry
            do {
                guard let e = try tar.next() else { break }
                entry = e
            } catch {
                found.unreadable(entries == 0 ? "the archive" : "the rest of the archive after \(plural(entries, "entry"))", container: name, error)
                break
            }
            entries += 1
            guard entry.isFile, entry.size > 0 else { continue }
            if entry.name.contains("logs/Bluetooth/") { sawBluetoothLogs = true }
            let want = min(512, entry.size)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: want, alignment: 8)
            defer { buffer.deallocate() }
            var got = 0
            var failure: CaptureError?
            while got < want {
                do {
                    let n = try tar.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[got...]))
                    if n == 0 { break }
                    got += n
                } catch {
                    failure = error
                    break
                }
            }
            let head = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            guard isCaptureHead(head) else {
                if let failure {
                    found.unreadable(entry.name, container: name, failure)
                    break reading
                }
                continue
            }
            let member = "\(name):\(entry.name)"
            do {
                if spool == nil { spool = try SpoolFile(name: name, context: context) }
                guard let spool else { break }
                var range: (offset: Int, count: Int)
                if let failure {
                    range = (spool.file.size, 0)
                    try spool.append(head, name: member, what: "tar member \(entry.name)")
                    range.count = head.count
                    // Read as far as it goes: the reader reports the record cut short.
                    found.problems.append(Diagnostic(
                        .error, layer: .capture, file: name, offset: tar.offset, code: failure.stoppingCode,
                        message: "\(entry.name): \(failure.message)"))
                } else {
                    let copied = try spool.append(PrefixedInput(prefix: head, rest: tar), name: member, what: "tar member \(entry.name)")
                    range = (copied.offset, copied.count)
                    if let stop = copied.failure {
                        failure = stop
                        found.problems.append(Diagnostic(
                            .error, layer: .capture, file: name, offset: tar.offset, code: stop.stoppingCode,
                            message: "\(entry.name): \(stop.message); what was read of it is kept"))
                    }
                }
                let candidate = try Candidate.make(name: entry.name) { () throws(CaptureError) -> CaptureReader in
                    try open(
                        BufferedFileReader(input: spool.range(offset: range.offset, count: range.count), name: member), path: nil,
                        context: context, origin: CaptureOrigin(), depth: depth + 1, modified: entry.modified)
                }
                found.candidates.append(candidate)
            } catch {
                found.unreadable(entry.name, container: name, error)
            }
            // A member cut short or beyond the spool limit: the archive cannot be followed further.
            if let failure {
                if failure.kind == .limit {
                    found.leftOut.append(.init(name: "the rest of the archive after \(entry.name)", reason: failure.message, unreadable: true))
                }
                break
            }
        }
        let pklg = found.candidates.contains { $0.format.container == .packetLogger }
        origin.kind = sawBluetoothLogs || pklg ? .sysdiagnose : .archive
        if let reader = assemble(found, name: name, context: context, origin: origin) { return reader }
        throw CaptureError(
            .notACapture, file: name, offset: 0,
            message: "a tar archive of \((entries == 1 ? "1 entry" : "\(grouped(entries)) entries")) with no HCI capture\(found.why)"
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

    /// True when `path` is a regular file (following links): a file that can be opened again by
    /// its name and read the same (not a pipe, FIFO, device or `/dev/fd/N` of a pipe).
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// A folder (an unpacked sysdiagnose or bug report): its captures, the best merged; with
    /// none, the btsnooz summary of a text file in it.
    static func openFolder(_ root: String, name: String, context: OpenContext) throws(CaptureError) -> CaptureReader {
        var origin = CaptureOrigin()
        origin.layers.append(.folder)
        var found = Found()
        var texts: [String] = []
        let all = CaptureFiles.walk(root, wholeContainers: false).files
        let prefix = root.hasSuffix("/") ? root : root + "/"
        for path in all {
            let relative = SafeText.escaped(path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path)
            let head: [UInt8]
            do { head = try readHead(path, 512) } catch {
                found.unreadable(relative, container: name, error)
                continue
            }
            if isCaptureHead(head) {
                do {
                    let candidate = try Candidate.make(name: relative) { () throws(CaptureError) -> CaptureReader in
                        let input = try BufferedFileReader.open(path: path)
                        return try open(
                            input, path: isRegularFile(path) ? path : nil, context: context, origin: CaptureOrigin(), depth: 1,
                            modified: modificationTime(path))
                    }
                    found.candidates.append(candidate)
                } catch {
                    found.unreadable(relative, container: name, error)
                }
            } else if looksLikeText(head) {
                texts.append(path)
            }
        }
        let names = all.map { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0 }
        if names.contains(where: { $0.hasPrefix("FS/data/misc/bluetooth") || $0.contains("bugreport") }) {
            origin.kind = .androidBugReport
        } else if names.contains(where: { $0.contains("logs/Bluetooth/") }) || found.candidates.contains(where: { $0.format.container == .packetLogger }) {
            origin.kind = .sysdiagnose
        } else {
            origin.kind = .archive
        }
        if let reader = assemble(found, name: name, context: context, origin: origin) { return reader }
        if origin.kind == .androidBugReport || found.candidates.isEmpty {
            for path in texts.sorted(by: { (fileSize($0) ?? 0) > (fileSize($1) ?? 0) }) {
                let input = try BufferedFileReader.open(path: path)
                defer { input.close() }
                guard let block = try findSummary(in: input, name: SafeText.escaped(path), context: context) else { continue }
                var o = origin
                o.leftOut = found.leftOut
                return try summaryReader(block, name: SafeText.escaped(path), context: context, origin: &o)
            }
        }
        throw CaptureError(
            .notACapture, file: name,
            message: "a folder of \(plural(all.count, "file")) with no HCI capture and no BTSNOOP_LOG_SUMMARY block in its text files\(found.why)")
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
    /// A new, empty, unlinked temporary file open for reading and writing.
    static func create(name: String) throws(CaptureError) -> SharedFile {
        let dir = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((dir + "/hciscope-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw POSIX.ioError("cannot create a temporary file in \(dir)", file: name, errno: errno) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        unlink(path)
        return SharedFile(fd: fd, name: name, size: 0)
    }
}
