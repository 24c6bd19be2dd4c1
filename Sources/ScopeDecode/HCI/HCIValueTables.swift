/// Value and flag tables used by the HCI parameter layouts. Each cites the Core v5.4 section
/// that defines it.
enum HCIValueTables {
    /// PHY values (LE PHY Update Complete, LE Read PHY, extended advertising PHYs;
    /// Core v5.4, Vol 4, Part E, §7.7.65.12 and §7.7.65.13). 0 means "no packets on the
    /// secondary advertising channel" in extended reports.
    static let phy: [UInt64: String] = [0x00: "None", 0x01: "LE 1M", 0x02: "LE 2M", 0x03: "LE Coded"]

    /// PHY preference bits (LE Set Default PHY, LE Set PHY, Scanning_PHYs, Initiating_PHYs;
    /// §7.8.48, §7.8.64, §7.8.66).
    static let phyBits: [ParamFlag] = [ParamFlag(0x01, "LE 1M"), ParamFlag(0x02, "LE 2M"), ParamFlag(0x04, "LE Coded")]

    /// All_PHYs (§7.8.48).
    static let allPHYs: [ParamFlag] = [
        ParamFlag(0x01, "No TX preference"), ParamFlag(0x02, "No RX preference"),
    ]

    /// LE address types (§7.7.65.1, §7.7.65.13, §7.7.65.11).
    static let addressType: [UInt64: String] = [
        0x00: "Public", 0x01: "Random", 0x02: "Public Identity", 0x03: "Random Identity",
        0xFE: "Random (unresolved)", 0xFF: "Anonymous",
    ]

    /// Own_Address_Type (§7.8.5).
    static let ownAddressType: [UInt64: String] = [
        0x00: "Public", 0x01: "Random", 0x02: "Resolvable Private, else Public",
        0x03: "Resolvable Private, else Random",
    ]

    /// HCI/LMP/LL version numbers (Assigned Numbers §2.1).
    static let coreVersion: [UInt64: String] = [
        0x00: "Bluetooth 1.0b", 0x01: "Bluetooth 1.1", 0x02: "Bluetooth 1.2", 0x03: "Bluetooth 2.0",
        0x04: "Bluetooth 2.1", 0x05: "Bluetooth 3.0", 0x06: "Bluetooth 4.0", 0x07: "Bluetooth 4.1",
        0x08: "Bluetooth 4.2", 0x09: "Bluetooth 5.0", 0x0A: "Bluetooth 5.1", 0x0B: "Bluetooth 5.2",
        0x0C: "Bluetooth 5.3", 0x0D: "Bluetooth 5.4", 0x0E: "Bluetooth 6.0",
    ]

    static let enable: [UInt64: String] = [0x00: "Disabled", 0x01: "Enabled"]
    /// Android's vendor LE Multi-Advertising sub-commands (AOSP BTM_BLE_MULTI_ADV_*).
    static let androidMultiAdvertisingSubcommand: [UInt64: String] = [
        0x01: "Set Parameters", 0x02: "Write Advertising Data", 0x03: "Write Scan Response Data",
        0x04: "Set Random Address", 0x05: "Enable",
    ]

    static let role: [UInt64: String] = [0x00: "Central", 0x01: "Peripheral"]

    /// Advertising_Type of LE Set Advertising Parameters (§7.8.5).
    static let advertisingType: [UInt64: String] = [
        0x00: "ADV_IND", 0x01: "ADV_DIRECT_IND (high duty cycle)", 0x02: "ADV_SCAN_IND",
        0x03: "ADV_NONCONN_IND", 0x04: "ADV_DIRECT_IND (low duty cycle)",
    ]

    /// Event_Type of the legacy LE Advertising Report (§7.7.65.2).
    static let legacyReportEventType: [UInt64: String] = [
        0x00: "ADV_IND", 0x01: "ADV_DIRECT_IND", 0x02: "ADV_SCAN_IND", 0x03: "ADV_NONCONN_IND", 0x04: "SCAN_RSP",
    ]

    /// Advertising_Channel_Map (§7.8.5).
    static let channelMap: [ParamFlag] = [
        ParamFlag(0x01, "37"), ParamFlag(0x02, "38"), ParamFlag(0x04, "39"),
    ]

    /// Advertising_Filter_Policy (§7.8.5).
    static let advertisingFilterPolicy: [UInt64: String] = [
        0x00: "Any scan, any connect", 0x01: "Filtered scan, any connect",
        0x02: "Any scan, filtered connect", 0x03: "Filtered scan, filtered connect",
    ]

    /// LE_Scan_Type / Scan_Type (§7.8.10).
    static let scanType: [UInt64: String] = [0x00: "Passive", 0x01: "Active"]

