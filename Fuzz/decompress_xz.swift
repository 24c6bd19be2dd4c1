// Input: a xz stream (its magic is put back when a mutation removed it). Decoded on its own under
// the fuzz limits (output counted up to 64 MiB), then the first 64 KiB of what it gave read as a
// capture (sniffing and the readers behind the decompressor).
import ScopeCapture

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = bytes(data, size)
    let magic: [UInt8] = [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]
    if !input.starts(with: magic) { input = magic + input }
    let outcome = DecompressionProbe.decompress(input, as: .xz, limits: fuzzLimits)
    if !outcome.output.isEmpty { _ = readContainer(outcome.output, records: 2000) }
    return 0
}
