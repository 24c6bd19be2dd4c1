/// A command's parameter layout, its Command Complete return-parameter layout, and which
/// parameters make up its one-line summary.
struct CommandLayout: Sendable {
    /// Command parameters (nil: not described; shown as raw hex).
    let parameters: [ParamField]?
    /// Return parameters of Command Complete (nil: the command is answered by Command Status
    /// only, or not described).
    let returns: [ParamField]?
    /// Names of parameters appended to the summary line.
    let summary: [String]
    /// Parameter sizes that certainly fit `parameters` exactly (nil: left to the general check).
    let exactSize: ParamLayout.ExactSize?
    /// What a Command Complete reads of `returns` for every answer, worked out once.
    let returnShape: ReturnShape?

    /// Of a return layout: the sizes that certainly fit it exactly (nil: left to the general
    /// check) and where its connection handle is (nil: none at a fixed place).
    struct ReturnShape: Sendable {
        let exactSize: ParamLayout.ExactSize?
        let handleOffset: Int?
    }

    init(_ parameters: [ParamField]?, returns: [ParamField]? = nil, summary: [String] = []) {
        self.parameters = parameters
        self.returns = returns
        self.summary = summary
        self.exactSize = parameters.flatMap(ParamLayout.ExactSize.init)
        self.returnShape = returns.map { ReturnShape(exactSize: ParamLayout.ExactSize($0), handleOffset: ParamLayout.handleOffset($0)) }
    }
}

extension HCICommand {
    /// Layout rows, keyed by opcode. Commands with only a name in ``HCIOpcode`` print their
    /// parameters as raw hex.
    static let layouts: [UInt16: CommandLayout] = {
        var out: [UInt16: CommandLayout] = [:]
        for (opcode, layout) in linkControlLayouts + linkPolicyLayouts + basebandLayouts + informationalLayouts
            + statusLayouts + leScanAdvertisingLayouts + leConnectionLayouts + leSecurityLayouts + leMiscLayouts
        where out[opcode.rawValue] == nil {
            out[opcode.rawValue] = layout
        }
        return out
    }()

    /// ``layouts`` looked up by index instead of by hashing the opcode (Command Complete and
    /// every command look one up): the opcode's OCF within its OGF's run of ``flatLayouts``.
    static func layout(_ opcode: UInt16) -> CommandLayout? {
        guard let i = flatIndex(opcode) else { return nil }
        return flatLayouts[i]
    }

    /// `layout(opcode)?.parameters`, without copying the rest of the layout.
    static func parameterLayout(_ opcode: UInt16) -> [ParamField]? {
        guard let i = flatIndex(opcode) else { return nil }
        return flatLayouts[i]?.parameters
    }

    /// `layout(opcode)?.exactSize`, without copying the rest of the layout.
    static func exactSize(_ opcode: UInt16) -> ParamLayout.ExactSize? {
        guard let i = flatIndex(opcode) else { return nil }
        return flatLayouts[i]?.exactSize
    }

    /// `layout(opcode)?.returns`, without copying the rest of the layout.
    static func returnLayout(_ opcode: UInt16) -> [ParamField]? {
        guard let i = flatIndex(opcode) else { return nil }
        return flatLayouts[i]?.returns
    }

    /// `layout(opcode)?.returnShape`, without copying the rest of the layout.
    static func returnShape(_ opcode: UInt16) -> CommandLayout.ReturnShape? {
        guard let i = flatIndex(opcode) else { return nil }
        return flatLayouts[i]?.returnShape
    }

    private static func flatIndex(_ opcode: UInt16) -> Int? {
        let run = layoutRuns[Int(opcode >> 10)]
        let ocf = Int(opcode & 0x3FF)
        return ocf < run.count ? run.start + ocf : nil
    }

    /// For each OGF, where its OCFs start in ``flatLayouts`` and how many there are (0 to the
    /// largest described OCF).
    private static let layoutRuns: [(start: Int, count: Int)] = flatTables.runs
    private static let flatLayouts: [CommandLayout?] = flatTables.layouts