    /// Scanning_Filter_Policy (§7.8.10).
    static let scanningFilterPolicy: [UInt64: String] = [
        0x00: "Basic unfiltered", 0x01: "Basic filtered", 0x02: "Extended unfiltered", 0x03: "Extended filtered",
    ]

    /// Filter_Duplicates (§7.8.11, §7.8.65).
    static let filterDuplicates: [UInt64: String] = [
        0x00: "Disabled", 0x01: "Enabled", 0x02: "Enabled, reset each scan period",
    ]

    /// Initiator_Filter_Policy (§7.8.12, §7.8.66).
    static let initiatorFilterPolicy: [UInt64: String] = [
        0x00: "Use peer address", 0x01: "Use Filter Accept List",
    ]

    /// Central_Clock_Accuracy (§7.7.65.1).
    static let clockAccuracy: [UInt64: String] = [
        0x00: "500 ppm", 0x01: "250 ppm", 0x02: "150 ppm", 0x03: "100 ppm",
        0x04: "75 ppm", 0x05: "50 ppm", 0x06: "30 ppm", 0x07: "20 ppm",
    ]

    /// Encryption_Enabled (§7.7.8).
    static let encryptionEnabled: [UInt64: String] = [
        0x00: "Off", 0x01: "On (E0 for BR/EDR, AES-CCM for LE)", 0x02: "On (AES-CCM for BR/EDR)",
    ]

    /// Link_Type (§7.7.3, §7.7.26).
    static let linkType: [UInt64: String] = [0x00: "SCO", 0x01: "ACL", 0x02: "eSCO"]

    /// Scan_Enable (§7.3.18).
    static let scanEnable: [UInt64: String] = [
        0x00: "No scans", 0x01: "Inquiry Scan", 0x02: "Page Scan", 0x03: "Inquiry Scan and Page Scan",
    ]

    /// Operation of LE Set Extended Advertising/Scan Response/Periodic Data (§7.8.54).
    static let dataOperation: [UInt64: String] = [
        0x00: "Intermediate fragment", 0x01: "First fragment", 0x02: "Last fragment",
        0x03: "Complete data", 0x04: "Unchanged data",
    ]

    /// Fragment_Preference (§7.8.54).
    static let fragmentPreference: [UInt64: String] = [
        0x00: "Controller may fragment", 0x01: "Controller should not fragment",
    ]

    /// Advertising_Event_Properties (§7.8.53).
    static let advertisingEventProperties: [ParamFlag] = [
        ParamFlag(0x0001, "Connectable"), ParamFlag(0x0002, "Scannable"), ParamFlag(0x0004, "Directed"),
        ParamFlag(0x0008, "High Duty Cycle"), ParamFlag(0x0010, "Legacy"), ParamFlag(0x0020, "Anonymous"),
        ParamFlag(0x0040, "Include TxPower"),
    ]

    /// Periodic_Advertising_Properties (§7.8.61).
    static let periodicAdvertisingProperties: [ParamFlag] = [ParamFlag(0x0040, "Include TxPower")]

    /// Enable of LE Set Periodic Advertising Enable (§7.8.63).
    static let periodicEnable: [ParamFlag] = [ParamFlag(0x01, "Enable"), ParamFlag(0x02, "Include ADI")]

    /// PHY_Options of LE Set PHY (§7.8.49).
    static let phyOptions: [UInt64: String] = [0x00: "No preference", 0x01: "S=2 preferred", 0x02: "S=8 preferred"]

    /// Channel_Selection_Algorithm (§7.7.65.20).
    static let channelSelectionAlgorithm: [UInt64: String] = [0x00: "#1", 0x01: "#2"]

    /// Data_Status of periodic advertising reports (§7.7.65.15).
    static let dataStatus: [UInt64: String] = [
        0x00: "Complete", 0x01: "Incomplete, more data to come", 0x02: "Incomplete, truncated",
        0xFF: "Failed to receive",
    ]

    /// Privacy_Mode (§7.8.77).
    static let privacyMode: [UInt64: String] = [0x00: "Network Privacy", 0x01: "Device Privacy"]

    /// Current_Mode of Mode Change (§7.7.20).
    static let currentMode: [UInt64: String] = [0x00: "Active", 0x01: "Hold", 0x02: "Sniff"]

    /// IO_Capability (§7.1.29).
    static let ioCapability: [UInt64: String] = [
        0x00: "DisplayOnly", 0x01: "DisplayYesNo", 0x02: "KeyboardOnly", 0x03: "NoInputNoOutput",
    ]

