import ScopeDecode
// Input: one SMP PDU (code first).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let s = SMPPDU.decode(bytes(data, size), baseOffset: 8)
    _ = touch(s.fields) &+ s.malformed.count
    return 0
}
