import ScopeDecode
// Input: advertising data (length-type-value structures).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let r = ADParser.parse(bytes(data, size), baseOffset: 0)
    _ = touch(r.fields)
    return 0
}
