import ScopeCore
import ScopeDecode
// Input: a sequence of ACL packets, each as [flags][length][ACL packet bytes]: flags bit 0 is the
// direction, bit 1 marks the record as cut short by the capture, bits 2-3 pick the adapter.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes(data, size)
    var reassembler = L2CAPReassembler()
    var i = 0
    var frame = 1
    var n = 0
    while i + 2 <= input.count {
        let flags = input[i]
        let length = min(Int(input[i + 1]), input.count - i - 2)
        let payload = Array(input[(i + 2)..<(i + 2 + length)])
        i += 2 + length
        let step = reassembler.consume(
            adapter: AdapterIndex(flags >> 2 & 3), direction: flags & 1 == 0 ? .sent : .received, frame: frame,
            payload: payload, capturedTruncated: flags & 2 != 0)
        frame += 1
        for pdu in step.completed { n &+= touch(pdu.fields) &+ pdu.summary.utf8.count }
        n &+= touch(step.header?.fields ?? []) &+ step.malformed.count
        if flags & 0x80 != 0 { n &+= reassembler.reset(adapter: AdapterIndex(flags >> 2 & 3), handle: 0x40).count }
    }
    _ = n &+ reassembler.finish().count
    return 0
}
