/// An event's (or LE subevent's) parameter layout and summary fields, with the positions of
/// its Status and Connection_Handle worked out once from the layout. A class: looking one up
/// for every event takes one reference, where a struct's look-up copied each of its arrays.
final class EventLayout: Sendable {
    let parameters: [ParamField]
    let summary: [String]
    /// The layout starts with a Status parameter.
    let hasStatus: Bool
    /// Offset of the connection handle the event is about (nil: none, or not at a fixed place).
    let handleOffset: Int?

    /// Parameter sizes that certainly fit the layout exactly (validation would find nothing to
    /// report), worked out once for the common shapes; nil for the others.
    let exactSize: ExactSize?

    typealias ExactSize = ParamLayout.ExactSize

    init(_ parameters: [ParamField], summary: [String] = []) {
        self.parameters = parameters
        self.summary = summary
        self.hasStatus = ParamLayout.startsWithStatus(parameters)
        self.handleOffset = ParamLayout.handleOffset(parameters)
        self.exactSize = ExactSize(parameters)
    }

    /// True when `payload[params]` fit the layout exactly by ``exactSize`` (false: not decided here).
    func fitsExactly(_ payload: borrowing [UInt8], _ params: Range<Int>) -> Bool { exactSize?.fits(payload, params) ?? false }
}

extension ParamLayout {
    /// Parameter sizes that certainly fit a layout exactly, so that validation would find
    /// nothing to report: worked out once per layout row (event and command tables) for the
    /// common shapes. A check against them is a comparison or two, where the general
    /// ``ParamLayout/fitsExactly(_:_:)`` walks the layout's fields.
    enum ExactSize: Sendable {
        /// Every parameter has a fixed size: their sum.
        case fixed(Int)
        /// Fixed-size parameters, then one array of fixed-size elements whose count is the u8
        /// at `countAt` among them (Number Of Completed Packets).
        case counted(fixed: Int, countAt: Int, element: Int)

        /// The exact size of `parameters`, or nil for the shapes left to the general check.
        init?(_ parameters: [ParamField]) {
            var offset = 0
            var counts: [String: Int] = [:]
            for (index, field) in parameters.enumerated() {
                if Self.isFixed(field), let size = field.fixedSize {
                    // (The count is the last integer of that name: a wider one is left to the walker.)
                    switch field {
                    case .u8(let name, _): counts[name] = offset
                    case .u16(let name, _), .u24(let name, _), .u32(let name, _), .u64(let name, _): counts[name] = nil
                    default: break
                    }
                    offset += size
                    continue
                }
                guard index == parameters.count - 1, case .array(_, .field(let name), let elements) = field,
                    let countAt = counts[name], elements.allSatisfy(Self.isFixed)
                else { return nil }
                let element = elements.reduce(0) { $0 + ($1.fixedSize ?? 0) }
                self = .counted(fixed: offset, countAt: countAt, element: element)
                return
            }
            self = .fixed(offset)
        }

        /// True when `payload[params]` fit exactly (read in the payload: no slice of it retained).
        @inline(__always)
        func fits(_ payload: borrowing [UInt8], _ params: Range<Int>) -> Bool {
            switch self {
            case .fixed(let size):
                return params.count == size
            case .counted(let fixed, let countAt, let element):
                guard params.count > countAt else { return false }
                return params.count == fixed + Int(payload[params.lowerBound + countAt]) * element
            }
        }

        static func isFixed(_ field: ParamField) -> Bool {
            switch field {
            case .u8, .u16, .u24, .u32, .u64, .address, .bytes: return true
            default: return false
            }
        }
    }
}

extension HCIEvent {
    static let layouts: [UInt8: EventLayout] = {
        var out: [UInt8: EventLayout] = [:]
        for (code, layout) in eventLayouts where out[code.rawValue] == nil { out[code.rawValue] = layout }
        return out
    }()

    static let leLayouts: [UInt8: EventLayout] = {
        var out: [UInt8: EventLayout] = [:]
        for (code, layout) in leEventLayouts where out[code.rawValue] == nil { out[code.rawValue] = layout }
        return out
    }()

    /// ``layouts`` and ``leLayouts`` indexed by code, for the per-frame lookups in `decode`
    /// (an index instead of hashing the code).
    static let layoutByCode: [EventLayout?] = table(layouts)
    static let leLayoutBySubevent: [EventLayout?] = table(leLayouts)

