/// LE Controller command layouts (Core v5.4, Vol 4, Part E, §7.8).
extension HCICommand {
    private static let statusOnly: [ParamField] = [.status]
    private static let statusHandle: [ParamField] = [.status, .handle]
    private static let handleOnly: [ParamField] = [.handle]

    private static func le(_ ocf: UInt16) -> HCIOpcode { HCIOpcode(ogf: 0x08, ocf: ocf) }

    private static let ownAddressType: ParamField = .u8("Own Address Type", .ownAddressType)
    private static let connectionParameters: [ParamField] = [
        .u16("Connection Interval Min", .connInterval), .u16("Connection Interval Max", .connInterval),
        .u16("Max Latency", .decimal), .u16("Supervision Timeout", .tenMillis),
        .u16("Min CE Length", .slots), .u16("Max CE Length", .slots),
    ]
    private static let extendedAdvertisingParametersV1: [ParamField] = [
        .u8("Advertising Handle", .hex),
        .u16("Advertising Event Properties", .flags(HCIValueTables.advertisingEventProperties)),
        .u24("Primary Advertising Interval Min", .slots), .u24("Primary Advertising Interval Max", .slots),
        .u8("Primary Advertising Channel Map", .flags(HCIValueTables.channelMap)),
        ownAddressType, .u8("Peer Address Type", .addressType), .address("Peer Address", .peer),
        .u8("Advertising Filter Policy", .values(HCIValueTables.advertisingFilterPolicy)),
        .dBm("Advertising TX Power"), .u8("Primary Advertising PHY", .phy),
        .u8("Secondary Advertising Max Skip", .decimal), .u8("Secondary Advertising PHY", .phy),
        .u8("Advertising SID", .hex), .u8("Scan Request Notification Enable", .values(HCIValueTables.enable)),
    ]
    private static let extendedCreateConnectionV1: [ParamField] = [
        .u8("Initiator Filter Policy", .values(HCIValueTables.initiatorFilterPolicy)), ownAddressType,
        .u8("Peer Address Type", .addressType), .address("Peer Address", .peer),
        .u8("Initiating PHYs", .phyMask),
        .array("Initiating PHY", count: .bitsIn("Initiating PHYs"),
               [.u16("Scan Interval", .slots), .u16("Scan Window", .slots)] + connectionParameters),
    ]
    private static func extendedDataCommand(_ dataName: String) -> [ParamField] {
        [.u8("Advertising Handle", .hex), .u8("Operation", .values(HCIValueTables.dataOperation)),
         .u8("Fragment Preference", .values(HCIValueTables.fragmentPreference)),
         .u8("\(dataName) Length", .decimal), .data(dataName, lengthFrom: "\(dataName) Length", .advertisingData)]
    }
    private static let periodicAdvertisingParametersV1: [ParamField] = [
        .u8("Advertising Handle", .hex),
        .u16("Periodic Advertising Interval Min", .connInterval), .u16("Periodic Advertising Interval Max", .connInterval),
        .u16("Periodic Advertising Properties", .flags(HCIValueTables.periodicAdvertisingProperties)),
    ]
    private static let subrateParameters: [ParamField] = [
        .u16("Subrate Min", .decimal), .u16("Subrate Max", .decimal), .u16("Max Latency", .decimal),
        .u16("Continuation Number", .decimal), .u16("Supervision Timeout", .tenMillis),
    ]

    // MARK: Scanning and advertising

