// Input: a tar archive (an iOS sysdiagnose): headers, long names, pax records, members copied to
// the spool file and merged two at a time.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = readContainer(bytes(data, size))
    return 0
}
