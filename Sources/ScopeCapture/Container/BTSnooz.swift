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
/// header's timestamp, so times are rebuilt backwards from it. The stack keeps at most ~150
/// bytes of each packet (ACL outside L2CAP signalling: 14): records are cut short, and their
/// original length (v2, or the length in the packet's own header) says by how much.
///
/// Also read: the variant found in the wild where a btsnoop header is followed by raw,
/// uncompressed version 2 records (no timestamp anchor: the caller gives one).
enum BTSnooz {
    static let beginMarker: [UInt8] = Array("--- BEGIN:BTSNOOP_LOG_SUMMARY".utf8)
    static let endMarker: [UInt8] = Array("--- END:BTSNOOP_LOG_SUMMARY".utf8)
    /// A summary larger than this is not a summary (the stack keeps a few hundred KiB).
    static let maximumSummary = 64 << 20

    /// The decoded form of one record, with the offset of its header in the decompressed data.
    struct Entry {
        var record: CaptureRecord
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

    /// Decodes the base64 text of a summary block (whitespace ignored).
    static func decodeSummary(base64 text: [UInt8], name: String, log: inout DiagnosticLog) throws(CaptureError) -> (version: UInt8, entries: [Entry]) {
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
        let last = Int64(bitPattern: Sniffer.le64(raw, 1))
        let inflated = try inflate(Array(raw[9...]), name: name)
        let entries = records(inflated, version: version, lastTimestamp: last, name: name, log: &log)
        return (version, entries)
    }

    /// Inflates a zlib stream held in memory.
    static func inflate(_ bytes: [UInt8], name: String) throws(CaptureError) -> [UInt8] {
        let d = try Decompressor(.gzip, input: MemoryInput(bytes), name: name)
        var out: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let n = try d.read(into: chunk)
            if n == 0 { break }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
            if out.count > maximumSummary {
                throw CaptureError(.unsupported, file: name, message: "the btsnooz summary inflates to more than \(maximumSummary >> 20) MiB")
            }
        }
        return out
    }

    /// The records of `data` (version 1 or 2 layout), timed backwards from `lastTimestamp`.
    /// A record cut off at the end, an unknown type or a zero length stop reading with an
    /// error naming the offset (what came before is kept).
    static func records(
        _ data: [UInt8], from start: Int = 0, version: UInt8, lastTimestamp: Int64, name: String,
        offsetBase: Int = 0, log: inout DiagnosticLog
    ) -> [Entry] {
        let headerLength = version == 1 ? 7 : 9
        var out: [Entry] = []
        var deltas: [UInt32] = []
        var p = start
        while p < data.count {
            guard p + headerLength <= data.count else {
                log.error(frame: nil, offset: offsetBase + p, code: .truncatedRecord, "btsnooz record header cut off after \(data.count - p) of \(headerLength) bytes")
                break
            }
            let length = Int(Sniffer.le16(data, p))
            let original = version == 2 ? Int(Sniffer.le16(data, p + 2)) : nil
            let delta = Sniffer.le32(data, p + (version == 2 ? 4 : 2))
            let type = data[p + headerLength - 1]
            guard length >= 1 else {
                log.error(frame: nil, offset: offsetBase + p, code: .badRecordLength, "btsnooz record length 0 (it counts the type byte, so at least 1); the rest is not read")
                break
            }
            guard let (kind, direction) = kind(type) else {
                log.error(frame: nil, offset: offsetBase + p, code: .readingStopped, "btsnooz record type \(Hex.prefixed(type, digits: 2)) is none of 0x10–0x12, 0x17, 0x20–0x22, 0x2D; the rest is not read")
                break
            }
            let body = p + headerLength
            let count = length - 1
            guard body + count <= data.count else {
                log.error(frame: nil, offset: offsetBase + p, code: .truncatedRecord, "btsnooz record of \(count) bytes cut off after \(data.count - body)")
                break
            }
            let payload = Array(data[body..<(body + count)])
            // The packet's own HCI header says how long it was; the v2 original length only
            // where the bytes kept hold no header (the stack's count is not always the HCI
            // packet's: records whose header lengths match their bytes are not cut short).
            let originalLength = Self.declaredLength(of: kind, payload) ?? original.map { max($0 - 1, count) } ?? count
            out.append(Entry(
                record: CaptureRecord(
                    frame: 0, timestamp: Timestamp(microseconds: 0), direction: direction, kind: kind,
                    originalLength: max(originalLength, count), payload: payload),
                offset: offsetBase + p))
            deltas.append(delta)
            p = body + count
        }
        // Times backwards: the last record is at `lastTimestamp`, each delta is the step from
        // the record before.
        var t = lastTimestamp
        var i = out.count - 1
        while i >= 0 {
            out[i].record.timestamp = Timestamp(microseconds: t)
            t = t &- Int64(deltas[i])
            i -= 1
        }
        return out
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