    private static func table(_ layouts: [UInt8: EventLayout]) -> [EventLayout?] {
        var out = [EventLayout?](repeating: nil, count: 256)
        for (code, layout) in layouts { out[Int(code)] = layout }
        return out
    }

    private static func ev(_ code: UInt8) -> HCIEventCode { HCIEventCode(rawValue: code) }
    private static func le(_ code: UInt8) -> LESubevent { LESubevent(rawValue: code) }

    private static let statusHandle: [ParamField] = [.status, .handle]
    private static let classOfDevice: ParamField = .u24("Class Of Device", .hex)
    private static let peer: ParamField = .address("BD_ADDR", .peer)

    /// Events of Core v5.4, Vol 4, Part E, §7.7 (LE Meta subevents are below).
    static let eventLayouts: [(HCIEventCode, EventLayout)] = [
        (ev(0x01), EventLayout([.status])),
        // §7.7.2
        (ev(0x02), EventLayout([
            .u8("Num Responses", .decimal),
            .array("Response", count: .field("Num Responses"),
                   [peer, .u8("Page Scan Repetition Mode", .hex), .u8("Reserved", .hex), .u8("Reserved", .hex),
                    classOfDevice, .u16("Clock Offset", .hex)]),
        ])),
        // §7.7.3
        (ev(0x03), EventLayout(
            [.status, .handle, peer, .u8("Link Type", .values(HCIValueTables.linkType)),
             .u8("Encryption Enabled", .values(HCIValueTables.encryptionEnabled))],
            summary: ["Status", "Connection Handle", "BD_ADDR"])),
        (ev(0x04), EventLayout(
            [peer, classOfDevice, .u8("Link Type", .values(HCIValueTables.linkType))], summary: ["BD_ADDR"])),
        // §7.7.5
        (ev(0x05), EventLayout([.status, .handle, .reason], summary: ["Status", "Connection Handle", "Reason"])),
        (ev(0x06), EventLayout(statusHandle, summary: ["Status", "Connection Handle"])),
        (ev(0x07), EventLayout([.status, peer, .bytes("Remote Name", 248, .text)], summary: ["BD_ADDR", "Remote Name"])),
        // §7.7.8
        (ev(0x08), EventLayout(
            [.status, .handle, .u8("Encryption Enabled", .values(HCIValueTables.encryptionEnabled))],
            summary: ["Status", "Connection Handle", "Encryption Enabled"])),
        (ev(0x09), EventLayout(statusHandle)),
        (ev(0x0A), EventLayout([.status, .handle, .u8("Key Flag", .hex)])),
        (ev(0x0B), EventLayout([.status, .handle, .u64("LMP Features", .hex)], summary: ["Status", "Connection Handle"])),
        (ev(0x0C), EventLayout(
            [.status, .handle, .u8("Version", .coreVersion), .u16("Company Identifier", .companyID),
             .u16("Subversion", .hex)],
            summary: ["Status", "Connection Handle", "Version", "Company Identifier"])),
        // §7.7.16
        (ev(0x10), EventLayout([.u8("Hardware Code", .hex)], summary: ["Hardware Code"])),
        (ev(0x11), EventLayout([.handle])),
        (ev(0x12), EventLayout([.status, peer, .u8("New Role", .values(HCIValueTables.role))], summary: ["BD_ADDR", "New Role"])),
        // §7.7.19
        (ev(0x13), EventLayout([
            .u8("Num Handles", .decimal),
            .array("Handle", count: .field("Num Handles"), [.handle, .u16("Num Completed Packets", .decimal)]),
        ])),
        (ev(0x14), EventLayout(
            [.status, .handle, .u8("Current Mode", .values(HCIValueTables.currentMode)), .u16("Interval", .slots)],
            summary: ["Connection Handle", "Current Mode"])),
        // §7.7.21 (arrayed parameters interleaved, Vol 4 Part E §5.2)
        (ev(0x15), EventLayout(
            [.u8("Num Keys", .decimal), .array("Key", count: .field("Num Keys"), [peer, .bytes("Link Key", 16, .hex)])])),
        (ev(0x16), EventLayout([peer], summary: ["BD_ADDR"])),
        (ev(0x17), EventLayout([peer], summary: ["BD_ADDR"])),
        (ev(0x18), EventLayout(
            [peer, .bytes("Link Key", 16, .hex), .u8("Key Type", .values(HCIValueTables.linkKeyType))], summary: ["BD_ADDR"])),
        (ev(0x19), EventLayout([.rest("HCI Command Packet", .hex)])),
        // §7.7.26
        (ev(0x1A), EventLayout([.u8("Link Type", .values(HCIValueTables.linkType))], summary: ["Link Type"])),
        (ev(0x1B), EventLayout([.handle, .u8("LMP Max Slots", .decimal)])),
        (ev(0x1C), EventLayout([.status, .handle, .u16("Clock Offset", .hex)])),
        (ev(0x1D), EventLayout([.status, .handle, .u16("Packet Type", .hex)])),
        (ev(0x1E), EventLayout([.handle])),
        (ev(0x20), EventLayout([peer, .u8("Page Scan Repetition Mode", .hex)])),
        // §7.7.33
        (ev(0x22), EventLayout([
            .u8("Num Responses", .decimal),
            .array("Response", count: .field("Num Responses"),
                   [peer, .u8("Page Scan Repetition Mode", .hex), .u8("Reserved", .hex), classOfDevice,
                    .u16("Clock Offset", .hex), .dBm("RSSI")]),
        ])),
        (ev(0x23), EventLayout(
            [.status, .handle, .u8("Page Number", .decimal), .u8("Max Page Number", .decimal),
             .u64("Extended LMP Features", .hex)])),
        // §7.7.35
        (ev(0x2C), EventLayout(
            [.status, .handle, peer, .u8("Link Type", .values(HCIValueTables.linkType)),
             .u8("Transmission Interval", .decimal), .u8("Retransmission Window", .decimal),
             .u16("RX Packet Length", .decimal), .u16("TX Packet Length", .decimal), .u8("Air Mode", .hex)],
            summary: ["Status", "Connection Handle", "BD_ADDR"])),
        (ev(0x2D), EventLayout(
            [.status, .handle, .u8("Transmission Interval", .decimal), .u8("Retransmission Window", .decimal),
             .u16("RX Packet Length", .decimal), .u16("TX Packet Length", .decimal)])),
        (ev(0x2E), EventLayout(
            [.status, .handle, .u16("Max TX Latency", .slots), .u16("Max RX Latency", .slots),
             .u16("Min Remote Timeout", .slots), .u16("Min Local Timeout", .slots)])),
        // §7.7.38
        (ev(0x2F), EventLayout(
            [.u8("Num Responses", .decimal), peer, .u8("Page Scan Repetition Mode", .hex), .u8("Reserved", .hex),
             classOfDevice, .u16("Clock Offset", .hex), .dBm("RSSI"),
             .bytes("Extended Inquiry Response", 240, .advertisingData)],
            summary: ["BD_ADDR", "RSSI"])),
        // §7.7.39
        (ev(0x30), EventLayout(statusHandle, summary: ["Status", "Connection Handle"])),
        (ev(0x31), EventLayout([peer], summary: ["BD_ADDR"])),
        (ev(0x32), EventLayout(
            [peer, .u8("IO Capability", .values(HCIValueTables.ioCapability)), .u8("OOB Data Present", .hex),
             .u8("Authentication Requirements", .values(HCIValueTables.authenticationRequirements))],
            summary: ["BD_ADDR", "IO Capability"])),
        (ev(0x33), EventLayout([peer, .u32("Numeric Value", .decimal)], summary: ["BD_ADDR"])),
        (ev(0x34), EventLayout([peer], summary: ["BD_ADDR"])),
        (ev(0x35), EventLayout([peer], summary: ["BD_ADDR"])),
        (ev(0x36), EventLayout([.status, peer], summary: ["Status", "BD_ADDR"])),
        (ev(0x38), EventLayout([.handle, .u16("Link Supervision Timeout", .slots)])),
        (ev(0x39), EventLayout([.handle])),
        (ev(0x3B), EventLayout([peer, .u32("Passkey", .decimal)], summary: ["BD_ADDR"])),
        (ev(0x3C), EventLayout([peer, .u8("Notification Type", .hex)])),
        (ev(0x3D), EventLayout([peer, .u64("Host Supported Features", .hex)])),
        // §7.7.50
        (ev(0x48), EventLayout([
            .u16("Total Num Data Blocks", .decimal), .u8("Num Handles", .decimal),
            .array("Handle", count: .field("Num Handles"),
                   [.handle, .u16("Num Completed Packets", .decimal), .u16("Num Completed Blocks", .decimal)]),
        ])),
        // §7.7.75
        (ev(0x57), EventLayout([.handle], summary: ["Connection Handle"])),
        // §7.7.8 [v2]
        (ev(0x59), EventLayout(
            [.status, .handle, .u8("Encryption Enabled", .values(HCIValueTables.encryptionEnabled)),
             .u8("Encryption Key Size", .decimal)],
            summary: ["Status", "Connection Handle", "Encryption Enabled", "Encryption Key Size"])),
        // §5.4.4: vendor-specific, parameters are opaque
        (ev(0xFF), EventLayout([.rest("Vendor Parameters", .hex)])),
    ]

