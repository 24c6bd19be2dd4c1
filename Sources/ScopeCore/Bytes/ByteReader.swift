/// A bounds-checked cursor over a byte array.
///
/// Every read states its byte order, advances only when it succeeds, and throws a
/// ``DecodeError`` carrying the absolute offset (``baseOffset`` + position) and the reader's
/// ``layer``. A reader never traps on wire data.
///
/// `slice(_:)` returns a sub-reader bounded to the next `n` bytes, so a child decoder sees only
/// its own bytes; whatever it leaves is visible through ``remaining``.
///
/// The reader shares the bytes it is given (an array or a slice of one); it never copies them.
/// `position` and `end` are indices of `storage` (slice indices, so they need not start at 0).
public struct ByteReader: Sendable {
    @usableFromInline let storage: ArraySlice<UInt8>
    @usableFromInline var position: Int
    @usableFromInline let end: Int
    /// Absolute offset, in the enclosing record, of index 0 of the storage's indices (for error
    /// reporting: the offset of index `i` is `baseOffset + i`).
    public let baseOffset: Int
    public var layer: Layer

    /// A reader over all of `bytes`. `baseOffset` is the absolute offset of `bytes[0]`.
    public init(_ bytes: [UInt8], layer: Layer, baseOffset: Int = 0) {
        self.storage = bytes[...]
        self.position = 0
        self.end = bytes.count
        self.baseOffset = baseOffset
        self.layer = layer
    }

    /// A reader over `bytes` (any contiguous slice), re-based so that errors name offsets
    /// relative to `baseOffset` (the absolute offset of the slice's first byte).
    public init(_ bytes: ArraySlice<UInt8>, layer: Layer, baseOffset: Int = 0) {
        self.storage = bytes
        self.position = bytes.startIndex
        self.end = bytes.endIndex
        self.baseOffset = baseOffset - bytes.startIndex
        self.layer = layer
    }

    @usableFromInline init(storage: ArraySlice<UInt8>, position: Int, end: Int, baseOffset: Int, layer: Layer) {
        self.storage = storage
        self.position = position
        self.end = end
        self.baseOffset = baseOffset
        self.layer = layer
    }

    /// The bytes the reader was made over (for a sub-reader, those of the reader it was sliced
    /// from), wherever it stands: a decoder that keeps its reader needs no second reference to them.
    @inlinable public var underlyingBytes: ArraySlice<UInt8> { storage }

    /// Bytes left to read.
    @inlinable public var remaining: Int { end - position }
    @inlinable public var isAtEnd: Bool { position >= end }
    /// Absolute offset of the next byte to be read.
    @inlinable public var offset: Int { baseOffset + position }

    @inlinable func require(_ n: Int) throws(DecodeError) {
        guard n >= 0, n <= end - position else {
            throw DecodeError(.truncated(needed: n, available: max(0, end - position)), offset: offset, layer: layer)
        }
    }

    /// An error at the current offset (for values that are present but unacceptable).
    public func invalid(_ message: String, at absoluteOffset: Int? = nil) -> DecodeError {
        DecodeError(.invalid(message), offset: absoluteOffset ?? offset, layer: layer)
    }

    // MARK: Single bytes

    @inlinable public mutating func readU8() throws(DecodeError) -> UInt8 {
        try require(1)
        defer { position += 1 }
        return storage[position]
    }

    @inlinable public mutating func readI8() throws(DecodeError) -> Int8 {
        Int8(bitPattern: try readU8())
    }

    /// The next byte without moving, or nil at the end.
    @inlinable public func peekU8() -> UInt8? {
        position < end ? storage[position] : nil
    }

    // MARK: Little-endian

    @inlinable public mutating func readLE16() throws(DecodeError) -> UInt16 {
        try require(2)
        defer { position += 2 }
        return UInt16(storage[position]) | UInt16(storage[position + 1]) << 8
    }

    @inlinable public mutating func readLE24() throws(DecodeError) -> UInt32 {
        try require(3)
        defer { position += 3 }
        return UInt32(storage[position]) | UInt32(storage[position + 1]) << 8 | UInt32(storage[position + 2]) << 16
    }

