import ScopeCore

/// Decoded payload of a Linux monitor meta record (kernel `include/net/bluetooth/hci_mon.h`,
/// BlueZ `monitor/packet.c`; layouts in docs FORMATS.md §2) or a PacketLogger text record.
public enum MonitorPayload: Sendable, Hashable {
    /// NEW_INDEX: controller type, bus, address, name.
    case newIndex(type: UInt8, bus: UInt8, address: BDAddr, name: String)
    /// INDEX_INFO: address and manufacturer (company id).
    case indexInfo(address: BDAddr, manufacturer: UInt16)
    /// SYSTEM_NOTE and PacketLogger text records.
    case note(String)
    /// USER_LOGGING: syslog-style priority, identifier, message.
    case userLogging(priority: UInt8, ident: String, message: String)
    /// CTRL_OPEN: management socket opened by a process.
    case controlOpen(cookie: UInt32, format: UInt16, version: UInt8?, revision: UInt16?, flags: UInt32?, ident: String?)
    case controlClose(cookie: UInt32)
    /// CTRL_COMMAND / CTRL_EVENT: management protocol traffic (`isEvent` for CTRL_EVENT).
    case control(cookie: UInt32, opcode: UInt16, parameters: [UInt8], isEvent: Bool)
    /// Payloads with no fields (DEL/OPEN/CLOSE_INDEX) or kept as bytes (VENDOR_DIAG, DRV, LMP, unknown).
    case empty
    case raw([UInt8])

    /// Decodes the payload of a non-HCI record. Never throws: bad layouts come back as
    /// `.raw` plus a malformation.
    public static func decode(kind: RecordKind, payload: [UInt8]) -> (MonitorPayload, [Malformation]) {
        var r = ByteReader(payload, layer: .monitor)
        do {
            switch kind {
            case .newIndex:
                let type = try r.readU8()
                let bus = try r.readU8()
                let address = try r.readAddress()
                let name = cString(try r.readBytes(min(8, r.remaining)))
                return (.newIndex(type: type, bus: bus, address: address, name: name), [])
            case .indexInfo:
                let address = try r.readAddress()
                let manufacturer = try r.readLE16()
                return (.indexInfo(address: address, manufacturer: manufacturer), [])
            case .systemNote, .packetLoggerText:
                return (.note(cString(payload)), [])
            case .userLogging:
                let priority = try r.readU8()
                let identLength = Int(try r.readU8())
                let ident = cString(try r.readBytes(identLength))
                return (.userLogging(priority: priority, ident: ident, message: cString(r.readRest())), [])
            case .controlOpen:
                let cookie = try r.readLE32()
                let format = try r.readLE16()
                guard !r.isAtEnd else {
                    return (.controlOpen(cookie: cookie, format: format, version: nil, revision: nil, flags: nil, ident: nil), [])
                }
                let version = try r.readU8()
                let revision = try r.readLE16()
                let flags = try r.readLE32()
                let identLength = Int(try r.readU8())
                let ident = cString(try r.readBytes(identLength))
                return (.controlOpen(cookie: cookie, format: format, version: version, revision: revision, flags: flags, ident: ident), [])
            case .controlClose:
                return (.controlClose(cookie: try r.readLE32()), [])
            case .controlCommand, .controlEvent:
                let cookie = try r.readLE32()
                let opcode = try r.readLE16()
                return (.control(cookie: cookie, opcode: opcode, parameters: r.readRest(), isEvent: kind == .controlEvent), [])
            case .deleteIndex, .openIndex, .closeIndex:
                return payload.isEmpty ? (.empty, []) : (.raw(payload), [Malformation(layer: .monitor, offset: 0, message: "\(payload.count) unexpected bytes")])
            default:
                return (.raw(payload), [])
            }
        } catch {
            return (.raw(payload), [Malformation(error)])
        }
    }