    static let leScanAdvertisingLayouts: [(HCIOpcode, CommandLayout)] = [
        // §7.8.4
        (le(0x0005), CommandLayout([.address("Random Address", .local)], returns: statusOnly, summary: ["Random Address"])),
        // §7.8.5
        (le(0x0006), CommandLayout(
            [.u16("Advertising Interval Min", .slots), .u16("Advertising Interval Max", .slots),
             .u8("Advertising Type", .values(HCIValueTables.advertisingType)), ownAddressType,
             .u8("Peer Address Type", .addressType), .address("Peer Address", .peer),
             .u8("Advertising Channel Map", .flags(HCIValueTables.channelMap)),
             .u8("Advertising Filter Policy", .values(HCIValueTables.advertisingFilterPolicy))],
            returns: statusOnly, summary: ["Advertising Type"])),
        // §7.8.6
        (le(0x0007), CommandLayout([], returns: [.status, .dBm("TX Power Level")])),
        // §7.8.7, §7.8.8: a 31-byte block of which the length byte says how much is used
        (le(0x0008), CommandLayout(
            [.u8("Advertising Data Length", .decimal),
             .padded("Advertising Data", lengthFrom: "Advertising Data Length", size: 31, .advertisingData)],
            returns: statusOnly)),
        (le(0x0009), CommandLayout(
            [.u8("Scan Response Data Length", .decimal),
             .padded("Scan Response Data", lengthFrom: "Scan Response Data Length", size: 31, .advertisingData)],
            returns: statusOnly)),
        // §7.8.9
        (le(0x000A), CommandLayout(
            [.u8("Advertising Enable", .values(HCIValueTables.enable))], returns: statusOnly, summary: ["Advertising Enable"])),
        // §7.8.10
        (le(0x000B), CommandLayout(
            [.u8("LE Scan Type", .values(HCIValueTables.scanType)), .u16("LE Scan Interval", .slots),
             .u16("LE Scan Window", .slots), ownAddressType,
             .u8("Scanning Filter Policy", .values(HCIValueTables.scanningFilterPolicy))],
            returns: statusOnly, summary: ["LE Scan Type", "LE Scan Interval", "LE Scan Window"])),
        // §7.8.11
        (le(0x000C), CommandLayout(
            [.u8("LE Scan Enable", .values(HCIValueTables.enable)),
             .u8("Filter Duplicates", .values(HCIValueTables.filterDuplicates))],
            returns: statusOnly, summary: ["LE Scan Enable", "Filter Duplicates"])),
        // §7.8.14–§7.8.17
        (le(0x000F), CommandLayout([], returns: [.status, .u8("Filter Accept List Size", .decimal)])),
        (le(0x0010), CommandLayout([], returns: statusOnly)),
        (le(0x0011), CommandLayout(
            [.u8("Address Type", .addressType), .address("Address", .peer)], returns: statusOnly, summary: ["Address"])),
        (le(0x0012), CommandLayout(
            [.u8("Address Type", .addressType), .address("Address", .peer)], returns: statusOnly, summary: ["Address"])),
        // §7.8.52
        (le(0x0035), CommandLayout(
            [.u8("Advertising Handle", .hex), .address("Random Address", .local)], returns: statusOnly,
            summary: ["Advertising Handle", "Random Address"])),
        // §7.8.53
        (le(0x0036), CommandLayout(
            extendedAdvertisingParametersV1, returns: [.status, .dBm("Selected TX Power")],
            summary: ["Advertising Handle", "Advertising Event Properties"])),
        (le(0x007F), CommandLayout(
            extendedAdvertisingParametersV1
                + [.u8("Primary Advertising PHY Options", .hex), .u8("Secondary Advertising PHY Options", .hex)],
            returns: [.status, .dBm("Selected TX Power")],
            summary: ["Advertising Handle", "Advertising Event Properties"])),
        // §7.8.54, §7.8.55
        (le(0x0037), CommandLayout(extendedDataCommand("Advertising Data"), returns: statusOnly,
                                   summary: ["Advertising Handle", "Operation"])),
        (le(0x0038), CommandLayout(extendedDataCommand("Scan Response Data"), returns: statusOnly,
                                   summary: ["Advertising Handle", "Operation"])),
        // §7.8.56
        (le(0x0039), CommandLayout(
            [.u8("Enable", .values(HCIValueTables.enable)), .u8("Num Sets", .decimal),
             .array("Set", count: .field("Num Sets"),
                    [.u8("Advertising Handle", .hex), .u16("Duration", .tenMillis),
                     .u8("Max Extended Advertising Events", .decimal)])],
            returns: statusOnly, summary: ["Enable", "Num Sets"])),
        // §7.8.57–§7.8.60
        (le(0x003A), CommandLayout([], returns: [.status, .u16("Max Advertising Data Length", .decimal)])),
        (le(0x003B), CommandLayout([], returns: [.status, .u8("Num Supported Advertising Sets", .decimal)])),
        (le(0x003C), CommandLayout([.u8("Advertising Handle", .hex)], returns: statusOnly)),
        (le(0x003D), CommandLayout([], returns: statusOnly)),
        // §7.8.61
        (le(0x003E), CommandLayout(periodicAdvertisingParametersV1, returns: statusOnly)),
        (le(0x0086), CommandLayout(
            periodicAdvertisingParametersV1
                + [.u8("Num Subevents", .decimal), .u8("Subevent Interval", .connInterval),
                   .u8("Response Slot Delay", .connInterval), .u8("Response Slot Spacing", .hex),
                   .u8("Num Response Slots", .decimal)],
            returns: [.status, .u8("Advertising Handle", .hex)])),
        // §7.8.62
        (le(0x003F), CommandLayout(
            [.u8("Advertising Handle", .hex), .u8("Operation", .values(HCIValueTables.dataOperation)),
             .u8("Advertising Data Length", .decimal),
             .data("Advertising Data", lengthFrom: "Advertising Data Length", .advertisingData)],
            returns: statusOnly)),
        // §7.8.63
        (le(0x0040), CommandLayout(
            [.u8("Enable", .flags(HCIValueTables.periodicEnable)), .u8("Advertising Handle", .hex)], returns: statusOnly)),
        // §7.8.64
        (le(0x0041), CommandLayout(
            [ownAddressType, .u8("Scanning Filter Policy", .values(HCIValueTables.scanningFilterPolicy)),
             .u8("Scanning PHYs", .phyMask),
             .array("Scanning PHY", count: .bitsIn("Scanning PHYs"),
                    [.u8("Scan Type", .values(HCIValueTables.scanType)), .u16("Scan Interval", .slots),
                     .u16("Scan Window", .slots)])],
            returns: statusOnly, summary: ["Scanning PHYs"])),
        // §7.8.65
        (le(0x0042), CommandLayout(
            [.u8("Enable", .values(HCIValueTables.enable)),
             .u8("Filter Duplicates", .values(HCIValueTables.filterDuplicates)),
             .u16("Duration", .tenMillis), .u16("Period", .units1_28s)],
            returns: statusOnly, summary: ["Enable", "Filter Duplicates"])),
        // §7.8.67–§7.8.73
        (le(0x0044), CommandLayout(
            [.u8("Options", .hex), .u8("Advertising SID", .hex), .u8("Advertiser Address Type", .addressType),
             .address("Advertiser Address", .peer), .u16("Skip", .decimal), .u16("Sync Timeout", .tenMillis),
             .u8("Sync CTE Type", .hex)],
            summary: ["Advertiser Address"])),
        (le(0x0045), CommandLayout([], returns: statusOnly)),
        (le(0x0046), CommandLayout([.u16("Sync Handle", .hex)], returns: statusOnly)),
        (le(0x0047), CommandLayout(
            [.u8("Advertiser Address Type", .addressType), .address("Advertiser Address", .peer),
             .u8("Advertising SID", .hex)], returns: statusOnly)),
        (le(0x0048), CommandLayout(
            [.u8("Advertiser Address Type", .addressType), .address("Advertiser Address", .peer),
             .u8("Advertising SID", .hex)], returns: statusOnly)),
        (le(0x0049), CommandLayout([], returns: statusOnly)),
        (le(0x004A), CommandLayout([], returns: [.status, .u8("Periodic Advertiser List Size", .decimal)])),
        // §7.8.88
        (le(0x0059), CommandLayout([.u16("Sync Handle", .hex), .u8("Enable", .hex)], returns: statusOnly)),
    ]