    private static let flatTables: (runs: [(start: Int, count: Int)], layouts: [CommandLayout?]) = {
        var runs = [(start: Int, count: Int)](repeating: (0, 0), count: 64)
        for opcode in layouts.keys {
            let ogf = Int(opcode >> 10)
            runs[ogf].count = max(runs[ogf].count, Int(opcode & 0x3FF) + 1)
        }
        var total = 0
        for ogf in 0..<64 {
            runs[ogf].start = total
            total += runs[ogf].count
        }
        var flat = [CommandLayout?](repeating: nil, count: total)
        for (opcode, layout) in layouts { flat[runs[Int(opcode >> 10)].start + Int(opcode & 0x3FF)] = layout }
        return (runs, flat)
    }()

    private static let statusOnly: [ParamField] = [.status]
    private static let statusHandle: [ParamField] = [.status, .handle]
    private static let statusAddress: [ParamField] = [.status, .address("BD_ADDR", .peer)]
    private static let handleOnly: [ParamField] = [.handle]

    private static func op(_ ogf: UInt8, _ ocf: UInt16) -> HCIOpcode { HCIOpcode(ogf: ogf, ocf: ocf) }

    // MARK: Link Control (§7.1)

    static let linkControlLayouts: [(HCIOpcode, CommandLayout)] = [
        // §7.1.1
        (op(0x01, 0x0001), CommandLayout([.u24("LAP", .hex), .u8("Inquiry Length", .units1_28s), .u8("Num Responses", .decimal)])),
        (op(0x01, 0x0002), CommandLayout([], returns: statusOnly)),
        // §7.1.5
        (op(0x01, 0x0005), CommandLayout(
            [.address("BD_ADDR", .peer), .u16("Packet Type", .hex), .u8("Page Scan Repetition Mode", .hex),
             .u8("Reserved", .hex), .u16("Clock Offset", .hex), .u8("Allow Role Switch", .hex)],
            summary: ["BD_ADDR"])),
        // §7.1.6
        (op(0x01, 0x0006), CommandLayout([.handle, .reason], summary: ["Connection Handle", "Reason"])),
        (op(0x01, 0x0008), CommandLayout([.address("BD_ADDR", .peer)], returns: statusAddress, summary: ["BD_ADDR"])),
        (op(0x01, 0x0009), CommandLayout([.address("BD_ADDR", .peer), .u8("Role", .values(HCIValueTables.role))], summary: ["BD_ADDR"])),
        (op(0x01, 0x000A), CommandLayout([.address("BD_ADDR", .peer), .reason], summary: ["BD_ADDR", "Reason"])),
        (op(0x01, 0x000B), CommandLayout([.address("BD_ADDR", .peer), .bytes("Link Key", 16, .hex)], returns: statusAddress)),
        (op(0x01, 0x000C), CommandLayout([.address("BD_ADDR", .peer)], returns: statusAddress)),
        (op(0x01, 0x000D), CommandLayout(
            [.address("BD_ADDR", .peer), .u8("PIN Code Length", .decimal), .bytes("PIN Code", 16, .hex)], returns: statusAddress)),
        (op(0x01, 0x000E), CommandLayout([.address("BD_ADDR", .peer)], returns: statusAddress)),
        (op(0x01, 0x000F), CommandLayout([.handle, .u16("Packet Type", .hex)])),
        (op(0x01, 0x0011), CommandLayout(handleOnly, summary: ["Connection Handle"])),
        (op(0x01, 0x0013), CommandLayout([.handle, .u8("Encryption Enable", .values(HCIValueTables.enable))])),
        (op(0x01, 0x0015), CommandLayout(handleOnly)),
        // §7.1.19
        (op(0x01, 0x0019), CommandLayout(
            [.address("BD_ADDR", .peer), .u8("Page Scan Repetition Mode", .hex), .u8("Reserved", .hex), .u16("Clock Offset", .hex)],
            summary: ["BD_ADDR"])),
        (op(0x01, 0x001A), CommandLayout([.address("BD_ADDR", .peer)], returns: statusAddress)),
        (op(0x01, 0x001B), CommandLayout(handleOnly, summary: ["Connection Handle"])),
        (op(0x01, 0x001C), CommandLayout([.handle, .u8("Page Number", .decimal)])),
        (op(0x01, 0x001D), CommandLayout(handleOnly, summary: ["Connection Handle"])),
        (op(0x01, 0x001F), CommandLayout(handleOnly)),
        // §7.1.29–§7.1.36
        (op(0x01, 0x002B), CommandLayout(
            [.address("BD_ADDR", .peer), .u8("IO Capability", .values(HCIValueTables.ioCapability)),
             .u8("OOB Data Present", .hex),
             .u8("Authentication Requirements", .values(HCIValueTables.authenticationRequirements))],
            returns: statusAddress)),
        (op(0x01, 0x002C), CommandLayout([.address("BD_ADDR", .peer)], returns: statusAddress)),
        (op(0x01, 0x002D), CommandLayout([.address("BD_ADDR", .peer)], returns: statusAddress)),
        (op(0x01, 0x002E), CommandLayout([.address("BD_ADDR", .peer), .u32("Numeric Value", .decimal)], returns: statusAddress)),
        (op(0x01, 0x002F), CommandLayout([.address("BD_ADDR", .peer)], returns: statusAddress)),
        (op(0x01, 0x0030), CommandLayout(
            [.address("BD_ADDR", .peer), .bytes("C", 16, .hex), .bytes("R", 16, .hex)], returns: statusAddress)),
        (op(0x01, 0x0033), CommandLayout([.address("BD_ADDR", .peer)], returns: statusAddress)),
        (op(0x01, 0x0034), CommandLayout([.address("BD_ADDR", .peer), .reason], returns: statusAddress)),
        // §7.1.53
        (op(0x01, 0x0045), CommandLayout(
            [.address("BD_ADDR", .peer), .bytes("C_192", 16, .hex), .bytes("R_192", 16, .hex), .bytes("C_256", 16, .hex),
             .bytes("R_256", 16, .hex)], returns: statusAddress)),
    ]

