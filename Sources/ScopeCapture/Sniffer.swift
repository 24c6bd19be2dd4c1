import ScopeCore

/// What the first bytes of a file say about it.
public struct Sniffed: Sendable, Hashable {
    public enum ByteOrder: String, Sendable, Hashable { case big, little }
    public enum TimestampPrecision: String, Sendable, Hashable { case microseconds, nanoseconds }

    public var format: CaptureFormat
    /// Byte order of the file's integers (btsnoop is always big-endian).
    public var byteOrder: ByteOrder
    /// pcap: from the magic; nil for pcapng (per interface, `if_tsresol`) and the others
    /// (btsnoop and PacketLogger are microseconds).
    public var timestampPrecision: TimestampPrecision?
    /// Size of the file header that precedes the first record (16 btsnoop, 24 pcap, 0 pklg;
    /// pcapng: the Section Header Block).
    public var headerLength: Int
    /// btsnoop version field (1 in every file seen); nil elsewhere.
    public var btsnoopVersion: UInt32?
}

extension CaptureFormat {
    /// Recognises a capture by its first bytes (never by its name): btsnoop ("btsnoop\0",
    /// datalinks 1001, 1002, 2001), pcap (all four magics: µs and ns, both byte orders), pcapng
    /// (0x0A0D0D0A, link type from the first Interface Description Block) and PacketLogger
    /// (no header: the first records must be plausible, FORMATS.md §4).
    ///
    /// `firstBytes` is everything known of the file (pass the first 64 KiB, or the whole file
    /// when shorter): a structure cut off at its end is reported as a truncated header.
    /// Throws for empty files, unknown magics, truncated headers, btsnoop 1003/1004/2002 and
    /// link types that are not HCI (link-layer sniffers are named as such).
    public static func sniff(_ firstBytes: [UInt8]) throws(CaptureError) -> Sniffed {
        switch try Sniffer.step(firstBytes, noMore: true) {
        case .done(let s): return s
        case .needMore(let n):
            // `step` never asks for more when told there is none; keep a safe answer anyway.
            throw CaptureError(.truncatedHeader, offset: 0, message: "file header needs \(n) bytes")
        }
    }
}

/// Incremental sniffing: `open` feeds it the bytes read so far and reads more when asked, so a
/// live pipe is never waited on for more than the header needs.
enum Sniffer {
    enum Step {
        case done(Sniffed)
        case needMore(Int)
    }

    static let btsnoopMagic: [UInt8] = Array("btsnoop".utf8) + [0]
    static let pcapngMagic: [UInt8] = [0x0A, 0x0D, 0x0D, 0x0A]
    /// The most bytes `open` lets the sniffer look at.
    static let maximumLook = 65_536
    /// PacketLogger detection validates up to this many records.
    static let packetLoggerRecordsToCheck = 5

    /// Looks at `b`; `noMore` says the input has nothing beyond it.
    static func step(_ b: [UInt8], noMore: Bool) throws(CaptureError) -> Step {
        if b.isEmpty {
            if noMore { throw CaptureError(.notACapture, offset: 0, message: "empty file: not a capture") }
            return .needMore(16)
        }
        // Every format needs at least 13 bytes (one PacketLogger record header); ask for 16
        // (a btsnoop header) before deciding anything.
        if b.count < 16, !noMore { return .needMore(16) }

        if hasPrefix(b, btsnoopMagic) || isPrefix(b, of: btsnoopMagic) {
            return try btsnoop(b, noMore: noMore)
        }
        if b.count >= 4 || noMore {
            if let order = pcapMagic(b) {
                return try pcap(b, order: order.0, precision: order.1, noMore: noMore)
            }
            if hasPrefix(b, pcapngMagic) {
                return try pcapng(b, noMore: noMore)
            }
            if b.count < 4, isPrefixOfAnyPcapMagic(b) {
                throw CaptureError(
                    .truncatedHeader, offset: 0,
                    message: "truncated file header: \(b.count) byte\(b.count == 1 ? "" : "s") of a pcap/pcapng magic")
            }
        }
        return try packetLogger(b, noMore: noMore)
    }

    // MARK: btsnoop

