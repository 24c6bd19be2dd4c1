import CBzip2
import CLzma
import CZlib
import CZstd
import ScopeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Compressed files hciscope reads through, recognised by their magic bytes:
///
/// ```
/// gzip   1f 8b                  (RFC 1952; concatenated members are one stream)
/// xz     fd 37 7a 58 5a 00      (.xz; concatenated streams too)
/// zstd   28 b5 2f fd            (RFC 8878 frames, any number)
/// bzip2  42 5a 68 31…39 ("BZh1"…"BZh9"; concatenated streams too)
/// ```
public enum Compression: String, Sendable, Hashable, CaseIterable {
    case gzip, xz, zstd, bzip2

    /// The compression whose magic `b` starts with, or nil.
    public static func detect(_ b: some Collection<UInt8>) -> Compression? {
        let p = Array(b.prefix(6))
        if p.starts(with: [0x1F, 0x8B]) { return .gzip }
        if p.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        if p.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return .zstd }
        if p.count >= 4, p.starts(with: [0x42, 0x5A, 0x68]), (0x31...0x39).contains(p[3]) { return .bzip2 }
        return nil
    }

    /// "gzip", "xz", "zstd", "bzip2".
    public var name: String { rawValue }
}

/// Something that hands out bytes in order: a file, a range of a file, a buffered reader.
/// `read` returns 0 at the end and throws on failure.
protocol ByteInput: AnyObject {
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int
}

extension BufferedFileReader: ByteInput {}

/// Decompresses a ``ByteInput`` as it is read, in constant memory (one input buffer and the
/// codec's own state). Itself a ``ByteInput``: archives and captures are read through it.
final class Decompressor: ByteInput {
    let compression: Compression
    private let input: ByteInput
    private let name: String
    private var codec: Codec
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var inputEnded = false
    private var finished = false
    /// Compressed bytes consumed, for messages.
    private(set) var consumed = 0

    static let bufferSize = 65_536

    /// A decoder of `compression` over `input`; `context` gives the limits and the memory
    /// budget the xz, zstd and bzip2 decoders of one input share (a fresh one with the default
    /// limits when nil).
    init(_ compression: Compression, input: ByteInput, name: String, context: OpenContext? = nil) throws(CaptureError) {
        self.compression = compression
        self.input = input
        self.name = name
        self.buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
        let context = context ?? OpenContext(options: CaptureReader.Options())
        do {
            switch compression {
            case .gzip: codec = try ZlibCodec(windowBits: 15 + 32)
            case .xz: codec = try XzCodec(limit: context.limits.xzMemoryBytes, budget: context.decoders)
            case .zstd: codec = try ZstdCodec(windowLog: context.limits.zstdWindowLog, budget: context.decoders)
            case .bzip2: codec = try Bzip2Codec(budget: context.decoders)
            }
        } catch {
            buffer.deallocate()
            throw CaptureError(error.isLimit ? .limit : .io, file: name, message: "\(compression.name): \(error.message)")
        }
    }

    /// Raw deflate (zip entries): no header, one stream.
    init(rawDeflate input: ByteInput, name: String) throws(CaptureError) {
        self.compression = .gzip
        self.input = input
        self.name = name
        self.buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
        do {
            codec = try ZlibCodec(windowBits: -15)
        } catch {
            buffer.deallocate()
            throw CaptureError(.io, file: name, message: "deflate: \(error.message)")
        }
        codec.singleStream = true
    }

    deinit { buffer.deallocate() }