    // MARK: Link Policy (§7.2)

    static let linkPolicyLayouts: [(HCIOpcode, CommandLayout)] = [
        (op(0x02, 0x0003), CommandLayout(
            [.handle, .u16("Sniff Max Interval", .slots), .u16("Sniff Min Interval", .slots),
             .u16("Sniff Attempt", .decimal), .u16("Sniff Timeout", .decimal)])),
        (op(0x02, 0x0004), CommandLayout(handleOnly)),
        (op(0x02, 0x0009), CommandLayout(
            handleOnly, returns: [.status, .handle, .u8("Current Role", .values(HCIValueTables.role))])),
        (op(0x02, 0x000B), CommandLayout([.address("BD_ADDR", .peer), .u8("Role", .values(HCIValueTables.role))])),
        (op(0x02, 0x000C), CommandLayout(handleOnly, returns: [.status, .handle, .u16("Link Policy Settings", .hex)])),
        (op(0x02, 0x000D), CommandLayout([.handle, .u16("Link Policy Settings", .hex)], returns: statusHandle)),
        (op(0x02, 0x000E), CommandLayout([], returns: [.status, .u16("Default Link Policy Settings", .hex)])),
        (op(0x02, 0x000F), CommandLayout([.u16("Default Link Policy Settings", .hex)], returns: statusOnly)),
        (op(0x02, 0x0011), CommandLayout(
            [.handle, .u16("Max Latency", .slots), .u16("Min Remote Timeout", .slots), .u16("Min Local Timeout", .slots)],
            returns: statusHandle)),
    ]

    // MARK: Controller & Baseband (§7.3)

