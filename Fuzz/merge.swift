// Input: up to 8 small captures, each [length lo][length hi][bytes], made into the members of a
// tar (logs/Bluetooth/N.pklg) and merged in time order two at a time (passes through the spool).
import Glibc

func tarHeader(_ name: String, size: Int) -> [UInt8] {
    var h = [UInt8](repeating: 0, count: 512)
    for (i, b) in name.utf8.prefix(99).enumerated() { h[i] = b }
    func field(_ at: Int, _ width: Int, _ value: Int) {
        let digits = Array(String(value, radix: 8).utf8)
        let padded = [UInt8](repeating: 0x30, count: max(0, width - 1 - digits.count)) + digits
        for (i, b) in padded.prefix(width - 1).enumerated() { h[at + i] = b }
    }
    field(100, 8, 0o644)
    field(124, 12, size)
    field(136, 12, 1_773_480_412)
    h[156] = 0x30
    for (i, b) in "ustar\u{0}00".utf8.enumerated() { h[257 + i] = b }
    for i in 148..<156 { h[i] = 0x20 }
    field(148, 7, h.reduce(0) { $0 + Int($1) })
    return h
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes(data, size)
    var tar: [UInt8] = []
    var i = 0
    var member = 0
    while i + 2 <= input.count, member < 8 {
        let length = min(Int(input[i]) | Int(input[i + 1]) << 8, input.count - i - 2)
        let body = Array(input[(i + 2)..<(i + 2 + length)])
        i += 2 + length
        tar += tarHeader("sysdiagnose/logs/Bluetooth/bluetoothd-hci-\(member).pklg", size: body.count)
        tar += body + [UInt8](repeating: 0, count: (512 - body.count % 512) % 512)
        member += 1
    }
    tar += [UInt8](repeating: 0, count: 1024)
    _ = readContainer(tar)
    return 0
}
