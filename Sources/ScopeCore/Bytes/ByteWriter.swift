/// Appends integers with an explicit byte order; used by capture writers and round-trip tests.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func le16(_ v: UInt16) { bytes.append(UInt8(v & 0xFF)); bytes.append(UInt8(v >> 8)) }
    public mutating func le24(_ v: UInt32) { for i in 0..<3 { bytes.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }
    public mutating func le32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }
    public mutating func le64(_ v: UInt64) { for i in 0..<8 { bytes.append(UInt8((v >> (8 * UInt64(i))) & 0xFF)) } }
    public mutating func be16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(v & 0xFF)) }
    public mutating func be32(_ v: UInt32) { for i in (0..<4).reversed() { bytes.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }
    public mutating func be64(_ v: UInt64) { for i in (0..<8).reversed() { bytes.append(UInt8((v >> (8 * UInt64(i))) & 0xFF)) } }
    public mutating func append<S: Sequence>(_ s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }
    public mutating func address(_ a: BDAddr) { bytes.append(contentsOf: a.littleEndianBytes) }
}