    /// Authentication_Requirements (§7.1.29).
    static let authenticationRequirements: [UInt64: String] = [
        0x00: "MITM not required, no bonding", 0x01: "MITM required, no bonding",
        0x02: "MITM not required, dedicated bonding", 0x03: "MITM required, dedicated bonding",
        0x04: "MITM not required, general bonding", 0x05: "MITM required, general bonding",
    ]

    /// Key_Type of Link Key Notification (§7.7.24).
    static let linkKeyType: [UInt64: String] = [
        0x00: "Combination Key", 0x03: "Debug Combination Key",
        0x04: "Unauthenticated Combination Key generated from P-192",
        0x05: "Authenticated Combination Key generated from P-192", 0x06: "Changed Combination Key",
        0x07: "Unauthenticated Combination Key generated from P-256",
        0x08: "Authenticated Combination Key generated from P-256",
    ]

    /// Key_Type of LE Generate DHKey [v2] (§7.8.93).
    static let dhKeyType: [UInt64: String] = [0x00: "Generated private key", 0x01: "Debug private key"]

    /// Transmit power reporting Reason (§7.7.65.33).
    static let powerReportingReason: [UInt64: String] = [
        0x00: "Local transmit power changed", 0x01: "Remote transmit power changed",
        0x02: "HCI_LE_Read_Remote_Transmit_Power_Level completed",
    ]

    /// LE features (Core v5.4, Vol 6, Part B, §4.6), bit by bit.
    static let leFeatures: [ParamFlag] = {
        let names: [(Int, String)] = [
            (0, "LE Encryption"), (1, "Connection Parameters Request Procedure"),
            (2, "Extended Reject Indication"), (3, "Peripheral-initiated Features Exchange"),
            (4, "LE Ping"), (5, "LE Data Packet Length Extension"), (6, "LL Privacy"),
            (7, "Extended Scanner Filter Policies"), (8, "LE 2M PHY"),
            (9, "Stable Modulation Index - Transmitter"), (10, "Stable Modulation Index - Receiver"),
            (11, "LE Coded PHY"), (12, "LE Extended Advertising"), (13, "LE Periodic Advertising"),
            (14, "Channel Selection Algorithm #2"), (15, "LE Power Class 1"),
            (16, "Minimum Number of Used Channels Procedure"), (17, "Connection CTE Request"),
            (18, "Connection CTE Response"), (19, "Connectionless CTE Transmitter"),
            (20, "Connectionless CTE Receiver"), (21, "Antenna Switching During CTE Transmission (AoD)"),
            (22, "Antenna Switching During CTE Reception (AoA)"), (23, "Receiving Constant Tone Extensions"),
            (24, "Periodic Advertising Sync Transfer - Sender"),
            (25, "Periodic Advertising Sync Transfer - Recipient"), (26, "Sleep Clock Accuracy Updates"),
            (27, "Remote Public Key Validation"), (28, "Connected Isochronous Stream - Central"),
            (29, "Connected Isochronous Stream - Peripheral"), (30, "Isochronous Broadcaster"),
            (31, "Synchronized Receiver"), (32, "Connected Isochronous Stream (Host Support)"),
            (33, "LE Power Control Request"), (34, "LE Power Control Request (bit 34)"),
            (35, "LE Path Loss Monitoring"), (36, "Periodic Advertising ADI support"),
            (37, "Connection Subrating"), (38, "Connection Subrating (Host Support)"),
            (39, "Channel Classification"), (40, "Advertising Coding Selection"),
            (41, "Advertising Coding Selection (Host Support)"),
            (43, "Periodic Advertising with Responses - Advertiser"),
            (44, "Periodic Advertising with Responses - Scanner"),
        ]
        return names.map { ParamFlag(UInt64(1) << UInt64($0.0), $0.1) }
    }()

    /// Set Event Mask bits (§7.3.1): bit n enables event code n+1. Command Complete and
    /// Command Status (bits 13, 14) cannot be masked and are reserved.
    static let eventMask: [ParamFlag] = (0..<64).compactMap { (bit: Int) -> ParamFlag? in
        let code = UInt8(bit + 1)
        guard code != 0x0E, code != 0x0F, let name = HCIEventCode(rawValue: code).name else { return nil }
        return ParamFlag(UInt64(1) << UInt64(bit), name)
    }

    /// LE Set Event Mask bits (§7.8.1): bit n enables LE subevent n+1.
    static let leEventMask: [ParamFlag] = (0..<64).compactMap { (bit: Int) -> ParamFlag? in
        guard let name = LESubevent(rawValue: UInt8(bit + 1)).name else { return nil }
        return ParamFlag(UInt64(1) << UInt64(bit), name)
    }
}
