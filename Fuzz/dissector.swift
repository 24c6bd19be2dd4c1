import ScopeCore
import ScopeDecode
// Input: a stream of records, each [kind][flags][length lo][length hi][payload]: kind selects the
// record kind, flags bit 0 the direction, bit 1 a cut-short record, bits 2-3 the adapter.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes(data, size)
    var dissector = Dissector()
    var i = 0
    var frame = 1
    var n = 0
    while i + 4 <= input.count {
        let kind = fuzzKinds[Int(input[i]) % fuzzKinds.count]
        let flags = input[i + 1]
        let length = min(Int(input[i + 2]) | Int(input[i + 3]) << 8, input.count - i - 4)
        let payload = Array(input[(i + 4)..<(i + 4 + length)])
        i += 4 + length
        let record = CaptureRecord(
            frame: frame, timestamp: Timestamp(microseconds: Int64(frame) * 1000), adapter: AdapterIndex(flags >> 2 & 3),
            direction: flags & 1 == 0 ? .sent : .received, kind: kind,
            originalLength: flags & 2 != 0 ? payload.count + 7 : payload.count, payload: payload)
        frame += 1
        n &+= touch(dissector.decode(record))
    }
    _ = n &+ dissector.finish().count
    return 0
}
