import ScopeCore

/// Android's btsnooz: the short HCI history the Bluetooth stack writes into a bug report.
///
/// ```
/// text:    --- BEGIN:BTSNOOP_LOG_SUMMARY (n bytes in) ---
///          base64 lines
///          --- END:BTSNOOP_LOG_SUMMARY ---
/// base64 → u8 version (1 or 2) · u64 LE last timestamp (Unix µs) · zlib stream of records
/// v1 record: u16 LE length (type byte included) · u32 LE delta µs · u8 type · length-1 bytes
/// v2 record: u16 LE length · u16 LE original length · u32 LE delta µs · u8 type · length-1 bytes
/// types:   0x10 event, 0x11 ACL, 0x12 SCO, 0x17 ISO (controller → host)
///          0x20 command, 0x21 ACL, 0x22 SCO, 0x2D ISO (host → controller)
/// ```
///
/// A record's delta is the time since the record before it; the last record happened at the
/// header's timestamp, so times are rebuilt backwards from it — in two streaming passes over the
/// records (``BTSnoozSource``): the first adds the deltas up, the second delivers each record at
/// the end's time less what follows it. Nothing is held but the compressed block. The stack keeps at most ~150
/// bytes of each packet (ACL outside L2CAP signalling: 14): records are cut short, and their
/// original length (v2, or the length in the packet's own header) says by how much.
///
/// Also read: the variant found in the wild where a btsnoop header is followed by raw,
/// uncompressed version 2 records (no timestamp anchor: the caller gives one).
enum BTSnooz {
    static let beginMarker: [UInt8] = Array("--- BEGIN:BTSNOOP_LOG_SUMMARY".utf8)
    static let endMarker: [UInt8] = Array("--- END:BTSNOOP_LOG_SUMMARY".utf8)
    /// The fields of one record's header, and where it starts in the record data.
    struct Header {
        var length: Int
        var original: Int?
        var delta: UInt32
        var kind: RecordKind
        var direction: Direction
        var offset: Int
    }

    static func kind(_ type: UInt8) -> (RecordKind, Direction)? {
        switch type {
        case 0x10: return (.event, .received)
        case 0x11: return (.acl, .received)
        case 0x12: return (.sco, .received)
        case 0x17: return (.iso, .received)
        case 0x20: return (.command, .sent)
        case 0x21: return (.acl, .sent)
        case 0x22: return (.sco, .sent)
        case 0x2D: return (.iso, .sent)
        default: return nil
        }
    }

    /// Decodes the base64 text of a summary block (whitespace ignored): its version, the
    /// timestamp of its last record and its zlib stream of records.
    static func decodeSummary(base64 text: [UInt8], name: String) throws(CaptureError) -> (version: UInt8, last: Int64, records: [UInt8]) {
        guard let raw = Base64.decode(text) else {
            throw CaptureError(.notACapture, file: name, message: "the BTSNOOP_LOG_SUMMARY block is not valid base64")
        }
        guard raw.count >= 9 else {
            throw CaptureError(
                .truncatedHeader, file: name,
                message: "the BTSNOOP_LOG_SUMMARY block holds \(raw.count) bytes, fewer than its 9-byte header")
        }
        let version = raw[0]
        guard version == 1 || version == 2 else {
            throw CaptureError(.unsupported, file: name, offset: 0, message: "btsnooz version \(version) (hciscope reads 1 and 2)")
        }
        return (version, Int64(bitPattern: Sniffer.le64(raw, 1)), Array(raw[9...]))
    }

    /// Reads records from a stream of record data: each call the next record's header with its
    /// payload at the front of `input`'s window (``Scanner/payload()``), nil at the end or at a
    /// record that stops reading (cut off, length 0, unknown type: logged with its offset).
    struct Scanner {
        let input: BufferedFileReader
        let version: UInt8
        /// Offset of the stream's first byte in the data as offsets are reported.
        let base: Int
        private var pendingLength = 0

        init(input: BufferedFileReader, version: UInt8, base: Int) {
            self.input = input
            self.version = version
            self.base = base
        }

        var headerLength: Int { version == 1 ? 7 : 9 }

