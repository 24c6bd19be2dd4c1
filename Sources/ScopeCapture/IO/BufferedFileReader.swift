import ScopeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file descriptor (or a C stream) through one buffer of ``chunkSize`` bytes, so a
/// capture of any size is read in constant memory. The buffer grows only when a single request
/// needs more (a 64 KiB record plus its neighbours' headers while resynchronising), up to
/// ``maximumWindow``; it never holds the file.
///
/// It never seeks, so pipes, standard input and decompressed data work. Callers look at the bytes in the window
/// (`byte(at:)`, `be32(at:)`, …, relative to ``offset``) after asking ``fill(atLeast:)`` for
/// them, then ``consume(_:)`` what they used. Reads past what `fill` reported available are
/// programmer errors (the indices are checked by the callers against wire lengths first).
public final class BufferedFileReader {
    /// Size of one read and of the initial buffer.
    public static let chunkSize = 65_536
    /// Largest window one request may ask for.
    public static let maximumWindow = 262_144

    enum Backend {
        case descriptor(Int32, owned: Bool)
        /// A C stream: used for standard input and caller-supplied descriptors so that the
        /// bytes looked at while sniffing can be pushed back for libpcap (see
        /// ``pushBackForStream()``).
        case stream(UnsafeMutablePointer<FILE>, owned: Bool)
        /// Decompressed data or an archive member (Container/): read through a ``ByteInput``,
        /// whose errors arrive with their own message.
        case input(ByteInput)
    }

    /// The name used in diagnostics ("<stdin>" for standard input).
    public let name: String
    private var backend: Backend?
    /// The window's storage: `capacity` bytes, of which `head..<tail` are live. A raw
    /// allocation rather than an array so that the per-record reads (``be32(at:)``, …) are
    /// plain loads; every index is checked by the callers against what ``fill(atLeast:)``
    /// reported, and in debug builds against the window.
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    // Read several times per record: not checked for exclusive access (the reader is used by
    // one owner, and none of these is ever accessed through an inout that could overlap).
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var tail = 0
    @exclusivity(unchecked) private var reachedEOF = false
    /// Absolute offset in the input of the next unconsumed byte.
    @exclusivity(unchecked) public private(set) var offset = 0
    /// Bytes taken from the descriptor so far (consumed or still buffered).
    public private(set) var bytesFromInput = 0
    /// Largest buffer size used so far (for tests that check reading is streaming).
    public private(set) var peakBufferSize: Int

    /// Opens `path` for reading; "-" means standard input.
    public static func open(path: String) throws(CaptureError) -> BufferedFileReader {
        if path == "-" {
            return try BufferedFileReader(duplicating: STDIN_FILENO, name: StandardInput.name ?? "<stdin>")
        }
        let fd = try POSIX.openForReading(path)
        // Named as printed: a file name's control characters escaped (SafeText).
        return BufferedFileReader(fileDescriptor: fd, name: SafeText.escaped(path), closeWhenDone: true)
    }

    /// Reads from an open descriptor with `read(2)`. With `closeWhenDone` the descriptor is
    /// closed by ``close()`` or when the reader goes away.
    public init(fileDescriptor: Int32, name: String, closeWhenDone: Bool) {
        self.name = name
        self.backend = .descriptor(fileDescriptor, owned: closeWhenDone)
        self.storage = Self.allocate(Self.chunkSize)
        self.capacity = Self.chunkSize
        self.peakBufferSize = Self.chunkSize
    }

    /// Reads a duplicate of `fd` through a C stream (the caller keeps its descriptor).
    public convenience init(duplicating fd: Int32, name: String) throws(CaptureError) {
        let copy = dup(fd)
        guard copy >= 0 else { throw POSIX.ioError("cannot duplicate descriptor", file: name, errno: errno) }
        guard let stream = fdopen(copy, "rb") else {
            let code = errno
            _ = POSIX.closeDescriptor(copy)
            throw POSIX.ioError("cannot open descriptor", file: name, errno: code)
        }
        self.init(stream: stream, name: name, owned: true)
    }