    static let basebandLayouts: [(HCIOpcode, CommandLayout)] = [
        (op(0x03, 0x0001), CommandLayout([.u64("Event Mask", .flags(HCIValueTables.eventMask))], returns: statusOnly)),
        (op(0x03, 0x0003), CommandLayout([], returns: statusOnly)),
        (op(0x03, 0x0005), CommandLayout([.u8("Filter Type", .hex), .rest("Filter Condition", .hex)], returns: statusOnly)),
        (op(0x03, 0x0008), CommandLayout(handleOnly, returns: statusHandle)),
        (op(0x03, 0x0009), CommandLayout([], returns: [.status, .u8("PIN Type", .hex)])),
        (op(0x03, 0x000A), CommandLayout([.u8("PIN Type", .hex)], returns: statusOnly)),
        // §7.3.8 (arrayed parameters interleaved, Vol 4 Part E §5.2)
        (op(0x03, 0x0011), CommandLayout(
            [.u8("Num Keys To Write", .decimal),
             .array("Key", count: .field("Num Keys To Write"), [.address("BD_ADDR", .peer), .bytes("Link Key", 16, .hex)])],
            returns: [.status, .u8("Num Keys Written", .decimal)])),
        (op(0x03, 0x0013), CommandLayout([.bytes("Local Name", 248, .text)], returns: statusOnly, summary: ["Local Name"])),
        (op(0x03, 0x0014), CommandLayout([], returns: [.status, .bytes("Local Name", 248, .text)])),
        (op(0x03, 0x0015), CommandLayout([], returns: [.status, .u16("Connection Accept Timeout", .slots)])),
        (op(0x03, 0x0016), CommandLayout([.u16("Connection Accept Timeout", .slots)], returns: statusOnly)),
        (op(0x03, 0x0017), CommandLayout([], returns: [.status, .u16("Page Timeout", .slots)])),
        (op(0x03, 0x0018), CommandLayout([.u16("Page Timeout", .slots)], returns: statusOnly)),
        (op(0x03, 0x0019), CommandLayout([], returns: [.status, .u8("Scan Enable", .values(HCIValueTables.scanEnable))])),
        (op(0x03, 0x001A), CommandLayout(
            [.u8("Scan Enable", .values(HCIValueTables.scanEnable))], returns: statusOnly, summary: ["Scan Enable"])),
        (op(0x03, 0x001B), CommandLayout([], returns: [.status, .u16("Page Scan Interval", .slots), .u16("Page Scan Window", .slots)])),
        (op(0x03, 0x001C), CommandLayout([.u16("Page Scan Interval", .slots), .u16("Page Scan Window", .slots)], returns: statusOnly)),
        (op(0x03, 0x001D), CommandLayout([], returns: [.status, .u16("Inquiry Scan Interval", .slots), .u16("Inquiry Scan Window", .slots)])),
        (op(0x03, 0x001E), CommandLayout([.u16("Inquiry Scan Interval", .slots), .u16("Inquiry Scan Window", .slots)], returns: statusOnly)),
        (op(0x03, 0x001F), CommandLayout([], returns: [.status, .u8("Authentication Enable", .values(HCIValueTables.enable))])),
        (op(0x03, 0x0020), CommandLayout([.u8("Authentication Enable", .values(HCIValueTables.enable))], returns: statusOnly)),
        (op(0x03, 0x0023), CommandLayout([], returns: [.status, .u24("Class Of Device", .hex)])),
        (op(0x03, 0x0024), CommandLayout([.u24("Class Of Device", .hex)], returns: statusOnly, summary: ["Class Of Device"])),
        (op(0x03, 0x0025), CommandLayout([], returns: [.status, .u16("Voice Setting", .hex)])),
        (op(0x03, 0x0026), CommandLayout([.u16("Voice Setting", .hex)], returns: statusOnly)),
        (op(0x03, 0x002D), CommandLayout(
            [.handle, .u8("Type", .values([0x00: "Current", 0x01: "Maximum"]))],
            returns: [.status, .handle, .dBm("TX Power Level")])),
        (op(0x03, 0x0031), CommandLayout([.u8("Flow Control Enable", .hex)], returns: statusOnly)),
        (op(0x03, 0x0033), CommandLayout(
            [.u16("Host ACL Data Packet Length", .decimal), .u8("Host Synchronous Data Packet Length", .decimal),
             .u16("Host Total Num ACL Data Packets", .decimal), .u16("Host Total Num Synchronous Data Packets", .decimal)],
            returns: statusOnly)),
        (op(0x03, 0x0035), CommandLayout(
            [.u8("Num Handles", .decimal),
             .array("Handle", count: .field("Num Handles"), [.handle, .u16("Host Num Completed Packets", .decimal)])])),
        (op(0x03, 0x0036), CommandLayout(handleOnly, returns: [.status, .handle, .u16("Link Supervision Timeout", .slots)])),
        (op(0x03, 0x0037), CommandLayout([.handle, .u16("Link Supervision Timeout", .slots)], returns: statusHandle)),
        (op(0x03, 0x0042), CommandLayout([], returns: [.status, .u8("Inquiry Scan Type", .hex)])),
        (op(0x03, 0x0043), CommandLayout([.u8("Inquiry Scan Type", .hex)], returns: statusOnly)),
        (op(0x03, 0x0044), CommandLayout([], returns: [.status, .u8("Inquiry Mode", .hex)])),
        (op(0x03, 0x0045), CommandLayout([.u8("Inquiry Mode", .hex)], returns: statusOnly)),
        (op(0x03, 0x0046), CommandLayout([], returns: [.status, .u8("Page Scan Type", .hex)])),
        (op(0x03, 0x0047), CommandLayout([.u8("Page Scan Type", .hex)], returns: statusOnly)),
        (op(0x03, 0x0051), CommandLayout(
            [], returns: [.status, .u8("FEC Required", .hex), .bytes("Extended Inquiry Response", 240, .advertisingData)])),
        (op(0x03, 0x0052), CommandLayout(
            [.u8("FEC Required", .hex), .bytes("Extended Inquiry Response", 240, .advertisingData)], returns: statusOnly)),
        (op(0x03, 0x0055), CommandLayout([], returns: [.status, .u8("Simple Pairing Mode", .values(HCIValueTables.enable))])),
        (op(0x03, 0x0056), CommandLayout([.u8("Simple Pairing Mode", .values(HCIValueTables.enable))], returns: statusOnly)),
        // §7.3.60
        (op(0x03, 0x0057), CommandLayout([], returns: [.status, .bytes("C", 16, .hex), .bytes("R", 16, .hex)])),
        (op(0x03, 0x0058), CommandLayout([], returns: [.status, .dBm("TX Power")])),
        (op(0x03, 0x0059), CommandLayout([.dBm("TX Power")], returns: statusOnly)),
        (op(0x03, 0x0063), CommandLayout([.u64("Event Mask Page 2", .hex)], returns: statusOnly)),
        (op(0x03, 0x006C), CommandLayout([], returns: [.status, .u8("LE Supported Host", .hex), .u8("Unused", .hex)])),
        (op(0x03, 0x006D), CommandLayout(
            [.u8("LE Supported Host", .values(HCIValueTables.enable)), .u8("Unused", .hex)], returns: statusOnly)),
        (op(0x03, 0x0079), CommandLayout(
            [], returns: [.status, .u8("Secure Connections Host Support", .values(HCIValueTables.enable))])),
        (op(0x03, 0x007A), CommandLayout(
            [.u8("Secure Connections Host Support", .values(HCIValueTables.enable))], returns: statusOnly)),
        (op(0x03, 0x007B), CommandLayout(handleOnly, returns: [.status, .handle, .u16("Authenticated Payload Timeout", .tenMillis)])),
        (op(0x03, 0x007C), CommandLayout([.handle, .u16("Authenticated Payload Timeout", .tenMillis)], returns: statusHandle)),
        // §7.3.95
        (op(0x03, 0x007D), CommandLayout(
            [], returns: [.status, .bytes("C_192", 16, .hex), .bytes("R_192", 16, .hex), .bytes("C_256", 16, .hex), .bytes("R_256", 16, .hex)])),
        (op(0x03, 0x0084), CommandLayout([.u8("Min Encryption Key Size", .decimal)], returns: statusOnly)),
    ]