    // MARK: Connections, PHY, data length

    static let leConnectionLayouts: [(HCIOpcode, CommandLayout)] = [
        // §7.8.12
        (le(0x000D), CommandLayout(
            [.u16("LE Scan Interval", .slots), .u16("LE Scan Window", .slots),
             .u8("Initiator Filter Policy", .values(HCIValueTables.initiatorFilterPolicy)),
             .u8("Peer Address Type", .addressType), .address("Peer Address", .peer), ownAddressType]
                + connectionParameters,
            summary: ["Peer Address", "Peer Address Type"])),
        // §7.8.13
        (le(0x000E), CommandLayout([], returns: statusOnly)),
        // §7.8.18
        (le(0x0013), CommandLayout([.handle] + connectionParameters, summary: ["Connection Handle"])),
        // §7.8.19–§7.8.21
        (le(0x0014), CommandLayout([.bytes("Channel Map", 5, .hex)], returns: statusOnly)),
        (le(0x0015), CommandLayout(handleOnly, returns: [.status, .handle, .bytes("Channel Map", 5, .hex)])),
        (le(0x0016), CommandLayout(handleOnly, summary: ["Connection Handle"])),
        // §7.8.31, §7.8.32
        (le(0x0020), CommandLayout(
            [.handle, .u16("Interval Min", .connInterval), .u16("Interval Max", .connInterval),
             .u16("Max Latency", .decimal), .u16("Timeout", .tenMillis),
             .u16("Min CE Length", .slots), .u16("Max CE Length", .slots)],
            returns: statusHandle, summary: ["Connection Handle"])),
        (le(0x0021), CommandLayout([.handle, .reason], returns: statusHandle, summary: ["Connection Handle", "Reason"])),
        // §7.8.33–§7.8.35
        (le(0x0022), CommandLayout(
            [.handle, .u16("TX Octets", .decimal), .u16("TX Time", .micros)], returns: statusHandle,
            summary: ["Connection Handle", "TX Octets"])),
        (le(0x0023), CommandLayout(
            [], returns: [.status, .u16("Suggested Max TX Octets", .decimal), .u16("Suggested Max TX Time", .micros)])),
        (le(0x0024), CommandLayout(
            [.u16("Suggested Max TX Octets", .decimal), .u16("Suggested Max TX Time", .micros)], returns: statusOnly)),
        // §7.8.46
        (le(0x002F), CommandLayout(
            [], returns: [.status, .u16("Supported Max TX Octets", .decimal), .u16("Supported Max TX Time", .micros),
                          .u16("Supported Max RX Octets", .decimal), .u16("Supported Max RX Time", .micros)])),
        // §7.8.47–§7.8.49
        (le(0x0030), CommandLayout(handleOnly, returns: [.status, .handle, .u8("TX PHY", .phy), .u8("RX PHY", .phy)])),
        (le(0x0031), CommandLayout(
            [.u8("All PHYs", .flags(HCIValueTables.allPHYs)), .u8("TX PHYs", .phyMask), .u8("RX PHYs", .phyMask)],
            returns: statusOnly)),
        (le(0x0032), CommandLayout(
            [.handle, .u8("All PHYs", .flags(HCIValueTables.allPHYs)), .u8("TX PHYs", .phyMask), .u8("RX PHYs", .phyMask),
             .u16("PHY Options", .values(HCIValueTables.phyOptions))],
            summary: ["Connection Handle", "TX PHYs", "RX PHYs"])),
        // §7.8.66
        (le(0x0043), CommandLayout(extendedCreateConnectionV1, summary: ["Peer Address", "Peer Address Type"])),
        (le(0x0085), CommandLayout(
            [.u8("Advertising Handle", .hex), .u8("Subevent", .decimal)] + extendedCreateConnectionV1,
            summary: ["Peer Address", "Peer Address Type"])),
        // §7.8.117, §7.8.118 (connection subrating)
        (le(0x007D), CommandLayout(subrateParameters, returns: statusOnly)),
        (le(0x007E), CommandLayout([.handle] + subrateParameters, summary: ["Connection Handle"])),
    ]

