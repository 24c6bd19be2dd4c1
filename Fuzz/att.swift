import ScopeDecode
// Input: one ATT PDU (opcode first).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let a = ATTPDU.decode(bytes(data, size), baseOffset: 8)
    _ = touch(a.fields) &+ a.malformed.count
    return 0
}