    // MARK: Informational (§7.4)

    static let informationalLayouts: [(HCIOpcode, CommandLayout)] = [
        (op(0x04, 0x0001), CommandLayout(
            [], returns: [.status, .u8("HCI Version", .coreVersion), .u16("HCI Subversion", .hex),
                          .u8("LMP Version", .coreVersion), .u16("Company Identifier", .companyID),
                          .u16("LMP Subversion", .hex)])),
        (op(0x04, 0x0002), CommandLayout([], returns: [.status, .bytes("Supported Commands", 64, .hex)])),
        (op(0x04, 0x0003), CommandLayout([], returns: [.status, .u64("LMP Features", .hex)])),
        (op(0x04, 0x0004), CommandLayout(
            [.u8("Page Number", .decimal)],
            returns: [.status, .u8("Page Number", .decimal), .u8("Max Page Number", .decimal), .u64("Extended LMP Features", .hex)])),
        (op(0x04, 0x0005), CommandLayout(
            [], returns: [.status, .u16("ACL Data Packet Length", .decimal), .u8("Synchronous Data Packet Length", .decimal),
                          .u16("Total Num ACL Data Packets", .decimal), .u16("Total Num Synchronous Data Packets", .decimal)])),
        (op(0x04, 0x0009), CommandLayout([], returns: [.status, .address("BD_ADDR", .local)])),
        (op(0x04, 0x000A), CommandLayout(
            [], returns: [.status, .u16("Max ACL Data Packet Length", .decimal), .u16("Data Block Length", .decimal),
                          .u16("Total Num Data Blocks", .decimal)])),
        (op(0x04, 0x000B), CommandLayout(
            [], returns: [.status, .u8("Num Supported Codecs", .decimal),
                          .array("Supported Codec ID", count: .field("Num Supported Codecs"), [.u8("Codec ID", .hex)]),
                          .u8("Num Supported Vendor Specific Codecs", .decimal),
                          .array("Vendor Specific Codec ID", count: .field("Num Supported Vendor Specific Codecs"),
                                 [.u32("Codec ID", .hex)])])),
        (op(0x04, 0x000C), CommandLayout(
            [], returns: [.status, .u8("Simple Pairing Options", .hex), .u8("Max Encryption Key Size", .decimal)])),
    ]

