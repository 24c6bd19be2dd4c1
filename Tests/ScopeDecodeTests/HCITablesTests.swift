import ScopeCore
import Testing

@testable import ScopeDecode

/// Completeness of the HCI code tables against the spec lists, transcribed here a second time
/// from the section lists of Core v5.4 (Vol 4, Part E, §7.1–§7.8 and §7.7; Vol 1, Part F, §1.3).
@Suite("HCI code tables")
struct HCITablesTests {
    /// The indexed command layout lookup answers what the opcode-keyed table does, for every
    /// opcode.
    @Test func indexedCommandLayoutsMatchTheTable() {
        // (Mismatches collected and expected once: an expectation per opcode is slow.)
        var mismatches: [UInt16] = []
        var described = 0
        for raw in 0...UInt16.max {
            let keyed = HCICommand.layouts[raw]
            let indexed = HCICommand.layout(raw)
            if let keyed, let indexed {
                described += 1
                if keyed.summary != indexed.summary || keyed.parameters?.count != indexed.parameters?.count
                    || keyed.returns?.count != indexed.returns?.count
                    || HCICommand.parameterLayout(raw)?.count != keyed.parameters?.count
                    || HCICommand.returnLayout(raw)?.count != keyed.returns?.count
                {
                    mismatches.append(raw)
                }
            } else if keyed != nil || indexed != nil || HCICommand.parameterLayout(raw) != nil
                || HCICommand.returnLayout(raw) != nil
            {
                mismatches.append(raw)
            }
        }
        #expect(mismatches.isEmpty, "opcodes \(mismatches.map { Hex.prefixed($0, digits: 4) })")
        #expect(described == HCICommand.layouts.count)
    }

    // MARK: Opcodes

