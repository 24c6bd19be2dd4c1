// Input: a whole pcap or pcapng file (libpcap parses its headers).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = readAll(bytes(data, size))
    return 0
}
