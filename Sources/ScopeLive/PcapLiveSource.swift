#if os(Linux)
import CPcap
import Glibc
import ScopeCore

/// The monitor channel through libpcap's `bluetooth-monitor` device (link type 254,
/// LINKTYPE_BLUETOOTH_LINUX_MONITOR: a 4-byte big-endian {adapter, opcode} pseudo-header, then
/// the payload) — `hciscope capture --source pcap`. Same messages as ``MonitorSource``; libpcap
/// opens the same socket underneath.
package final class PcapLiveSource: LiveSource {
    private let handle: OpaquePointer
    package let fd: Int32
    package private(set) var kernelDrops: UInt32 = 0

    package static let device = "bluetooth-monitor"

    package init() throws(LiveError) {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let p = pcap_create(Self.device, &errbuf) else {
            throw LiveError("libpcap cannot open \(Self.device): \(String(cString: errbuf))")
        }
        _ = pcap_set_snaplen(p, 65_536 + 4)
        _ = pcap_set_timeout(p, 100)
        _ = pcap_set_immediate_mode(p, 1)
        _ = pcap_set_tstamp_precision(p, Int32(PCAP_TSTAMP_PRECISION_MICRO))
        let status = pcap_activate(p)
        if status < 0 {
            let text = String(cString: pcap_geterr(p))
            pcap_close(p)
            if status == PCAP_ERROR_PERM_DENIED {
                throw LiveError(
                    "not permitted to open \(Self.device) through libpcap: \(text)",
                    fix: "it needs CAP_NET_RAW: run as root, or once `sudo setcap cap_net_raw+ep $(command -v hciscope)`")
            }
            if status == PCAP_ERROR_NO_SUCH_DEVICE {
                throw LiveError(
                    "libpcap has no \(Self.device) device: \(text)",
                    fix: "the kernel has no Bluetooth (modprobe bluetooth), or this libpcap was built without Bluetooth support; try --source socket")
            }
            if text.contains("Address family not supported") {
                throw LiveError(
                    "this kernel has no Bluetooth support: libpcap cannot open \(Self.device) (\(text))",
                    fix: "load it with `modprobe bluetooth`, or run where the kernel has Bluetooth")
            }
            throw LiveError("libpcap cannot start \(Self.device): \(text)")
        }
        guard pcap_datalink(p) == 254 else {
            pcap_close(p)
            throw LiveError("libpcap's \(Self.device) delivers link type \(pcap_datalink(p)), not 254")
        }
        _ = pcap_setnonblock(p, 1, &errbuf)
        handle = p
        fd = pcap_get_selectable_fd(p)
        guard fd >= 0 else {
            pcap_close(p)
            throw LiveError("libpcap's \(Self.device) has no selectable descriptor")
        }
    }

    deinit { pcap_close(handle) }

    package func receive() throws(LiveError) -> Result<MonitorMessage, LiveError>? {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let status = pcap_next_ex(handle, &header, &data)
        var stats = pcap_stat()
        if pcap_stats(handle, &stats) == 0 { kernelDrops = stats.ps_drop }
        switch status {
        case 1:
            guard let header, let data else { return .failure(LiveError("libpcap returned a packet without data")) }
            let bytes = Array(UnsafeBufferPointer(start: data, count: Int(header.pointee.caplen)))
            let stamp = Timestamp(microseconds: Int64(header.pointee.ts.tv_sec) * 1_000_000 + Int64(header.pointee.ts.tv_usec))
            guard bytes.count >= 4 else { return .failure(LiveError("link type 254 packet shorter than its 4-byte header")) }
            let adapter = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            let opcode = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
            return .success(MonitorMessage(opcode: opcode, index: adapter, payload: Array(bytes[4...]), timestamp: stamp))
        case 0:
            // Nothing yet (non-blocking): an empty read, not the end.
            return .failure(LiveError.nothingYet)
        case PCAP_ERROR_BREAK:
            return nil
        default:
            throw LiveError("libpcap: \(String(cString: pcap_geterr(handle)))")
        }
    }
}

extension LiveError {
    /// A poll woke up but no whole message was ready (libpcap's timeout); not a problem.
    static let nothingYet: LiveError = {
        var error = LiveError("no message ready")
        error.isNothingYet = true
        return error
    }()
}
#endif
