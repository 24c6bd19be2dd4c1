// Input: byte 0 picks the framing (bit 0: 0 the monitor TTY/RTT framing, 1 raw H4), byte 1 a chunk
// size; the rest is the stream. Decoded whole and in chunks: both must give the same records and
// diagnostics (the decoders' promise: whatever the chunking), and account for every byte.
import ScopeCapture
import ScopeCore

@inline(never)
func decode<F: StreamFraming>(_ make: () -> StreamDeframer<F>, _ stream: [UInt8], chunk: Int) -> ([CaptureRecord], Int, Int) {
    var decoder = make()
    var records: [CaptureRecord] = []
    var diagnostics = 0
    var i = 0
    let at = Timestamp(microseconds: 1_700_000_000_000_000)
    while i < stream.count {
        let end = min(stream.count, i + chunk)
        let out = decoder.push(stream[i..<end], receivedAt: at)
        records += out.records
        diagnostics += out.diagnostics.count
        i = end
    }
    let out = decoder.finish(receivedAt: at)
    records += out.records
    diagnostics += out.diagnostics.count
    guard decoder.consumed == stream.count, decoder.buffered == 0, decoder.recordCount == records.count,
          decoder.skippedBytes <= stream.count else { fatalError("stream decoder bookkeeping") }
    return (records, diagnostics, decoder.skippedBytes)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes(data, size)
    guard input.count >= 2 else { return 0 }
    let stream = Array(input[2...])
    let chunk = Int(input[1]) + 1
    if input[0] & 1 == 0 {
        let whole = decode({ MonitorStreamDecoder() }, stream, chunk: max(1, stream.count))
        let split = decode({ MonitorStreamDecoder() }, stream, chunk: chunk)
        guard whole.0 == split.0, whole.1 == split.1, whole.2 == split.2 else { fatalError("chunking changed the monitor stream's records") }
    } else {
        let whole = decode({ H4StreamDecoder() }, stream, chunk: max(1, stream.count))
        let split = decode({ H4StreamDecoder() }, stream, chunk: chunk)
        guard whole.0 == split.0, whole.1 == split.1, whole.2 == split.2 else { fatalError("chunking changed the H4 stream's records") }
    }
    return 0
}
