import ScopeCore

/// One complete L2CAP basic-frame PDU (Core v5.4, Vol 3, Part A, §3.1), as put together from
/// one or more HCI ACL fragments of one (adapter, handle, direction) stream.
///
///     | Length (LE16) | Channel ID (LE16) | Information payload (Length bytes) |
///
/// `payload` is the information payload only (after the 4-byte basic header).
public struct L2CAPPDU: Sendable, Hashable {
    public var adapter: AdapterIndex
    public var handle: UInt16
    public var direction: Direction
    /// Destination channel ID from the basic header.
    public var cid: UInt16
    /// The information payload: at most `declaredLength` bytes; fewer when bytes are missing.
    /// A slice of the bytes it came in (the record payload of a single fragment, the
    /// reassembled PDU otherwise), not a copy: its indices do not start at 0.
    public var payload: ArraySlice<UInt8>
    /// Frame numbers of the ACL packets before the one that completed this PDU, in order
    /// (empty for a PDU in one fragment, which then needs no array).
    public var earlierFragments: [FrameNumber]
    /// The frame whose fragment completed the PDU (the last of `fragments`).
    public var completedIn: FrameNumber
    /// The Length field of the basic header.
    public var declaredLength: Int
    /// Payload bytes that were announced but never seen (truncated records), 0 normally.
    public var missingBytes: Int
    /// True when missing bytes are due to the capture cutting records (Android filtered logs),
    /// not to a malformed packet. Upper-layer decoders will then see a short PDU: the dissector
    /// should present their truncation as a capture limit.
    public var isCaptureTruncated: Bool

    /// `fragments` are the frames that carried the PDU, the last being `completedIn`.
    public init(
        adapter: AdapterIndex, handle: UInt16, direction: Direction, cid: UInt16, payload: ArraySlice<UInt8>,
        fragments: [FrameNumber], completedIn: FrameNumber, declaredLength: Int? = nil, missingBytes: Int = 0,
        isCaptureTruncated: Bool = false
    ) {
        self.init(
            adapter: adapter, handle: handle, direction: direction, cid: cid, payload: payload,
            earlierFragments: Array(fragments.dropLast()), completedIn: completedIn, declaredLength: declaredLength,
            missingBytes: missingBytes, isCaptureTruncated: isCaptureTruncated)
    }

    init(
        adapter: AdapterIndex, handle: UInt16, direction: Direction, cid: UInt16, payload: ArraySlice<UInt8>,
        earlierFragments: [FrameNumber], completedIn: FrameNumber, declaredLength: Int? = nil, missingBytes: Int = 0,
        isCaptureTruncated: Bool = false
    ) {
        self.adapter = adapter
        self.handle = handle
        self.direction = direction
        self.cid = cid
        self.payload = payload
        self.earlierFragments = earlierFragments
        self.completedIn = completedIn
        self.declaredLength = declaredLength ?? payload.count
        self.missingBytes = missingBytes
        self.isCaptureTruncated = isCaptureTruncated
    }

    /// Size of the basic L2CAP header (Length + CID).
    public static let basicHeaderSize = 4

    public var channel: ChannelID { ChannelID(cid) }
    /// Frame numbers of the ACL packets that carried this PDU, in order (start first; the last
    /// is `completedIn`). Built when asked for.
    public var fragments: [FrameNumber] { earlierFragments + [completedIn] }
    /// True when the PDU spanned more than one ACL packet.
    public var isReassembled: Bool { !earlierFragments.isEmpty }
    /// True when some payload bytes are missing (see `missingBytes`).
    public var isIncomplete: Bool { missingBytes > 0 }

    /// The base offset to give upper-layer decoders for `payload[0]`, following the
    /// ``Malformation`` convention: within the record payload (ACL header + basic header = 8)
    /// when the PDU came in a single fragment, within the reassembled L2CAP PDU (basic header = 4)
    /// when it was reassembled.
    public var payloadOffset: Int {
        isReassembled ? L2CAPPDU.basicHeaderSize : ACLHeader.size + L2CAPPDU.basicHeaderSize
    }