        mutating func next(log: inout DiagnosticLog) throws(CaptureError) -> Header? {
            input.consume(pendingLength)
            pendingLength = 0
            let h = headerLength
            let p = base + input.offset
            let have = try input.fill(atLeast: h)
            if have == 0 { return nil }
            guard have >= h else {
                log.error(frame: nil, offset: p, code: .truncatedRecord, "btsnooz record header cut off after \(have) of \(h) bytes")
                input.consume(have)
                return nil
            }
            let length = Int(input.le16(at: 0))
            let original = version == 2 ? Int(input.le16(at: 2)) : nil
            let delta = input.le32(at: version == 2 ? 4 : 2)
            let type = input.byte(at: h - 1)
            guard length >= 1 else {
                log.error(frame: nil, offset: p, code: .dataDamaged, "btsnooz record length 0 (it counts the type byte, so at least 1); the rest is not read")
                return nil
            }
            guard let (kind, direction) = BTSnooz.kind(type) else {
                log.error(frame: nil, offset: p, code: .dataDamaged, "btsnooz record type \(Hex.prefixed(type, digits: 2)) is none of 0x10–0x12, 0x17, 0x20–0x22, 0x2D; the rest is not read")
                return nil
            }
            let count = length - 1
            let got = try input.fill(atLeast: h + count)
            guard got >= h + count else {
                log.error(frame: nil, offset: p, code: .truncatedRecord, "btsnooz record of \(count) bytes cut off after \(got - h)")
                input.consume(got)
                return nil
            }
            input.consume(h)
            pendingLength = count
            return Header(length: length, original: original, delta: delta, kind: kind, direction: direction, offset: p)
        }

        /// The payload of the record `next` returned.
        func payload() -> [UInt8] { input.bytes(at: 0, count: pendingLength) }
    }

    /// The record of a header and its payload, at `timestamp`.
    static func record(_ h: Header, payload: [UInt8], timestamp: Int64) -> CaptureRecord {
        let count = payload.count
        // The packet's own HCI header says how long it was; the v2 original length only where
        // the bytes kept hold no header (the stack's count is not always the HCI packet's:
        // records whose header lengths match their bytes are not cut short).
        let originalLength = Self.declaredLength(of: h.kind, payload) ?? h.original.map { max($0 - 1, count) } ?? count
        return CaptureRecord(
            frame: 0, timestamp: Timestamp(microseconds: timestamp), direction: h.direction, kind: h.kind,
            originalLength: max(originalLength, count), payload: payload)
    }

    /// The length a packet declares in its own header (plus the header): what a v1 record
    /// was cut from.
    static func declaredLength(of kind: RecordKind, _ p: [UInt8]) -> Int? {
        switch kind {
        case .command where p.count >= 3: return 3 + Int(p[2])
        case .event where p.count >= 2: return 2 + Int(p[1])
        case .acl where p.count >= 4: return 4 + Int(Sniffer.le16(p, 2))
        case .sco where p.count >= 3: return 3 + Int(p[2])
        case .iso where p.count >= 4: return 4 + Int(Sniffer.le16(p, 2) & 0x3FFF)
        default: return nil
        }
    }

    /// True when `b` from `start` on reads as raw version 2 records (at least the first three
    /// that fit, or all there are): what Android writes after a btsnoop header in some
    /// `btsnooz_hci.log` files.
    static func looksLikeRawV2(_ b: [UInt8], at start: Int) -> Bool {
        var p = start
        var seen = 0
        while seen < 3 {
            if p == b.count { return seen > 0 }
            guard p + 9 <= b.count else { return seen > 0 }
            let length = Int(Sniffer.le16(b, p)), original = Int(Sniffer.le16(b, p + 2))
            guard length >= 2, original >= length, kind(b[p + 8]) != nil else { return false }
            p += 9 + length - 1
            seen += 1
        }
        return true
    }

    /// The offset of `marker` in `b` from `from` on, or nil.
    static func find(_ marker: [UInt8], in b: [UInt8], from: Int = 0) -> Int? {
        guard marker.count <= b.count, from <= b.count - marker.count else { return nil }
        let first = marker[0]
        var i = from
        let last = b.count - marker.count
        while i <= last {
            if b[i] == first, b[i..<(i + marker.count)].elementsEqual(marker) { return i }
            i += 1
        }
        return nil
    }
}

/// Base64 (RFC 4648) with whitespace and line breaks ignored; nil for any other stray byte.
enum Base64 {
    static func decode(_ text: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): v = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            acc = (acc << 6) | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        return out
    }
}
