import ScopeCore

/// One decompressor on its own, for the fuzz targets (`Fuzz/decompress_*.swift`) and tests:
/// `bytes` decoded as `compression` under `limits`, at most `maximum` bytes of output kept.
package enum DecompressionProbe {
    package struct Outcome {
        /// The first `maximum` bytes of output (or fewer).
        package var output: [UInt8]
        /// Bytes produced in all (counted past `maximum` until `stopAt`).
        package var produced: Int
        /// Why decoding stopped early, if it did.
        package var error: CaptureError?
    }

    package static func decompress(
        _ bytes: [UInt8], as compression: Compression, limits: CaptureLimits = CaptureLimits(), maximum: Int = 1 << 16,
        stopAt: Int = 64 << 20
    ) -> Outcome {
        var outcome = Outcome(output: [], produced: 0, error: nil)
        let context = OpenContext(options: CaptureReader.Options(limits: limits))
        do {
            let d = try Decompressor(compression, input: MemoryInput(bytes), name: "probe", context: context)
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            defer { chunk.deallocate() }
            while outcome.produced < stopAt {
                let n = try d.read(into: chunk)
                if n == 0 { break }
                if outcome.output.count < maximum {
                    outcome.output += UnsafeRawBufferPointer(rebasing: chunk[0..<min(n, maximum - outcome.output.count)])
                }
                outcome.produced += n
            }
        } catch {
            outcome.error = error
        }
        return outcome
    }
}
