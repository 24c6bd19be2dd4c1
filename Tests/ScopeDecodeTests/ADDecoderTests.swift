import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// AD/EIR decoding on real bytes: advertising reports and EIR from the shared corpus
/// (extracted with `tshark -T json -x`, tshark 4.0.17's decode pasted above each), and the
/// real-device EIR/AD vectors of BlueZ unit/test-eir.c.
@Suite("AD decoder")
struct ADDecoderTests {
    /// EIR is always 240 octets: the significant part, then zeros (Core v5.4, Vol 3, Part C, §8).
    static func eir(_ hex: String) -> [UInt8] {
        let b = Fixtures.hex(hex)
        return b + [UInt8](repeating: 0, count: max(0, 240 - b.count))
    }

    // MARK: EIR

    /// real/cnrd__yeelock__btsnoop_hci.log frame 234, HCI Write Extended Inquiry Response (the EIR
    /// starts at payload offset 4: opcode, length, FEC_Required). tshark:
    ///   Device Name: ASJ
    ///   16-bit Service Class UUIDs: Headset - Audio Gateway (0x1112), PnP Information (0x1200)
    ///   32-bit Service Class UUIDs (Length 1), 128-bit Service Class UUIDs (Length 1), Unused
    @Test func androidEIRWithEmptyListsAndPadding() {
        let data = Self.eir("04 09 41 53 4a 05 03 12 11 00 12 01 05 01 07")
        let r = ADParser.parse(data, baseOffset: 4)
        #expect(r.malformed.isEmpty)  // the zero padding is the legal non-significant part
        #expect(r.structures.map(\.offset) == [4, 9, 15, 17])
        #expect(r.structures.map(\.type) == [0x09, 0x03, 0x05, 0x07])
        #expect(r.localName == "ASJ")
        #expect(r.isLocalNameComplete == true)
        #expect(r.serviceUUIDs == [BluetoothUUID(uuid16: 0x1112), BluetoothUUID(uuid16: 0x1200)])
        #expect(r.structures[1].valueDescription == "Headset Audio Gateway (0x1112), PnPInformation (0x1200)")
        // Empty complete lists are legal ("no UUIDs of this size").
        #expect(r.structures[2].value == .serviceUUIDs([], complete: true))
        #expect(r.structures[3].valueDescription == "(none)")
        #expect(r.structures[3].name == "Complete List of 128-bit Service or Service Class UUIDs")
    }