    // MARK: Status parameters (§7.5)

    static let statusLayouts: [(HCIOpcode, CommandLayout)] = [
        (op(0x05, 0x0001), CommandLayout(handleOnly, returns: [.status, .handle, .u16("Failed Contact Counter", .decimal)])),
        (op(0x05, 0x0002), CommandLayout(handleOnly, returns: statusHandle)),
        (op(0x05, 0x0003), CommandLayout(handleOnly, returns: [.status, .handle, .u8("Link Quality", .decimal)])),
        (op(0x05, 0x0005), CommandLayout(handleOnly, returns: [.status, .handle, .dBm("RSSI")])),
        (op(0x05, 0x0006), CommandLayout(
            handleOnly, returns: [.status, .handle, .u8("AFH Mode", .hex), .bytes("AFH Channel Map", 10, .hex)])),
        (op(0x05, 0x0007), CommandLayout(
            [.handle, .u8("Which Clock", .values([0x00: "Local", 0x01: "Piconet"]))],
            returns: [.status, .handle, .u32("Clock", .hex), .u16("Accuracy", .decimal)])),
        (op(0x05, 0x0008), CommandLayout(handleOnly, returns: [.status, .handle, .u8("Key Size", .decimal)])),
        (op(0x06, 0x0004), CommandLayout([.u8("Debug Mode", .values(HCIValueTables.enable))], returns: statusOnly)),
    ]
}
