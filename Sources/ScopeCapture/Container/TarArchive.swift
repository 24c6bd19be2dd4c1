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
            guard Self.checksumMatches(header) else {
                throw CaptureError(
                    .notACapture, file: name, offset: position - 512,
                    message: "tar header checksum does not match: the archive is damaged here")
            }
            let size = Self.size(header) ?? 0
            let type = header[156]
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
            throw CaptureError(.io, file: name, offset: position, message: "tar archive ends inside an entry: it is cut short")
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
            throw CaptureError(.io, file: name, offset: position, message: "tar archive ends inside a header: it is cut short")
        }
        return out
    }

    /// `size` bytes of data (and their padding), for the small metadata entries.
    private func data(_ size: Int) throws(CaptureError) -> [UInt8] {
        guard size <= 1 << 20 else {
            throw CaptureError(.notACapture, file: name, offset: position, message: "tar metadata entry of \(grouped(size)) bytes")
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

    static func octal(_ bytes: ArraySlice<UInt8>) -> Int? {
        let digits = bytes.drop { $0 == 0x20 || $0 == 0 }.prefix { $0 >= 0x30 && $0 <= 0x37 }
        guard !digits.isEmpty else { return bytes.allSatisfy { $0 == 0 || $0 == 0x20 } ? 0 : nil }
        return digits.reduce(0) { $0 * 8 + Int($1 - 0x30) }
    }

    /// Octal, or GNU base-256 (high bit of the first byte set) for sizes of 8 GiB and more.
    static func size(_ header: [UInt8]) -> Int? {
        let field = header[124..<136]
        if let first = field.first, first & 0x80 != 0 {
            return field.dropFirst().reduce(Int(first & 0x7F)) { ($0 << 8) | Int($1) }
        }
        return octal(field)
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