    public var summary: String {
        var s = "\(channel), \(declaredLength) byte\(declaredLength == 1 ? "" : "s")"
        if isReassembled { s += ", reassembled from frames " + L2CAPReassembler.frameList(fragments) }
        if missingBytes > 0 { s += ", \(missingBytes) missing" + (isCaptureTruncated ? " (capture truncated)" : "") }
        return s
    }

    public var fields: [Field] {
        var out = [Field("Length", String(declaredLength)), Field("CID", channel.description)]
        if isReassembled {
            out.append(Field("Reassembled from frames", L2CAPReassembler.frameList(fragments)))
        }
        if missingBytes > 0 {
            out.append(
                Field("Missing bytes", String(missingBytes) + (isCaptureTruncated ? " (capture truncated)" : "")))
        }
        return out
    }
}

/// What one ACL record did to the reassembler: its header (nil when the record is shorter than
/// the ACL header), the L2CAP PDUs it completed (0 or 1 in practice) and every problem found.
public struct ACLStep: Sendable, Hashable {
    public var header: ACLHeader?
    public var completed: [L2CAPPDU]
    /// Problems with this record (layer `.acl`) or with the reassembly it took part in (layer
    /// `.l2cap`). Offsets are within this record's payload (0 for messages about earlier frames).
    public var malformed: [Malformation]
    /// Where this record's data (the bytes after its ACL header) sits in the L2CAP PDU it
    /// carries; nil when it carries none that the reassembler follows (no ACL header, a
    /// continuation without a start). What reads a record's bytes by their place in a PDU split
    /// over several records (the Redactor's SMP secrets) reads it here.
    public var placement: Placement?

    public struct Placement: Sendable, Hashable {
        /// The PDU offset, basic header included, of the record's first data byte (0 for a start
        /// fragment).
        public var offset: Int
        /// The PDU's channel, once its basic header has been seen.
        public var cid: UInt16?
        /// The PDU's first payload byte (an SMP PDU's code, an ATT PDU's opcode), once seen.
        public var firstPayloadByte: UInt8?

        public init(offset: Int, cid: UInt16?, firstPayloadByte: UInt8?) {
            self.offset = offset
            self.cid = cid
            self.firstPayloadByte = firstPayloadByte
        }

        /// A start fragment whose data begins with the basic header: `data`'s channel and first
        /// payload byte, when present.
        init(start data: ArraySlice<UInt8>) {
            let i = data.startIndex, n = data.count
            self.init(
                offset: 0, cid: n >= 4 ? UInt16(data[i + 2]) | UInt16(data[i + 3]) << 8 : nil,
                firstPayloadByte: n > L2CAPPDU.basicHeaderSize ? data[i + L2CAPPDU.basicHeaderSize] : nil)
        }
    }

    public init(header: ACLHeader?, completed: [L2CAPPDU] = [], malformed: [Malformation] = [], placement: Placement? = nil) {
        self.header = header
        self.completed = completed
        self.malformed = malformed
        self.placement = placement
    }
}

/// Reassembles HCI ACL fragments into L2CAP PDUs (Core v5.4, Vol 3, Part A, §7.2; Vol 4, Part E,
/// §5.4.2).
///
/// State is keyed by (adapter, connection handle, direction) — never by less, so interleaved
/// traffic of two connections or of both directions of one connection cannot mix (STYLE C8).
/// A single owner drives it: one `consume` per ACL record, `reset` when a handle is
/// disconnected, `finish` at the end of the capture.
///
/// Faults are reported, never trapped on:
/// * continuation fragment with nothing started → "continuation without start (N bytes): …",
///   bytes dropped;
/// * new start while a PDU is incomplete → "incomplete PDU discarded: got N of M bytes, frames …";
/// * more bytes than the L2CAP length → the PDU is delivered, the extra bytes are reported;
/// * records shorter than their ACL length (capture cut or malformed) → reported by the ACL
///   layer; the PDU is delivered when the announced byte count is reached, with
///   `missingBytes`/`isCaptureTruncated` set and the bytes after the first gap dropped.
public struct L2CAPReassembler: Sendable {
    struct StreamKey: Hashable, Sendable {
        var adapter: AdapterIndex
        var handle: UInt16
        var direction: Direction
    }