    private static let leConnectionTail: [ParamField] = [
        .u16("Connection Interval", .connInterval), .u16("Peripheral Latency", .decimal),
        .u16("Supervision Timeout", .tenMillis),
        .u8("Central Clock Accuracy", .values(HCIValueTables.clockAccuracy)),
    ]
    private static let enhancedConnectionCompleteV1: [ParamField] = [
        .status, .handle, .u8("Role", .values(HCIValueTables.role)), .u8("Peer Address Type", .addressType),
        .address("Peer Address", .peer), .address("Local Resolvable Private Address", .local),
        .address("Peer Resolvable Private Address", .peer),
    ] + leConnectionTail
    private static let periodicSyncEstablishedV1: [ParamField] = [
        .status, .u16("Sync Handle", .hex), .u8("Advertising SID", .hex), .u8("Advertiser Address Type", .addressType),
        .address("Advertiser Address", .peer), .u8("Advertiser PHY", .phy),
        .u16("Periodic Advertising Interval", .connInterval),
        .u8("Advertiser Clock Accuracy", .values(HCIValueTables.clockAccuracy)),
    ]
    private static let pawrTail: [ParamField] = [
        .u8("Num Subevents", .decimal), .u8("Subevent Interval", .connInterval),
        .u8("Response Slot Delay", .connInterval), .u8("Response Slot Spacing", .hex),
    ]
    private static let syncTransferReceivedV1: [ParamField] = [
        .status, .handle, .u16("Service Data", .hex), .u16("Sync Handle", .hex), .u8("Advertising SID", .hex),
        .u8("Advertiser Address Type", .addressType), .address("Advertiser Address", .peer),
        .u8("Advertiser PHY", .phy), .u16("Periodic Advertising Interval", .connInterval),
        .u8("Advertiser Clock Accuracy", .values(HCIValueTables.clockAccuracy)),
    ]

