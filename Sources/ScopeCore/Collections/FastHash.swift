/// The per-report keys' hash for Set and Dictionary, instead of SipHash over the same word (about a
/// tenth of the instructions): a multiply–xorshift mix (bijective for a given seed, so distinct
/// words never collide in full; the table's per-instance seed still varies bucket placement).
/// `_rawHashValue(seed:)` is the standard library's hook for exactly this; `hash(into:)` stays
/// for every other use.
@inlinable @inline(__always)
public func fastHash(_ word: UInt64, seed: Int) -> Int {
    var x = word ^ UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15
    x = (x ^ (x >> 32)) &* 0xD6E8_FEB8_6659_FD93
    x = (x ^ (x >> 32)) &* 0xD6E8_FEB8_6659_FD93
    return Int(truncatingIfNeeded: x ^ (x >> 32))
}
