import ScopeCore

/// An HCI Command packet as sent by the host (Core v5.4, Vol 4, Part E, §5.4.1), decoded from a
/// record payload without the H4 packet-type byte:
///
/// ```
///  0       2        3
///  +-------+--------+------------------------------+
///  |opcode | plen   | parameters (plen bytes)       |
///  | LE16  | u8     |                               |
///  +-------+--------+------------------------------+
/// ```
///
/// `decode` is cheap (header, parameter bytes, and a size check of the parameters against the
/// command's layout); `summary`, `fields` and `addresses` are computed on demand.
public struct HCICommand: Sendable, Hashable {
    public var opcode: HCIOpcode
    /// Parameter_Total_Length as stated in the header.
    public var parameterLength: Int
    /// The parameter bytes actually present, at most `parameterLength` of them.
    public var parameters: [UInt8]
    public var malformed: [Malformation]

    /// Offset of `parameters[0]` in the record payload.
    public static let parametersOffset = 3

    public init(opcode: HCIOpcode, parameterLength: Int, parameters: [UInt8], malformed: [Malformation] = []) {
        self.opcode = opcode
        self.parameterLength = parameterLength
        self.parameters = parameters
        self.malformed = malformed
    }

    /// Decodes a command payload. Never traps: a short header, a parameter block shorter or
    /// longer than Parameter_Total_Length, and parameters that do not fit the command's layout
    /// become malformations (offsets within `payload`).
    public static func decode(_ payload: [UInt8]) -> HCICommand {
        guard payload.count >= 3 else {
            let opcode = payload.count >= 2 ? UInt16(payload[0]) | UInt16(payload[1]) << 8 : 0
            let m = Malformation(
                layer: .hci, offset: 0,
                message: "truncated command header: needed 3 bytes, \(payload.count) available")
            return HCICommand(opcode: HCIOpcode(rawValue: opcode), parameterLength: 0, parameters: [], malformed: [m])
        }
        let opcode = HCIOpcode(rawValue: UInt16(payload[0]) | UInt16(payload[1]) << 8)
        let (length, range, headerIssues) = HCIPacketBody.bounds(payload, headerSize: 3)
        let parameters = HCIPacketBody.copy(payload, range)
        var command = HCICommand(opcode: opcode, parameterLength: length, parameters: parameters, malformed: headerIssues)
        // Parameters of the usual size fit their layout: nothing to validate.
        if headerIssues.isEmpty, Self.exactSize(opcode.rawValue)?.fits(parameters, parameters.indices) != true,
            let layout = Self.parameterLayout(opcode.rawValue)
        {
            let issues = ParamLayout.validate(layout, parameters[...], baseOffset: parametersOffset)
            if !issues.isEmpty { command.malformed += issues }
        }
        return command
    }

    /// The command's layout row, if it has one.
    var layout: CommandLayout? { Self.layout(opcode.rawValue) }

    /// "LE Set Scan Enable (0x08|0x000c) LE Scan Enable: Enabled (0x01), Filter Duplicates: …".
    public var summary: String {
        guard let layout, let params = layout.parameters, !layout.summary.isEmpty else { return opcode.description }
        let decoded = ParamLayout.decode(params, parameters[...], baseOffset: Self.parametersOffset).fields
        return HCIPacketBody.summary(opcode.description, decoded, names: layout.summary)
    }

    /// The decoded fields: opcode, length, then each parameter (raw hex when the command has no
    /// layout, as for vendor commands), then any malformations.
    public var fields: [Field] {
        var out = [
            Field("Opcode", opcode.description),
            Field("Parameter Total Length", "\(parameterLength)"),
        ]
        if let params = layout?.parameters {
            let result = ParamLayout.decode(params, parameters[...], baseOffset: Self.parametersOffset)
            out += result.fields
        } else if !parameters.isEmpty {
            out.append(Field("Parameters", Hex.string(parameters, separator: " ")))
        }
        out += malformed.map { Field("Malformed", $0.description) }
        return out
    }

    /// Every peer or target BD_ADDR the command names (LE Create Connection's Peer_Address,
    /// Disconnect has none, LE Add Device To Filter Accept List's Address, …).
    public var addresses: [BDAddr] {
        guard let params = layout?.parameters else { return [] }
        return ParamLayout.peerAddresses(params, parameters[...])
    }
}

/// Shared header/body handling for command and event packets.
enum HCIPacketBody {
    /// Where the parameters of `payload` are, after a header whose last byte is
    /// Parameter_Total_Length: the stated length, the indices of the parameter bytes present (at
    /// most that many) and any mismatch. (Read in the payload between these indices: a slice of
    /// it would retain its storage.)
    static func bounds(_ payload: borrowing [UInt8], headerSize: Int) -> (Int, Range<Int>, [Malformation]) {
        let stated = Int(payload[headerSize - 1])
        let available = payload.count - headerSize
        if available < stated {
            let m = Malformation(
                layer: .hci, offset: payload.count,
                message: "truncated: parameter total length \(stated), \(available) byte\(available == 1 ? "" : "s") present")
            return (stated, headerSize..<payload.count, [m])
        }
        if available > stated {
            let extra = available - stated
            let m = Malformation(
                layer: .hci, offset: headerSize + stated,
                message: "\(extra) trailing byte\(extra == 1 ? "" : "s") after parameter total length \(stated)")
            return (stated, headerSize..<(headerSize + stated), [m])
        }
        return (stated, headerSize..<payload.count, [])
    }

    /// `payload[range]` as a new array, copied through a buffer pointer (cheaper than converting
    /// a slice, and no slice retains the payload).
    static func copy(_ payload: borrowing [UInt8], _ range: Range<Int>) -> [UInt8] {
        range.isEmpty ? [] : payload.withUnsafeBufferPointer { Array(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// `head` followed by "Name: value" for each named top-level field present.
    static func summary(_ head: String, _ fields: [Field], names: [String]) -> String {
        var parts: [String] = []
        for name in names {
            if let f = fields.first(where: { $0.name == name }) { parts.append("\(f.name): \(f.value)") }
        }
        return parts.isEmpty ? head : head + " " + parts.joined(separator: ", ")
    }
}