    /// LE Meta subevents (Core v5.4, Vol 4, Part E, §7.7.65), parameters after the subevent code.
    static let leEventLayouts: [(LESubevent, EventLayout)] = [
        // §7.7.65.1
        (le(0x01), EventLayout(
            [.status, .handle, .u8("Role", .values(HCIValueTables.role)), .u8("Peer Address Type", .addressType),
             .address("Peer Address", .peer)] + leConnectionTail,
            summary: ["Status", "Connection Handle", "Role", "Peer Address"])),
        // §7.7.65.2
        (le(0x02), EventLayout([
            .u8("Num Reports", .decimal),
            .array("Report", count: .field("Num Reports"),
                   [.u8("Event Type", .values(HCIValueTables.legacyReportEventType)), .u8("Address Type", .addressType),
                    .address("Address", .peer), .u8("Data Length", .decimal),
                    .data("Data", lengthFrom: "Data Length", .advertisingData), .dBm("RSSI")]),
        ])),
        // §7.7.65.3
        (le(0x03), EventLayout(
            [.status, .handle, .u16("Connection Interval", .connInterval), .u16("Peripheral Latency", .decimal),
             .u16("Supervision Timeout", .tenMillis)],
            summary: ["Status", "Connection Handle", "Connection Interval", "Supervision Timeout"])),
        // §7.7.65.4
        (le(0x04), EventLayout(
            [.status, .handle, .u64("LE Features", .flags(HCIValueTables.leFeatures))],
            summary: ["Status", "Connection Handle"])),
        // §7.7.65.5
        (le(0x05), EventLayout(
            [.handle, .u64("Random Number", .hex), .u16("Encrypted Diversifier", .hex)], summary: ["Connection Handle"])),
        // §7.7.65.6
        (le(0x06), EventLayout(
            [.handle, .u16("Interval Min", .connInterval), .u16("Interval Max", .connInterval),
             .u16("Max Latency", .decimal), .u16("Timeout", .tenMillis)],
            summary: ["Connection Handle", "Interval Min", "Interval Max"])),
        // §7.7.65.7
        (le(0x07), EventLayout(
            [.handle, .u16("Max TX Octets", .decimal), .u16("Max TX Time", .micros),
             .u16("Max RX Octets", .decimal), .u16("Max RX Time", .micros)],
            summary: ["Connection Handle", "Max TX Octets", "Max RX Octets"])),
        // §7.7.65.8, §7.7.65.9
        (le(0x08), EventLayout([.status, .bytes("Key X Coordinate", 32, .hex), .bytes("Key Y Coordinate", 32, .hex)],
                               summary: ["Status"])),
        (le(0x09), EventLayout([.status, .bytes("DH Key", 32, .hex)], summary: ["Status"])),
        // §7.7.65.10
        (le(0x0A), EventLayout(enhancedConnectionCompleteV1, summary: ["Status", "Connection Handle", "Role", "Peer Address"])),
        (le(0x29), EventLayout(
            enhancedConnectionCompleteV1 + [.u8("Advertising Handle", .hex), .u16("Sync Handle", .hex)],
            summary: ["Status", "Connection Handle", "Role", "Peer Address"])),
        // §7.7.65.11
        (le(0x0B), EventLayout([
            .u8("Num Reports", .decimal),
            .array("Report", count: .field("Num Reports"),
                   [.u8("Event Type", .values(HCIValueTables.legacyReportEventType)), .u8("Address Type", .addressType),
                    .address("Address", .peer), .u8("Direct Address Type", .addressType),
                    .address("Direct Address", .local), .dBm("RSSI")]),
        ])),
        // §7.7.65.12
        (le(0x0C), EventLayout(
            [.status, .handle, .u8("TX PHY", .phy), .u8("RX PHY", .phy)],
            summary: ["Status", "Connection Handle", "TX PHY", "RX PHY"])),
        // §7.7.65.13
        (le(0x0D), EventLayout([
            .u8("Num Reports", .decimal),
            .array("Report", count: .field("Num Reports"),
                   [.u16("Event Type", .extendedAdvertisingEventType), .u8("Address Type", .addressType),
                    .address("Address", .peer), .u8("Primary PHY", .phy), .u8("Secondary PHY", .phy),
                    .u8("Advertising SID", .hex), .dBm("TX Power"), .dBm("RSSI"),
                    .u16("Periodic Advertising Interval", .connInterval), .u8("Direct Address Type", .addressType),
                    .address("Direct Address", .local), .u8("Data Length", .decimal),
                    .data("Data", lengthFrom: "Data Length", .advertisingData)]),
        ])),
        // §7.7.65.14, §7.7.65.15, §7.7.65.16
        (le(0x0E), EventLayout(periodicSyncEstablishedV1, summary: ["Status", "Sync Handle", "Advertiser Address"])),
        (le(0x24), EventLayout(periodicSyncEstablishedV1 + pawrTail, summary: ["Status", "Sync Handle", "Advertiser Address"])),
        (le(0x0F), EventLayout(
            [.u16("Sync Handle", .hex), .dBm("TX Power"), .dBm("RSSI"), .u8("CTE Type", .hex),
             .u8("Data Status", .values(HCIValueTables.dataStatus)), .u8("Data Length", .decimal),
             .data("Data", lengthFrom: "Data Length", .advertisingData)],
            summary: ["Sync Handle", "Data Status"])),
        (le(0x25), EventLayout(
            [.u16("Sync Handle", .hex), .dBm("TX Power"), .dBm("RSSI"), .u8("CTE Type", .hex),
             .u16("Periodic Event Counter", .decimal), .u8("Subevent", .decimal),
             .u8("Data Status", .values(HCIValueTables.dataStatus)), .u8("Data Length", .decimal),
             .data("Data", lengthFrom: "Data Length", .advertisingData)],
            summary: ["Sync Handle", "Data Status"])),
        (le(0x10), EventLayout([.u16("Sync Handle", .hex)], summary: ["Sync Handle"])),
        // §7.7.65.17–§7.7.65.20
        (le(0x11), EventLayout([])),
        (le(0x12), EventLayout(
            [.status, .u8("Advertising Handle", .hex), .handle,
             .u8("Num Completed Extended Advertising Events", .decimal)],
            summary: ["Status", "Advertising Handle", "Connection Handle"])),
        (le(0x13), EventLayout(
            [.u8("Advertising Handle", .hex), .u8("Scanner Address Type", .addressType),
             .address("Scanner Address", .peer)],
            summary: ["Advertising Handle", "Scanner Address"])),
        (le(0x14), EventLayout(
            [.handle, .u8("Channel Selection Algorithm", .values(HCIValueTables.channelSelectionAlgorithm))],
            summary: ["Connection Handle", "Channel Selection Algorithm"])),
        // §7.7.65.23, §7.7.65.24
        (le(0x17), EventLayout(statusHandle, summary: ["Status", "Connection Handle"])),
        (le(0x18), EventLayout(syncTransferReceivedV1, summary: ["Status", "Connection Handle", "Advertiser Address"])),
        (le(0x26), EventLayout(syncTransferReceivedV1 + pawrTail,
                               summary: ["Status", "Connection Handle", "Advertiser Address"])),
        // §7.7.65.25, §7.7.65.26
        (le(0x19), EventLayout(
            [.status, .handle, .u24("CIG Sync Delay", .micros), .u24("CIS Sync Delay", .micros),
             .u24("Transport Latency C To P", .micros), .u24("Transport Latency P To C", .micros),
             .u8("PHY C To P", .phy), .u8("PHY P To C", .phy), .u8("NSE", .decimal), .u8("BN C To P", .decimal),
             .u8("BN P To C", .decimal), .u8("FT C To P", .decimal), .u8("FT P To C", .decimal),
             .u16("Max PDU C To P", .decimal), .u16("Max PDU P To C", .decimal), .u16("ISO Interval", .connInterval)],
            summary: ["Status", "Connection Handle"])),
        (le(0x1A), EventLayout(
            [.handle("ACL Connection Handle"), .handle("CIS Connection Handle"), .u8("CIG ID", .hex), .u8("CIS ID", .hex)],
            summary: ["ACL Connection Handle", "CIS Connection Handle"])),
        // §7.7.65.28, §7.7.65.30, §7.7.65.31
        (le(0x1C), EventLayout([.u8("BIG Handle", .hex), .reason], summary: ["BIG Handle", "Reason"])),
        (le(0x1E), EventLayout([.u8("BIG Handle", .hex), .reason], summary: ["BIG Handle", "Reason"])),
        (le(0x1F), EventLayout(
            [.status, .handle, .u8("Peer Clock Accuracy", .values(HCIValueTables.clockAccuracy))],
            summary: ["Status", "Connection Handle"])),
        // §7.7.65.32, §7.7.65.33
        (le(0x20), EventLayout(
            [.handle, .u8("Current Path Loss", .decimal), .u8("Zone Entered", .hex)], summary: ["Connection Handle"])),
        (le(0x21), EventLayout(
            [.status, .handle, .u8("Reason", .values(HCIValueTables.powerReportingReason)), .u8("PHY", .hex),
             .dBm("TX Power Level"), .u8("TX Power Level Flag", .hex), .u8("Delta", .signed)],
            summary: ["Status", "Connection Handle", "TX Power Level"])),
        // §7.7.65.35
        (le(0x23), EventLayout(
            [.status, .handle, .u16("Subrate Factor", .decimal), .u16("Peripheral Latency", .decimal),
             .u16("Continuation Number", .decimal), .u16("Supervision Timeout", .tenMillis)],
            summary: ["Status", "Connection Handle", "Subrate Factor"])),
    ]
}
