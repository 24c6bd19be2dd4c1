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
final class ZipArchive {
    struct Entry: Sendable, Hashable {
        var name: String
        var method: UInt16
        var flags: UInt16
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var localHeaderOffset: Int
        /// The entry's MS-DOS modification time (local time of the machine that zipped it),
        /// as seconds since 1970 read as if it were UTC.
        var modified: Int = 0
        var isDirectory: Bool { name.hasSuffix("/") }
        var isEncrypted: Bool { flags & 1 != 0 }
    }

    let file: SharedFile
    let entries: [Entry]

    /// True when `b` starts like a zip archive (a local header, or the end record of an empty one).
    static func isZip(_ b: some Collection<UInt8>) -> Bool {
        let p = Array(b.prefix(4))
        return p == [0x50, 0x4B, 0x03, 0x04] || p == [0x50, 0x4B, 0x05, 0x06]
    }

    init(path: String, name: String) throws(CaptureError) {
        file = try SharedFile(path: path, name: name)
        entries = try Self.readCentralDirectory(file)
    }

    init(file: SharedFile, name: String) throws(CaptureError) {
        self.file = file
        entries = try Self.readCentralDirectory(file)
    }

    private static func readCentralDirectory(_ file: SharedFile) throws(CaptureError) -> [Entry] {
        // The end record is in the last 22 + 65,535 bytes (its comment is at most 65,535).
        let tailLength = min(file.size, 22 + 65_535)
        let tail = try file.bytes(at: file.size - tailLength, count: tailLength, what: "zip end record")
        guard let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: {
            tail[$0] == 0x50 && tail[$0 + 1] == 0x4B && tail[$0 + 2] == 0x05 && tail[$0 + 3] == 0x06
        }) else {
            throw CaptureError(
                .notACapture, file: file.name, offset: file.size,
                message: "zip archive without an end of central directory record: the file is cut short or not a zip")
        }
        let endOffset = file.size - tailLength + end
        var count = Int(Sniffer.le16(tail, end + 10))
        var cdSize = Int(Sniffer.le32(tail, end + 12))
        var cdOffset = Int(Sniffer.le32(tail, end + 16))
        // ZIP64: the locator sits right before the end record.
        if (count == 0xFFFF || cdSize == 0xFFFF_FFFF || cdOffset == 0xFFFF_FFFF), endOffset >= 20 {
            let locator = try file.bytes(at: endOffset - 20, count: 20, what: "ZIP64 locator")
            if locator.starts(with: [0x50, 0x4B, 0x06, 0x07]) {
                let recordOffset = Int(Sniffer.le64(locator, 8))
                let record = try file.bytes(at: recordOffset, count: 56, what: "ZIP64 end record")
                guard record.starts(with: [0x50, 0x4B, 0x06, 0x06]) else {
                    throw CaptureError(.notACapture, file: file.name, offset: recordOffset, message: "ZIP64 end record missing")
                }
                count = Int(clamping: Sniffer.le64(record, 32))
                cdSize = Int(clamping: Sniffer.le64(record, 40))
                cdOffset = Int(clamping: Sniffer.le64(record, 48))
            }
        }
        let directory = try file.bytes(at: cdOffset, count: cdSize, what: "zip central directory")
        var out: [Entry] = []
        out.reserveCapacity(min(count, 100_000))
        var p = 0
        while out.count < count {
            guard p + 46 <= directory.count, directory[p..<p + 4].elementsEqual([0x50, 0x4B, 0x01, 0x02]) else {
                throw CaptureError(
                    .notACapture, file: file.name, offset: cdOffset + p,
                    message: "zip central directory entry \(out.count + 1) of \(count) is damaged")
            }
            let flags = Sniffer.le16(directory, p + 8), method = Sniffer.le16(directory, p + 10)
            let crc = Sniffer.le32(directory, p + 16)
            let modified = Self.dosTime(time: Sniffer.le16(directory, p + 12), date: Sniffer.le16(directory, p + 14))
            var compressed = Int(Sniffer.le32(directory, p + 20)), size = Int(Sniffer.le32(directory, p + 24))
            let nameLength = Int(Sniffer.le16(directory, p + 28)), extraLength = Int(Sniffer.le16(directory, p + 30))
            let commentLength = Int(Sniffer.le16(directory, p + 32))
            var local = Int(Sniffer.le32(directory, p + 42))
            guard p + 46 + nameLength + extraLength + commentLength <= directory.count else {
                throw CaptureError(.notACapture, file: file.name, offset: cdOffset + p, message: "zip central directory is cut short")
            }
            let name = String(decoding: directory[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self)
            // ZIP64 extended information (0x0001): the fields that overflowed, in this order.
            var e = p + 46 + nameLength
            let extraEnd = e + extraLength
            while e + 4 <= extraEnd {
                let id = Sniffer.le16(directory, e), length = Int(Sniffer.le16(directory, e + 2))
                if id == 0x0001 {
                    var q = e + 4
                    if size == 0xFFFF_FFFF, q + 8 <= e + 4 + length { size = Int(clamping: Sniffer.le64(directory, q)); q += 8 }
                    if compressed == 0xFFFF_FFFF, q + 8 <= e + 4 + length { compressed = Int(clamping: Sniffer.le64(directory, q)); q += 8 }
                    if local == 0xFFFF_FFFF, q + 8 <= e + 4 + length { local = Int(clamping: Sniffer.le64(directory, q)) }
                }
                e += 4 + length
            }
            out.append(Entry(name: name, method: method, flags: flags, crc: crc, compressedSize: compressed, size: size,
                             localHeaderOffset: local, modified: modified))
            p += 46 + nameLength + extraLength + commentLength
        }
        return out
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
        let header = try file.bytes(at: entry.localHeaderOffset, count: 30, what: "zip local header of \(entry.name)")
        guard header.starts(with: [0x50, 0x4B, 0x03, 0x04]) else {
            throw CaptureError(
                .notACapture, file: where_, offset: entry.localHeaderOffset, message: "zip local header missing")
        }
        let dataOffset = entry.localHeaderOffset + 30 + Int(Sniffer.le16(header, 26)) + Int(Sniffer.le16(header, 28))
        let raw = FileRangeInput(file, offset: dataOffset, count: entry.compressedSize)
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

/// Passes data through and checks its CRC-32 and length when it ends.
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
        } else if n == 0 {
            if seen != size {
                throw CaptureError(
                    .io, file: name, offset: seen,
                    message: "zip entry holds \(grouped(seen)) bytes, its directory says \(grouped(size)): the archive is damaged")
            }
            if UInt32(truncatingIfNeeded: crc) != expected {
                throw CaptureError(
                    .io, file: name, offset: seen,
                    message: "zip entry CRC-32 is \(Hex.prefixed(UInt32(truncatingIfNeeded: crc), digits: 8)), its directory says \(Hex.prefixed(expected, digits: 8)): the data is damaged")
            }
        }
        return n
    }
}