    struct Partial: Sendable {
        var frames: [FrameNumber]
        /// The contiguous bytes seen so far, basic header included.
        var bytes: [UInt8]
        /// Bytes accounted for: seen, missing and dropped after a gap.
        var total: Int
        var missing: Int
        var captureTruncated: Bool

        /// 4 + L2CAP length, once the basic header's Length field has been seen.
        var expectedTotal: Int? {
            guard bytes.count >= 2 else { return nil }
            return L2CAPPDU.basicHeaderSize + (Int(bytes[0]) | Int(bytes[1]) << 8)
        }

        var cid: UInt16? {
            guard bytes.count >= 4 else { return nil }
            return UInt16(bytes[2]) | UInt16(bytes[3]) << 8
        }

        mutating func append(_ data: [UInt8], missing m: Int, captureTruncated cut: Bool) {
            if missing == 0 { bytes.append(contentsOf: data) }
            total += data.count + m
            missing += m
            if m > 0 && cut { captureTruncated = true }
        }

        /// "got 12 of 31 bytes, frames 11, 15" (or "of unknown length").
        var progress: String {
            let of = expectedTotal.map { "\(total) of \($0) bytes" } ?? "\(total) bytes of unknown length"
            return "got \(of), frame\(frames.count == 1 ? "" : "s") \(L2CAPReassembler.frameList(frames))"
        }
    }

    /// The incomplete PDUs, one per stream at most. Rarely more than a few at a time, and
    /// looked up for every ACL record: a short list searched linearly, not a hash table.
    struct PartialList: Sendable {
        private(set) var entries: [(key: StreamKey, partial: Partial)] = []

        var count: Int { entries.count }
        var isEmpty: Bool { entries.isEmpty }
        var keys: [StreamKey] { entries.map(\.key) }

        private func index(of key: StreamKey) -> Int? {
            entries.firstIndex { $0.key == key }
        }

        subscript(key: StreamKey) -> Partial? {
            get { index(of: key).map { entries[$0].partial } }
            set {
                if let i = index(of: key) {
                    if let newValue { entries[i].partial = newValue } else { entries.remove(at: i) }
                } else if let newValue {
                    entries.append((key, newValue))
                }
            }
        }

        mutating func removeValue(forKey key: StreamKey) -> Partial? {
            guard !entries.isEmpty, let i = index(of: key) else { return nil }
            return entries.remove(at: i).partial
        }
    }

    var partials = PartialList()

    public init() {}

    /// Number of streams with an incomplete PDU.
    public var pendingCount: Int { partials.count }

