import ScopeCore

/// What role a PDU plays in the Attribute Protocol (Core v5.4, Vol 3, Part F, §3.3).
public enum ATTPDUKind: String, Sendable, Hashable, Codable {
    /// Client → server, expects a response (one outstanding per bearer).
    case request
    /// Server → client, answers a request.
    case response
    /// Client → server, no response.
    case command
    /// Server → client, no confirmation.
    case notification
    /// Server → client, expects a confirmation.
    case indication
    /// Client → server, acknowledges an indication.
    case confirmation

    /// True when the PDU travels from the client to the server.
    public var isClientToServer: Bool { self == .request || self == .command || self == .confirmation }
}

/// An Attribute Protocol opcode (Core v5.4, Vol 3, Part F, §3.3.1 and §3.4.8, Table 3.37).
///
///     bit 7: Authentication Signature Flag | bit 6: Command Flag | bits 5–0: Method
///
/// Open value set: unknown opcodes keep their byte and render "Unknown (0xNN)".
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let errorResponse = ATTOpcode(0x01)
    public static let exchangeMTURequest = ATTOpcode(0x02)
    public static let exchangeMTUResponse = ATTOpcode(0x03)
    public static let findInformationRequest = ATTOpcode(0x04)
    public static let findInformationResponse = ATTOpcode(0x05)
    public static let findByTypeValueRequest = ATTOpcode(0x06)
    public static let findByTypeValueResponse = ATTOpcode(0x07)
    public static let readByTypeRequest = ATTOpcode(0x08)
    public static let readByTypeResponse = ATTOpcode(0x09)
    public static let readRequest = ATTOpcode(0x0A)
    public static let readResponse = ATTOpcode(0x0B)
    public static let readBlobRequest = ATTOpcode(0x0C)
    public static let readBlobResponse = ATTOpcode(0x0D)
    public static let readMultipleRequest = ATTOpcode(0x0E)
    public static let readMultipleResponse = ATTOpcode(0x0F)
    public static let readByGroupTypeRequest = ATTOpcode(0x10)
    public static let readByGroupTypeResponse = ATTOpcode(0x11)
    public static let writeRequest = ATTOpcode(0x12)
    public static let writeResponse = ATTOpcode(0x13)
    public static let prepareWriteRequest = ATTOpcode(0x16)
    public static let prepareWriteResponse = ATTOpcode(0x17)
    public static let executeWriteRequest = ATTOpcode(0x18)
    public static let executeWriteResponse = ATTOpcode(0x19)
    public static let handleValueNotification = ATTOpcode(0x1B)
    public static let handleValueIndication = ATTOpcode(0x1D)
    public static let handleValueConfirmation = ATTOpcode(0x1E)
    public static let readMultipleVariableRequest = ATTOpcode(0x20)
    public static let readMultipleVariableResponse = ATTOpcode(0x21)
    public static let multipleHandleValueNotification = ATTOpcode(0x23)
    public static let writeCommand = ATTOpcode(0x52)
    public static let signedWriteCommand = ATTOpcode(0xD2)

    /// The one table: opcode → (name, kind).
    static let table: [UInt8: (name: String, kind: ATTPDUKind)] = [
        0x01: ("Error Response", .response),
        0x02: ("Exchange MTU Request", .request),
        0x03: ("Exchange MTU Response", .response),
        0x04: ("Find Information Request", .request),
        0x05: ("Find Information Response", .response),
        0x06: ("Find By Type Value Request", .request),
        0x07: ("Find By Type Value Response", .response),
        0x08: ("Read By Type Request", .request),
        0x09: ("Read By Type Response", .response),
        0x0A: ("Read Request", .request),
        0x0B: ("Read Response", .response),
        0x0C: ("Read Blob Request", .request),
        0x0D: ("Read Blob Response", .response),
        0x0E: ("Read Multiple Request", .request),
        0x0F: ("Read Multiple Response", .response),
        0x10: ("Read By Group Type Request", .request),
        0x11: ("Read By Group Type Response", .response),
        0x12: ("Write Request", .request),
        0x13: ("Write Response", .response),
        0x16: ("Prepare Write Request", .request),
        0x17: ("Prepare Write Response", .response),
        0x18: ("Execute Write Request", .request),
        0x19: ("Execute Write Response", .response),
        0x1B: ("Handle Value Notification", .notification),
        0x1D: ("Handle Value Indication", .indication),
        0x1E: ("Handle Value Confirmation", .confirmation),
        0x20: ("Read Multiple Variable Request", .request),
        0x21: ("Read Multiple Variable Response", .response),
        0x23: ("Multiple Handle Value Notification", .notification),
        0x52: ("Write Command", .command),
        0xD2: ("Signed Write Command", .command),
    ]

    /// Every opcode Core v5.4 defines, in numeric order.
    public static var allKnown: [ATTOpcode] { table.keys.sorted().map { ATTOpcode($0) } }

    /// ``table``'s kinds indexed by opcode: `kind` is asked for every ATT PDU (an index, not
    /// a hash lookup).
    static let kindByOpcode: [ATTPDUKind?] = {
        var out = [ATTPDUKind?](repeating: nil, count: 256)
        for (opcode, row) in table { out[Int(opcode)] = row.kind }
        return out
    }()

    public var name: String? { ATTOpcode.table[rawValue]?.name }
    /// nil for unknown opcodes.
    public var kind: ATTPDUKind? { ATTOpcode.kindByOpcode[Int(rawValue)] }

    /// A PDU the GATT client originates: a request or a command (Handle Value Confirmation,
    /// which the client sends too, answers the server and is not counted).
    public var isClientOriginated: Bool {
        switch kind {
        case .request?, .command?: return true
        default: return false
        }
    }

    /// A write: Write Request, Write Command, Signed Write Command, Prepare Write Request.
    public var isWrite: Bool {
        self == .writeRequest || self == .writeCommand || self == .signedWriteCommand || self == .prepareWriteRequest
    }

    /// Bits 5–0.
    public var method: UInt8 { rawValue & 0x3F }
    /// Bit 6: the PDU is a command (no response).
    public var isCommand: Bool { rawValue & 0x40 != 0 }
    /// Bit 7: a 12-byte authentication signature follows the parameters.
    public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

    /// For a request, the response that answers it (besides Error Response); for an
    /// indication, the confirmation.
    public var expectedResponse: ATTOpcode? {
        switch kind {
        case .request?, .indication?: return ATTOpcode(rawValue &+ 1)
        default: return nil
        }
    }

    /// For a response or confirmation (other than Error Response), the request or indication
    /// it answers.
    public var answeredRequest: ATTOpcode? {
        switch kind {
        case .response?, .confirmation?: return rawValue == 0x01 ? nil : ATTOpcode(rawValue &- 1)
        default: return nil
        }
    }

    public var description: String { named(name, rawValue, digits: 2) }
}
