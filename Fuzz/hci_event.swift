import ScopeDecode
// Input: an HCI event packet (code, length, parameters; no H4 byte).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let e = HCIEvent.decode(bytes(data, size))
    var n = touch(e.fields) &+ e.summary.utf8.count &+ e.addresses.count
    for r in e.advertisingReports { n &+= touch(ADParser.parse(Array(r.data), baseOffset: r.dataOffset).fields) }
    _ = n
    return 0
}
