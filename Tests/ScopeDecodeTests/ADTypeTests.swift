import ScopeCore
import Testing

@testable import ScopeDecode

/// ADType completeness against Assigned Numbers §2.3 "Common Data Types" (ad_types.yaml, last
/// modified 2024-06-13; the list in the 2026-06-23 document).
@Suite("AD types")
struct ADTypeTests {
    /// The Assigned Numbers table, code and name, verbatim. 0x10 has two rows (Device ID in EIR,
    /// Security Manager TK Value in OOB data); ADType names it with both.
    static let assignedNumbers: [(UInt8, String)] = [
        (0x01, "Flags"),
        (0x02, "Incomplete List of 16-bit Service or Service Class UUIDs"),
        (0x03, "Complete List of 16-bit Service or Service Class UUIDs"),
        (0x04, "Incomplete List of 32-bit Service or Service Class UUIDs"),
        (0x05, "Complete List of 32-bit Service or Service Class UUIDs"),
        (0x06, "Incomplete List of 128-bit Service or Service Class UUIDs"),
        (0x07, "Complete List of 128-bit Service or Service Class UUIDs"),
        (0x08, "Shortened Local Name"),
        (0x09, "Complete Local Name"),
        (0x0A, "Tx Power Level"),
        (0x0D, "Class of Device"),
        (0x0E, "Simple Pairing Hash C-192"),
        (0x0F, "Simple Pairing Randomizer R-192"),
        (0x10, "Device ID / Security Manager TK Value"),
        (0x11, "Security Manager Out of Band Flags"),
        (0x12, "Peripheral Connection Interval Range"),
        (0x14, "List of 16-bit Service Solicitation UUIDs"),
        (0x15, "List of 128-bit Service Solicitation UUIDs"),
        (0x16, "Service Data - 16-bit UUID"),
        (0x17, "Public Target Address"),
        (0x18, "Random Target Address"),
        (0x19, "Appearance"),
        (0x1A, "Advertising Interval"),
        (0x1B, "LE Bluetooth Device Address"),
        (0x1C, "LE Role"),
        (0x1D, "Simple Pairing Hash C-256"),
        (0x1E, "Simple Pairing Randomizer R-256"),
        (0x1F, "List of 32-bit Service Solicitation UUIDs"),
        (0x20, "Service Data - 32-bit UUID"),
        (0x21, "Service Data - 128-bit UUID"),
        (0x22, "LE Secure Connections Confirmation Value"),
        (0x23, "LE Secure Connections Random Value"),
        (0x24, "URI"),
        (0x25, "Indoor Positioning"),
        (0x26, "Transport Discovery Data"),
        (0x27, "LE Supported Features"),
        (0x28, "Channel Map Update Indication"),
        (0x29, "PB-ADV"),
        (0x2A, "Mesh Message"),
        (0x2B, "Mesh Beacon"),
        (0x2C, "BIGInfo"),
        (0x2D, "Broadcast_Code"),
        (0x2E, "Resolvable Set Identifier"),
        (0x2F, "Advertising Interval - long"),
        (0x30, "Broadcast_Name"),
        (0x31, "Encrypted Advertising Data"),
        (0x32, "Periodic Advertising Response Timing Information"),
        (0x34, "Electronic Shelf Label"),
        (0x3D, "3D Information Data"),
        (0xFF, "Manufacturer Specific Data"),
    ]

    @Test func everyAssignedTypeHasItsName() {
        for (code, name) in Self.assignedNumbers {
            #expect(ADType(code).name == name, "0x\(String(code, radix: 16))")
        }
    }

    @Test func noOtherCodeHasAName() {
        #expect(ADType.allAssigned.map(\.rawValue) == Self.assignedNumbers.map(\.0))
        #expect(Set(ADType.allAssigned.compactMap(\.name)).count == Self.assignedNumbers.count)
    }

    @Test func descriptions() {
        #expect(ADType.completeLocalName.description == "Complete Local Name (0x09)")
        #expect(ADType(0x4C).description == "Unknown (0x4c)")
        #expect(ADType(0x4C).name == nil)
        #expect(ADType.manufacturerSpecificData.rawValue == 0xFF)
        #expect(ADType.deviceID == ADType.securityManagerTKValue)
    }

    @Test func structureNamePicksDeviceIDOrTKByLength() {
        #expect(ADStructure(type: 0x10, data: [UInt8](repeating: 0, count: 8), offset: 0).name == "Device ID")
        #expect(ADStructure(type: 0x10, data: [UInt8](repeating: 0, count: 16), offset: 0).name == "Security Manager TK Value")
        #expect(ADStructure(type: 0x10, data: [1, 2], offset: 0).name == "Device ID / Security Manager TK Value")
    }

    @Test func flagsNames() {
        let f: ADFlags = [.leGeneralDiscoverableMode, .brEdrNotSupported]
        #expect(f.rawValue == 0x06)
        #expect(f.description == "0x06 (LE General Discoverable Mode, BR/EDR Not Supported)")
        #expect(ADFlags(rawValue: 0xFF).setNames.count == 5)
        #expect(ADFlags(rawValue: 0xFF).reservedBits == 0xE0)
        #expect(ADFlags(rawValue: 0x21).description == "0x21 (LE Limited Discoverable Mode, reserved 0x20)")
    }

    @Test func leRoleAndOOBFlags() {
        #expect(LERole(rawValue: 0x00).description == "Only Peripheral Role supported (0x00)")
        #expect(LERole(rawValue: 0x04).description == "Unknown (0x04)")
        #expect(SecurityManagerOOBFlags(rawValue: 0x0B).description
            == "0x0b (OOB data present, LE supported (Host), Random Address)")
    }
}
