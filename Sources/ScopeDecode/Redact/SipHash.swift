/// SipHash-2-4 (Aumasson & Bernstein, 2012): a keyed pseudo-random function over short inputs.
/// The redactor uses it as its keyed mapping (same key, same input → same pseudonym; without
/// the key a pseudonym says nothing about the address it replaced).
public struct SipHash24: Sendable {
    public let k0: UInt64
    public let k1: UInt64

    public init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// Key from 16 bytes (little-endian halves, as in the reference implementation).
    public init(key: [UInt8]) {
        func word(_ at: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<8 where at + i < key.count { v |= UInt64(key[at + i]) << (8 * UInt64(i)) }
            return v
        }
        self.init(k0: word(0), k1: word(8))
    }

    public func hash(_ message: [UInt8]) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ k1
        func round() {
            v0 &+= v1; v1 = v1.rotl(13); v1 ^= v0; v0 = v0.rotl(32)
            v2 &+= v3; v3 = v3.rotl(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotl(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotl(17); v1 ^= v2; v2 = v2.rotl(32)
        }
        let blocks = message.count / 8
        for b in 0..<blocks {
            var m: UInt64 = 0
            for i in 0..<8 { m |= UInt64(message[b * 8 + i]) << (8 * UInt64(i)) }
            v3 ^= m
            round(); round()
            v0 ^= m
        }
        var last = UInt64(truncatingIfNeeded: message.count) << 56
        for i in 0..<(message.count % 8) { last |= UInt64(message[blocks * 8 + i]) << (8 * UInt64(i)) }
        v3 ^= last
        round(); round()
        v0 ^= last
        v2 ^= 0xff
        round(); round(); round(); round()
        return v0 ^ v1 ^ v2 ^ v3
    }
}

extension UInt64 {
    fileprivate func rotl(_ n: UInt64) -> UInt64 { self << n | self >> (64 - n) }
}
