import Testing

@testable import ScopeDecode

/// The generated tables (Scripts/gen-assigned-numbers.py) and the lookups over them.
@Suite("Assigned numbers")
struct AssignedNumbersTests {
    // MARK: Table shape: non-empty, parallel, strictly ascending (sorted, no duplicate ids)

    @Test func companyTableIsSortedAndUnique() {
        let ids = AssignedNumbers.companyIDs
        #expect(ids.count > 3000)
        #expect(ids.count == AssignedNumbers.companyNames.count)
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func uuid16TableIsSortedAndUnique() {
        let values = AssignedNumbers.uuid16Values
        #expect(values.count > 500)
        #expect(values.count == AssignedNumbers.uuid16Names.count)
        #expect(values.count == AssignedNumbers.uuid16Kinds.count)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
        #expect(AssignedNumbers.uuid16Names.allSatisfy { !$0.isEmpty })
    }

    @Test func uuid128TableIsSortedAndUniquePerKind() {
        let n = AssignedNumbers.uuid128High.count
        #expect(n > 100)
        #expect(AssignedNumbers.uuid128Low.count == n)
        #expect(AssignedNumbers.uuid128Names.count == n)
        #expect(AssignedNumbers.uuid128Kinds.count == n)
        let kindOrder = Dictionary(uniqueKeysWithValues: UUIDKind.allCases.enumerated().map { ($1, $0) })
        for i in 1..<n {
            let a = (AssignedNumbers.uuid128High[i - 1], AssignedNumbers.uuid128Low[i - 1], kindOrder[AssignedNumbers.uuid128Kinds[i - 1]] ?? -1)
            let b = (AssignedNumbers.uuid128High[i], AssignedNumbers.uuid128Low[i], kindOrder[AssignedNumbers.uuid128Kinds[i]] ?? -1)
            #expect(a < b, "row \(i) out of order")
        }
        // None of the vendor UUIDs is a Base-UUID short form written long (those go to the 16-bit table).
        for i in 0..<n {
            #expect(!BluetoothUUID(high: AssignedNumbers.uuid128High[i], low: AssignedNumbers.uuid128Low[i]).isBaseDerived)
        }
    }

    @Test func appearanceTablesAreSortedAndUnique() {
        let values = AssignedNumbers.appearanceValues
        let categories = AssignedNumbers.appearanceCategories
        #expect(values.count > 200 && categories.count > 40)
        #expect(values.count == AssignedNumbers.appearanceNames.count)
        #expect(categories.count == AssignedNumbers.appearanceCategoryNames.count)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(categories, categories.dropFirst()).allSatisfy { $0 < $1 })
        // Every value's category is listed, and sub-category 0 carries the category's name.
        for (i, v) in values.enumerated() {
            #expect(AssignedNumbers.appearanceCategoryName(v >> 6) != nil)
            if v & 0x3F == 0 { #expect(AssignedNumbers.appearanceNames[i] == AssignedNumbers.appearanceCategoryName(v >> 6)) }
        }
    }

    @Test(arguments: [
        AssignedNumbers.companyNames, AssignedNumbers.uuid16Names, AssignedNumbers.uuid128Names,
        AssignedNumbers.appearanceNames, AssignedNumbers.appearanceCategoryNames,
    ])
    func packedStringsAreWellFormed(table: PackedStrings) {
        // Offsets ascend and end exactly at the end of the UTF-8 data; every string is valid,
        // non-empty and trimmed.
        #expect(zip(table.offsets, table.offsets.dropFirst()).allSatisfy { $0 < $1 })
        #expect(table.offsets.first == 0)
        #expect(Int(table.offsets.last ?? 0) == table.data.utf8CodeUnitCount)
        for name in table {
            #expect(!name.isEmpty && !name.contains("\u{FFFD}") && name == name.trimmingSpaces)
        }
        #expect(table[-1] == "" && table[table.count] == "")
    }

    @Test func nonASCIINamesSurvive() {
        #expect(AssignedNumbers.companyName(0x0225) == "Nestlé Nespresso S.A.")
        #expect(AssignedNumbers.companyName(0x025C) == "NetEase（Hangzhou）Network co.Ltd.")
        #expect(AssignedNumbers.companyName(0x0380) == "LLC \"MEGA-F service\"")
    }

    @Test func everyRowRoundTripsThroughItsLookup() {
        for (i, id) in AssignedNumbers.companyIDs.enumerated() {
            #expect(AssignedNumbers.companyName(id) == AssignedNumbers.companyNames[i])
        }
        for (i, u) in AssignedNumbers.uuid16Values.enumerated() {
            #expect(AssignedNumbers.uuid16Name(u) == AssignedNumbers.uuid16Names[i])
            #expect(AssignedNumbers.uuid16Kind(u) == AssignedNumbers.uuid16Kinds[i])
            #expect(BluetoothUUID(uuid16: u).name == AssignedNumbers.uuid16Names[i])
        }
        for i in AssignedNumbers.uuid128High.indices {
            let entry = AssignedNumbers.uuid128Entry(high: AssignedNumbers.uuid128High[i], low: AssignedNumbers.uuid128Low[i])
            #expect(entry != nil)
        }
    }

    // MARK: Spot checks (values from the Assigned Numbers document)

    @Test(arguments: [
        (UInt16(0x004C), "Apple, Inc."),
        (0x0006, "Microsoft"),
        (0x0000, "Ericsson AB"),
        (0x0059, "Nordic Semiconductor ASA"),
        (0x0075, "Samsung Electronics Co. Ltd."),
        (0x00E0, "Google"),
    ])
    func companyNames(id: UInt16, name: String) {
        #expect(AssignedNumbers.companyName(id) == name)
    }

    @Test func unassignedCompanyIsNil() {
        #expect(AssignedNumbers.companyName(0xF0EF) == nil)
    }

    @Test(arguments: [
        (UInt16(0x180D), "Heart Rate", UUIDKind.service),
        (0x180F, "Battery Service", .service),
        (0x1800, "Generic Access", .service),
        (0x2A37, "Heart Rate Measurement", .characteristic),
        (0x2A00, "Device Name", .characteristic),
        (0x2902, "Client Characteristic Configuration", .descriptor),
        // Corrected in the generator: the database spells it "Characteristic User Descriptor".
        (0x2901, "Characteristic User Description", .descriptor),
        // Declarations are not in the database; added from Assigned Numbers §3.6.
        (0x2800, "Primary Service", .declaration),
        (0x2801, "Secondary Service", .declaration),
        (0x2802, "Include", .declaration),
        (0x2803, "Characteristic", .declaration),
        // SDP service classes (Assigned Numbers §3.3) and member services (§3.11).
        (0x1112, "Headset Audio Gateway", .serviceClass),
        (0x1200, "PnPInformation", .serviceClass),
        (0xFEF3, "Google LLC", .memberService),
        (0xFEAA, "Eddystone", .service),
    ])
    func uuid16Names(uuid: UInt16, name: String, kind: UUIDKind) {
        #expect(AssignedNumbers.uuid16Name(uuid) == name)
        #expect(AssignedNumbers.uuid16Kind(uuid) == kind)
    }

    @Test func vendor128BitUUIDs() throws {
        let nus = try #require(BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e"))
        #expect(nus.name == "Nordic UART Service")
        #expect(nus.kind == .service)
        let ancs = try #require(BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0"))
        #expect(ancs.name == "Apple Notification Center Service")
        // One UUID listed as both a service and a characteristic: the service wins.
        let dfu = try #require(BluetoothUUID("8e400001-f315-4f60-9fb8-838830daea50"))
        #expect(dfu.kind == .service)
        #expect(BluetoothUUID("00000000-deca-fade-deca-deafdecacafe")?.name == nil)
    }

    @Test func appearanceNames() {
        #expect(AssignedNumbers.appearanceName(0x00C0) == "Watch")
        #expect(AssignedNumbers.appearanceName(0x00C1) == "Sports Watch")
        #expect(AssignedNumbers.appearanceName(0x0000) == "Unknown")
        #expect(AssignedNumbers.appearanceName(0x00C5) == nil)
        #expect(AssignedNumbers.appearanceCategoryName(3) == "Watch")
        #expect(Appearance(rawValue: 0x00C0).description == "Watch (0x00c0)")
        #expect(Appearance(rawValue: 0x00C5).description == "Watch, sub-category 0x05 (0x00c5)")
        #expect(Appearance(rawValue: 0xFFC0).description == "Unknown (0xffc0)")
    }

    // MARK: URI schemes (Assigned Numbers §2.7)

    @Test func uriSchemes() {
        #expect(AssignedNumbers.uriScheme(0x01) == nil)  // empty scheme name
        #expect(AssignedNumbers.uriScheme(0x02) == "aaa:")
        #expect(AssignedNumbers.uriScheme(0x16) == "http:")
        #expect(AssignedNumbers.uriScheme(0x17) == "https:")
        #expect(AssignedNumbers.uriScheme(0x26) == "mailto:")
        #expect(AssignedNumbers.uriScheme(0x45) == "tel:")
        #expect(AssignedNumbers.uriScheme(0xBB) == "bluetooth:")
        #expect(AssignedNumbers.uriScheme(0xBC) == "bl:")
        #expect(AssignedNumbers.uriScheme(0xBD) == nil)
        #expect(AssignedNumbers.uriScheme(0) == nil)
        #expect(AssignedNumbers.uriSchemes.count == 0xBB)
        #expect(Set(AssignedNumbers.uriSchemes).count == AssignedNumbers.uriSchemes.count)
        #expect(AssignedNumbers.uriSchemes.allSatisfy { $0.hasSuffix(":") })
    }

    // MARK: Class of Device (Assigned Numbers §2.8)

    @Test func classOfDevice() throws {
        // 0x5a020c: a smartphone (Phone major class, Smartphone minor class) with the
        // Networking, Capturing, Object Transfer and Telephony service bits.
        let cod = try #require(ClassOfDevice(littleEndian: [0x0C, 0x02, 0x5A]))
        #expect(cod.rawValue == 0x5A020C)
        #expect(cod.majorDeviceClass == 0x02)
        #expect(cod.minorDeviceClass == 0x03)
        #expect(cod.majorDeviceClassName == "Phone (cellular, cordless, pay phone, modem, ...)")
        #expect(cod.majorServiceClassNames == [
            "Networking (LAN, Ad hoc, ...)", "Capturing (Scanner, Microphone, ...)",
            "Object Transfer (v-Inbox, v-Folder, ...)", "Telephony (Cordless telephony, Modem, Headset service, ...)",
        ])
        #expect(ClassOfDevice(littleEndian: [0x0C, 0x02]) == nil)
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