    /// ```
    /// 0      8        12        16
    /// +------+--------+---------+
    /// |magic |version |datalink |   big-endian
    /// +------+--------+---------+
    /// ```
    static func btsnoop(_ b: [UInt8], noMore: Bool) throws(CaptureError) -> Step {
        guard b.count >= 16 else {
            if !noMore { return .needMore(16) }
            throw CaptureError(
                .truncatedHeader, offset: b.count,
                message: "truncated btsnoop file header: \(b.count) of 16 bytes")
        }
        let version = be32(b, 8)
        let datalink = be32(b, 12)
        let format: CaptureFormat
        switch datalink {
        case 1001: format = .btsnoopH1
        case 1002: format = .btsnoopH4
        case 2001: format = .btsnoopMonitor
        case 1003:
            throw CaptureError(.unsupported, offset: 12, message: "btsnoop datalink 1003 (BCSP) is not supported")
        case 1004:
            throw CaptureError(.unsupported, offset: 12, message: "btsnoop datalink 1004 (HCI Three-wire/H5) is not supported")
        case 2002:
            throw CaptureError(
                .unsupported, offset: 12,
                message: "btsnoop datalink 2002 (BlueZ simulator, link-layer PHY packets) is not HCI; not supported")
        default:
            throw CaptureError(.unsupported, offset: 12, message: "unknown btsnoop datalink \(datalink)")
        }
        return .done(Sniffed(format: format, byteOrder: .big, timestampPrecision: .microseconds,
                             headerLength: 16, btsnoopVersion: version))
    }

    // MARK: pcap

    /// ```
    /// 0      4     6     8        12       16        20        24
    /// +------+-----+-----+--------+--------+---------+---------+
    /// |magic |major|minor|reserved|reserved| snaplen |linktype |   byte order from the magic
    /// +------+-----+-----+--------+--------+---------+---------+
    /// ```
    static func pcap(_ b: [UInt8], order: Sniffed.ByteOrder, precision: Sniffed.TimestampPrecision,
                     noMore: Bool) throws(CaptureError) -> Step {
        guard b.count >= 24 else {
            if !noMore { return .needMore(24) }
            throw CaptureError(
                .truncatedHeader, offset: b.count, message: "truncated pcap file header: \(b.count) of 24 bytes")
        }
        // The upper bits of the link type field carry FCS information (pcap-savefile(5)).
        let linkType = u32(b, 20, order) & 0x0FFF_FFFF
        let format = try LinkType.format(linkType, pcapng: false)
        return .done(Sniffed(format: format, byteOrder: order, timestampPrecision: precision, headerLength: 24))
    }

    static func pcapMagic(_ b: [UInt8]) -> (Sniffed.ByteOrder, Sniffed.TimestampPrecision)? {
        guard b.count >= 4 else { return nil }
        switch (b[0], b[1], b[2], b[3]) {
        case (0xA1, 0xB2, 0xC3, 0xD4): return (.big, .microseconds)
        case (0xD4, 0xC3, 0xB2, 0xA1): return (.little, .microseconds)
        case (0xA1, 0xB2, 0x3C, 0x4D): return (.big, .nanoseconds)
        case (0x4D, 0x3C, 0xB2, 0xA1): return (.little, .nanoseconds)
        default: return nil
        }
    }

    static func isPrefixOfAnyPcapMagic(_ b: [UInt8]) -> Bool {
        let magics: [[UInt8]] = [
            [0xA1, 0xB2, 0xC3, 0xD4], [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D], [0x4D, 0x3C, 0xB2, 0xA1],
            pcapngMagic,
        ]
        return magics.contains { isPrefix(b, of: $0) }
    }

    // MARK: pcapng

