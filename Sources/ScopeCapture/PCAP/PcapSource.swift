import CPcap
import ScopeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// pcap and pcapng read through libpcap (`pcap_open_offline`, which reads both), asking for
/// nanosecond timestamps so that nothing is lost before the conversion to microseconds.
///
/// Offsets come from `ftell(pcap_file(p))` before each `pcap_next_ex`: for pcap that is the
/// record header; for pcapng it is the first byte after the previous packet's block (the
/// packet's own block, or blocks such as statistics that precede it). When the input is a
/// pipe the stream cannot tell its position: classic pcap offsets are then counted from the
/// record lengths, and pcapng offsets are left out.
///
/// libpcap stops at the first structural error (a truncated record, an impossible length);
/// that becomes a diagnostic, and everything before it has been delivered.
final class PcapSource: RecordSource {
    private var handle: OpaquePointer?
    private var stream: UnsafeMutablePointer<FILE>?
    let format: CaptureFormat
    let name: String
    private var finished = false
    private(set) var reachedEnd = true
    private var lastPosition = 0
    /// Where the next classic pcap record starts by our own count (24 + Σ(16 + caplen)), for
    /// streams that cannot tell their position (pipes). Nil for pcapng.
    private var counted: Int?
    private var warnedDirectionWord = false

    private init(handle: OpaquePointer, format: CaptureFormat, name: String) {
        self.handle = handle
        self.stream = pcap_file(handle)
        self.format = format
        self.name = name
    }

    deinit { close() }

    /// Opens a file by path with libpcap.
    static func open(path: String, sniffed: Sniffed) throws(CaptureError) -> PcapSource {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let p = pcap_open_offline_with_tstamp_precision(path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf) else {
            throw CaptureError(.libpcap, file: path, offset: 0, message: "libpcap: \(errorString(errbuf))")
        }
        return try make(p, sniffed: sniffed, name: path)
    }

    /// Hands an open C stream (positioned at the first byte of the file) to libpcap, which
    /// closes it with the handle.
    static func open(stream: UnsafeMutablePointer<FILE>, name: String, sniffed: Sniffed) throws(CaptureError) -> PcapSource {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let p = pcap_fopen_offline_with_tstamp_precision(stream, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf) else {
            throw CaptureError(.libpcap, file: name, offset: 0, message: "libpcap: \(errorString(errbuf))")
        }
        return try make(p, sniffed: sniffed, name: name)
    }

    private static func make(_ p: OpaquePointer, sniffed: Sniffed, name: String) throws(CaptureError) -> PcapSource {
        // libpcap has read the headers; trust its link type over the sniffed one.
        let linkType = UInt32(bitPattern: pcap_datalink(p))
        let format: CaptureFormat
        do {
            format = try LinkType.format(linkType, pcapng: sniffed.format.container == .pcapng, file: name)
        } catch {
            pcap_close(p)
            throw error
        }
        let source = PcapSource(handle: p, format: format, name: name)
        source.lastPosition = source.position() ?? sniffed.headerLength
        if sniffed.format.container == .pcap { source.counted = sniffed.headerLength }
        return source
    }

