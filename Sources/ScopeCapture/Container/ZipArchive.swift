import CZlib
import ScopeCore

/// A zip archive (PKWARE APPNOTE 6.3.x) read through its central directory: the entries'
/// names, sizes and where their data lives, then each entry's data as a stream (stored or
/// deflate), any number side by side, in constant memory. ZIP64 sizes and offsets are read;
/// encrypted entries and other compression methods are named, not read.
///
/// ```
/// … local header + data, per entry …
/// central directory: 46-byte header + name + extra + comment, per entry
///   sig 50 4b 01 02 | made by | needed | flags | method | time | date | crc-32 | comp. size |
///   size | name len | extra len | comment len | disk | int. attr | ext. attr | local header offset
/// [ZIP64 end of central directory record, 50 4b 06 06, and its locator, 50 4b 06 07]
/// end of central directory (22 bytes + comment): 50 4b 05 06 | disk | cd disk | entries on disk |
///   entries | cd size | cd offset | comment len
/// local header: 50 4b 03 04 | needed | flags | method | time | date | crc-32 | comp. size | size |
///   name len | extra len, then name, extra, data
/// ```
///
/// Every size, count and offset is checked against the file before it is used (a field at its
/// limit is an error naming its offset, never arithmetic that traps). Entries whose data
/// overlaps another's are not read twice: an entry at the same place as an earlier one is that
/// entry's data again (read once, the others named), and an entry whose data runs into
/// another's is a zip bomb or damage, named and not read (``rejected``).
final class ZipArchive {
    struct Entry: Sendable, Hashable {
        /// The name as stored, with control characters escaped (``SafeText``).
        var name: String
        var method: UInt16
        var flags: UInt16
        var crc: UInt32
        var compressedSize: Int
        /// The uncompressed size the directory gives (Int.max when it says more).
        var size: Int
        var localHeaderOffset: Int
        /// Where the entry's data starts (after its local header), checked to lie in the file.
        var dataOffset: Int = 0
        /// The entry's MS-DOS modification time (local time of the machine that zipped it),
        /// as seconds since 1970 read as if it were UTC.
        var modified: Int = 0
        var isDirectory: Bool { name.hasSuffix("/") }
        var isEncrypted: Bool { flags & 1 != 0 }
    }

    /// An entry not read, and why.
    struct Rejected: Sendable, Hashable {
        var name: String
        var reason: String
        /// False when the entry's data is read under another entry's name (same bytes).
        var damaged: Bool
    }

    let file: SharedFile
    /// The entries that can be read, in directory order.
    let entries: [Entry]
    /// Entries of the directory that are not read.
    let rejected: [Rejected]
    /// Entries the directory lists.
    let listed: Int

    /// True when `b` starts like a zip archive (a local header, or the end record of an empty one).
    static func isZip(_ b: some Collection<UInt8>) -> Bool {
        let p = Array(b.prefix(4))
        return p == [0x50, 0x4B, 0x03, 0x04] || p == [0x50, 0x4B, 0x05, 0x06]
    }

    init(path: String, name: String, limits: CaptureLimits) throws(CaptureError) {
        file = try SharedFile(path: path, name: name)
        (entries, rejected, listed) = try Self.read(file, limits: limits)
    }

    init(file: SharedFile, name: String, limits: CaptureLimits) throws(CaptureError) {
        self.file = file
        (entries, rejected, listed) = try Self.read(file, limits: limits)
    }

    private static func damaged(_ file: SharedFile, _ offset: Int, _ message: String) -> CaptureError {
        CaptureError(.damaged, file: file.name, offset: offset, message: message)
    }