    /// Section Header Block, then blocks until the first Interface Description Block:
    /// ```
    /// SHB: type 0x0A0D0D0A | total length | byte-order magic 0x1A2B3C4D | major | minor | section length (8) | options | total length
    /// IDB: type 1 | total length | linktype u16 | reserved u16 | snaplen u32 | options | total length
    /// ```
    static func pcapng(_ b: [UInt8], noMore: Bool) throws(CaptureError) -> Step {
        guard b.count >= 12 else {
            if !noMore { return .needMore(12) }
            throw CaptureError(
                .truncatedHeader, offset: b.count,
                message: "truncated pcapng Section Header Block: \(b.count) of at least 28 bytes")
        }
        let order: Sniffed.ByteOrder
        switch (b[8], b[9], b[10], b[11]) {
        case (0x1A, 0x2B, 0x3C, 0x4D): order = .big
        case (0x4D, 0x3C, 0x2B, 0x1A): order = .little
        default:
            throw CaptureError(
                .notACapture, offset: 8,
                message: "pcapng magic without a valid byte-order magic (got \(Hex.string(b[8..<12], separator: " ")))")
        }
        let shbLength = Int(u32(b, 4, order))
        guard shbLength >= 28, shbLength % 4 == 0 else {
            throw CaptureError(
                .notACapture, offset: 4, message: "pcapng Section Header Block length \(shbLength) is invalid")
        }
        guard shbLength <= b.count || (!noMore && shbLength <= maximumLook) else {
            throw CaptureError(
                .truncatedHeader, offset: b.count,
                message: "truncated pcapng Section Header Block: \(b.count) of \(shbLength) bytes")
        }
        var position = shbLength
        while true {
            guard position + 12 <= b.count else {
                if !noMore, position + 12 <= maximumLook { return .needMore(position + 12) }
                throw CaptureError(
                    .truncatedHeader, offset: min(position, b.count),
                    message: "truncated pcapng header: no Interface Description Block in the first \(b.count) bytes")
            }
            let type = u32(b, position, order)
            let length = Int(u32(b, position + 4, order))
            guard length >= 12, length % 4 == 0 else {
                throw CaptureError(
                    .notACapture, offset: position + 4, message: "pcapng block length \(length) at offset \(position) is invalid")
            }
            if type == 1 {
                let linkType = UInt32(order == .big ? be16(b, position + 8) : le16(b, position + 8))
                let format = try LinkType.format(linkType, pcapng: true)
                return .done(Sniffed(format: format, byteOrder: order, timestampPrecision: nil, headerLength: shbLength))
            }
            if type == 6 || type == 3 || type == 2 {
                throw CaptureError(
                    .notACapture, offset: position,
                    message: "pcapng packet block at offset \(position) before any Interface Description Block")
            }
            let (next, overflow) = position.addingReportingOverflow(length)
            guard !overflow else {
                throw CaptureError(.notACapture, offset: position + 4, message: "pcapng block length overflows")
            }
            position = next
        }
    }

    // MARK: PacketLogger

    /// No file header: records of `length u32 | seconds u32 | microseconds u32 | type u8 |
    /// payload`, `length` counting everything after itself. Both byte orders are tried; the
    /// first few records must be plausible (FORMATS.md §4: Wireshark validates 5 records).
    static func packetLogger(_ b: [UInt8], noMore: Bool) throws(CaptureError) -> Step {
        let be = checkPacketLogger(b, order: .big, noMore: noMore)
        let le = checkPacketLogger(b, order: .little, noMore: noMore)
        switch (be, le) {
        case (.valid, _):
            return .done(Sniffed(format: .pklgBE, byteOrder: .big, timestampPrecision: .microseconds, headerLength: 0))
        case (.invalid, .valid):
            return .done(Sniffed(format: .pklgLE, byteOrder: .little, timestampPrecision: .microseconds, headerLength: 0))
        case (.needMore(let n), _), (_, .needMore(let n)):
            return .needMore(n)
        case (.invalid, .invalid):
            let shown = Hex.string(b.prefix(8), separator: " ")
            throw CaptureError(
                .notACapture, offset: 0,
                message: "not a capture file: first bytes \(shown) match no btsnoop, pcap, pcapng or PacketLogger header")
        }
    }

    enum PacketLoggerCheck { case valid, invalid, needMore(Int) }

    static func checkPacketLogger(_ b: [UInt8], order: Sniffed.ByteOrder, noMore: Bool) -> PacketLoggerCheck {
        var position = 0
        var checked = 0
        while checked < packetLoggerRecordsToCheck {
            guard position + PacketLogger.headerLength <= b.count else {
                // Fewer records than asked for: enough when at least one was plausible and
                // there is nothing more to see.
                if noMore || position + PacketLogger.headerLength > maximumLook { return checked > 0 ? .valid : .invalid }
                return .needMore(position + PacketLogger.headerLength)
            }
            let length = u32(b, position, order)
            let micros = u32(b, position + 8, order)
            let type = b[position + 12]
            guard PacketLogger.isPlausible(length: length, micros: micros, type: type) else { return .invalid }
            checked += 1
            position += 4 + Int(length)
            if position == b.count, noMore { return .valid }
        }
        return .valid
    }

    // MARK: Helpers

    static func hasPrefix(_ b: [UInt8], _ p: [UInt8]) -> Bool {
        b.count >= p.count && b[0..<p.count].elementsEqual(p)
    }

    /// `b` is a proper prefix of `p` (a file cut inside the magic).
    static func isPrefix(_ b: [UInt8], of p: [UInt8]) -> Bool {
        b.count < p.count && p[0..<b.count].elementsEqual(b)
    }

    static func be16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
    static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
    static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
    static func be64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(be32(b, i)) << 32 | UInt64(be32(b, i + 4)) }
    static func le64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32 }
    static func u32(_ b: [UInt8], _ i: Int, _ order: Sniffed.ByteOrder) -> UInt32 {
        order == .big ? be32(b, i) : le32(b, i)
    }
}