    // MARK: Encryption, keys, privacy

    static let leSecurityLayouts: [(HCIOpcode, CommandLayout)] = [
        // §7.8.22, §7.8.23
        (le(0x0017), CommandLayout(
            [.bytes("Key", 16, .hex), .bytes("Plaintext Data", 16, .hex)],
            returns: [.status, .bytes("Encrypted Data", 16, .hex)])),
        (le(0x0018), CommandLayout([], returns: [.status, .u64("Random Number", .hex)])),
        // §7.8.24 (HCI_LE_Start_Encryption before v5.3)
        (le(0x0019), CommandLayout(
            [.handle, .u64("Random Number", .hex), .u16("Encrypted Diversifier", .hex), .bytes("Long Term Key", 16, .hex)],
            summary: ["Connection Handle"])),
        // §7.8.25, §7.8.26
        (le(0x001A), CommandLayout([.handle, .bytes("Long Term Key", 16, .hex)], returns: statusHandle,
                                   summary: ["Connection Handle"])),
        (le(0x001B), CommandLayout(handleOnly, returns: statusHandle, summary: ["Connection Handle"])),
        // §7.8.36, §7.8.37
        (le(0x0025), CommandLayout([])),
        (le(0x0026), CommandLayout([.bytes("Key X Coordinate", 32, .hex), .bytes("Key Y Coordinate", 32, .hex)])),
        (le(0x005E), CommandLayout(
            [.bytes("Key X Coordinate", 32, .hex), .bytes("Key Y Coordinate", 32, .hex),
             .u8("Key Type", .values(HCIValueTables.dhKeyType))])),
        // §7.8.38–§7.8.45
        (le(0x0027), CommandLayout(
            [.u8("Peer Identity Address Type", .addressType), .address("Peer Identity Address", .peer),
             .bytes("Peer IRK", 16, .hex), .bytes("Local IRK", 16, .hex)],
            returns: statusOnly, summary: ["Peer Identity Address"])),
        (le(0x0028), CommandLayout(
            [.u8("Peer Identity Address Type", .addressType), .address("Peer Identity Address", .peer)],
            returns: statusOnly, summary: ["Peer Identity Address"])),
        (le(0x0029), CommandLayout([], returns: statusOnly)),
        (le(0x002A), CommandLayout([], returns: [.status, .u8("Resolving List Size", .decimal)])),
        (le(0x002B), CommandLayout(
            [.u8("Peer Identity Address Type", .addressType), .address("Peer Identity Address", .peer)],
            returns: [.status, .address("Peer Resolvable Address", .peer)])),
        (le(0x002C), CommandLayout(
            [.u8("Peer Identity Address Type", .addressType), .address("Peer Identity Address", .peer)],
            returns: [.status, .address("Local Resolvable Address", .local)])),
        (le(0x002D), CommandLayout(
            [.u8("Address Resolution Enable", .values(HCIValueTables.enable))], returns: statusOnly,
            summary: ["Address Resolution Enable"])),
        (le(0x002E), CommandLayout([.u16("RPA Timeout", .seconds)], returns: statusOnly)),
        // §7.8.77
        (le(0x004E), CommandLayout(
            [.u8("Peer Identity Address Type", .addressType), .address("Peer Identity Address", .peer),
             .u8("Privacy Mode", .values(HCIValueTables.privacyMode))],
            returns: statusOnly)),
    ]

