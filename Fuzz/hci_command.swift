import ScopeDecode
// Input: an HCI command packet (opcode, length, parameters; no H4 byte).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let c = HCICommand.decode(bytes(data, size))
    _ = touch(c.fields) &+ c.malformed.count
    return 0
}