    func read(into out: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        guard out.count > 0 else { return 0 }
        while !finished {
            if start == end, !inputEnded { try refill() }
            let window = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
            let step: CodecStep
            do {
                step = try codec.step(input: window, output: out, inputEnded: inputEnded)
            } catch {
                finished = true
                if error.isLimit {
                    throw CaptureError(.limit, file: name, offset: consumed + error.consumed, message: "\(compression.name): \(error.message)")
                }
                // Bytes after the last member that are no member (zero padding, garbage: they
                // do not start with the format's magic) end the data, as gzip(1) ignores them;
                // a member that starts like one and then fails is corruption.
                if startOfMember && producedTotal > 0 && !memberHasMagic { return 0 }
                throw CaptureError(.damaged, file: name, offset: consumed + error.consumed, message: "\(compression.name) data is corrupt: \(error.message)")
            }
            start += step.consumed
            consumed += step.consumed
            producedTotal += step.produced
            if step.produced > 0 || step.consumed > 0 { startOfMember = false }
            if step.streamEnded {
                if codec.singleStream {
                    finished = true
                } else {
                    // Another member may follow (concatenated .gz or .bz2).
                    if start == end, !inputEnded { try refill() }
                    if start == end {
                        finished = true
                    } else {
                        do { try codec.reset() } catch {
                            finished = true
                            throw CaptureError(
                                error.isLimit ? .limit : .io, file: name, offset: consumed, message: "\(compression.name): \(error.message)")
                        }
                        startOfMember = true
                        memberHasMagic = Compression.detect(UnsafeRawBufferPointer(rebasing: buffer[start..<end])) == compression
                    }
                }
            } else if step.produced == 0, start == end, inputEnded {
                finished = true
                if !codec.atStreamBoundary {
                    throw CaptureError(
                        .cutShort, file: name, offset: consumed,
                        message: "\(compression.name) data ends in the middle of a stream: the file is cut short")
                }
            }
            if step.produced > 0 { return step.produced }
        }
        return 0
    }

    private var startOfMember = true
    /// Whether the member being started begins with the format's magic (else, after the first
    /// member, it is trailing garbage).
    private var memberHasMagic = true
    private var producedTotal = 0

    private func refill() throws(CaptureError) {
        start = 0
        end = try input.read(into: buffer)
        if end == 0 { inputEnded = true }
    }
}

struct CodecStep {
    var consumed: Int
    var produced: Int
    var streamEnded: Bool
}

struct CodecError: Error {
    var message: String
    /// A limit of the configuration refused the stream (not damage).
    var isLimit = false
    /// Input bytes the failing step took before the library gave up: the offset of the
    /// corruption does not depend on how the input arrived in pieces.
    var consumed = 0
}

/// One decompression library behind one interface.
protocol Codec {
    /// Decompresses from `input` into `output`; says how much of each it used and whether the
    /// stream (member, frame) ended.
    mutating func step(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer, inputEnded: Bool) throws(CodecError) -> CodecStep
    /// Ready for the next member of a concatenated input.
    mutating func reset() throws(CodecError)
    /// True between streams (nothing half-decoded).
    var atStreamBoundary: Bool { get }
    /// One stream only (raw deflate in a zip entry): data after it is not read.
    var singleStream: Bool { get set }
}

/// gzip / zlib / raw deflate through zlib.
final class ZlibCodec: Codec {
    private var stream = z_stream()
    private let windowBits: Int32
    var atStreamBoundary = true
    var singleStream = false

    init(windowBits: Int32) throws(CodecError) {
        self.windowBits = windowBits
        let status = hciscope_inflate_init(&stream, windowBits)
        guard status == Z_OK else { throw CodecError(message: "zlib could not start (\(status))") }
    }

    deinit { inflateEnd(&stream) }

    func step(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer, inputEnded: Bool) throws(CodecError) -> CodecStep {
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = UInt32(input.count)
        stream.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.avail_out = UInt32(output.count)
        let status = inflate(&stream, Z_NO_FLUSH)
        let consumed = input.count - Int(stream.avail_in)
        let produced = output.count - Int(stream.avail_out)
        switch status {
        case Z_OK, Z_BUF_ERROR:
            atStreamBoundary = false
            if status == Z_BUF_ERROR && consumed == 0 && produced == 0 && !inputEnded && input.count > 0 {
                throw CodecError(message: "zlib made no progress")
            }
            return CodecStep(consumed: consumed, produced: produced, streamEnded: false)
        case Z_STREAM_END:
            atStreamBoundary = true
            return CodecStep(consumed: consumed, produced: produced, streamEnded: true)
        default:
            let text = stream.msg.map { String(cString: $0) } ?? "error \(status)"
            throw CodecError(message: text, consumed: consumed)
        }
    }

