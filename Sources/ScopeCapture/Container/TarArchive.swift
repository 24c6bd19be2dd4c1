import ScopeCore

/// A tar archive read front to back (POSIX ustar, GNU long names, pax path records), for iOS
/// sysdiagnose archives: `next()` gives each entry's header, `read(into:)` its data; whatever
/// of an entry is not read is skipped on the way to the next one.
///
/// ```
/// 512-byte header: name[100] mode[8] uid[8] gid[8] size[12] mtime[12] chksum[8] typeflag[1]
///                  linkname[100] magic[6] "ustar" version[2] uname[32] gname[32] devmajor[8]
///                  devminor[8] prefix[155] pad[12]
/// data, padded to a multiple of 512; two zero blocks end the archive
/// typeflag '0'/'\0' file, '5' directory, 'L' GNU long name of the next entry,
/// 'x' pax header of the next entry ("LEN path=NAME\n" records), 'g' global pax header
/// ```
///
/// Links, directories, devices and FIFOs ('1'–'6') carry no data, whatever their size field
/// says (as bsdtar reads them). A size field beyond 2^62 bytes, a checksum that does not match
/// and an archive that ends inside a header or a member are errors naming the offset
/// (``CaptureError/Kind/damaged``, ``CaptureError/Kind/cutShort``); what was read before stays
/// read.
final class TarArchive: ByteInput {
    struct Entry: Sendable, Hashable {
        var name: String
        var size: Int
        var isFile: Bool
        /// Seconds since 1970 (the header's mtime).
        var modified: Int
    }

    private let input: ByteInput
    let name: String
    private var remaining = 0
    private var padding = 0
    private var position = 0
    /// Where the last entry's header starts.
    private(set) var offset = 0

    init(_ input: ByteInput, name: String) {
        self.input = input
        self.name = name
    }

    /// True when `b` (at least 263 bytes of a file's start) holds a ustar header.
    static func isTar(_ b: [UInt8]) -> Bool {
        guard b.count >= 263 else { return false }
        let magic = Array(b[257..<262])
        return magic == Array("ustar".utf8) && checksumMatches(Array(b.prefix(512)))
    }

    static func checksumMatches(_ h: [UInt8]) -> Bool {
        guard h.count == 512, let stored = octal(h[148..<156]) else { return false }
        var sum = 0
        for (i, b) in h.enumerated() { sum += (148..<156).contains(i) ? 0x20 : Int(b) }
        return sum == stored
    }

    /// The next entry, or nil at the end of the archive.
    func next() throws(CaptureError) -> Entry? {
        try skipRest()
        var longName: String?
        while true {
            let header = try block()
            guard let header, header.contains(where: { $0 != 0 }) else { return nil }
            let at = position - 512
            guard Self.checksumMatches(header) else {
                throw CaptureError(
                    .damaged, file: name, offset: at,
                    message: "tar header checksum does not match: the archive is damaged here")
            }
            let type = header[156]
            // Links, directories, devices and FIFOs carry no data, whatever the size field says.
            let size: Int
            if (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(type) {
                size = 0
            } else if let declared = Self.size(header) {
                size = declared
            } else {
                throw CaptureError(
                    .damaged, file: name, offset: at + 124,
                    message: "tar header size field is not a size (nor octal nor base-256 up to 2^62): the archive is damaged here")
            }
            switch type {
            case UInt8(ascii: "L"):  // GNU long name of the next entry
                longName = String(decoding: try data(size).prefix { $0 != 0 }, as: UTF8.self)
                continue
            case UInt8(ascii: "x"):  // pax extended header of the next entry
                if let path = Self.paxPath(try data(size)) { longName = path }
                continue
            case UInt8(ascii: "g"):
                _ = try data(size)
                continue
            default:
                break
            }
            var entryName = longName ?? Self.string(header[0..<100])
            if longName == nil, header[257..<262].elementsEqual("ustar".utf8) {
                let prefix = Self.string(header[345..<500])
                if !prefix.isEmpty { entryName = prefix + "/" + entryName }
            }
            entryName = SafeText.escaped(entryName)
            offset = at
            remaining = size
            padding = (512 - size % 512) % 512
            return Entry(
                name: entryName, size: size, isFile: type == UInt8(ascii: "0") || type == 0,
                modified: Self.octal(header[136..<148]) ?? 0)
        }
    }

    /// The current entry's data (0 at its end).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        guard remaining > 0 else { return 0 }
        let want = min(remaining, buffer.count)
        let n = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
        if n == 0 {
            throw CaptureError(.cutShort, file: name, offset: position, message: "tar archive ends inside an entry: it is cut short")
        }
        remaining -= n
        position += n
        return n
    }