    @inlinable public mutating func readLE32() throws(DecodeError) -> UInt32 {
        try require(4)
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(storage[position + i]) << (8 * i) }
        position += 4
        return value
    }

    @inlinable public mutating func readLE64() throws(DecodeError) -> UInt64 {
        try require(8)
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(storage[position + i]) << (8 * i) }
        position += 8
        return value
    }

    // MARK: Big-endian

    @inlinable public mutating func readBE16() throws(DecodeError) -> UInt16 {
        try require(2)
        defer { position += 2 }
        return UInt16(storage[position]) << 8 | UInt16(storage[position + 1])
    }

    @inlinable public mutating func readBE32() throws(DecodeError) -> UInt32 {
        try require(4)
        var value: UInt32 = 0
        for i in 0..<4 { value = value << 8 | UInt32(storage[position + i]) }
        position += 4
        return value
    }

    @inlinable public mutating func readBE64() throws(DecodeError) -> UInt64 {
        try require(8)
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(storage[position + i]) }
        position += 8
        return value
    }

    // MARK: Runs of bytes

    /// The next `n` bytes as a new array.
    @inlinable public mutating func readBytes(_ n: Int) throws(DecodeError) -> [UInt8] {
        try require(n)
        defer { position += n }
        return copy(position, n)
    }

    /// Everything left, as a new array (possibly empty); the reader ends up at its end.
    @inlinable public mutating func readRest() -> [UInt8] {
        defer { position = end }
        return copy(position, end - position)
    }

    /// Everything left, as a slice of the bytes read (no copy; indexed like them, not from 0);
    /// the reader ends up at its end.
    @inlinable public mutating func readRestSlice() -> ArraySlice<UInt8> {
        defer { position = end }
        return storage[position..<end]
    }

    /// `count` bytes from index `from` (within bounds), copied out through a buffer pointer:
    /// the specialised contiguous copy, cheaper than converting a slice.
    @inlinable func copy(_ from: Int, _ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return storage.withUnsafeBufferPointer { buffer in
            let start = from - storage.startIndex
            return Array(UnsafeBufferPointer(rebasing: buffer[start..<(start + count)]))
        }
    }

    /// A sub-reader over the next `n` bytes; this reader moves past them.
    @inlinable public mutating func slice(_ n: Int) throws(DecodeError) -> ByteReader {
        try require(n)
        defer { position += n }
        return ByteReader(storage: storage, position: position, end: position + n, baseOffset: baseOffset, layer: layer)
    }

    /// A sub-reader over the next `n` bytes, or over whatever is left when fewer remain
    /// (for decoders that report truncation themselves and want partial results).
    public mutating func sliceUpTo(_ n: Int) -> ByteReader {
        let take = max(0, min(n, remaining))
        defer { position += take }
        return ByteReader(storage: storage, position: position, end: position + take, baseOffset: baseOffset, layer: layer)
    }

    /// The same bytes, reported at another layer.
    public func relabeled(_ layer: Layer) -> ByteReader {
        ByteReader(storage: storage, position: position, end: end, baseOffset: baseOffset, layer: layer)
    }

    @inlinable public mutating func skip(_ n: Int) throws(DecodeError) {
        try require(n)
        position += n
    }

    /// A 6-byte little-endian Bluetooth device address.
    @inlinable public mutating func readAddress() throws(DecodeError) -> BDAddr {
        try require(6)
        return uncheckedAddress()
    }

    // MARK: Reads whose bounds the caller has proven

    // For fixed-size runs of fields in hot decoders: check `remaining >= n` once, then read
    // the run with these. Reading past `end` is a programmer error (asserted in debug builds;
    // past the underlying bytes it traps like any array index); wire data can never cause it
    // when the check came first.

    /// The next `n` bytes as raw memory, for a fixed run of fields read at known offsets (the
    /// caller has checked `remaining >= n`); the reader moves past them.
    @inlinable
    public mutating func withUncheckedBytes<R>(_ n: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        assert(n >= 0 && n <= end - position)
        let start = position - storage.startIndex
        position += n
        return storage.withUnsafeBytes { raw in body(UnsafeRawBufferPointer(rebasing: raw[start..<(start + n)])) }
    }

    @inlinable public mutating func uncheckedU8() -> UInt8 {
        assert(position < end)
        defer { position += 1 }
        return storage[position]
    }

    @inlinable public mutating func uncheckedI8() -> Int8 {
        Int8(bitPattern: uncheckedU8())
    }

    @inlinable public mutating func uncheckedLE16() -> UInt16 {
        assert(2 <= end - position)
        defer { position += 2 }
        return UInt16(storage[position]) | UInt16(storage[position + 1]) << 8
    }

    @inlinable public mutating func uncheckedAddress() -> BDAddr {
        assert(6 <= end - position)
        defer { position += 6 }
        let p = position
        let low = UInt64(storage[p]) | UInt64(storage[p + 1]) << 8 | UInt64(storage[p + 2]) << 16
        let high = UInt64(storage[p + 3]) << 24 | UInt64(storage[p + 4]) << 32 | UInt64(storage[p + 5]) << 40
        return BDAddr(value: low | high)
    }

    /// The unread bytes without copying them out of the reader.
    public var unreadBytes: ArraySlice<UInt8> { storage[position..<end] }
}
