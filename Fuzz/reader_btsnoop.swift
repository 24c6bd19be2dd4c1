// Input: one selector byte (datalink 1001, 1002 or 2001) then btsnoop records (the 16-byte file
// header is supplied, so mutations go to records).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes(data, size)
    guard let selector = input.first else { return 0 }
    let datalink: UInt32 = [1001, 1002, 2001][Int(selector) % 3]
    var file: [UInt8] = Array("btsnoop".utf8) + [0, 0, 0, 0, 1]
    file += [UInt8(datalink >> 24), UInt8(datalink >> 16 & 0xFF), UInt8(datalink >> 8 & 0xFF), UInt8(datalink & 0xFF)]
    file += input.dropFirst()
    _ = readAll(file)
    return 0
}