    /// Where the central directory is and how many entries it lists, from the end record (and
    /// the ZIP64 end record its locator names), every field checked against the file.
    private static func directory(_ file: SharedFile) throws(CaptureError) -> (count: Int, size: Int, offset: Int) {
        // The end record is in the last 22 + 65,535 bytes (its comment is at most 65,535).
        let tailLength = min(file.size, 22 + 65_535)
        let tailStart = file.size - tailLength
        let tail = try file.bytes(at: tailStart, count: tailLength, what: "zip end record")
        guard tail.count >= 22, let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: {
            tail[$0] == 0x50 && tail[$0 + 1] == 0x4B && tail[$0 + 2] == 0x05 && tail[$0 + 3] == 0x06
        }) else {
            throw CaptureError(
                .notACapture, file: file.name, offset: file.size,
                message: "zip archive without an end of central directory record: the file is cut short or not a zip")
        }
        let endOffset = tailStart + end
        var count = Int(Sniffer.le16(tail, end + 10))
        var size = Int(Sniffer.le32(tail, end + 12))
        var offset = Int(Sniffer.le32(tail, end + 16))
        var sizeAt = endOffset + 12, offsetAt = endOffset + 16
        // ZIP64: the locator sits right before the end record; the record before the locator.
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF, endOffset >= 20 {
            let locatorOffset = endOffset - 20
            let locator = try file.bytes(at: locatorOffset, count: 20, what: "ZIP64 end record locator")
            if locator.starts(with: [0x50, 0x4B, 0x06, 0x07]) {
                let raw = Sniffer.le64(locator, 8)
                guard locatorOffset >= 56, raw <= UInt64(locatorOffset - 56) else {
                    throw damaged(
                        file, locatorOffset + 8,
                        "the ZIP64 locator puts the ZIP64 end record at offset \(raw), where no 56-byte record fits before the locator (offset \(locatorOffset))")
                }
                let recordOffset = Int(raw)
                let record = try file.bytes(at: recordOffset, count: 56, what: "ZIP64 end record")
                guard record.starts(with: [0x50, 0x4B, 0x06, 0x06]) else {
                    throw damaged(file, recordOffset, "no ZIP64 end record where its locator says (offset \(recordOffset))")
                }
                let c = Sniffer.le64(record, 32), s = Sniffer.le64(record, 40), o = Sniffer.le64(record, 48)
                guard s <= UInt64(file.size) else {
                    throw damaged(file, recordOffset + 40, "the ZIP64 end record gives a central directory of \(s) bytes, larger than the file (\(grouped(file.size)) bytes)")
                }
                guard o <= UInt64(file.size) else {
                    throw damaged(file, recordOffset + 48, "the ZIP64 end record puts the central directory at offset \(o), past the end of the file (\(grouped(file.size)) bytes)")
                }
                // A central directory entry takes at least 46 bytes.
                guard c <= s / 46 else {
                    throw damaged(file, recordOffset + 32, "the ZIP64 end record lists \(c) entries, more than a central directory of \(s) bytes holds")
                }
                count = Int(c)
                size = Int(s)
                offset = Int(o)
                sizeAt = recordOffset + 40
                offsetAt = recordOffset + 48
            }
        }
        guard offset <= file.size, size <= file.size - offset else {
            throw damaged(
                file, offset > file.size ? offsetAt : sizeAt,
                "the central directory (\(grouped(size)) bytes at offset \(offset)) runs past the end of the file (\(grouped(file.size)) bytes)")
        }
        return (count, size, offset)
    }

    private static func read(_ file: SharedFile, limits: CaptureLimits) throws(CaptureError) -> ([Entry], [Rejected], Int) {
        let (count, cdSize, cdOffset) = try directory(file)
        guard count <= limits.archiveMembers else {
            throw CaptureError(
                .limit, file: file.name, offset: cdOffset,
                message: "a zip archive of \(grouped(count)) entries, more than the limit of \(grouped(limits.archiveMembers)) (limits.archive_members in hciscope.yml)")
        }
        // The directory is read a record at a time (one record is at most 46 + 3 × 65,535 bytes).
        let directory = BufferedFileReader(input: FileRangeInput(file, offset: cdOffset, count: cdSize), name: file.name)
        var out: [Entry] = []
        var invalid: [Rejected] = []
        out.reserveCapacity(min(count, 4096))
        while out.count + invalid.count < count {
            let at = cdOffset + directory.offset
            let have = try directory.fill(atLeast: 46)
            guard have >= 46, directory.le32(at: 0) == 0x0201_4B50 else {
                throw damaged(file, at, "zip central directory entry \(out.count + invalid.count + 1) of \(count) is damaged or missing")
            }
            let header = directory.bytes(at: 0, count: 46)
            let flags = Sniffer.le16(header, 8), method = Sniffer.le16(header, 10)
            let crc = Sniffer.le32(header, 16)
            let modified = Self.dosTime(time: Sniffer.le16(header, 12), date: Sniffer.le16(header, 14))
            var compressed = Int(Sniffer.le32(header, 20)), size = Int(Sniffer.le32(header, 24))
            let nameLength = Int(Sniffer.le16(header, 28)), extraLength = Int(Sniffer.le16(header, 30))
            let commentLength = Int(Sniffer.le16(header, 32))
            var local = Int(Sniffer.le32(header, 42))
            let length = 46 + nameLength + extraLength + commentLength
            guard try directory.fill(atLeast: length) >= length else {
                throw damaged(file, at, "zip central directory is cut short in entry \(out.count + invalid.count + 1) of \(count)")
            }
            let record = directory.bytes(at: 0, count: length)
            directory.consume(length)
            let name = SafeText.escaped(String(decoding: record[46..<(46 + nameLength)], as: UTF8.self))
            // ZIP64 extended information (0x0001): the fields that overflowed, in this order.
            var e = 46 + nameLength
            let extraEnd = e + extraLength
            var problem: String?
            while e + 4 <= extraEnd, problem == nil {
                let id = Sniffer.le16(record, e), fieldLength = Int(Sniffer.le16(record, e + 2))
                let fieldEnd = min(e + 4 + fieldLength, extraEnd)
                if id == 0x0001 {
                    var q = e + 4
                    if size == 0xFFFF_FFFF, q + 8 <= fieldEnd {
                        size = Int(clamping: Sniffer.le64(record, q))
                        q += 8
                    }
                    if compressed == 0xFFFF_FFFF, q + 8 <= fieldEnd {
                        let v = Sniffer.le64(record, q)
                        if v <= UInt64(file.size) {
                            compressed = Int(v)
                        } else {
                            problem = "its ZIP64 compressed size \(v) (central directory offset \(at + q)) is larger than the file: the archive is damaged"
                        }
                        q += 8
                    }
                    if local == 0xFFFF_FFFF, q + 8 <= fieldEnd, problem == nil {
                        let v = Sniffer.le64(record, q)
                        if v <= UInt64(file.size) {
                            local = Int(v)
                        } else {
                            problem = "its ZIP64 local header offset \(v) (central directory offset \(at + q)) is past the end of the file: the archive is damaged"
                        }
                    }
                }
                e = fieldEnd
            }
            if let problem {
                invalid.append(Rejected(name: name, reason: problem, damaged: true))
                continue
            }
            out.append(Entry(name: name, method: method, flags: flags, crc: crc, compressedSize: compressed, size: size,
                             localHeaderOffset: local, modified: modified))
        }
        let (entries, rejected, listed) = place(out, file: file, directoryStart: cdOffset, listed: count)
        return (entries, invalid + rejected, listed)
    }

    /// Reads each entry's local header to find its data, and keeps the entries whose data lies
    /// in the file before the central directory without running into another entry's.
    private static func place(_ listed: [Entry], file: SharedFile, directoryStart: Int, listed count: Int) -> ([Entry], [Rejected], Int) {
        var placed: [(entry: Entry, end: Int)] = []
        var rejected: [Rejected] = []
        placed.reserveCapacity(listed.count)
        for var entry in listed {
            let local = entry.localHeaderOffset
            guard file.contains(offset: local, count: 30), let header = try? file.bytes(at: local, count: 30, what: "zip local header"),
                  header.starts(with: [0x50, 0x4B, 0x03, 0x04])
            else {
                rejected.append(.init(name: entry.name, reason: "no zip local header at offset \(local): the archive is damaged", damaged: true))
                continue
            }
            let dataOffset = local + 30 + Int(Sniffer.le16(header, 26)) + Int(Sniffer.le16(header, 28))
            guard file.contains(offset: dataOffset, count: entry.compressedSize) else {
                rejected.append(.init(
                    name: entry.name,
                    reason: "its data (\(grouped(entry.compressedSize)) bytes at offset \(dataOffset)) runs past the end of the file: the archive is damaged or cut short",
                    damaged: true))
                continue
            }
            entry.dataOffset = dataOffset
            placed.append((entry, dataOffset + entry.compressedSize))
        }
        // In file order, each entry must start at or after the end of the one before it; an
        // entry at the very same place is the same data under another name (read once).
        let order = placed.indices.sorted { (placed[$0].entry.localHeaderOffset, $0) < (placed[$1].entry.localHeaderOffset, $1) }
        var keep = [Bool](repeating: true, count: placed.count)
        var previous: Int?
        for i in order {
            let (entry, end) = placed[i]
            if end > directoryStart && entry.compressedSize > 0 {
                keep[i] = false
                rejected.append(.init(
                    name: entry.name, reason: "its data runs into the central directory (offset \(directoryStart)): the archive is damaged",
                    damaged: true))
                continue
            }
            if let p = previous {
                let before = placed[p]
                if entry.localHeaderOffset == before.entry.localHeaderOffset {
                    keep[i] = false
                    rejected.append(.init(
                        name: entry.name, reason: "its data is the same bytes as \(before.entry.name) (read once)", damaged: false))
                    continue
                }
                if entry.localHeaderOffset < before.end {
                    keep[i] = false
                    rejected.append(.init(
                        name: entry.name,
                        reason: "its data (from offset \(entry.localHeaderOffset)) overlaps that of \(before.entry.name) (to offset \(before.end)): a zip bomb or a damaged archive",
                        damaged: true))
                    continue
                }
            }
            previous = i
        }
        let entries = placed.indices.filter { keep[$0] }.map { placed[$0].entry }
        return (entries, rejected, count)
    }

    /// Seconds since 1970 of an MS-DOS date and time (2-second resolution), taken as UTC.
    static func dosTime(time: UInt16, date: UInt16) -> Int {
        let year = Int(date >> 9) + 1980, month = max(Int((date >> 5) & 0xF), 1), day = max(Int(date & 0x1F), 1)
        // Days from 1970-01-01 to the date (civil-from-days inverse, proleptic Gregorian).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86_400 + Int(time >> 11) * 3600 + Int((time >> 5) & 0x3F) * 60 + Int(time & 0x1F) * 2
    }

    /// The entry's data, decompressed as it is read, its CRC-32 checked at the end.
    func input(for entry: Entry) throws(CaptureError) -> ByteInput {
        let where_ = "\(file.name):\(entry.name)"
        guard !entry.isEncrypted else {
            throw CaptureError(.unsupported, file: where_, message: "zip entry is encrypted")
        }
        let raw = FileRangeInput(file, offset: entry.dataOffset, count: entry.compressedSize)
        let data: ByteInput
        switch entry.method {
        case 0: data = raw
        case 8: data = try Decompressor(rawDeflate: raw, name: where_)
        default:
            throw CaptureError(
                .unsupported, file: where_,
                message: "zip compression method \(entry.method) is not supported (stored and deflate are)")
        }
        return CRCCheckedInput(data, expected: entry.crc, size: entry.size, name: where_)
    }

    /// The first `count` bytes of an entry (for recognising what it holds).
    func head(of entry: Entry, count: Int) throws(CaptureError) -> [UInt8] {
        let input = try input(for: entry)
        var out: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 8)
        defer { buffer.deallocate() }
        while out.count < count {
            let n = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(count - out.count)]))
            if n == 0 { break }
            out += UnsafeRawBufferPointer(rebasing: buffer[0..<n])
        }
        return out
    }
}

