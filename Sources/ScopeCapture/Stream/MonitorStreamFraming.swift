import ScopeCore

/// The monitor protocol as a byte stream: what Zephyr sends on a UART or an RTT channel with
/// `CONFIG_BT_DEBUG_MONITOR_UART` / `CONFIG_BT_DEBUG_MONITOR_RTT` (subsys/bluetooth/host/monitor.c)
/// and what btmon reads with `--tty` (BlueZ monitor/control.c, `struct tty_hdr` in monitor/tty.h).
///
/// ```
/// data_len u16 LE | opcode u16 LE | flags u8 | hdr_len u8 | ext header (hdr_len bytes) | payload
///   data_len counts everything after itself: 4 + hdr_len + payload length
/// ext header: items of {type u8, value}
///   1..7  drop counters, u8 each: records the sender dropped (overflow) since its previous record,
///         per kind: 1 command, 2 event, 3/4 ACL, 5/6 SCO, 7 other
///   8     TS32, u32 LE: the sender's clock in units of 1/10 ms (Zephyr: time since boot)
/// ```
///
/// The two ends disagree on which of 3/4 (and 5/6) is TX: BlueZ's `TTY_EXTHDR_ACL_TX_DROPS` is 3,
/// Zephyr's `BT_MONITOR_ACL_TX_DROPS` is 4. Both are counted as ACL (and SCO) drops, without a
/// direction. No other type is defined by either; btmon stops reading the extended header at an
/// unknown type (the payload still starts after hdr_len bytes), and so does this reader.
///
/// Opcodes are the Linux monitor opcodes (FORMATS §2; one past 23 is not believed to start a frame);
/// there is no controller index (index 0).
///
/// Timestamps: TS32 is the sender's uptime, not a date. The first record carrying one anchors it to
/// the host's receive time; later records keep the sender's spacing exactly (100 µs resolution),
/// so delays are the device's, not the serial line's. When the sender's clock steps back by more
/// than a second (a restart; or the 32-bit counter wrapping after 4.97 days) the clock is anchored
/// again, with a diagnostic. Records without TS32 take the host receive time.
public struct MonitorStreamFraming: StreamFraming {
    public static var findsFramesCutShort: Bool { true }

    /// Drop-counter extended-header types and the kinds they count (see above for 3..6).
    public enum DropKind: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case command, event, acl, sco, other

        public init?(extendedType: UInt8) {
            switch extendedType {
            case 1: self = .command
            case 2: self = .event
            case 3, 4: self = .acl
            case 5, 6: self = .sco
            case 7: self = .other
            default: return nil
            }
        }

