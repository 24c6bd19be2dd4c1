// Input: a zip archive (an Android bug report), read from its central directory: ZIP64 records,
// overlapping entries, members that are captures, compressed captures or text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = readContainer(bytes(data, size))
    return 0
}