    /// Reads from a C stream's descriptor with `read(2)`, which returns what a pipe holds (so a
    /// live pipe is never waited on for more than the next record needs); the stream itself is
    /// kept for handing the input to libpcap (``pushBackForStream()``).
    init(stream: UnsafeMutablePointer<FILE>, name: String, owned: Bool) {
        self.name = name
        self.backend = .stream(stream, owned: owned)
        self.storage = Self.allocate(Self.chunkSize)
        self.capacity = Self.chunkSize
        self.peakBufferSize = Self.chunkSize
    }

    /// Reads a ``ByteInput`` (decompressed data, an archive member), named `name` in diagnostics.
    init(input: ByteInput, name: String) {
        self.name = name
        self.backend = .input(input)
        self.storage = Self.allocate(Self.chunkSize)
        self.capacity = Self.chunkSize
        self.peakBufferSize = Self.chunkSize
    }

    deinit {
        _ = closeBackend()
        storage.deallocate()
    }

    /// The window's storage, not zeroed: only `head..<tail` is ever read, and every byte of it
    /// was written by a read first (zeroing a 64 KiB window per reader costs a page fault per
    /// page before the first byte arrives, for every member of a container).
    private static func allocate(_ size: Int) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    }

    /// Bytes in the window, from ``offset`` on.
    @inline(__always) public var available: Int { tail - head }

    /// True once the input has ended and every byte was consumed.
    public var isAtEnd: Bool { reachedEOF && head == tail }

    /// True when the input has reported its end (bytes may still be buffered).
    public var inputEnded: Bool { reachedEOF }

    /// Makes at least `n` bytes (at most ``maximumWindow``) available from ``offset`` on, unless
    /// the input ends first. Returns the number available, which is less than `n` only at the
    /// end of the input.
    @discardableResult
    @inline(__always)
    public func fill(atLeast n: Int) throws(CaptureError) -> Int {
        // Almost always the bytes are already there (one read serves many records).
        let have = tail - head
        if have >= n { return have }
        return try fillFromInput(atLeast: n)
    }

    private func fillFromInput(atLeast n: Int) throws(CaptureError) -> Int {
        let want = min(max(n, 0), Self.maximumWindow)
        while tail - head < want, !reachedEOF {
            try readMore(want: want)
        }
        if tail - head < want, let error = deferredError {
            deferredError = nil
            throw error
        }
        return tail - head
    }

    /// ``fill(atLeast:)`` for looking ahead (sniffing a format): an error of a ``ByteInput``
    /// after some bytes (damaged compressed data) is not thrown here but kept for the first
    /// ``fill(atLeast:)`` that needs more than the bytes before it, so that the records before
    /// the damage are read first.
    @discardableResult
    public func peek(atLeast n: Int) throws(CaptureError) -> Int {
        let want = min(max(n, 0), Self.maximumWindow)
        while tail - head < want, !reachedEOF {
            try readMore(want: want)
        }
        return tail - head
    }

    /// The error a ``ByteInput`` reported after the bytes in the window (see ``peek(atLeast:)``).
    private(set) var deferredError: CaptureError?

    private func readMore(want: Int) throws(CaptureError) {
        // Make room: move the window to the front, grow the buffer when one request needs it.
        if capacity - head < want {
            let live = tail - head
            if head > 0 {
                memmove(storage, storage + head, live)
                head = 0
                tail = live
            }
            if capacity < want {
                // Twice the request, so that a scan moving one byte at a time does not move
                // the window on every step.
                let newSize = min(((want * 2 + Self.chunkSize - 1) / Self.chunkSize) * Self.chunkSize,
                                  2 * Self.maximumWindow)
                let grown = Self.allocate(newSize)
                grown.copyMemory(from: storage, byteCount: tail)
                storage.deallocate()
                storage = grown
                capacity = newSize
                peakBufferSize = max(peakBufferSize, capacity)
            }
        } else if tail == capacity, head > 0 {
            let live = tail - head
            memmove(storage, storage + head, live)
            head = 0
            tail = live
        }
        guard let backend else {
            reachedEOF = true
            return
        }
        switch backend {
        case .descriptor(let fd, _):
            let result = POSIX.read(fd, UnsafeMutableRawBufferPointer(start: storage + tail, count: capacity - tail))
            if result.count < 0 {
                reachedEOF = true
                throw POSIX.ioError("read failed", file: name, offset: offset + available, errno: result.errno)
            }
            if result.count == 0 { reachedEOF = true }
            tail += result.count
            bytesFromInput += result.count
        case .input(let input):
            let got: Int
            do {
                got = try input.read(into: UnsafeMutableRawBufferPointer(start: storage + tail, count: capacity - tail))
            } catch {
                // Kept until the bytes before it are used (`fill`), so that nothing read is lost.
                reachedEOF = true
                deferredError = error
                return
            }
            if got == 0 { reachedEOF = true }
            tail += got
            bytesFromInput += got
        case .stream(let fp, _):
            // read(2) on the stream's descriptor: what is there, up to the room left. A pipe
            // returns what it holds, so a live producer is never waited on for more than the
            // request misses, and a file or a full pipe fills the window in one call (fread of
            // only the missing bytes fed decompressors and spooled archives a byte at a time).
            // The C stream's own buffer stays empty for pushBackForStream().
            let result = POSIX.read(fileno(fp), UnsafeMutableRawBufferPointer(start: storage + tail, count: capacity - tail))
            if result.count < 0 {
                reachedEOF = true
                throw POSIX.ioError("read failed", file: name, offset: offset + available, errno: result.errno)
            }
            if result.count == 0 { reachedEOF = true }
            tail += result.count
            bytesFromInput += result.count
        }
    }

    // MARK: Looking at the window (indices relative to `offset`, checked by the caller)

    @inline(__always) public func byte(at i: Int) -> UInt8 {
        assert(i >= 0 && head + i < tail, "read outside the window")
        return storage.load(fromByteOffset: head + i, as: UInt8.self)
    }

    @inline(__always) public func be16(at i: Int) -> UInt16 {
        assert(i >= 0 && head + i + 2 <= tail, "read outside the window")
        return UInt16(bigEndian: storage.loadUnaligned(fromByteOffset: head + i, as: UInt16.self))
    }

    @inline(__always) public func be32(at i: Int) -> UInt32 {
        assert(i >= 0 && head + i + 4 <= tail, "read outside the window")
        return UInt32(bigEndian: storage.loadUnaligned(fromByteOffset: head + i, as: UInt32.self))
    }

    @inline(__always) public func le16(at i: Int) -> UInt16 {
        assert(i >= 0 && head + i + 2 <= tail, "read outside the window")
        return UInt16(littleEndian: storage.loadUnaligned(fromByteOffset: head + i, as: UInt16.self))
    }

    @inline(__always) public func le32(at i: Int) -> UInt32 {
        assert(i >= 0 && head + i + 4 <= tail, "read outside the window")
        return UInt32(littleEndian: storage.loadUnaligned(fromByteOffset: head + i, as: UInt32.self))
    }

    @inline(__always) public func be64(at i: Int) -> UInt64 {
        assert(i >= 0 && head + i + 8 <= tail, "read outside the window")
        return UInt64(bigEndian: storage.loadUnaligned(fromByteOffset: head + i, as: UInt64.self))
    }

    /// The window's bytes from `i` on, for the specialised header readers (btsnoop's fixed
    /// 24 bytes are read with one pointer instead of one window lookup per field); the caller
    /// has checked that what it reads is available.
    @inline(__always) func pointer(at i: Int) -> UnsafeRawPointer {
        assert(i >= 0 && head + i <= tail, "read outside the window")
        return UnsafeRawPointer(storage + head + i)
    }

    /// `count` bytes starting `i` bytes into the window, copied out.
    public func bytes(at i: Int, count: Int) -> [UInt8] {
        precondition(i >= 0 && count >= 0 && head + i + count <= tail, "read outside the window")
        guard count > 0 else { return [] }
        // (The specialised copy of a buffer pointer: `init(unsafeUninitializedCapacity:)` is
        // not specialised and costs more than the copy.)
        return Array(UnsafeBufferPointer(start: (storage + head + i).assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// Emptied payload arrays handed back by a consumer (``CaptureReader/reusePayloadBuffers(_:)``)
    /// for ``payload(at:count:)`` to refill instead of allocating. Empty unless a consumer
    /// gives some back.
    let spares = SparePayloads()

    /// ``bytes(at:count:)`` for a record's payload: copied into a spare array when there is
    /// one, in place when the spare holds `count` bytes already (its storage is reused when
    /// nothing else still holds it; otherwise copy-on-write allocates, as `bytes` would).
    @inline(__always)
    func payload(at i: Int, count: Int) -> [UInt8] {
        guard var payload = spares.take(count: count) else { return bytes(at: i, count: count) }
        precondition(i >= 0 && count >= 0 && head + i + count <= tail, "read outside the window")
        let source = storage + head + i
        if payload.count == count, count > 0 {
            // Same length: overwritten in place (no change of count, so no call into the array).
            payload.withUnsafeMutableBytes { $0.baseAddress.unsafelyUnwrapped.copyMemory(from: source, byteCount: count) }
        } else {
            // One call that empties and refills (half the cost of `removeAll(keepingCapacity:)`
            // then `append(contentsOf:)`).
            payload.replaceSubrange(
                0..<payload.count, with: UnsafeBufferPointer(start: source.assumingMemoryBound(to: UInt8.self), count: count))
        }
        return payload
    }

    /// ``consume(_:)`` of `n` bytes the caller knows are in the window (`0 <= n <= available`).
    @inline(__always)
    func consumeAvailable(_ n: Int) {
        assert(n >= 0 && n <= tail - head, "consumed outside the window")
        head &+= n
        offset &+= n
        if head == tail {
            head = 0
            tail = 0
        }
    }

    /// Everything currently in the window, copied out (used for sniffing).
    public func windowBytes() -> [UInt8] { bytes(at: 0, count: tail - head) }

    /// Drops `n` bytes (at most what is available) from the front of the window.
    @inline(__always)
    public func consume(_ n: Int) {
        let k = min(max(n, 0), tail - head)
        head += k
        offset += k
        if head == tail {
            head = 0
            tail = 0
        }
    }

    /// Copies up to `destination.count` bytes to `destination`, reading the input when the
    /// window is empty (a chunk at a time: a stream read for its bulk, such as text searched for
    /// a btsnooz summary or data to decompress, is not read a byte at a time); 0 at the end.
    public func read(into destination: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        if available == 0 { try fill(atLeast: min(max(destination.count, 1), Self.chunkSize)) }
        let n = min(destination.count, available)
        guard n > 0, let dst = destination.baseAddress else { return 0 }
        memcpy(dst, storage + head, n)
        consume(n)
        return n
    }

    // MARK: Handing the input over

    /// The C stream behind a stream-backed reader after pushing the unconsumed window back
    /// into it (`ungetc`, which glibc and Darwin allow for any number of bytes), so that
    /// libpcap can read the input from its first byte. The reader is empty afterwards and must
    /// not be used again. Nil for descriptor-backed readers (open those by path instead).
    func pushBackForStream() -> (stream: UnsafeMutablePointer<FILE>, owned: Bool)? {
        if case .input(let input)? = backend {
            // The window's bytes first, then the rest of the input, as one C stream.
            let prefixed = PrefixedInput(prefix: windowBytes(), rest: input)
            guard let (stream, _) = StreamBridge.open(prefixed) else { return nil }
            head = 0
            tail = 0
            reachedEOF = false
            backend = nil
            return (stream, true)
        }
        guard case .stream(let fp, let owned)? = backend else { return nil }
        var i = tail
        while i > head {
            i -= 1
            if ungetc(Int32(storage.load(fromByteOffset: i, as: UInt8.self)), fp) == EOF { return nil }
        }
        head = 0
        tail = 0
        reachedEOF = false
        backend = nil
        return (fp, owned)
    }

    /// Closes the descriptor or stream when this reader owns it. Idempotent.
    @discardableResult
    public func close() -> Int32 { closeBackend() }

    private func closeBackend() -> Int32 {
        defer { backend = nil }
        switch backend {
        case .descriptor(let fd, let owned)?:
            return owned ? POSIX.closeDescriptor(fd) : 0
        case .stream(let fp, let owned)?:
            return owned ? (fclose(fp) == 0 ? 0 : errno) : 0
        case .input?:
            return 0
        case nil:
            return 0
        }
    }
}

/// The spare payload arrays of a ``BufferedFileReader``, kept by the number of bytes each holds:
/// a record mostly finds a spare of its own length, which it overwrites in place. Records of a
/// capture come in a few dozen lengths that recur (on the advertising-heavy corpus replays, a
/// spare of the same length is there for over 95 % of the records, against about 10 % for the
/// last spare handed back), and changing an array's length costs more than copying the bytes.
/// A record of a length with no spare gets a new array while fewer than half of ``maximum``
/// are kept (so the spares grow to cover the lengths that recur), else one of another length
/// (the shortest kept: lengths no longer used give their spares up); at most ``maximum`` are
/// kept, the rest are freed.
///
/// The spares sit in fixed slots, each length's chained through `next` from `head[length]`:
/// taking and keeping one is a few integer moves, with no nested arrays to check and resize.
public final class SparePayloads {
    public static let maximum = 4096
    /// Spares of these lengths and longer are not kept (the consumer hands back arrays of at
    /// most 1,100 bytes of storage).
    static let lengths = 2048

    private let slots = UnsafeMutablePointer<[UInt8]>.allocate(capacity: SparePayloads.maximum)
    /// The next slot of the same length (or the next free slot), -1 at the end.
    private let next = UnsafeMutablePointer<Int32>.allocate(capacity: SparePayloads.maximum)
    /// Per length, its first slot or -1.
    private let head = UnsafeMutablePointer<Int32>.allocate(capacity: SparePayloads.lengths)
    /// One bit per length that has a spare (for a record of a length with none).
    private let nonEmpty = UnsafeMutablePointer<UInt64>.allocate(capacity: SparePayloads.lengths / 64)
    /// The first free slot, -1 when all are taken.
    @exclusivity(unchecked) private var free: Int32 = 0
    @exclusivity(unchecked) public private(set) var count = 0

    init() {
        head.initialize(repeating: -1, count: Self.lengths)
        nonEmpty.initialize(repeating: 0, count: Self.lengths / 64)
        for i in 0..<Self.maximum { next[i] = i + 1 < Self.maximum ? Int32(i + 1) : -1 }
    }

    deinit {
        for length in 0..<Self.lengths {
            var slot = head[length]
            while slot >= 0 {
                (slots + Int(slot)).deinitialize(count: 1)
                slot = next[Int(slot)]
            }
        }
        slots.deallocate()
        next.deallocate()
        head.deallocate()
        nonEmpty.deallocate()
    }

    /// A spare of `length` bytes if there is one; else, with half of ``maximum`` kept, a spare
    /// of another length; else nil (the caller makes a new array).
    @inline(__always)
    func take(count length: Int) -> [UInt8]? {
        if length < Self.lengths, head[length] >= 0 { return take(from: length) }
        guard count >= Self.maximum / 2 else { return nil }
        for w in 0..<(Self.lengths / 64) where nonEmpty[w] != 0 {
            return take(from: w * 64 + nonEmpty[w].trailingZeroBitCount)
        }
        return nil
    }

    @inline(__always)
    private func take(from length: Int) -> [UInt8] {
        let slot = Int(head[length])
        head[length] = next[slot]
        if head[length] < 0 { nonEmpty[length >> 6] &= ~(1 << UInt64(length & 63)) }
        next[slot] = free
        free = Int32(slot)
        count -= 1
        return (slots + slot).move()
    }

    /// Keeps `spare` for a record of its length, if it is short enough and there is room (else
    /// it is freed).
    public func keep(_ spare: consuming [UInt8]) {
        let length = spare.count
        guard free >= 0, length < Self.lengths else { return }
        let slot = Int(free)
        free = next[slot]
        (slots + slot).initialize(to: consume spare)
        if head[length] < 0 { nonEmpty[length >> 6] |= 1 << UInt64(length & 63) }
        next[slot] = head[length]
        head[length] = Int32(slot)
        count += 1
    }
}
