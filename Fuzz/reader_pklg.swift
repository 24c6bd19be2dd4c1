// Input: a whole PacketLogger file (no file header; records of either byte order).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = readAll(bytes(data, size))
    return 0
}