    /// real/TheoLestandi__Projet_RP__ble_capture.snoop frame 91, Extended Inquiry Result of a BlueZ
    /// device. tshark:
    ///   Device Name: daniel; Tx Power Level: 0
    ///   Device ID: Vendor ID Source: USB Implementer's Forum (0x0002), Vendor ID: Linux Foundation
    ///     (0x1d6b), Product ID: 0x0246, Version: 0x0553
    ///   16-bit Service Class UUIDs: Generic Access (0x1800) … Phonebook Access - PCE (0x112e) (17)
    ///   128-bit Service Class UUIDs: 03b80e5a-ede8-4b33-a751-6ce34ec4c700,
    ///     00005005-0000-1000-8000-0002ee000001
    @Test func bluezEIRWithDeviceID() throws {
        let data = Self.eir("""
            07 09 64 61 6e 69 65 6c 02 0a 00 09 10 02 00 6b 1d 46 02 53 05 23 03 00 18 01 18 0a 18 0e
            11 0c 11 2d 11 1f 11 1e 11 0a 11 0b 11 33 11 32 11 2f 11 04 11 06 11 05 11 2e 11 21 07 00
            c7 c4 4e e3 6c 51 a7 33 4b e8 ed 5a 0e b8 03 01 00 00 ee 02 00 00 80 00 10 00 00 05 50
            """)
        let r = ADParser.parse(data, baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.localName == "daniel")
        #expect(r.txPower == 0)
        let deviceID = try #require(r.structures.first { $0.type == 0x10 })
        #expect(deviceID.name == "Device ID")
        #expect(deviceID.value == .deviceID(DeviceID(vendorIDSource: 0x0002, vendorID: 0x1D6B, productID: 0x0246, version: 0x0553)))
        #expect(deviceID.valueDescription
            == "source USB Implementer's Forum (0x0002), vendor 0x1d6b, product 0x0246, version 0x0553")
        let uuids = r.serviceUUIDs
        #expect(uuids.count == 19)
        #expect(uuids.prefix(3) == [BluetoothUUID(uuid16: 0x1800), BluetoothUUID(uuid16: 0x1801), BluetoothUUID(uuid16: 0x180A)])
        #expect(uuids[16] == BluetoothUUID(uuid16: 0x112E))
        #expect(uuids[17].uuidString == "03b80e5a-ede8-4b33-a751-6ce34ec4c700")
        #expect(uuids[18].uuidString == "00005005-0000-1000-8000-0002ee000001")
        #expect(uuids[18].width == .bits128 && uuids[18].name == nil)
    }

    /// real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log frame 18222, EIR of a
    /// Samsung phone. tshark: Device Name: Bd's A54; 16-bit Service Class UUIDs: OBEX Object Push
    /// (0x1105) … Message Access Server (0x1132) (12); 32-bit and 128-bit lists (Length 1);
    /// Manufacturer Specific: Samsung Electronics Co. Ltd. (0x0075), Data: 0209010000000101…
    @Test func samsungEIRWithManufacturerData() throws {
        let data = Self.eir("""
            09 09 42 64 27 73 20 41 35 34 19 03 05 11 0a 11 0c 11 0e 11 12 11 15 11 16 11 1f 11 2d 11
            2f 11 00 12 32 11 01 05 01 07 28 ff 75 00 02 09 01 00 00 00 01 01 00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00 00 00 00 00 5b 50 68 6f 6e 65 5d 20
            """)
        let r = ADParser.parse(data, baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.localName == "Bd's A54")
        #expect(r.serviceUUIDs.count == 12)
        #expect(r.serviceUUIDs.last?.description == "Message Access Server (0x1132)")
        let m = try #require(r.manufacturerData.first)
        #expect(m.companyID == 0x0075)
        #expect(m.companyName == "Samsung Electronics Co. Ltd.")
        #expect(m.data.count == 37)
        #expect(Array(m.data.suffix(9)) == Array("[Phone] ".utf8) + [0x00])
    }

    /// real/bbmp__AndroidPad__btsnoop_hci.cfa frame 55: a Rockchip rk3566 tablet writes a 128-bit
    /// list of Length 129 holding eight all-zero UUIDs. Odd but well-formed (128 = 8 × 16).
    /// tshark: Device Name: rk3566; 16-bit and 32-bit lists (Length 1); 128-bit Service Class UUIDs
    /// (Length 129): 8 × Custom UUID 00000000-0000-0000-0000-000000000000; Unused
    @Test func rockchipEIRWithZeroUUIDs() {
        let r = ADParser.parse(Self.eir("07 09 72 6b 33 35 36 36 01 03 01 05 81 07"), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.structures.count == 4)
        #expect(r.structures[3].data.count == 128)
        #expect(r.serviceUUIDs == [BluetoothUUID(high: 0, low: 0)])  // eight copies, deduplicated
        guard case .serviceUUIDs(let all, complete: true) = r.structures[3].value else {
            Issue.record("not a UUID list")
            return
        }
        #expect(all.count == 8)
    }

    /// BlueZ unit/test-eir.c "macbookair": name "Marcel’s MacBook Air" (with U+2019), eight 16-bit
    /// UUIDs (0x110a twice), Apple manufacturer data "\x01MacBookAir3,1".
    @Test func bluezMacBookAirEIR() throws {
        let data = Self.eir("""
            17 09 4d 61 72 63 65 6c e2 80 99 73 20 4d 61 63 42 6f 6f 6b 20 41 69 72 11 03 12 11 0c 11
            0a 11 1f 11 01 11 00 10 0a 11 17 11 11 ff 4c 00 01 4d 61 63 42 6f 6f 6b 41 69 72 33 2c 31
            """)
        let r = ADParser.parse(data, baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.localName == "Marcel\u{2019}s MacBook Air")
        #expect(r.txPower == nil)
        // BlueZ's expected list, in order; the duplicate 0x110a appears once.
        #expect(r.serviceUUIDs.map(\.uuidString) == [
            "00001112-0000-1000-8000-00805f9b34fb", "0000110c-0000-1000-8000-00805f9b34fb",
            "0000110a-0000-1000-8000-00805f9b34fb", "0000111f-0000-1000-8000-00805f9b34fb",
            "00001101-0000-1000-8000-00805f9b34fb", "00001000-0000-1000-8000-00805f9b34fb",
            "00001117-0000-1000-8000-00805f9b34fb",
        ])
        let apple = try #require(r.manufacturerData.first)
        #expect(apple.companyID == 0x004C && apple.iBeacon == nil)
        #expect(apple.data == [0x01] + Array("MacBookAir3,1".utf8))
    }

    /// BlueZ unit/test-eir.c "bh907": Nokia Reaction BH-907, Tx Power 4, seven 16-bit UUIDs.
    @Test func bluezNokiaHeadsetEIR() {
        let data = Self.eir("""
            16 09 4e 6f 6b 69 61 20 52 65 61 63 74 69 6f 6e 20 42 48 2d 39 30 37 02 0a 04 0f 02 0d 11
            0b 11 0e 11 0f 11 1e 11 08 11 31 11
            """)
        let r = ADParser.parse(data, baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.localName == "Nokia Reaction BH-907")
        #expect(r.txPower == 4)
        #expect(r.structures[1].valueDescription == "4 dBm")
        #expect(r.serviceUUIDs.compactMap(\.uuid16) == [0x110D, 0x110B, 0x110E, 0x110F, 0x111E, 0x1108, 0x1131])
        // Incomplete list: 0x02.
        #expect(r.structures[2].name == "Incomplete List of 16-bit Service or Service Class UUIDs")
    }

    // MARK: LE advertising data

    /// BlueZ unit/test-eir.c "citizen1" and "citizen2" (advertising + scan response of a Citizen
    /// Eco-Drive Proximity watch): Flags 0x05, Peripheral Connection Interval Range 0x017f–0x018f,
    /// name; then Tx Power 0 and a 128-bit UUID 2d45b460-8db7-11e1-9a46-0002a5d5c51b.
    @Test func bluezCitizenWatch() {
        let adv = ADParser.parse(Fixtures.hex("""
            02 01 05 05 12 7f 01 8f 01 14 09 45 63 6f 2d 44 72 69 76 65 20 50 72 6f 78 69 6d 69 74 79
            """), baseOffset: 0)
        #expect(adv.malformed.isEmpty)
        #expect(adv.flags == [.leLimitedDiscoverableMode, .brEdrNotSupported])
        #expect(adv.structures[0].valueDescription == "0x05 (LE Limited Discoverable Mode, BR/EDR Not Supported)")
        #expect(adv.structures[1].value == .peripheralConnectionIntervalRange(min: 0x017F, max: 0x018F))
        #expect(adv.structures[1].valueDescription == "0x017f (478.75 ms) to 0x018f (498.75 ms)")
        #expect(adv.localName == "Eco-Drive Proximity")

        let scan = ADParser.parse(Fixtures.hex("02 0a 00 11 07 1b c5 d5 a5 02 00 46 9a e1 11 b7 8d 60 b4 45 2d"), baseOffset: 0)
        #expect(scan.malformed.isEmpty)
        #expect(scan.txPower == 0)
        #expect(scan.flags == nil)
        #expect(scan.serviceUUIDs.map(\.uuidString) == ["2d45b460-8db7-11e1-9a46-0002a5d5c51b"])
    }

    /// real/Matheus-Garbelini__sweyntooth_…_crash_llid.pcapng frame 53 (ADV_IND over the air).
    /// tshark: Flags: BR/EDR Not Supported, LE General Discoverable Mode;
    /// Manufacturer Specific: Apple, Inc. (0x004c), Data: 0215ef09000011d642ba93b89dd7ec090aa900027a2dc8
    @Test func appleIBeacon() throws {
        let r = ADParser.parse(Fixtures.hex("""
            02 01 06 1a ff 4c 00 02 15 ef 09 00 00 11 d6 42 ba 93 b8 9d d7 ec 09 0a a9 00 02 7a 2d c8
            """), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.flags == [.leGeneralDiscoverableMode, .brEdrNotSupported])
        let beacon = try #require(r.manufacturerData.first?.iBeacon)
        #expect(beacon.proximityUUID.uuidString == "ef090000-11d6-42ba-93b8-9dd7ec090aa9")
        #expect(beacon.major == 2)
        #expect(beacon.minor == 0x7A2D)
        #expect(beacon.measuredPower == -56)
        #expect(r.structures[1].valueDescription
            == "Apple, Inc. (0x004c): iBeacon ef090000-11d6-42ba-93b8-9dd7ec090aa9 major 2 minor 31277 measured power -56 dBm")
        let detail = r.structures[1].fields
        #expect(detail.map(\.name) == ["Company", "Data", "iBeacon"])
        #expect(detail[2].children.map(\.value) == ["ef090000-11d6-42ba-93b8-9dd7ec090aa9", "2", "31277", "-56 dBm"])
    }

    /// real/AleBonora3__Tesi_BLE__Lv4_passkey.pcapng frame 856. tshark:
    /// Manufacturer Specific: Microsoft (0x0006), Data: 0109202245463a0a3b347b510c6b519d5e065d0e62fa492cdd3778
    @Test func microsoftBeacon() throws {
        let r = ADParser.parse(Fixtures.hex("""
            1e ff 06 00 01 09 20 22 45 46 3a 0a 3b 34 7b 51 0c 6b 51 9d 5e 06 5d 0e 62 fa 49 2c dd 37 78
            """), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        let m = try #require(r.manufacturerData.first)
        #expect(m.companyName == "Microsoft")
        #expect(m.data.count == 27)
        #expect(r.structures[0].valueDescription == "Microsoft (0x0006): 0109202245463a0a3b347b510c6b519d5e065d0e62fa492cdd3778")
    }

    /// real/csacca__horizon-74-at-ble__btsnoop_hci.log frame 182. tshark:
    ///   Device Name: HPA8350B
    ///   Slave Connection Interval Range: 100 - 3000 msec (Min: 80, Max: 2400)
    ///   Tx Power Level: 0
    @Test func connectionIntervalRange() {
        let r = ADParser.parse(Fixtures.hex("09 09 48 50 41 38 33 35 30 42 05 12 50 00 60 09 02 0a 00"), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.localName == "HPA8350B")
        #expect(r.structures[1].name == "Peripheral Connection Interval Range")
        #expect(r.structures[1].valueDescription == "0x0050 (100 ms) to 0x0960 (3000 ms)")
        #expect(r.txPower == 0)
    }

    /// real/crossnite__NovaX-Escooter__btsnoop_hci.log frame 1060. tshark:
    ///   Flags: Simultaneous … (Host): true, (Controller): true, LE General Discoverable Mode: true
    ///   Manufacturer Specific: LG Electronics (0x00c4), Data: 083315131780
    ///   Tx Power Level: -44
    ///   16-bit Service Class UUIDs: LG Electronics (0xfeb9)
    ///   LE Bluetooth Device Address: Type: Public (0x0), BD_ADDR: 60:8d:26:0c:32:87
    /// tshark reads the address-type octet first. CSS Part A §1.16 puts the 6 address octets
    /// first and the type octet last (so do BlueZ's eir_parse and btmon), which gives address
    /// 8d:26:0c:32:87:00 and a type octet 0x60: public, with reserved bits set. (The device itself
    /// evidently wrote type-first: 60:8d:26 is an Arcadyan OUI.) We follow the spec and show the
    /// reserved bits.
    @Test func leBluetoothDeviceAddress() {
        let r = ADParser.parse(Fixtures.hex("""
            02 01 1a 09 ff c4 00 08 33 15 13 17 80 02 0a d4 03 03 b9 fe 08 1b 00 87 32 0c 26 8d 60
            """), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.flags == [.leGeneralDiscoverableMode, .simultaneousLEAndBREDRController, .simultaneousLEAndBREDRHost])
        #expect(r.manufacturerData == [ManufacturerData(companyID: 0x00C4, data: Fixtures.hex("08 33 15 13 17 80"))])
        #expect(r.txPower == -44)
        #expect(r.serviceUUIDs.first?.description == "LG Electronics (0xfeb9)")
        #expect(r.serviceUUIDs.first?.kind == .memberService)
        #expect(r.structures[4].value == .leBluetoothDeviceAddress(BDAddr("8d:26:0c:32:87:00")!, isRandom: false))
        #expect(r.structures[4].valueDescription == "8d:26:0c:32:87:00 (Public, reserved bits 0x60)")
        #expect(r.structures[4].fields.map(\.value) == ["8d:26:0c:32:87:00", "Public", "0x60"])
    }

    /// real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log frame 1195. tshark:
    ///   Flags: BR/EDR Not Supported, LE Limited Discoverable Mode
    ///   Appearance: Wrist Worn (0x0c42)
    ///   16-bit Service Class UUIDs: Tencent Holdings Limited. (0xfee7)
    ///   Device Name: C60
    @Test func appearance() {
        let r = ADParser.parse(Fixtures.hex("02 01 05 03 19 42 0c 03 03 e7 fe 04 09 43 36 30"), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.appearance == Appearance(rawValue: 0x0C42))
        #expect(r.appearance?.categoryName == "Pulse Oximeter")
        #expect(r.structures[1].valueDescription == "Wrist Worn Pulse Oximeter (0x0c42)")
        #expect(r.structures[1].fields.map(\.value) == ["Pulse Oximeter (0x031)", "0x02"])
        #expect(r.serviceUUIDs.first?.name == "Tencent Holdings Limited.")
        #expect(r.localName == "C60")
    }

    /// real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log frame 1843. tshark:
    ///   List of 128-bit Service Solicitation UUIDs: 7905f431-b5ce-4e99-a40f-4b1e122d00d0 (Unknown)
    ///   Manufacturer Specific: Unknown (0xf0ef), Data: da4471376df6
    /// (We name the UUID: it is Apple's Notification Center Service.)
    @Test func solicitationAndUnknownCompany() {
        let r = ADParser.parse(Fixtures.hex("""
            11 15 d0 00 2d 12 1e 4b 0f a4 99 4e ce b5 31 f4 05 79 09 ff ef f0 da 44 71 37 6d f6
            """), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.serviceUUIDs.isEmpty)
        #expect(r.solicitedServiceUUIDs.map(\.description)
            == ["Apple Notification Center Service (7905f431-b5ce-4e99-a40f-4b1e122d00d0)"])
        #expect(r.structures[1].valueDescription == "Unknown (0xf0ef): da4471376df6")
    }

    /// real/soaresden__IX7TrackerPro__btsnoop_hci.log frame 3486. tshark: Mesh Beacon (0x2b),
    /// Length 23 (no further decode). Mesh Protocol §3.10.3: Secure Network beacon: flags 0x00,
    /// Network ID 9e155bf188bc98ad, IV Index 0, Authentication Value cb3e54ae6bdb535e.
    @Test func meshBeacon() {
        let r = ADParser.parse(Fixtures.hex("17 2b 01 00 9e 15 5b f1 88 bc 98 ad 00 00 00 00 cb 3e 54 ae 6b db 53 5e"), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        guard case .meshBeacon(let type, let rest) = r.structures[0].value else {
            Issue.record("not a mesh beacon")
            return
        }
        #expect(type == 0x01 && rest.count == 21)
        #expect(r.structures[0].valueDescription.hasPrefix("Secure Network beacon (0x01): 009e155bf188bc98ad"))
    }

    /// real/dandwhelan__fossibot-bluetooth__btsnoop_hci.log frame 271. tshark:
    ///   Tx Power Level: -9
    ///   Service Data - 16 bit UUID: Google LLC (0xfe2c), 1052d432106415215e0b2afb78c02d7f4dacd6
    ///   Flags: BR/EDR Not Supported, LE General Discoverable Mode
    ///   Service Data - 16 bit UUID: Google LLC (0xfeaa), 40c2022adaebaa7de1fc0d63538cd9ff722a2a72be9b
    @Test func googleServiceData() {
        let r = ADParser.parse(Fixtures.hex("""
            02 0a f7 16 16 2c fe 10 52 d4 32 10 64 15 21 5e 0b 2a fb 78 c0 2d 7f 4d ac d6 02 01 06 19 16
            aa fe 40 c2 02 2a da eb aa 7d e1 fc 0d 63 53 8c d9 ff 72 2a 2a 72 be 9b
            """), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.txPower == -9)
        #expect(r.serviceData.map(\.uuid) == [BluetoothUUID(uuid16: 0xFE2C), BluetoothUUID(uuid16: 0xFEAA)])
        #expect(r.serviceData[0].data == Fixtures.hex("10 52 d4 32 10 64 15 21 5e 0b 2a fb 78 c0 2d 7f 4d ac d6"))
        #expect(r.structures[1].valueDescription == "Fast Pair Service (0xfe2c): 1052d432106415215e0b2afb78c02d7f4dacd6")
        #expect(r.structures[3].name == "Service Data - 16-bit UUID")
        #expect(r.structures[3].valueDescription == "Eddystone (0xfeaa): 40c2022adaebaa7de1fc0d63538cd9ff722a2a72be9b")
    }

    /// scenarios/advertising_no_connection.btsnoop frame 39. tshark:
    ///   Flags: BR/EDR Not Supported, LE General Discoverable Mode
    ///   16-bit Service Class UUIDs: Apple, Inc. (0xfd6f); Device Name: Plug-Mini 3
    ///   Service Data - 16 bit UUID: Apple, Inc. (0xfd6f) — then "Rolling Proximity Identifier:
    ///   fd0c09506c75672d4d696e6920330516", i.e. tshark's Exposure Notification decoder reads from
    ///   the start of the advertising data, outside this 5-octet structure. The structure's data
    ///   is 0xfd6f followed by 01 64; we report exactly that.
    @Test func exposureNotificationServiceData() {
        let r = ADParser.parse(Fixtures.hex("02 01 06 03 03 6f fd 0c 09 50 6c 75 67 2d 4d 69 6e 69 20 33 05 16 6f fd 01 64"), baseOffset: 8)
        #expect(r.malformed.isEmpty)
        #expect(r.structures.map(\.offset) == [8, 11, 15, 28])
        #expect(r.localName == "Plug-Mini 3")
        #expect(r.serviceData == [ServiceData(uuid: BluetoothUUID(uuid16: 0xFD6F), data: [0x01, 0x64])])
        #expect(r.structures[3].valueDescription == "Exposure Notification Service (0xfd6f): 0164")
    }

    /// scenarios/bad_scan_duplicates.btsnoop frame 47. tshark: Service Data - 16 bit UUID:
    /// Google LLC (0xfeaa), Service Data: 10ee0373616d706c6507 (an Eddystone-URL frame).
    @Test func eddystoneURLServiceData() {
        let r = ADParser.parse(Fixtures.hex("0d 16 aa fe 10 ee 03 73 61 6d 70 6c 65 07"), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.serviceData.first?.uuid.name == "Eddystone")
        #expect(r.serviceData.first?.data == Fixtures.hex("10 ee 03 73 61 6d 70 6c 65 07"))
        #expect(r.structures[0].fields.map(\.name) == ["UUID", "Data"])
    }

    // MARK: Types with no capture in the corpus: bytes built from the CSS Part A field layouts

    /// CSS Part A §1.18 (URI): the first UTF-8 code point is the scheme (Assigned Numbers §2.7);
    /// U+0017 "https:", U+00BB "bluetooth:" (two UTF-8 octets c2 bb), U+0001 "no scheme".
    @Test func uriSchemes() throws {
        let https = ADParser.parse([0x15, 0x24, 0x17] + Array("//www.bluetooth.com".utf8), baseOffset: 0)
        #expect(https.malformed.isEmpty)
        let uri = try #require(https.uri)
        #expect(uri.schemeCode == 0x17 && uri.scheme == "https:")
        #expect(uri.uri == "https://www.bluetooth.com")
        #expect(https.structures[0].valueDescription == "https://www.bluetooth.com")
        #expect(https.structures[0].fields.map(\.value) == ["https: (U+0017)", "https://www.bluetooth.com"])

        let twoOctetCode = ADParser.parse([0x09, 0x24, 0xC2, 0xBB] + Array("//abcd".utf8), baseOffset: 0)
        #expect(twoOctetCode.uri?.uri == "bluetooth://abcd")

        let noScheme = ADParser.parse([0x0D, 0x24, 0x01] + Array("tel:+123456".utf8), baseOffset: 0)
        #expect(noScheme.uri?.scheme == nil)
        #expect(noScheme.uri?.uri == "tel:+123456")

        let unassigned = ADParser.parse([0x06, 0x24, 0xC3, 0xB0, 0x2F, 0x2F, 0x78], baseOffset: 0)
        #expect(unassigned.malformed.isEmpty)
        #expect(unassigned.structures[0].valueDescription == "<scheme U+F0>//x")
    }

    /// CSS Part A §1.15 / §1.17 / §1.13: Advertising Interval 0x0800 (1.28 s), Advertising
    /// Interval - long 0x000C80 (2 s), LE Role 0x02, Random Target Address.
    @Test func intervalsRoleAndTargets() {
        let r = ADParser.parse(Fixtures.hex("03 1a 00 08 04 2f 80 0c 00 02 1c 02 07 18 66 55 44 33 22 c1"), baseOffset: 0)
        #expect(r.malformed.isEmpty)
        #expect(r.advertisingInterval == 0x0800)
        #expect(r.structures[0].valueDescription == "0x0800 (1280 ms)")
        #expect(r.structures[1].valueDescription == "0x000c80 (2000 ms)")
        #expect(r.leRole == .bothPeripheralPreferred)
        #expect(r.structures[2].valueDescription
            == "Peripheral and Central Role supported, Peripheral Role preferred for connection establishment (0x02)")
        #expect(r.structures[3].value == .targetAddresses([BDAddr("c1:22:33:44:55:66")!]))
    }

    /// Every AD type of the Assigned Numbers renders (name, one-line value, fields) without
    /// trapping, for data of every length 0…40.
    @Test func everyTypeRendersAtEveryLength() {
        for type in ADType.allAssigned.map(\.rawValue) + [0x00, 0x13, 0x33, 0x40, 0xFE] {
            for n in 0...40 {
                let s = ADStructure(type: type, data: (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 0xC1) }, offset: 0)
                _ = s.value
                #expect(!s.name.isEmpty)
                _ = s.valueDescription
                _ = s.field
            }
        }
    }
}