    private func skipRest() throws(CaptureError) {
        var skip = remaining + padding
        remaining = 0
        padding = 0
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
        defer { scratch.deallocate() }
        while skip > 0 {
            let n = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<min(skip, scratch.count)]))
            if n == 0 { break }
            skip -= n
            position += n
        }
    }

    /// One 512-byte block, or nil at the end of the input.
    private func block() throws(CaptureError) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 512)
        var have = 0
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 8)
        defer { scratch.deallocate() }
        while have < 512 {
            let n = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(512 - have)]))
            if n == 0 { break }
            for i in 0..<n { out[have + i] = scratch[i] }
            have += n
        }
        position += have
        if have == 0 { return nil }
        guard have == 512 else {
            throw CaptureError(.cutShort, file: name, offset: position, message: "tar archive ends inside a header: it is cut short")
        }
        return out
    }

    /// `size` bytes of data (and their padding), for the small metadata entries.
    private func data(_ size: Int) throws(CaptureError) -> [UInt8] {
        guard size <= 1 << 20 else {
            throw CaptureError(.damaged, file: name, offset: position, message: "tar metadata entry of \(grouped(size)) bytes (at most 1 MiB expected)")
        }
        remaining = size
        padding = (512 - size % 512) % 512
        var out: [UInt8] = []
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
        defer { scratch.deallocate() }
        while remaining > 0 {
            let n = try read(into: scratch)
            out += UnsafeRawBufferPointer(rebasing: scratch[0..<n])
        }
        try skipRest()
        return out
    }

    static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The largest size accepted (2^62: no arithmetic on it or its padding can overflow).
    static let largestSize = 1 << 62

    static func octal(_ bytes: ArraySlice<UInt8>) -> Int? {
        let digits = bytes.drop { $0 == 0x20 || $0 == 0 }.prefix { $0 >= 0x30 && $0 <= 0x37 }
        guard !digits.isEmpty else { return bytes.allSatisfy { $0 == 0 || $0 == 0x20 } ? 0 : nil }
        var value = 0
        for d in digits {
            guard value <= largestSize >> 3 else { return nil }
            value = value << 3 | Int(d - 0x30)
        }
        return value
    }

    /// Octal, or GNU base-256 (high bit of the first byte set) for sizes of 8 GiB and more;
    /// nil for a field that is neither or says more than ``largestSize`` (or less than 0).
    static func size(_ header: [UInt8]) -> Int? {
        let field = header[124..<136]
        if let first = field.first, first & 0x80 != 0 {
            // Bit 6 of the first byte set is a negative number.
            guard first & 0x40 == 0 else { return nil }
            var value = Int(first & 0x3F)
            for b in field.dropFirst() {
                guard value <= largestSize >> 8 else { return nil }
                value = value << 8 | Int(b)
            }
            return value <= largestSize ? value : nil
        }
        guard let value = octal(field), value <= largestSize else { return nil }
        return value
    }

    /// `path=` from pax records ("LEN key=value\n" each).
    static func paxPath(_ data: [UInt8]) -> String? {
        let text = String(decoding: data, as: UTF8.self)
        for record in text.split(separator: "\n") {
            guard let space = record.firstIndex(of: " ") else { continue }
            let keyValue = record[record.index(after: space)...]
            if keyValue.hasPrefix("path=") { return String(keyValue.dropFirst(5)) }
        }
        return nil
    }
}
