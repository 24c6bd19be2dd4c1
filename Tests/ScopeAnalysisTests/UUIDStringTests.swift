import ScopeCore
import ScopeDecode
import Testing

@testable import ScopeAnalysis

/// Reports key UUIDs by `BluetoothUUID.compactString`: the four digits of a 16-bit value
/// (whatever width it was written with) or the 128-bit form, as `Hex.string`/`uuidString` give.
@Suite("UUID strings")
struct UUIDStringTests {
    static let wires: [[UInt8]] = [
        [0x0D, 0x18], [0x00, 0x00], [0xFF, 0xFF], [0x8F, 0xFE, 0x00, 0x00], [0x01, 0x02, 0x03, 0x04],
        [0x9E, 0xCA, 0xDC, 0x24, 0x0E, 0xE5, 0xA9, 0xE0, 0x93, 0xF3, 0xA3, 0xB5, 0x01, 0x00, 0x40, 0x6E],
        [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0x0D, 0x18, 0x00, 0x00],
        Array(0..<16), Array(repeating: 0xFF, count: 16), [1], [1, 2, 3], [],
    ]

    @Test(arguments: wires)
    func stringMatchesTheGenericOne(bytes: [UInt8]) {
        let expected = BluetoothUUID(littleEndian: bytes)
        guard let uuid = expected else { return }
        let old = uuid.uuid16.map { Hex.string([UInt8($0 >> 8), UInt8($0 & 0xFF)]) } ?? uuid.uuidString
        #expect(uuid.compactString == old)
    }
}