    func reset() throws(CodecError) {
        guard inflateReset(&stream) == Z_OK else { throw CodecError(message: "zlib could not restart") }
    }
}

/// .xz through liblzma (concatenated streams are decoded by liblzma itself). Its memory limit
/// is the smaller of ``CaptureLimits/xzMemoryBytes`` and what the input's decoder budget has
/// left: a stream whose dictionary needs more is refused before anything is allocated for it.
final class XzCodec: Codec {
    private var stream = lzma_stream()
    var atStreamBoundary = true
    var singleStream = false
    private let limit: Int
    private let budget: DecoderBudget
    /// What this decoder holds of the budget (liblzma's own count, `lzma_memusage`).
    private var held = 0

    init(limit: Int, budget: DecoderBudget) throws(CodecError) {
        self.limit = limit
        self.budget = budget
        let status = hciscope_xz_decoder(&stream, UInt64(max(1, min(limit, budget.remaining))))
        guard status == LZMA_OK else { throw CodecError(message: "liblzma could not start (\(status.rawValue))") }
    }

    deinit {
        lzma_end(&stream)
        _ = budget.change(from: held, to: 0)
    }

    func step(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer, inputEnded: Bool) throws(CodecError) -> CodecStep {
        stream.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.avail_in = input.count
        stream.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.avail_out = output.count
        let status = lzma_code(&stream, inputEnded ? LZMA_FINISH : LZMA_RUN)
        let consumed = input.count - stream.avail_in
        let produced = output.count - stream.avail_out
        let using = Int(clamping: lzma_memusage(&stream))
        if using != held, budget.change(from: held, to: using) { held = using }
        switch status {
        case LZMA_OK, LZMA_BUF_ERROR:
            atStreamBoundary = false
            return CodecStep(consumed: consumed, produced: produced, streamEnded: false)
        case LZMA_STREAM_END:
            atStreamBoundary = true
            singleStream = true  // liblzma has read every concatenated stream
            return CodecStep(consumed: consumed, produced: produced, streamEnded: true)
        case LZMA_DATA_ERROR: throw CodecError(message: "invalid xz data", consumed: consumed)
        case LZMA_FORMAT_ERROR: throw CodecError(message: "not xz data", consumed: consumed)
        case LZMA_MEMLIMIT_ERROR:
            let needed = Int(clamping: lzma_memusage(&stream))
            throw CodecError(
                message: "the stream needs \(CaptureLimits.size(needed)) of memory to decode (its dictionary), more than "
                    + (limit <= budget.remaining + held
                        ? "the limit of \(CaptureLimits.size(limit)) (limits.xz_memory_mb in hciscope.yml)"
                        : "the \(CaptureLimits.size(budget.remaining + held)) left of the decoders' memory (limits.decoder_memory_mb in hciscope.yml)"),
                isLimit: true)
        case LZMA_MEM_ERROR: throw CodecError(message: "out of memory")
        case LZMA_OPTIONS_ERROR: throw CodecError(message: "unsupported xz options")
        default: throw CodecError(message: "liblzma error \(status.rawValue)")
        }
    }

    func reset() throws(CodecError) {}
}

/// Zstandard through libzstd (every frame in turn). A frame may declare a window of at most
/// 2^``CaptureLimits/zstdWindowLog`` bytes, and no more than the input's decoder budget has
/// left: libzstd refuses a larger one from the frame header, before allocating it.
final class ZstdCodec: Codec {
    private let stream: OpaquePointer
    private var inFrame = false
    var atStreamBoundary: Bool { !inFrame }
    var singleStream = false
    private let windowLog: Int
    private let budget: DecoderBudget
    private var held = 0

    init(windowLog: Int, budget: DecoderBudget) throws(CodecError) {
        guard let s = ZSTD_createDStream() else { throw CodecError(message: "libzstd could not start") }
        stream = s
        self.budget = budget
        // What the budget allows: the window and about as much again for the decoder's buffers.
        var log = min(max(windowLog, 10), 31)
        while log > 10, (1 << log) + (1 << 17) > budget.remaining { log -= 1 }
        self.windowLog = log
        ZSTD_initDStream(stream)
        _ = ZSTD_DCtx_setParameter(stream, ZSTD_d_windowLogMax, Int32(log))
    }

