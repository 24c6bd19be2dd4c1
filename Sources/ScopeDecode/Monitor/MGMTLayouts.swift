import ScopeCore

/// Parameter layouts of the BlueZ management protocol (MGMT) commands and events that monitor
/// captures carry in CTRL_COMMAND / CTRL_EVENT records (BlueZ doc/mgmt-api.txt), in the same
/// layout language as HCI (all integers little-endian). Only what is described here is known:
/// the redactor treats parameters of any other opcode as opaque.
public enum MGMTLayouts {
    /// Address_Info: BD_ADDR and its type (0 BR/EDR, 1 LE public, 2 LE random).
    static let addressInfo: [ParamField] = [.address("Address", .peer), .u8("Address Type", .values(addressTypes))]
    static let addressTypes: [UInt64: String] = [0: "BR/EDR", 1: "LE Public", 2: "LE Random"]
    static let settings: [ParamField] = [.u32("Current Settings", .hex)]
    static let names: [ParamField] = [.bytes("Name", 249, .text), .bytes("Short Name", 11, .text)]
    static let eir: [ParamField] = [.u16("EIR Data Length", .decimal), .data("EIR Data", lengthFrom: "EIR Data Length", .advertisingData)]
    static let key16: ParamField = .bytes("Value", 16, .hex)

    /// Command opcode → parameters.
    public static let commands: [UInt16: [ParamField]] = {
        var t: [UInt16: [ParamField]] = [:]
        for op: UInt16 in [0x0001, 0x0002, 0x0003, 0x0004, 0x0015, 0x0020, 0x0036, 0x0037, 0x003B, 0x003D, 0x0048, 0x0049, 0x004B, 0x0051] {
            t[op] = []
        }
        for op: UInt16 in [0x0005, 0x0007, 0x0008, 0x0009, 0x000A, 0x000B, 0x000C, 0x000D, 0x0018, 0x0023, 0x0024, 0x0029, 0x002A, 0x002D, 0x002E] {
            t[op] = [.u8("Value", .hex)]
        }
        t[0x0006] = [.u8("Discoverable", .hex), .u16("Timeout", .seconds)]
        t[0x000E] = [.u8("Major Class", .hex), .u8("Minor Class", .hex)]
        t[0x000F] = names
        t[0x0010] = [.bytes("UUID", 16, .hex), .u8("SVC Hint", .hex)]
        t[0x0011] = [.bytes("UUID", 16, .hex)]
        t[0x0012] = [.u8("Debug Keys", .hex), .u16("Key Count", .decimal),
                     .array("Keys", count: .field("Key Count"), addressInfo + [.u8("Key Type", .hex), key16, .u8("PIN Length", .decimal)])]
        t[0x0013] = [.u16("Key Count", .decimal),
                     .array("Keys", count: .field("Key Count"), addressInfo + [
                        .u8("Key Type", .hex), .u8("Central", .hex), .u8("Encryption Size", .decimal), .u16("Encryption Diversifier", .hex),
                        .u64("Random Number", .hex), key16])]
        for op: UInt16 in [0x0014, 0x0017, 0x001A, 0x001C, 0x001D, 0x001F, 0x0022, 0x0026, 0x0027, 0x0031, 0x0032, 0x0034] {
            t[op] = addressInfo
        }
        t[0x0016] = addressInfo + [.u8("PIN Length", .decimal), .bytes("PIN Code", 16, .hex)]
        t[0x0019] = addressInfo + [.u8("IO Capability", .hex)]
        t[0x001B] = addressInfo + [.u8("Disconnect", .hex)]
        t[0x001E] = addressInfo + [.u32("Passkey", .decimal)]
        t[0x0021] = addressInfo + [.rest("OOB Data", .hex)]
        t[0x0025] = addressInfo + [.u8("Name Known", .hex)]
        t[0x0028] = [.u16("Source", .hex), .u16("Vendor", .hex), .u16("Product", .hex), .u16("Version", .hex)]
        t[0x002B] = [.address("Address", .local)]
        t[0x002C] = [.u16("Interval", .slots), .u16("Window", .slots)]
        t[0x002F] = [.u8("Privacy", .hex), .bytes("Identity Resolving Key", 16, .hex)]
        t[0x0030] = [.u16("Key Count", .decimal), .array("Keys", count: .field("Key Count"), addressInfo + [key16])]
        t[0x0033] = addressInfo + [.u8("Action", .hex)]
        t[0x0035] = [.u16("Param Count", .decimal),
                     .array("Parameters", count: .field("Param Count"), addressInfo + [
                        .u16("Min Connection Interval", .connInterval), .u16("Max Connection Interval", .connInterval),
                        .u16("Connection Latency", .decimal), .u16("Supervision Timeout", .tenMillis)])]
        t[0x003A] = [.u8("Address Type", .hex), .u8("RSSI Threshold", .signed), .u16("UUID Count", .decimal),
                     .array("UUIDs", count: .field("UUID Count"), [.bytes("UUID", 16, .hex)])]
        t[0x003E] = [.u8("Instance", .decimal), .u32("Flags", .hex), .u16("Duration", .seconds), .u16("Timeout", .seconds),
                     .u8("Adv Data Length", .decimal), .u8("Scan Rsp Length", .decimal),
                     .data("Adv Data", lengthFrom: "Adv Data Length", .advertisingData),
                     .data("Scan Rsp Data", lengthFrom: "Scan Rsp Length", .advertisingData)]
        t[0x003F] = [.u8("Instance", .decimal)]
        t[0x0046] = [.u16("Key Count", .decimal), .array("Keys", count: .field("Key Count"), [.u8("Type", .hex), key16])]
        t[0x0053] = [.u16("Monitor Handle", .hex)]
        return t
    }()