    /// Feeds one ACL record.
    ///
    /// - Parameters:
    ///   - adapter: controller index of the record.
    ///   - direction: `.sent` (host → controller) or `.received`; `.unknown` is its own stream.
    ///   - frame: the record's frame number (kept in `L2CAPPDU.fragments`).
    ///   - payload: the record payload (HCI ACL packet, no H4 byte).
    ///   - capturedTruncated: the capture cut this record (`CaptureRecord.isTruncated`); shortness
    ///     is then reported as "truncated capture (N of M bytes)" instead of a malformed packet.
    public mutating func consume(
        adapter: AdapterIndex, direction: Direction, frame: FrameNumber, payload: [UInt8], capturedTruncated: Bool
    ) -> ACLStep {
        var singleHeader: ACLHeader?
        if let pdu = completeSingleFragment(adapter: adapter, direction: direction, frame: frame, payload, header: &singleHeader) {
            return ACLStep(header: singleHeader, completed: [pdu], placement: .init(start: payload.dropFirst(ACLHeader.size)))
        }
        let packet = ACLPacket.decode(payload, captureTruncated: capturedTruncated)
        guard let header = packet.header else {
            return ACLStep(header: nil, malformed: packet.malformed)
        }
        var step = ACLStep(header: header, malformed: packet.malformed)
        let key = StreamKey(adapter: adapter, handle: header.handle, direction: direction)

        var partial: Partial
        if header.packetBoundary.isStart {
            if let old = partials.removeValue(forKey: key) {
                step.malformed.append(
                    Malformation(
                        layer: .l2cap, offset: 0,
                        message:
                            "incomplete PDU discarded: \(old.progress) (new start on handle \(Hex.prefixed(header.handle, digits: 4)))"
                    ))
            }
            // Fast path: the common single-fragment PDU, exactly as long as its basic header says.
            let d = packet.data
            if packet.missingBytes == 0, d.count >= L2CAPPDU.basicHeaderSize,
                Int(d[0]) | Int(d[1]) << 8 == d.count - L2CAPPDU.basicHeaderSize
            {
                step.completed.append(
                    L2CAPPDU(
                        adapter: adapter, handle: header.handle, direction: direction,
                        cid: UInt16(d[2]) | UInt16(d[3]) << 8, payload: d[L2CAPPDU.basicHeaderSize...],
                        earlierFragments: [], completedIn: frame))
                step.placement = .init(start: d[...])
                return step
            }
            partial = Partial(frames: [frame], bytes: [], total: 0, missing: 0, captureTruncated: false)
        } else {
            guard let existing = partials.removeValue(forKey: key) else {
                let count = packet.data.count + packet.missingBytes
                step.malformed.append(
                    Malformation(
                        layer: .l2cap, offset: ACLHeader.size,
                        message:
                            "continuation without start (\(count) byte\(count == 1 ? "" : "s")): \(L2CAPReassembler.hexExcerpt(packet.data))"
                    ))
                return step
            }
            partial = existing
            partial.frames.append(frame)
        }
        let offset = partial.total
        partial.append(packet.data, missing: packet.missingBytes, captureTruncated: packet.isCaptureTruncated)
        step.placement = .init(
            offset: offset, cid: partial.cid,
            firstPayloadByte: partial.bytes.count > L2CAPPDU.basicHeaderSize ? partial.bytes[L2CAPPDU.basicHeaderSize] : nil)

        guard let expected = partial.expectedTotal, partial.total >= expected, let cid = partial.cid else {
            partials[key] = partial
            return step
        }
        let extra = partial.total - expected
        if extra > 0 {
            let extraSeen = partial.missing == 0 ? Array(partial.bytes[expected...]) : []
            let offsetInRecord = ACLHeader.size + max(0, packet.data.count - extra)
            step.malformed.append(
                Malformation(
                    layer: .l2cap, offset: offsetInRecord,
                    message:
                        "L2CAP overrun: \(extra) byte\(extra == 1 ? "" : "s") beyond the L2CAP length \(expected - L2CAPPDU.basicHeaderSize) (CID \(Hex.prefixed(cid, digits: 4)))"
                        + (extraSeen.isEmpty ? "" : ": " + L2CAPReassembler.hexExcerpt(extraSeen))))
        }
        let end = min(partial.bytes.count, expected)
        let payloadBytes = end > L2CAPPDU.basicHeaderSize ? partial.bytes[L2CAPPDU.basicHeaderSize..<end] : []
        let declared = expected - L2CAPPDU.basicHeaderSize
        step.completed.append(
            L2CAPPDU(
                adapter: adapter, handle: header.handle, direction: direction, cid: cid, payload: payloadBytes,
                earlierFragments: Array(partial.frames.dropLast()), completedIn: frame, declaredLength: declared,
                missingBytes: declared - payloadBytes.count, isCaptureTruncated: partial.captureTruncated))
        return step
    }