    deinit {
        ZSTD_freeDStream(stream)
        _ = budget.change(from: held, to: 0)
    }

    func step(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer, inputEnded: Bool) throws(CodecError) -> CodecStep {
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var outBuffer = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        let hint = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
        if ZSTD_isError(hint) != 0 {
            if ZSTD_getErrorCode(hint) == ZSTD_error_frameParameter_windowTooLarge {
                throw CodecError(
                    message: "a frame declares a window larger than 2^\(windowLog) bytes (\(CaptureLimits.size(1 << windowLog))), "
                        + "the most allowed (limits.zstd_window_log and limits.decoder_memory_mb in hciscope.yml)",
                    isLimit: true, consumed: inBuffer.pos)
            }
            throw CodecError(message: String(cString: ZSTD_getErrorName(hint)), consumed: inBuffer.pos)
        }
        let using = ZSTD_sizeof_DStream(stream)
        if using != held, budget.change(from: held, to: using) { held = using }
        // A hint of 0 means a frame was completely decoded and flushed. A call that moved no
        // byte (no input left) says nothing new: its hint is the size of a next frame header.
        if inBuffer.pos > 0 || outBuffer.pos > 0 { inFrame = hint != 0 }
        return CodecStep(consumed: inBuffer.pos, produced: outBuffer.pos, streamEnded: false)
    }

    func reset() throws(CodecError) {}
}

/// bzip2 through libbz2 (at most about 3.7 MB for a 900 KB block, held of the decoder budget).
final class Bzip2Codec: Codec {
    private var stream = bz_stream()
    var atStreamBoundary = true
    var singleStream = false
    private let budget: DecoderBudget
    static let memory = 4 << 20

    init(budget: DecoderBudget) throws(CodecError) {
        self.budget = budget
        guard budget.change(from: 0, to: Self.memory) else {
            throw CodecError(
                message: "no memory left for another bzip2 decoder (\(CaptureLimits.size(budget.total)) for one input's decoders: "
                    + "limits.decoder_memory_mb in hciscope.yml)", isLimit: true)
        }
        let status = BZ2_bzDecompressInit(&stream, 0, 0)
        guard status == BZ_OK else {
            _ = budget.change(from: Self.memory, to: 0)
            throw CodecError(message: "libbz2 could not start (\(status))")
        }
    }

    deinit {
        BZ2_bzDecompressEnd(&stream)
        _ = budget.change(from: Self.memory, to: 0)
    }

    func step(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer, inputEnded: Bool) throws(CodecError) -> CodecStep {
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: CChar.self))
        stream.avail_in = UInt32(input.count)
        stream.next_out = output.baseAddress?.assumingMemoryBound(to: CChar.self)
        stream.avail_out = UInt32(output.count)
        let status = BZ2_bzDecompress(&stream)
        let consumed = input.count - Int(stream.avail_in)
        let produced = output.count - Int(stream.avail_out)
        switch status {
        case BZ_OK:
            atStreamBoundary = false
            return CodecStep(consumed: consumed, produced: produced, streamEnded: false)
        case BZ_STREAM_END:
            atStreamBoundary = true
            return CodecStep(consumed: consumed, produced: produced, streamEnded: true)
        case BZ_DATA_ERROR, BZ_DATA_ERROR_MAGIC: throw CodecError(message: "invalid bzip2 data", consumed: consumed)
        case BZ_MEM_ERROR: throw CodecError(message: "out of memory")
        default: throw CodecError(message: "libbz2 error \(status)")
        }
    }

    func reset() throws(CodecError) {
        BZ2_bzDecompressEnd(&stream)
        stream = bz_stream()
        guard BZ2_bzDecompressInit(&stream, 0, 0) == BZ_OK else { throw CodecError(message: "libbz2 could not restart") }
    }
}