        public var description: String {
            switch self {
            case .command: return "command"
            case .event: return "event"
            case .acl: return "ACL"
            case .sco: return "SCO"
            case .other: return "other"
            }
        }
    }

    /// The extended-header type of the 32-bit timestamp.
    public static let timestamp32: UInt8 = 8
    /// Base header: data_len, opcode, flags, hdr_len.
    public static let headerLength = 6
    /// While searching for a frame start, a record that is not an HCI packet is believed only up to
    /// this size (Zephyr's notes and log lines are at most 128 characters).
    public static let strictTextLimit = 2048

    /// Records the sender reported dropping, per kind, since the stream started.
    public private(set) var senderDrops: [DropKind: Int] = [:]
    /// Their sum, as recorded in each record's cumulative `drops`.
    public private(set) var totalSenderDrops: UInt32 = 0
    /// Host time minus sender time (µs), once a TS32 has been seen.
    private var anchor: Int64?
    private var lastSenderMicros: Int64?

    public init() {}

    public func check(_ bytes: ArraySlice<UInt8>, strict: Bool) -> FrameCheck {
        guard bytes.count >= Self.headerLength else { return .needMore }
        let s = bytes.startIndex
        let dataLength = Int(bytes[s]) | Int(bytes[s + 1]) << 8
        let opcode = UInt16(bytes[s + 2]) | UInt16(bytes[s + 3]) << 8
        let extLength = Int(bytes[s + 5])
        guard dataLength >= 4 + extLength else {
            return .invalid(.dataLength(dataLength, extendedHeader: extLength))
        }
        let payloadLength = dataLength - 4 - extLength
        let total = 2 + dataLength
        let (kind, _) = MonitorOpcode.kind(for: opcode)
        // Opcodes past the kernel's (23) are taken as garbage even in step: accepting them would let
        // two bytes of noise swallow up to 64 KB of the stream.
        if case .unknownMonitor = kind { return .invalid(.unknownOpcode(opcode)) }
        if strict {
            if bytes[s + 4] != 0 { return .invalid(.flags(bytes[s + 4])) }
        }
        // The extended header: whole items that end exactly at hdr_len.
        guard bytes.count >= Self.headerLength + extLength else { return .needMore }
        var i = s + Self.headerLength
        let extEnd = i + extLength
        while i < extEnd {
            let type = bytes[i]
            let size: Int
            if DropKind(extendedType: type) != nil {
                size = 1
            } else if type == Self.timestamp32 {
                size = 4
            } else if strict {
                return .invalid(.extendedHeaderType(type))
            } else {
                break  // read as btmon does: the rest of the extended header is skipped
            }
            guard extEnd - i - 1 >= size else {
                return .invalid(.extendedHeaderItem(type: type, extendedHeader: extLength))
            }
            i += 1 + size
        }
        // HCI packets, while searching: the packet's own length must fill the payload exactly. In
        // step, a malformed packet in a well-framed record is still a record (the decoder reports it).
        if strict, let hciHeader = Self.hciHeaderLength(kind) {
            guard payloadLength >= hciHeader else {
                return .invalid(.payloadShorterThanHeader(kind, payload: payloadLength, header: hciHeader))
            }
            let h = s + Self.headerLength + extLength
            guard bytes.count >= h - s + hciHeader else { return .needMore }
            let inner = Self.hciParameterLength(kind, bytes[h..<(h + hciHeader)])
            guard inner == payloadLength - hciHeader else {
                return .invalid(.packetLength(kind, says: inner, holds: payloadLength - hciHeader))
            }
        } else if strict, Self.hciHeaderLength(kind) == nil {
            if let fixed = Self.fixedPayloadLength(kind), fixed != payloadLength {
                return .invalid(.fixedPayload(kind, payload: payloadLength, fixed: fixed))
            }
            if payloadLength > Self.strictTextLimit { return .invalid(.longText(kind, payload: payloadLength)) }
        }
        return .frame(length: total)
    }

    public mutating func record(
        _ bytes: ArraySlice<UInt8>, claimedLength: Int, frame: FrameNumber, offset: Int, receivedAt: Timestamp,
        source: String?, diagnostics: inout [Diagnostic]
    ) -> CaptureRecord {
        let s = bytes.startIndex
        func byte(_ i: Int) -> UInt8 { s + i < bytes.endIndex ? bytes[s + i] : 0 }
        let opcode = UInt16(byte(2)) | UInt16(byte(3)) << 8
        let extLength = Int(byte(5))
        let payloadStart = min(bytes.endIndex, s + Self.headerLength + extLength)
        var senderMicros: Int64?
        var dropped: [(DropKind, Int)] = []
        var i = s + Self.headerLength
        while i < payloadStart {
            let type = bytes[i]
            if let kind = DropKind(extendedType: type), i + 1 < payloadStart {
                let n = Int(bytes[i + 1])
                if n > 0 { dropped.append((kind, n)) }
                i += 2
            } else if type == Self.timestamp32, i + 4 < payloadStart {
                let ts32 = UInt32(bytes[i + 1]) | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3]) << 16 | UInt32(bytes[i + 4]) << 24
                senderMicros = Int64(ts32) * 100
                i += 5
            } else {
                diagnostics.append(Diagnostic(
                    .warning, layer: .monitor, file: source, frame: frame, offset: offset + (i - s), code: .unexpectedHeaderValue,
                    message: "unknown extended header type \(type): the rest of the extended header (\(payloadStart - i) bytes) skipped, as btmon does"))
                break
            }
        }
        if !dropped.isEmpty {
            var sum = 0
            for (kind, n) in dropped {
                senderDrops[kind, default: 0] += n
                sum += n
            }
            let (total, overflow) = totalSenderDrops.addingReportingOverflow(UInt32(clamping: sum))
            totalSenderDrops = overflow ? .max : total
            let detail = dropped.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
            diagnostics.append(Diagnostic(
                .warning, layer: .capture, file: source, frame: frame, offset: offset,
                message: "the sender dropped \(sum) record\(sum == 1 ? "" : "s") before this one (\(detail)); \(totalSenderDrops) so far"))
        }
        let timestamp: Timestamp
        if let senderMicros {
            if let last = lastSenderMicros, let current = anchor, senderMicros < last - 1_000_000 {
                diagnostics.append(Diagnostic(
                    .warning, layer: .capture, file: source, frame: frame, offset: offset, code: .timestampBackwards,
                    message: "the sender's clock went back from \(formatSeconds(last)) s to \(formatSeconds(senderMicros)) s (restart, or the 32-bit counter wrapped): timestamps anchored to the host clock again"
                        + " (they were \(formatSeconds(current + last)) before)"))
                anchor = nil
            }
            if anchor == nil { anchor = receivedAt.microseconds - senderMicros }
            lastSenderMicros = senderMicros
            timestamp = Timestamp(microseconds: (anchor ?? 0) + senderMicros)
        } else {
            timestamp = receivedAt
        }
        let (kind, direction) = MonitorOpcode.kind(for: opcode)
        let payload = Array(bytes[payloadStart...])
        let claimedPayload = max(payload.count, claimedLength - Self.headerLength - extLength)
        return CaptureRecord(
            frame: frame, timestamp: timestamp, adapter: 0, direction: direction, kind: kind, originalLength: claimedPayload,
            payload: payload, drops: totalSenderDrops)
    }

    /// The HCI packet header length for the HCI kinds (nil for the rest).
    public static func hciHeaderLength(_ kind: RecordKind) -> Int? {
        switch kind {
        case .command, .sco: return 3
        case .event: return 2
        case .acl, .iso: return 4
        default: return nil
        }
    }

    /// The parameter/data length an HCI header announces.
    public static func hciParameterLength(_ kind: RecordKind, _ h: ArraySlice<UInt8>) -> Int {
        let s = h.startIndex
        switch kind {
        case .command, .sco: return Int(h[s + 2])
        case .event: return Int(h[s + 1])
        case .acl: return Int(h[s + 2]) | Int(h[s + 3]) << 8
        default: return (Int(h[s + 2]) | Int(h[s + 3]) << 8) & 0x3FFF  // ISO: top two bits RFU
        }
    }

    /// Payload sizes fixed by the monitor protocol (FORMATS §2).
    static func fixedPayloadLength(_ kind: RecordKind) -> Int? {
        switch kind {
        case .newIndex: return 16
        case .deleteIndex, .openIndex, .closeIndex: return 0
        case .indexInfo: return 8
        default: return nil
        }
    }
}

/// A monitor-protocol byte stream (serial port, RTT) → records.
public typealias MonitorStreamDecoder = StreamDeframer<MonitorStreamFraming>

extension StreamDeframer where Framing == MonitorStreamFraming {
    public init(source: String? = nil) { self.init(framing: MonitorStreamFraming(), source: source) }
}
