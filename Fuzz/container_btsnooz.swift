// Input: text with a BTSNOOP_LOG_SUMMARY block (base64 of version, time, zlib records), or a
// btsnoop header followed by raw btsnooz v2 records: both read in two passes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = readContainer(bytes(data, size))
    return 0
}