    /// Event code → parameters (Command Complete: see ``returns``).
    public static let events: [UInt16: [ParamField]] = {
        var t: [UInt16: [ParamField]] = [:]
        t[0x0002] = [.u16("Command Opcode", .hex), .u8("Status", .hex)]
        t[0x0003] = [.u8("Error Code", .hex)]
        for op: UInt16 in [0x0004, 0x0005, 0x001D, 0x001E, 0x0020, 0x0021] { t[op] = [] }
        t[0x0006] = settings
        t[0x0007] = [.u24("Class Of Device", .hex)]
        t[0x0008] = names
        t[0x0009] = [.u8("Store Hint", .hex)] + addressInfo + [.u8("Key Type", .hex), key16, .u8("PIN Length", .decimal)]
        t[0x000A] = [.u8("Store Hint", .hex)] + addressInfo + [
            .u8("Key Type", .hex), .u8("Central", .hex), .u8("Encryption Size", .decimal), .u16("Encryption Diversifier", .hex),
            .u64("Random Number", .hex), key16]
        t[0x000B] = addressInfo + [.u32("Flags", .hex)] + eir
        t[0x000C] = addressInfo + [.u8("Reason", .hex)]
        t[0x000D] = addressInfo + [.u8("Status", .hex)]
        t[0x000E] = addressInfo + [.u8("Secure", .hex)]
        t[0x000F] = addressInfo + [.u8("Confirm Hint", .hex), .u32("Value", .decimal)]
        t[0x0010] = addressInfo
        t[0x0011] = addressInfo + [.u8("Status", .hex)]
        t[0x0012] = addressInfo + [.u8("RSSI", .signed), .u32("Flags", .hex)] + eir
        t[0x0013] = [.u8("Address Type", .hex), .u8("Discovering", .hex)]
        for op: UInt16 in [0x0014, 0x0015, 0x0016, 0x001B] { t[op] = addressInfo }
        t[0x0017] = addressInfo + [.u32("Passkey", .decimal), .u8("Entered", .decimal)]
        t[0x0018] = [.u8("Store Hint", .hex), .address("Random Address", .peer)] + addressInfo + [key16]
        t[0x0019] = [.u8("Store Hint", .hex)] + addressInfo + [.u8("Key Type", .hex), key16]
        t[0x001A] = addressInfo + [.u8("Action", .hex)]
        t[0x001C] = [.u8("Store Hint", .hex)] + addressInfo + [
            .u16("Min Connection Interval", .connInterval), .u16("Max Connection Interval", .connInterval),
            .u16("Connection Latency", .decimal), .u16("Supervision Timeout", .tenMillis)]
        t[0x0023] = [.u8("Instance", .decimal)]
        t[0x0024] = [.u8("Instance", .decimal)]
        t[0x0025] = eir
        t[0x002F] = addressInfo + [.u32("Supported Flags", .hex), .u32("Current Flags", .hex)]
        return t
    }()