    /// OCFs per OGF, from the section lists of Core v5.4, Vol 4, Part E, §7.1–§7.8.
    static let specOpcodes: [UInt8: [UInt16]] = [
        // §7.1.1–§7.1.45
        0x01: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x11, 0x13, 0x15,
               0x17, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1F, 0x20, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x30,
               0x33, 0x34, 0x3D, 0x3E, 0x3F, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45],
        // §7.2.1–§7.2.12
        0x02: [0x01, 0x03, 0x04, 0x07, 0x09, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11],
        // §7.3
        0x03: [0x01, 0x03, 0x05, 0x08, 0x09, 0x0A, 0x0D, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A,
               0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D,
               0x2E, 0x2F, 0x31, 0x33, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x3F, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
               0x48, 0x49, 0x51, 0x52, 0x53, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x5B, 0x5F, 0x60, 0x63, 0x66, 0x67,
               0x68, 0x6C, 0x6D, 0x6E, 0x6F, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x7B,
               0x7C, 0x7D, 0x7E, 0x7F, 0x80, 0x81, 0x82, 0x83, 0x84],
        // §7.4
        0x04: [0x01, 0x02, 0x03, 0x04, 0x05, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F],
        // §7.5
        0x05: [0x01, 0x02, 0x03, 0x05, 0x06, 0x07, 0x08, 0x0C, 0x0D],
        // §7.6
        0x06: [0x01, 0x02, 0x03, 0x04, 0x0A],
        // §7.8: 0x0001–0x007F except 0x0004, then 0x0082–0x0086 (PAwR, ext create connection v2)
        0x08: (UInt16(0x01)...0x7F).filter { $0 != 0x04 } + [0x82, 0x83, 0x84, 0x85, 0x86],
    ]

    @Test("every Core v5.4 command has a name, per group count matches the spec list")
    func opcodeCompleteness() {
        var total = 0
        for (ogf, ocfs) in Self.specOpcodes {
            total += ocfs.count
            for ocf in ocfs {
                let op = HCIOpcode(ogf: ogf, ocf: ocf)
                #expect(op.name != nil, "missing name for \(op.description)")
            }
            let v6 = Set(HCIOpcode.leControllerV6.map(\.ocf))
            let inTable = HCIOpcode.table.filter { $0.ogf == ogf && !(ogf == 0x08 && v6.contains($0.ocf)) }
            #expect(Set(inTable.map(\.ocf)) == Set(ocfs), "OGF \(ogf): table and spec list differ")
            #expect(inTable.count == ocfs.count, "OGF \(ogf): table \(inTable.count), spec \(ocfs.count)")
        }
        #expect(total == 308)
        #expect(HCIOpcode.table.count == 308 + HCIOpcode.leControllerV6.count)
    }

    @Test("opcode table has no duplicate codes or names")
    func opcodeUniqueness() {
        let keys = HCIOpcode.table.map { HCIOpcode(ogf: $0.ogf, ocf: $0.ocf).rawValue }
        #expect(Set(keys).count == keys.count)
        let names = HCIOpcode.table.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(HCIOpcode.names.count == HCIOpcode.table.count)
    }

    @Test("opcode description is btmon style", arguments: [
        (UInt16(0x200C), "LE Set Scan Enable (0x08|0x000c)"),
        (UInt16(0x0C03), "Reset (0x03|0x0003)"),
        (UInt16(0xFD57), "Vendor (0x3f|0x0157)"),
        (UInt16(0x20FF), "Unknown (0x08|0x00ff)"),
        (UInt16(0x0000), "NOP (0x00|0x0000)"),
        (UInt16(0x2019), "LE Enable Encryption (0x08|0x0019)"),
    ])
    func opcodeDescription(raw: UInt16, text: String) {
        let op = HCIOpcode(rawValue: raw)
        #expect(op.description == text)
        #expect(HCIOpcode(ogf: op.ogf, ocf: op.ocf) == op)
    }

    @Test("OGF/OCF split and vendor flag")
    func opcodeFields() {
        let op = HCIOpcode(rawValue: 0xFD57)
        #expect(op.ogf == 0x3F)
        #expect(op.ocf == 0x157)
        #expect(op.isVendor)
        #expect(op.name == nil)
        #expect(!HCIOpcode.leSetScanEnable.isVendor)
        #expect(HCIOpcode.leSetScanEnable.rawValue == 0x200C)
        #expect(HCIOpcode.leExtendedCreateConnectionV2.rawValue == 0x2085)
    }

    // MARK: Events

    /// Core v5.4, Vol 4, Part E, §7.7 event codes.
    static let specEvents: [UInt8] =
        Array(0x01...0x1E) + [0x20, 0x21, 0x22, 0x23] + Array(0x2C...0x36) + [0x38, 0x39, 0x3B, 0x3C, 0x3D, 0x3E, 0x48]
        + Array(0x4E...0x59)

    @Test("every Core v5.4 event has a name")
    func eventCompleteness() {
        #expect(Self.specEvents.count == 64)
        for code in Self.specEvents {
            #expect(HCIEventCode(rawValue: code).name != nil, "missing event \(code)")
        }
        #expect(HCIEventCode.table.count == 64 + 1)  // + 0xFF vendor
        #expect(HCIEventCode.vendor.name == "Vendor")
        let names = HCIEventCode.table.map(\.1)
        #expect(Set(names).count == names.count)
        #expect(Set(HCIEventCode.table.map(\.0)).count == HCIEventCode.table.count)
    }

    @Test("event descriptions", arguments: [
        (UInt8(0x05), "Disconnection Complete (0x05)"),
        (UInt8(0x3E), "LE Meta (0x3e)"),
        (UInt8(0x59), "Encryption Change [v2] (0x59)"),
        (UInt8(0x4A), "Unknown (0x4a)"),
        (UInt8(0x1F), "Unknown (0x1f)"),
    ])
    func eventDescription(raw: UInt8, text: String) {
        #expect(HCIEventCode(rawValue: raw).description == text)
    }

    // MARK: LE subevents

    @Test("every Core v5.4 LE Meta subevent 0x01–0x29 has a name; v6.0 ones are named too")
    func subeventCompleteness() {
        for code in UInt8(0x01)...0x29 {
            #expect(LESubevent(rawValue: code).name != nil)
        }
        #expect(LESubevent.table.count == 0x29)
        #expect(LESubevent.tableV6.map(\.0) == Array(0x2A...0x35))
        let all = LESubevent.table + LESubevent.tableV6
        #expect(Set(all.map(\.1)).count == all.count)
        #expect(Set(all.map(\.0)).count == all.count)
        #expect(LESubevent(rawValue: 0x00).description == "Unknown (0x00)")
        #expect(LESubevent(rawValue: 0x36).description == "Unknown (0x36)")
        #expect(LESubevent.extendedAdvertisingReport.description == "LE Extended Advertising Report (0x0d)")
    }

    // MARK: Status

    @Test("every Core v5.4 error code has a name")
    func statusCompleteness() {
        let reserved: Set<UInt8> = [0x2B, 0x31, 0x33, 0x3F]
        let spec = (UInt8(0x00)...0x45).filter { !reserved.contains($0) }
        #expect(spec.count == 66)
        for code in spec { #expect(HCIStatus(rawValue: code).name != nil, "missing status \(code)") }
        for code in reserved { #expect(HCIStatus(rawValue: code).name == nil) }
        #expect(HCIStatus.table.count == 66)
        let all = HCIStatus.table + HCIStatus.tableV6
        #expect(Set(all.map(\.1)).count == all.count)
    }

    @Test("status descriptions", arguments: [
        (UInt8(0x00), "Success (0x00)"),
        (UInt8(0x02), "Unknown Connection Identifier (0x02)"),
        (UInt8(0x08), "Connection Timeout (0x08)"),
        (UInt8(0x13), "Remote User Terminated Connection (0x13)"),
        (UInt8(0x3E), "Connection Failed to be Established / Synchronization Timeout (0x3e)"),
        (UInt8(0x2B), "Unknown (0x2b)"),
        (UInt8(0xEE), "Unknown (0xee)"),
    ])
    func statusDescription(raw: UInt8, text: String) {
        #expect(HCIStatus(rawValue: raw).description == text)
    }

    // MARK: Layout tables

    @Test("every layout row names a known code")
    func layoutsNameKnownCodes() {
        for key in HCICommand.layouts.keys {
            // Vendor commands with a known layout (Android's) keep the vendor label, as btmon and tshark print them.
            #expect(HCIOpcode(rawValue: key).name != nil || HCIOpcode(rawValue: key).isVendor, "layout for unnamed opcode \(key)")
        }
        for key in HCIEvent.layouts.keys { #expect(HCIEventCode(rawValue: key).name != nil) }
        for key in HCIEvent.leLayouts.keys { #expect(LESubevent(rawValue: key).name != nil) }
        let commandRows = HCICommand.linkControlLayouts + HCICommand.linkPolicyLayouts + HCICommand.basebandLayouts
            + HCICommand.informationalLayouts + HCICommand.statusLayouts + HCICommand.leScanAdvertisingLayouts
            + HCICommand.leConnectionLayouts + HCICommand.leSecurityLayouts + HCICommand.leMiscLayouts
        #expect(commandRows.count == HCICommand.layouts.count, "duplicate command layout rows")
        #expect(HCIEvent.eventLayouts.count == HCIEvent.layouts.count, "duplicate event layout rows")
        #expect(HCIEvent.leEventLayouts.count == HCIEvent.leLayouts.count, "duplicate subevent layout rows")
    }

    @Test("every summary field names a parameter of its layout")
    func summaryFieldsExist() {
        func names(_ layout: [ParamField]) -> Set<String> { Set(layout.map(\.name)) }
        for (op, row) in HCICommand.layouts {
            let available = names(row.parameters ?? [])
            for s in row.summary { #expect(available.contains(s), "\(HCIOpcode(rawValue: op)): \(s)") }
        }
        for (code, row) in HCIEvent.layouts {
            for s in row.summary { #expect(names(row.parameters).contains(s), "event \(code): \(s)") }
        }
        for (code, row) in HCIEvent.leLayouts {
            for s in row.summary { #expect(names(row.parameters).contains(s), "subevent \(code): \(s)") }
        }
    }

    @Test("every Command Complete return layout starts with Status")
    func returnsStartWithStatus() {
        for (op, row) in HCICommand.layouts {
            guard let returns = row.returns else { continue }
            #expect(ParamLayout.startsWithStatus(returns), "\(HCIOpcode(rawValue: op))")
        }
    }

    @Test("layouts required by the decoder are present")
    func requiredLayouts() {
        let commands: [HCIOpcode] = [
            .reset, .setEventMask, .leSetEventMask, .readLocalVersionInformation, .readBDADDR, .readBufferSize,
            .readLocalSupportedCommands, .readLocalSupportedFeatures, .writeLEHostSupport, .writeScanEnable,
            .writeLocalName, .writeClassOfDevice, .leSetScanParameters, .leSetScanEnable, .leSetExtendedScanParameters,
            .leSetExtendedScanEnable, .leCreateConnection, .leExtendedCreateConnectionV1, .leExtendedCreateConnectionV2,
            .leCreateConnectionCancel, .leConnectionUpdate, .disconnect, .leReadRemoteFeatures,
            .readRemoteVersionInformation, .leSetPHY, .leReadPHY, .leSetDefaultPHY, .leSetDataLength,
            .leEnableEncryption, .leLongTermKeyRequestReply, .leLongTermKeyRequestNegativeReply, .readEncryptionKeySize,
            .leAddDeviceToResolvingList, .leSetAddressResolutionEnable, .leReadLocalP256PublicKey, .leGenerateDHKeyV1,
            .leReadBufferSize, .leReadBufferSizeV2, .leReadLocalSupportedFeatures, .leReadSupportedStates,
            .leReadMaximumAdvertisingDataLength, .leAddDeviceToFilterAcceptList, .leRemoveDeviceFromFilterAcceptList,
            .leClearFilterAcceptList, .leReadFilterAcceptListSize, .leSetAdvertisingParameters, .leSetAdvertisingData,
            .leSetScanResponseData, .leSetAdvertisingEnable, .leSetExtendedAdvertisingParametersV1,
            .leSetExtendedAdvertisingParametersV2, .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData,
            .leSetExtendedAdvertisingEnable, .lePeriodicAdvertisingCreateSync,
        ]
        for op in commands { #expect(HCICommand.layouts[op.rawValue]?.parameters != nil, "\(op)") }
        let events: [HCIEventCode] = [
            .disconnectionComplete, .encryptionChangeV1, .encryptionChangeV2, .encryptionKeyRefreshComplete,
            .numberOfCompletedPackets, .hardwareError, .dataBufferOverflow, .vendor,
            .readRemoteVersionInformationComplete, .connectionComplete,
        ]
        for e in events { #expect(HCIEvent.layouts[e.rawValue] != nil, "\(e)") }
        let subevents: [LESubevent] = [
            .connectionComplete, .advertisingReport, .connectionUpdateComplete, .readRemoteFeaturesComplete,
            .longTermKeyRequest, .dataLengthChange, .readLocalP256PublicKeyComplete, .generateDHKeyComplete,
            .enhancedConnectionCompleteV1, .enhancedConnectionCompleteV2, .directedAdvertisingReport,
            .phyUpdateComplete, .extendedAdvertisingReport, .channelSelectionAlgorithm, .advertisingSetTerminated,
            .scanTimeout, .periodicAdvertisingSyncEstablishedV1, .periodicAdvertisingReportV1,
        ]
        for s in subevents { #expect(HCIEvent.leLayouts[s.rawValue] != nil, "\(s)") }
    }
}