    // MARK: Buffers, features, power, misc

    static let leMiscLayouts: [(HCIOpcode, CommandLayout)] = [
        // Android's vendor LE Extended Scan Parameters (AOSP's HCI extensions): LE Set Scan
        // Parameters with 32-bit interval and window (`LESetScanParameters(androidVendor:)`).
        (.androidExtendedScanParameters, CommandLayout(
            [.u8("LE Scan Type", .values(HCIValueTables.scanType)), .u32("LE Scan Interval", .slots),
             .u32("LE Scan Window", .slots), ownAddressType,
             .u8("Scanning Filter Policy", .values(HCIValueTables.scanningFilterPolicy))],
            returns: statusOnly, summary: ["LE Scan Type", "LE Scan Interval", "LE Scan Window"])),
        // Android's vendor LE Multi-Advertising (AOSP `btm_ble_multi_adv.cc`; the sizes are its
        // BTM_BLE_MULTI_ADV_*_LEN): one instance's parameters, data, scan response, random address
        // or enable per command, chosen by the sub-command; answered by Status and the sub-command.
        (.androidMultiAdvertising, CommandLayout(
            [.u8("Sub-command", .values(HCIValueTables.androidMultiAdvertisingSubcommand)),
             .variant("Multi-Advertising", selector: "Sub-command", [
                ParamVariant(0x01, "Set Parameters", [
                    .u16("Advertising Interval Min", .slots), .u16("Advertising Interval Max", .slots),
                    .u8("Advertising Type", .values(HCIValueTables.advertisingType)), ownAddressType,
                    .address("Own Address", .local), .u8("Peer Address Type", .addressType), .address("Peer Address", .peer),
                    .u8("Advertising Channel Map", .flags(HCIValueTables.channelMap)),
                    .u8("Advertising Filter Policy", .values(HCIValueTables.advertisingFilterPolicy)),
                    .u8("Instance", .decimal), .dBm("TX Power")]),
                ParamVariant(0x02, "Write Advertising Data", [
                    .u8("Advertising Data Length", .decimal),
                    .padded("Advertising Data", lengthFrom: "Advertising Data Length", size: 31, .advertisingData),
                    .u8("Instance", .decimal)]),
                ParamVariant(0x03, "Write Scan Response Data", [
                    .u8("Scan Response Data Length", .decimal),
                    .padded("Scan Response Data", lengthFrom: "Scan Response Data Length", size: 31, .advertisingData),
                    .u8("Instance", .decimal)]),
                ParamVariant(0x04, "Set Random Address", [.address("Random Address", .local), .u8("Instance", .decimal)]),
                ParamVariant(0x05, "Enable", [.u8("Advertising Enable", .values(HCIValueTables.enable)), .u8("Instance", .decimal)]),
             ])],
            returns: [.status, .u8("Sub-command", .values(HCIValueTables.androidMultiAdvertisingSubcommand))],
            summary: ["Sub-command"])),
        // §7.8.1–§7.8.3
        (le(0x0001), CommandLayout([.u64("LE Event Mask", .flags(HCIValueTables.leEventMask))], returns: statusOnly)),
        (le(0x0002), CommandLayout(
            [], returns: [.status, .u16("LE ACL Data Packet Length", .decimal), .u8("Total Num LE ACL Data Packets", .decimal)])),
        (le(0x0060), CommandLayout(
            [], returns: [.status, .u16("LE ACL Data Packet Length", .decimal), .u8("Total Num LE ACL Data Packets", .decimal),
                          .u16("ISO Data Packet Length", .decimal), .u8("Total Num ISO Data Packets", .decimal)])),
        (le(0x0003), CommandLayout([], returns: [.status, .u64("LE Features", .flags(HCIValueTables.leFeatures))])),
        // §7.8.27
        (le(0x001C), CommandLayout([], returns: [.status, .u64("LE States", .hex)])),
        // §7.8.28–§7.8.30
        (le(0x001D), CommandLayout([.u8("RX Channel", .decimal)], returns: statusOnly)),
        (le(0x001E), CommandLayout(
            [.u8("TX Channel", .decimal), .u8("Test Data Length", .decimal), .u8("Packet Payload", .hex)], returns: statusOnly)),
        (le(0x001F), CommandLayout([], returns: [.status, .u16("Num Packets", .decimal)])),
        // §7.8.74–§7.8.76
        (le(0x004B), CommandLayout([], returns: [.status, .dBm("Min TX Power"), .dBm("Max TX Power")])),
        (le(0x004C), CommandLayout(
            [], returns: [.status, .u16("RF TX Path Compensation Value", .signed), .u16("RF RX Path Compensation Value", .signed)])),
        (le(0x004D), CommandLayout(
            [.u16("RF TX Path Compensation Value", .signed), .u16("RF RX Path Compensation Value", .signed)], returns: statusOnly)),
        // §7.8.94
        (le(0x005F), CommandLayout([.u8("Action", .hex)], returns: statusOnly)),
        // §7.8.108 (LE Set Host Feature)
        (le(0x0074), CommandLayout([.u8("Bit Number", .decimal), .u8("Bit Value", .decimal)], returns: statusOnly)),
        // §7.8.109 LE Setup ISO Data Path
        (le(0x006E), CommandLayout(
            [.handle, .u8("Data Path Direction", .hex), .u8("Data Path ID", .hex), .bytes("Codec ID", 5, .hex),
             .u24("Controller Delay", .micros), .u8("Codec Configuration Length", .decimal),
             .data("Codec Configuration", lengthFrom: "Codec Configuration Length", .hex)],
            returns: statusHandle)),
        (le(0x006F), CommandLayout([.handle, .u8("Data Path Direction", .hex)], returns: statusHandle)),
        // §7.8.117 LE Enhanced Read Transmit Power Level
        (le(0x0076), CommandLayout(
            [.handle, .u8("PHY", .hex)],
            returns: [.status, .handle, .u8("PHY", .hex), .dBm("Current TX Power Level"), .dBm("Max TX Power Level")])),
        (le(0x0077), CommandLayout([.handle, .u8("PHY", .hex)])),
        (le(0x0078), CommandLayout(
            [.handle, .u8("High Threshold", .decimal), .u8("High Hysteresis", .decimal), .u8("Low Threshold", .decimal),
             .u8("Low Hysteresis", .decimal), .u16("Min Time Spent", .decimal)],
            returns: statusHandle)),
        (le(0x0079), CommandLayout([.handle, .u8("Enable", .values(HCIValueTables.enable))], returns: statusHandle)),
        (le(0x007A), CommandLayout(
            [.handle, .u8("Local Enable", .values(HCIValueTables.enable)), .u8("Remote Enable", .values(HCIValueTables.enable))],
            returns: statusHandle)),
        (le(0x006D), CommandLayout(handleOnly)),
    ]
}