    /// Command opcode → return parameters of its Command Complete event (after the opcode and
    /// status). Commands that take an Address_Info return it.
    public static let returns: [UInt16: [ParamField]] = {
        var t: [UInt16: [ParamField]] = [:]
        t[0x0001] = [.u8("Version", .decimal), .u16("Revision", .decimal)]
        t[0x0003] = [.u16("Num Controllers", .decimal), .array("Controllers", count: .field("Num Controllers"), [.u16("Index", .decimal)])]
        t[0x0004] = [.address("Address", .local), .u8("Bluetooth Version", .coreVersion), .u16("Manufacturer", .companyID),
                     .u32("Supported Settings", .hex), .u32("Current Settings", .hex), .u24("Class Of Device", .hex)] + names
        for op: UInt16 in [0x0005, 0x0006, 0x0007, 0x0008, 0x0009, 0x000A, 0x000B, 0x000C, 0x000D, 0x0029, 0x002A, 0x002B, 0x002D, 0x002E, 0x002F] {
            t[op] = settings
        }
        for op: UInt16 in [0x000E, 0x0010, 0x0011] { t[op] = [.u24("Class Of Device", .hex)] }
        t[0x000F] = names
        for op: UInt16 in [0x0012, 0x0013, 0x0018, 0x0028, 0x002C, 0x0030, 0x0035, 0x0046] { t[op] = [] }
        for op: UInt16 in [0x0014, 0x0016, 0x0017, 0x0019, 0x001A, 0x001B, 0x001C, 0x001D, 0x001E, 0x001F, 0x0021, 0x0022, 0x0025,
                           0x0026, 0x0027, 0x0033, 0x0034] {
            t[op] = addressInfo
        }
        t[0x0015] = [.u16("Connection Count", .decimal), .array("Connections", count: .field("Connection Count"), addressInfo)]
        t[0x0020] = [.rest("OOB Data", .hex)]
        t[0x0023] = [.u8("Address Type", .hex)]
        t[0x0024] = [.u8("Address Type", .hex)]
        t[0x0031] = addressInfo + [.u8("RSSI", .signed), .u8("TX Power", .signed), .u8("Max TX Power", .signed)]
        t[0x0032] = addressInfo + [.u32("Local Clock", .hex), .u32("Piconet Clock", .hex), .u16("Accuracy", .decimal)]
        t[0x003A] = [.u8("Address Type", .hex)]
        t[0x003E] = [.u8("Instance", .decimal)]
        t[0x003F] = [.u8("Instance", .decimal)]
        t[0x0053] = [.u16("Monitor Handle", .hex)]
        return t
    }()

    /// Secret parameters, by name: zeroed by the redactor wherever a layout above names them.
    static let secretNames: Set<String> = [
        "Value", "PIN Code", "Passkey", "OOB Data", "Identity Resolving Key", "Encryption Diversifier", "Random Number",
    ]

    /// The spans of a CTRL_COMMAND / CTRL_EVENT record payload: cookie (4), opcode (2), then the
    /// parameters as the tables above describe them (`.opaque` when they do not). Keys, PIN
    /// codes, passkeys and OOB data are `.secret`.
    public static func spans(kind: RecordKind, _ p: [UInt8]) -> [FieldSpan] {
        let base = 6
        guard p.count > base else { return [] }
        let opcode = UInt16(p[4]) | UInt16(p[5]) << 8
        let layout: [ParamField]?
        var start = base
        if kind == .controlEvent, opcode == 0x0001 {
            // Command Complete: command opcode, status, return parameters.
            guard p.count > base + 3 else { return [] }
            layout = returns[UInt16(p[base]) | UInt16(p[base + 1]) << 8]
            start = base + 3
        } else {
            layout = kind == .controlEvent ? events[opcode] : commands[opcode]
        }
        guard let layout else { return [FieldSpan(start..<p.count, .opaque)] }
        return ParamLayout.spans(layout, p[start...], baseOffset: start, secretNames: secretNames)
    }

    /// The layout of a CTRL_COMMAND / CTRL_EVENT's parameters and the offset they start at
    /// (after cookie and opcode; Command Complete: its command opcode and status come first).
    static func layout(kind: RecordKind, _ p: [UInt8]) -> ([ParamField], Int)? {
        let base = 6
        guard p.count >= base else { return nil }
        let opcode = UInt16(p[4]) | UInt16(p[5]) << 8
        if kind == .controlEvent, opcode == 0x0001 {
            guard p.count >= base + 3, let layout = returns[UInt16(p[base]) | UInt16(p[base + 1]) << 8] else { return nil }
            return ([.u16("Command Opcode", .hex), .u8("Status", .hex)] + layout, base)
        }
        guard let layout = kind == .controlEvent ? events[opcode] : commands[opcode] else { return nil }
        return (layout, base)
    }

    /// The decoded parameters of a CTRL_COMMAND / CTRL_EVENT record payload (nil when its
    /// opcode's layout is not described).
    public static func fields(kind: RecordKind, _ p: [UInt8]) -> [Field]? {
        guard let (layout, start) = layout(kind: kind, p) else { return nil }
        return ParamLayout.decode(layout, p[start...], baseOffset: start, layer: .monitor).fields
    }
}