    /// Text up to the first NUL, decoded as UTF-8 with replacement characters.
    static func cString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let upToNul = bytes.prefix(while: { $0 != 0 })
        return String(decoding: upToNul, as: UTF8.self)
    }

    static let busNames: [UInt8: String] = [
        0: "Virtual", 1: "USB", 2: "PCCARD", 3: "UART", 4: "RS232", 5: "PCI", 6: "SDIO", 7: "SPI", 8: "I2C", 9: "SMD",
        10: "VIRTIO", 11: "IPC",
    ]

    static let controlFormats: [UInt16: String] = [0: "RAW", 1: "USER", 2: "MGMT"]

    public var summary: String {
        switch self {
        case .newIndex(let type, let bus, let address, let name):
            let typeName = type == 0 ? "Primary" : type == 1 ? "AMP" : "type \(type)"
            return "\(address) (\(typeName),\(Self.busNames[bus] ?? "bus \(bus)"),\(name))"
        case .indexInfo(let address, let manufacturer):
            return "\(address) (\(named(AssignedNumbers.companyName(manufacturer), manufacturer, digits: 4)))"
        case .note(let text):
            return text
        case .userLogging(_, let ident, let message):
            return "\(ident): \(message)"
        case .controlOpen(let cookie, let format, let version, let revision, let flags, let ident):
            let trusted = flags.map { $0 & 1 != 0 ? " (privileged)" : "" } ?? ""
            let release = version.flatMap { v in revision.map { " version \(v).\($0)" } } ?? ""
            return "\(Self.controlFormats[format] ?? "format \(format)"): \(ident ?? "?")\(trusted)\(release) {\(Hex.prefixed(cookie, digits: 4))}"
        case .controlClose(let cookie):
            return "{\(Hex.prefixed(cookie, digits: 4))}"
        case .control(let cookie, let opcode, let parameters, let isEvent):
            let name = (isEvent ? MGMTNames.events : MGMTNames.commands)[opcode]
            return "\(named(name, opcode, digits: 4)) plen \(parameters.count) {\(Hex.prefixed(cookie, digits: 4))}"
        case .empty:
            return ""
        case .raw(let bytes):
            return "len \(bytes.count)"
        }
    }

    public var fields: [Field] {
        switch self {
        case .newIndex(let type, let bus, let address, let name):
            return [
                Field("Type", named(type == 0 ? "Primary" : type == 1 ? "AMP" : nil, type, digits: 2)),
                Field("Bus", named(Self.busNames[bus], bus, digits: 2)),
                Field("Address", address.description), Field("Name", name),
            ]
        case .indexInfo(let address, let manufacturer):
            return [Field("Address", address.description), Field("Manufacturer", named(AssignedNumbers.companyName(manufacturer), manufacturer, digits: 4))]
        case .note(let text):
            return [Field("Text", text)]
        case .userLogging(let priority, let ident, let message):
            return [Field("Priority", String(priority)), Field("Ident", ident), Field("Message", message)]
        case .controlOpen(let cookie, let format, let version, let revision, let flags, let ident):
            var out = [Field("Cookie", Hex.prefixed(cookie, digits: 8)), Field("Format", named(Self.controlFormats[format], format, digits: 4))]
            if let version, let revision { out.append(Field("Version", "\(version).\(revision)")) }
            if let flags { out.append(Field("Flags", Hex.prefixed(flags, digits: 8) + ((flags & 1) != 0 ? " (trusted)" : ""))) }
            if let ident { out.append(Field("Process", ident)) }
            return out
        case .controlClose(let cookie):
            return [Field("Cookie", Hex.prefixed(cookie, digits: 8))]
        case .control(let cookie, let opcode, let parameters, let isEvent):
            let name = (isEvent ? MGMTNames.events : MGMTNames.commands)[opcode]
            var out = [Field("Cookie", Hex.prefixed(cookie, digits: 8)), Field(isEvent ? "Event" : "Opcode", named(name, opcode, digits: 4))]
            // Parameters decoded by their MGMT layout when it is described, else raw.
            let payload = [0, 0, 0, 0, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + parameters
            if let decoded = MGMTLayouts.fields(kind: isEvent ? .controlEvent : .controlCommand, payload) {
                out += decoded
            } else {
                out.append(Field("Parameters", Hex.string(parameters, separator: " ")))
            }
            return out
        case .empty:
            return []
        case .raw(let bytes):
            return bytes.isEmpty ? [] : [Field("Data", Hex.string(bytes, separator: " "))]
        }
    }
}