    static func errorString(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func position() -> Int? {
        guard let stream else { return nil }
        let p = ftell(stream)
        return p >= 0 ? Int(p) : counted
    }

    var bytesRead: Int { position() ?? lastPosition }

    var bufferedInput: BufferedFileReader? { nil }

    func close() {
        if let h = handle {
            lastPosition = position() ?? lastPosition
            stream = nil
            pcap_close(h)
            handle = nil
        }
    }

    func next(_ log: inout DiagnosticLog, frame: FrameNumber) -> SourceStep {
        guard !finished, let handle else { return .end }
        let start = position()
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let rc = pcap_next_ex(handle, &header, &data)
        if rc == PCAP_ERROR_BREAK {
            finished = true
            return .end
        }
        guard rc == 1, let header, let data else {
            let text = pcap_geterr(handle).map { String(cString: $0) } ?? "unknown libpcap error"
            // libpcap's words for a file cut short at its end ("truncated dump file; tried to
            // read …", "truncated pcapng dump file; …"): the end of what there is, not damage.
            let cutShort = text.hasPrefix("truncated dump file") || text.hasPrefix("truncated pcapng dump file")
            log.error(
                frame: frame, offset: start, code: cutShort ? .truncatedRecord : .readingStopped,
                "libpcap: \(text); reading stopped (frames before this one were delivered)")
            finished = true
            reachedEnd = false
            return .end
        }
        let h = header.pointee
        let caplen = Int(h.caplen)
        if let c = counted { counted = c + 16 + caplen }
        lastPosition = position() ?? lastPosition
        let len = Int(h.len)
        let bytes = UnsafeBufferPointer(start: data, count: caplen)

        // Timestamp: libpcap gives seconds and nanoseconds (0...999,999,999); µs = floor.
        let seconds = Int64(h.ts.tv_sec)
        let nanos = Int64(h.ts.tv_usec)
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        let micros: Int64
        if overflow {
            log.error(frame: frame, offset: start, code: .unconvertibleTimestamp, "timestamp \(seconds) s cannot be represented in microseconds")
            micros = seconds < 0 ? .min : .max
        } else {
            micros = scaled.addingReportingOverflow(nanos >= 0 ? nanos / 1000 : (nanos - 999) / 1000).partialValue
        }
        let timestamp = Timestamp(microseconds: micros)

        let headerBytes: Int
        let limit: Int
        switch format.encapsulation {
        case .h4WithDirection:
            headerBytes = 5
            limit = 4 + 65_540
        case .monitor:
            headerBytes = 4
            limit = 4 + 65_541
        default:
            headerBytes = 1
            limit = 65_540
        }
        guard caplen >= headerBytes else {
            let what: String
            switch format.encapsulation {
            case .h4WithDirection: what = "its 4-byte direction pseudo-header and H4 packet type"
            case .monitor: what = "its 4-byte monitor pseudo-header"
            default: what = "an H4 packet type byte"
            }
            log.error(
                frame: frame, offset: start, code: .truncatedRecord,
                "record of \(plural(caplen, "byte")) is too short for \(what); not delivered")
            return .notDelivered
        }
        var original = len
        if caplen > len {
            log.error(
                frame: frame, offset: start, code: .badRecordLength,
                "included length \(grouped(caplen)) is greater than original length \(grouped(len)); original length taken as \(grouped(caplen))")
            original = caplen
        } else if len > limit && caplen <= limit {
            log.warning(
                frame: frame, offset: start, code: .badRecordLength,
                "original length \(grouped(len)) exceeds the largest \(format.rawValue) record (\(grouped(limit)) bytes)")
        }
        if caplen > limit {
            log.error(
                frame: frame, offset: start, code: .badRecordLength,
                "record of \(plural(caplen, "byte")) exceeds the largest \(format.rawValue) record (\(grouped(limit)) bytes); delivered as it is framed")
        }
        let payload = Array(bytes[headerBytes...])
        let originalLength = original - headerBytes

        switch format.encapsulation {
        case .h4WithDirection:
            let word = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
            if word > 1, !warnedDirectionWord {
                warnedDirectionWord = true
                log.warning(
                    frame: frame, offset: start, code: .unexpectedHeaderValue,
                    "direction pseudo-header \(Hex.prefixed(word, digits: 8)) has bits other than bit 0 set (further ones not reported)")
            }
            return .record(
                CaptureRecord(
                    frame: frame, timestamp: timestamp, direction: word & 1 != 0 ? .received : .sent,
                    kind: H4PacketType.kind(for: bytes[4]), originalLength: originalLength, payload: payload),
                offset: start)
        case .monitor:
            let adapter = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            let opcode = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
            let (kind, direction) = MonitorOpcode.kind(for: opcode)
            return .record(
                CaptureRecord(
                    frame: frame, timestamp: timestamp, adapter: adapter, direction: direction, kind: kind,
                    originalLength: originalLength, payload: payload),
                offset: start)
        default:
            // LINKTYPE 187 records no direction; commands go to the controller and events come
            // from it, everything else stays unknown.
            let kind = H4PacketType.kind(for: bytes[0])
            let direction: Direction
            switch kind {
            case .command: direction = .sent
            case .event: direction = .received
            default: direction = .unknown
            }
            return .record(
                CaptureRecord(
                    frame: frame, timestamp: timestamp, direction: direction, kind: kind,
                    originalLength: originalLength, payload: payload),
                offset: start)
        }
    }
}