/// Passes data through and checks its CRC-32 and length when it ends; data past the length
/// the directory gives is damage, found as soon as it arrives (a deflate stream that inflates
/// further than the entry says is not read to its end).
final class CRCCheckedInput: ByteInput {
    private let input: ByteInput
    private let expected: UInt32
    private let size: Int
    private let name: String
    private var crc: UInt = 0
    private var seen = 0

    init(_ input: ByteInput, expected: UInt32, size: Int, name: String) {
        self.input = input
        self.expected = expected
        self.size = size
        self.name = name
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        let n = try input.read(into: buffer)
        if n > 0, let base = buffer.baseAddress {
            crc = crc32(crc, base.assumingMemoryBound(to: UInt8.self), UInt32(n))
            seen += n
            if seen > size {
                throw CaptureError(
                    .damaged, file: name, offset: size,
                    message: "zip entry holds more than the \(grouped(size)) bytes its directory says: the archive is damaged")
            }
        } else if n == 0 {
            if seen != size {
                throw CaptureError(
                    .damaged, file: name, offset: seen,
                    message: "zip entry holds \(grouped(seen)) bytes, its directory says \(grouped(size)): the archive is damaged")
            }
            if UInt32(truncatingIfNeeded: crc) != expected {
                throw CaptureError(
                    .damaged, file: name, offset: seen,
                    message: "zip entry CRC-32 is \(Hex.prefixed(UInt32(truncatingIfNeeded: crc), digits: 8)), its directory says \(Hex.prefixed(expected, digits: 8)): the data is damaged")
            }
        }
        return n
    }
}
