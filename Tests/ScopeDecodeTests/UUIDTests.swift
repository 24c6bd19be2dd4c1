import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// BluetoothUUID (Core v5.4, Vol 3, Part B, §2.5.1).
@Suite("Bluetooth UUID")
struct UUIDTests {
    @Test func baseUUIDExpansion() {
        // Vol 3, Part B, §2.5.1: 128-bit value = 16-bit value × 2^96 + Base UUID.
        #expect(BluetoothUUID.base.uuidString == "00000000-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID(uuid16: 0x180D).uuidString == "0000180d-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID(uuid32: 0x1234_5678).uuidString == "12345678-0000-1000-8000-00805f9b34fb")
    }

    @Test func equalityIsByValueNotWidth() throws {
        let short = BluetoothUUID(uuid16: 0xFE8F)
        let long = try #require(BluetoothUUID("0000fe8f-0000-1000-8000-00805f9b34fb"))
        let mid = BluetoothUUID(uuid32: 0xFE8F)
        #expect(short == long && long == mid)
        #expect(Set([short, long, mid]).count == 1)
        #expect(long.width == .bits128 && short.width == .bits16 && mid.width == .bits32)
        #expect(long.uuid16 == 0xFE8F)
        #expect(BluetoothUUID(uuid32: 0x0001_0000).uuid16 == nil)
        #expect(BluetoothUUID(uuid32: 0x0001_0000).uuid32 == 0x0001_0000)
    }

    @Test func wireBytesAreLittleEndian() throws {
        // 16-bit list entry "0d 18" (BlueZ unit/test-eir.c, Mio Alpha: 03 02 0d 18).
        #expect(BluetoothUUID(littleEndian: [0x0D, 0x18]) == BluetoothUUID(uuid16: 0x180D))
        // 128-bit entry from BlueZ unit/test-eir.c "citizen_scan": expects 2d45b460-8db7-11e1-9a46-0002a5d5c51b.
        let bytes = Fixtures.hex("1b c5 d5 a5 02 00 46 9a e1 11 b7 8d 60 b4 45 2d")
        let uuid = try #require(BluetoothUUID(littleEndian: bytes))
        #expect(uuid.uuidString == "2d45b460-8db7-11e1-9a46-0002a5d5c51b")
        #expect(uuid.littleEndianBytes == bytes)
        #expect(uuid.bigEndianBytes == bytes.reversed())
        #expect(BluetoothUUID(uuid16: 0x180D).littleEndianBytes == [0x0D, 0x18])
        #expect(BluetoothUUID(uuid32: 0x1234_5678).littleEndianBytes == [0x78, 0x56, 0x34, 0x12])
    }

    @Test(arguments: [0, 1, 3, 5, 15, 17, 32])
    func wrongByteCountsAreRejected(count: Int) {
        #expect(BluetoothUUID(littleEndian: [UInt8](repeating: 0xAB, count: count)) == nil)
    }

    @Test func parsesText() {
        #expect(BluetoothUUID("180d") == BluetoothUUID(uuid16: 0x180D))
        #expect(BluetoothUUID("0x180D")?.width == .bits16)
        #expect(BluetoothUUID("0000fe8f")?.width == .bits32)
        #expect(BluetoothUUID("6E400001B5A3F393E0A9E50E24DCCA9E") == BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e"))
        for bad in ["", "0x", "18d", "180g", "6e400001-b5a3-f393-e0a9", "6e40000-1b5a3-f393-e0a9-e50e24dcca9e", "12345"] {
            #expect(BluetoothUUID(bad) == nil, "\(bad)")
        }
    }

    @Test func descriptions() throws {
        #expect(BluetoothUUID(uuid16: 0x180D).description == "Heart Rate (0x180d)")
        #expect(BluetoothUUID(uuid16: 0x2902).description == "Client Characteristic Configuration (0x2902)")
        #expect(BluetoothUUID(uuid16: 0x0042).description == "Unknown (0x0042)")
        #expect(BluetoothUUID(uuid32: 0x0000_180D).description == "Heart Rate (0x0000180d)")
        let nus = try #require(BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e"))
        #expect(nus.description == "Nordic UART Service (6e400001-b5a3-f393-e0a9-e50e24dcca9e)")
        let unknown = try #require(BluetoothUUID("03b80e5a-ede8-4b33-a751-6ce34ec4c701"))
        #expect(unknown.description == "03b80e5a-ede8-4b33-a751-6ce34ec4c701")
        // A 16-bit value written in 128 bits keeps its name and shows the long form.
        let long = try #require(BluetoothUUID("0000180d-0000-1000-8000-00805f9b34fb"))
        #expect(long.description == "Heart Rate (0000180d-0000-1000-8000-00805f9b34fb)")
    }

    @Test func declarationConstants() {
        #expect(BluetoothUUID.primaryService.name == "Primary Service")
        #expect(BluetoothUUID.characteristic.kind == .declaration)
        #expect(BluetoothUUID.clientCharacteristicConfiguration.uuid16 == 0x2902)
    }

    @Test func byteReaderReadsUUIDsAtomically() throws {
        var r = ByteReader(Fixtures.hex("0d 18 78 56 34 12 9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e ff"), layer: .att, baseOffset: 10)
        #expect(try r.readUUID(.bits16) == BluetoothUUID(uuid16: 0x180D))
        #expect(try r.readUUID(.bits32) == BluetoothUUID(uuid32: 0x1234_5678))
        #expect(try r.readUUID(.bits128).name == "Nordic UART Service")
        // One byte left: a 16-bit read fails with the absolute offset and does not move.
        #expect(throws: DecodeError(.truncated(needed: 2, available: 1), offset: 32, layer: .att)) { try r.readUUID(.bits16) }
        #expect(throws: DecodeError(.truncated(needed: 16, available: 1), offset: 32, layer: .att)) { try r.readUUID(.bits128) }
        #expect(r.remaining == 1)
    }

    @Test func orderingIsByValue() {
        let sorted = [BluetoothUUID(uuid16: 0x2A00), BluetoothUUID(uuid16: 0x1800), BluetoothUUID.base].sorted()
        #expect(sorted == [BluetoothUUID.base, BluetoothUUID(uuid16: 0x1800), BluetoothUUID(uuid16: 0x2A00)])
    }
}