    /// The common case without intermediate copies: a start fragment whose ACL length is
    /// exactly the bytes present and which holds exactly one basic-frame PDU, on a stream with
    /// nothing pending. Nil for everything else (``consume`` then takes the general path, which
    /// gives the same result for this case). It changes no state, so the dissector asks it
    /// first and calls ``consume`` only when it says nil (sparing the step's array). The
    /// fragment's ACL header is set in `header` (a PDU returned alone is moved to its caller;
    /// one bound out of a returned pair is copied).
    func completeSingleFragment(
        adapter: AdapterIndex, direction: Direction, frame: FrameNumber, _ payload: [UInt8], header aclHeader: inout ACLHeader?
    ) -> L2CAPPDU? {
        let headers = ACLHeader.size + L2CAPPDU.basicHeaderSize
        guard payload.count >= headers else { return nil }
        let word = UInt16(payload[0]) | UInt16(payload[1]) << 8
        let aclLength = Int(payload[2]) | Int(payload[3]) << 8
        let l2capLength = Int(payload[4]) | Int(payload[5]) << 8
        let boundary = ACLPacketBoundary(rawValue: UInt8(truncatingIfNeeded: word >> 12))
        guard boundary.isStart, aclLength == payload.count - ACLHeader.size,
            l2capLength == aclLength - L2CAPPDU.basicHeaderSize
        else { return nil }
        let header = ACLHeader(
            handle: word & 0x0FFF, packetBoundary: boundary,
            broadcast: ACLBroadcastFlag(rawValue: UInt8(truncatingIfNeeded: word >> 14)), dataLength: UInt16(aclLength))
        if !partials.isEmpty, partials[StreamKey(adapter: adapter, handle: header.handle, direction: direction)] != nil {
            return nil
        }
        aclHeader = header
        return L2CAPPDU(
            adapter: adapter, handle: header.handle, direction: direction,
            cid: UInt16(payload[6]) | UInt16(payload[7]) << 8, payload: payload[headers...],
            earlierFragments: [], completedIn: frame)
    }

    /// Forgets every incomplete PDU of `handle` on `adapter` (both directions), so a handle reused
    /// after Disconnection Complete starts fresh. Returns one malformation per PDU discarded.
    @discardableResult
    public mutating func reset(adapter: AdapterIndex, handle: UInt16) -> [Malformation] {
        let keys = partials.keys.filter { $0.adapter == adapter && $0.handle == handle }
        return report(keys, reason: "incomplete PDU discarded at disconnection")
    }

    /// Reports and forgets every PDU still incomplete at the end of the capture, ordered by
    /// the frame that started it.
    public mutating func finish() -> [Malformation] {
        report(Array(partials.keys), reason: "incomplete PDU at end of capture")
    }

    private mutating func report(_ keys: [StreamKey], reason: String) -> [Malformation] {
        let sorted = keys.compactMap { key in partials[key].map { (key, $0) } }
            .sorted {
                ($0.1.frames.first ?? 0, $0.0.direction.rawValue) < ($1.1.frames.first ?? 0, $1.0.direction.rawValue)
            }
        var out: [Malformation] = []
        for (key, partial) in sorted {
            partials[key] = nil
            out.append(
                Malformation(
                    layer: .l2cap, offset: 0,
                    message:
                        "\(reason): adapter \(key.adapter), handle \(Hex.prefixed(key.handle, digits: 4)) (\(key.direction.rawValue)), \(partial.progress)"
                ))
        }
        return out
    }

    static func frameList(_ frames: [FrameNumber]) -> String {
        frames.map(String.init).joined(separator: ", ")
    }

    /// Hex of up to 32 bytes, with "… (N bytes)" when longer.
    static func hexExcerpt(_ bytes: [UInt8]) -> String {
        if bytes.count <= 32 { return Hex.string(bytes, separator: " ") }
        return Hex.string(bytes.prefix(32), separator: " ") + " … (\(bytes.count) bytes)"
    }
}
