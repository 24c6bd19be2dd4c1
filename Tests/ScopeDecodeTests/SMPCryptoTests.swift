import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

@Suite("SMP crypto")
struct SMPCryptoTests {
    /// FIPS-197 Appendix C.1 (AES-128).
    @Test func aesMatchesFIPS197() {
        let key = Fixtures.hex("000102030405060708090a0b0c0d0e0f")
        let plain = Fixtures.hex("00112233445566778899aabbccddeeff")
        #expect(AES128.encrypt(block: plain, key: key) == Fixtures.hex("69c4e0d86a7b0430d8cdb78070b4c55a"))
        #expect(AES128.encrypt(block: [1], key: key) == nil)
    }

    /// Core v5.4, Vol 3, Part H, Appendix D.7 (ah random address hash sample data):
    /// IRK ec0234a3 57c8ad05 341010a6 0a397d9b, prand 708194 → ah 0dfbaa.
    @Test func ahMatchesTheSpecSample() {
        let irk = Fixtures.hex("ec0234a357c8ad05341010a60a397d9b")
        #expect(RPAResolver.ah(irk: irk, prand: 0x708194) == 0x0DFBAA)
        // The same IRK as SMP carries it (least significant octet first) resolves 70:81:94:0d:fb:aa.
        let address = BDAddr("70:81:94:0d:fb:aa")!
        #expect(RPAResolver.resolves(address.value, irkWire: irk.reversed()))
        #expect(!RPAResolver.resolves(BDAddr("70:81:94:0d:fb:ab")!.value, irkWire: irk.reversed()))
        // Not resolvable: a static random address never resolves.
        #expect(!RPAResolver.resolves(BDAddr("f0:81:94:0d:fb:aa")!.value, irkWire: irk.reversed()))
    }
}
