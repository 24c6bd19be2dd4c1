import CPcap
import ScopeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// pcap 201 and 254 written through libpcap's dumper (`pcap_open_dead_with_tstamp_precision`
/// + `pcap_dump_fopen` + `pcap_dump`), microsecond precision. The file is created by us with
/// mode 0600 and handed to libpcap as a stream.
///
/// Record layouts: ``LinkTypeEncoding``.
final class PcapSink: RecordSink {
    /// libpcap's largest snapshot length; longer records would be cut when read back.
    static let snapshotLength: Int32 = 262_144

    let name: String
    let format: CaptureFormat
    private var dead: OpaquePointer?
    private var dumper: OpaquePointer?
    private var scratch: [UInt8] = []
    private var sinceCheck = 0

    private let output: OutputFile

    init(path: String, format: CaptureFormat, atomic: Bool) throws(CaptureError) {
        self.format = format
        output = try OutputFile(path: path, atomic: atomic)
        name = output.name
        guard let stream = fdopen(output.fd, "wb") else {
            let code = errno
            output.discard()
            throw POSIX.ioError("cannot open stream", file: name, errno: code)
        }
        // The stream closes the descriptor from now on; the output is still committed or
        // discarded by its name.
        _ = output.handOverDescriptor()
        guard let p = pcap_open_dead_with_tstamp_precision(
            Int32(format.linkType ?? LinkType.bluetoothHCIH4WithPHDR), Self.snapshotLength,
            UInt32(PCAP_TSTAMP_PRECISION_MICRO))
        else {
            fclose(stream)
            let message = hciscope_pcap_load_error().map { String(cString: $0) } ?? "pcap_open_dead failed"
            throw CaptureError(.libpcap, file: name, message: "libpcap: \(message)")
        }
        guard let d = pcap_dump_fopen(p, stream) else {
            let message = pcap_geterr(p).map { String(cString: $0) } ?? "pcap_dump_fopen failed"
            pcap_close(p)
            fclose(stream)
            throw CaptureError(.libpcap, file: name, message: "libpcap: \(message)")
        }
        dead = p
        dumper = d
        scratch.reserveCapacity(70_000)
    }

    deinit {
        if let d = dumper {
            pcap_dump_close(d)
            // A direct output keeps what was written; an atomic one was not finished.
            if !output.isPending { try? output.commit() }
        }
        if let p = dead { pcap_close(p) }
    }

    func write(_ r: CaptureRecord) throws(CaptureError) -> SkippedRecords.Reason? {
        guard let dumper else { throw CaptureError(.usage, file: name, message: "write after close") }
        let (seconds, micros) = r.timestamp.secondsAndMicros
        // The file stores signed 32-bit seconds.
        guard seconds >= Int64(Int32.min), seconds <= Int64(Int32.max) else { return .timestamp }
        guard let prefix = LinkTypeEncoding.header(for: r, linkType: format.linkType ?? LinkType.bluetoothHCIH4WithPHDR) else {
            return .kind
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: prefix)
        let headerBytes = prefix.count
        let caplen = headerBytes + r.payload.count
        let len = headerBytes + max(r.originalLength, r.payload.count)
        guard caplen <= Int(Self.snapshotLength), len <= Int(UInt32.max) else { return .length }
        scratch.append(contentsOf: r.payload)
        var header = pcap_pkthdr()
        header.ts.tv_sec = time_t(seconds)
        header.ts.tv_usec = suseconds_t(micros)
        header.caplen = UInt32(caplen)
        header.len = UInt32(len)
        scratch.withUnsafeBufferPointer { bytes in
            pcap_dump(UnsafeMutablePointer<UInt8>(dumper), &header, bytes.baseAddress)
        }
        sinceCheck += 1
        if sinceCheck >= 4096 {
            sinceCheck = 0
            if let stream = pcap_dump_file(dumper), ferror(stream) != 0 {
                throw POSIX.ioError("write failed", file: name, errno: errno)
            }
        }
        return nil
    }

    func flush() throws(CaptureError) {
        guard let d = dumper else { throw CaptureError(.usage, file: name, message: "write after close") }
        if pcap_dump_flush(d) != 0 {
            throw CaptureError(.io, file: name, message: "write failed (pcap_dump_flush)")
        }
    }

    func close() throws(CaptureError) {
        guard let d = dumper else { return }
        dumper = nil
        var failure: CaptureError?
        if pcap_dump_flush(d) != 0 {
            failure = POSIX.ioError("write failed", file: name, errno: errno)
        } else if let stream = pcap_dump_file(d), ferror(stream) != 0 {
            failure = POSIX.ioError("write failed", file: name, errno: errno)
        }
        pcap_dump_close(d)
        if let p = dead {
            pcap_close(p)
            dead = nil
        }
        if let failure {
            output.discard()
            throw failure
        }
        try output.commit()
    }

    func discard() {
        if let d = dumper {
            dumper = nil
            pcap_dump_close(d)
        }
        if let p = dead {
            pcap_close(p)
            dead = nil
        }
        output.discard()
    }
}
