import ScopeCore

/// One L2CAP configuration option (Core v5.4, Vol 3, Part A, §5): type (bit 7 = hint), length,
/// data.
public struct L2CAPConfigurationOption: Sendable, Hashable {
    /// The type byte as sent (hint bit included).
    public var rawType: UInt8
    public var data: [UInt8]
    /// Offset of the type byte (same convention as ``Malformation``).
    public var offset: Int

    public init(rawType: UInt8, data: [UInt8], offset: Int) {
        self.rawType = rawType
        self.data = data
        self.offset = offset
    }

    /// The option type without the hint bit.
    public var type: UInt8 { rawType & 0x7F }
    /// Bit 7: the option may be skipped by a receiver that doesn't know it.
    public var isHint: Bool { rawType & 0x80 != 0 }
    public var name: String? { SignalingValueNames.optionType[type] }
}

/// The typed parameters of a signaling command (Core v5.4, Vol 3, Part A, §4.1–§4.28).
/// CIDs and PSMs are kept as raw 16-bit values so the dissector can learn dynamic channels.
public enum SignalingParameters: Sendable, Hashable {
    /// §4.1. `data`: for reason 0x0001 the actual signaling MTU, for 0x0002 local and remote CIDs.
    case commandReject(reason: UInt16, data: [UInt8])
    /// §4.2.
    case connectionRequest(psm: UInt16, sourceCID: UInt16)
    /// §4.3.
    case connectionResponse(destinationCID: UInt16, sourceCID: UInt16, result: UInt16, status: UInt16)
    /// §4.4. `flags` bit 0 = continuation.
    case configurationRequest(destinationCID: UInt16, flags: UInt16, options: [L2CAPConfigurationOption])
    /// §4.5.
    case configurationResponse(sourceCID: UInt16, flags: UInt16, result: UInt16, options: [L2CAPConfigurationOption])
    /// §4.6.
    case disconnectionRequest(destinationCID: UInt16, sourceCID: UInt16)
    /// §4.7.
    case disconnectionResponse(destinationCID: UInt16, sourceCID: UInt16)
    /// §4.8 / §4.9 (optional data).
    case echo(data: [UInt8])
    /// §4.10.
    case informationRequest(infoType: UInt16)
    /// §4.11. `data` is present on success: MTU (2), feature mask (4) or fixed channels (8).
    case informationResponse(infoType: UInt16, result: UInt16, data: [UInt8])
    /// §4.14 (AMP, withdrawn).
    case createChannelRequest(psm: UInt16, sourceCID: UInt16, controllerID: UInt8)
    /// §4.15 (AMP, withdrawn): same layout as Connection Response.
    case createChannelResponse(destinationCID: UInt16, sourceCID: UInt16, result: UInt16, status: UInt16)
    /// §4.16 (AMP, withdrawn).
    case moveChannelRequest(initiatorCID: UInt16, destinationControllerID: UInt8)
    /// §4.17 (AMP, withdrawn).
    case moveChannelResponse(initiatorCID: UInt16, result: UInt16)
    /// §4.18 (AMP, withdrawn).
    case moveChannelConfirmationRequest(initiatorCID: UInt16, result: UInt16)
    /// §4.19 (AMP, withdrawn).
    case moveChannelConfirmationResponse(initiatorCID: UInt16)
    /// §4.20. Interval in 1.25 ms units, timeout multiplier in 10 ms units.
    case connectionParameterUpdateRequest(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16)
    /// §4.21.
    case connectionParameterUpdateResponse(result: UInt16)
    /// §4.22.
    case leCreditBasedConnectionRequest(
        spsm: UInt16, sourceCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16)
    /// §4.23.
    case leCreditBasedConnectionResponse(
        destinationCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: UInt16)
    /// §4.24.
    case flowControlCreditIndication(cid: UInt16, credits: UInt16)
    /// §4.25.
    case creditBasedConnectionRequest(
        spsm: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, sourceCIDs: [UInt16])
    /// §4.26.
    case creditBasedConnectionResponse(
        mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: UInt16, destinationCIDs: [UInt16])
    /// §4.27.
    case creditBasedReconfigureRequest(mtu: UInt16, mps: UInt16, destinationCIDs: [UInt16])
    /// §4.28.
    case creditBasedReconfigureResponse(result: UInt16)
    /// An unknown code, or a command too short to decode: the raw data.
    case raw([UInt8])
}

/// One signaling command: code, identifier, length and data (Core v5.4, Vol 3, Part A, §4,
/// Figure 4.3).
///
///     | Code (1) | Identifier (1) | Length (LE16) | Data (Length bytes) |
public struct SignalingCommand: Sendable, Hashable {
    public var code: SignalingCode
    /// Matches a response to its request; 0x00 is illegal.
    public var identifier: UInt8
    /// The Length field (bytes of data announced).
    public var length: UInt16
    /// Offset of the code byte (same convention as ``Malformation``).
    public var offset: Int
    public var parameters: SignalingParameters

    public init(code: SignalingCode, identifier: UInt8, length: UInt16, offset: Int, parameters: SignalingParameters) {
        self.code = code
        self.identifier = identifier
        self.length = length
        self.offset = offset
        self.parameters = parameters
    }
}

/// The content of a signaling channel PDU: CID 0x0001 (BR/EDR; several commands per C-frame)
/// or CID 0x0005 (LE; one command per C-frame). Core v5.4, Vol 3, Part A, §4.
public struct SignalingPDU: Sendable, Hashable {
    public var commands: [SignalingCommand]
    public var malformed: [Malformation]
    /// True for the LE signaling channel (CID 0x0005).
    public var isLE: Bool

    public init(commands: [SignalingCommand], malformed: [Malformation], isLE: Bool) {
        self.commands = commands
        self.malformed = malformed
        self.isLE = isLE
    }

    /// Decodes the information payload of a C-frame.
    ///
    /// - Parameters:
    ///   - bytes: the L2CAP payload (after the basic header).
    ///   - channel: `.leSignaling` (0x0005) or `.signaling` (0x0001); any other channel is
    ///     decoded with BR/EDR rules.
    ///   - baseOffset: offset of the first byte of `bytes` (see ``L2CAPPDU/payloadOffset``).
    ///
    /// Commands shorter than their Length field, fixed-size commands with the wrong length,
    /// identifier 0x00, codes not allowed on the channel and bytes after the single LE command
    /// are reported; every complete command is kept.
    public static func decode(_ bytes: [UInt8], channel: ChannelID, baseOffset: Int) -> SignalingPDU {
        decode(bytes[...], channel: channel, baseOffset: baseOffset)
    }

    public static func decode(_ bytes: ArraySlice<UInt8>, channel: ChannelID, baseOffset: Int) -> SignalingPDU {
        let isLE = channel == .leSignaling
        var reader = ByteReader(bytes, layer: .signaling, baseOffset: baseOffset)
        var commands: [SignalingCommand] = []
        var malformed: [Malformation] = []
        if reader.isAtEnd {
            malformed.append(Malformation(layer: .signaling, offset: baseOffset, message: "empty signaling PDU"))
        }
        while !reader.isAtEnd {
            if isLE && !commands.isEmpty {
                let n = reader.remaining
                malformed.append(
                    Malformation(
                        layer: .signaling, offset: reader.offset,
                        message:
                            "\(n) trailing byte\(n == 1 ? "" : "s") after the command (LE signaling carries one command per PDU)"
                    ))
                break
            }
            let start = reader.offset
            let code: SignalingCode
            let identifier: UInt8
            let length: UInt16
            do {
                code = SignalingCode(try reader.readU8())
                identifier = try reader.readU8()
                length = try reader.readLE16()
            } catch {
                malformed.append(
                    Malformation(
                        layer: .signaling, offset: start,
                        message:
                            "signaling command header truncated: \(reader.offset - start + reader.remaining) of 4 bytes"
                    ))
                break
            }
            var data = reader.sliceUpTo(Int(length))
            if data.remaining < Int(length) {
                malformed.append(
                    Malformation(
                        layer: .signaling, offset: start,
                        message:
                            "\(code.name ?? "command") truncated: length \(length), \(data.remaining) byte\(data.remaining == 1 ? "" : "s") present"
                    ))
            }
            if identifier == 0 {
                malformed.append(
                    Malformation(layer: .signaling, offset: start + 1, message: "identifier 0x00 is illegal"))
            }
            if code.name != nil {
                if isLE && !code.isAllowedOnLE {
                    malformed.append(
                        Malformation(
                            layer: .signaling, offset: start,
                            message: "\(code.description) is not used on the LE signaling channel"))
                } else if !isLE && !code.isAllowedOnBREDR {
                    malformed.append(
                        Malformation(
                            layer: .signaling, offset: start,
                            message: "\(code.description) is not used on the BR/EDR signaling channel"))
                }
            }
            let parameters = decodeParameters(code: code, reader: &data, malformed: &malformed)
            commands.append(
                SignalingCommand(
                    code: code, identifier: identifier, length: length, offset: start, parameters: parameters))
        }
        return SignalingPDU(commands: commands, malformed: malformed, isLE: isLE)
    }

    /// Decodes one command's data; the reader is bounded to the command's Length.
    static func decodeParameters(code: SignalingCode, reader: inout ByteReader, malformed: inout [Malformation])
        -> SignalingParameters
    {
        let start = reader.offset
        let all = Array(reader.unreadBytes)
        let name = code.name ?? "command"
        do {
            let p: SignalingParameters
            var fixed: Int? = nil  // exact data size for fixed-size commands
            switch code.rawValue {
            case 0x01:
                let reason = try reader.readLE16()
                p = .commandReject(reason: reason, data: reader.readRest())
            case 0x02:
                fixed = 4
                p = .connectionRequest(psm: try reader.readLE16(), sourceCID: try reader.readLE16())
            case 0x03:
                fixed = 8
                p = .connectionResponse(
                    destinationCID: try reader.readLE16(), sourceCID: try reader.readLE16(),
                    result: try reader.readLE16(), status: try reader.readLE16())
            case 0x04:
                let dcid = try reader.readLE16()
                let flags = try reader.readLE16()
                p = .configurationRequest(destinationCID: dcid, flags: flags, options: options(&reader, &malformed))
            case 0x05:
                let scid = try reader.readLE16()
                let flags = try reader.readLE16()
                let result = try reader.readLE16()
                p = .configurationResponse(
                    sourceCID: scid, flags: flags, result: result, options: options(&reader, &malformed))
            case 0x06:
                fixed = 4
                p = .disconnectionRequest(destinationCID: try reader.readLE16(), sourceCID: try reader.readLE16())
            case 0x07:
                fixed = 4
                p = .disconnectionResponse(destinationCID: try reader.readLE16(), sourceCID: try reader.readLE16())
            case 0x08, 0x09:
                p = .echo(data: reader.readRest())
            case 0x0A:
                fixed = 2
                p = .informationRequest(infoType: try reader.readLE16())
            case 0x0B:
                let type = try reader.readLE16()
                let result = try reader.readLE16()
                p = .informationResponse(infoType: type, result: result, data: reader.readRest())
            case 0x0C:
                fixed = 5
                p = .createChannelRequest(
                    psm: try reader.readLE16(), sourceCID: try reader.readLE16(), controllerID: try reader.readU8())
            case 0x0D:
                fixed = 8
                p = .createChannelResponse(
                    destinationCID: try reader.readLE16(), sourceCID: try reader.readLE16(),
                    result: try reader.readLE16(), status: try reader.readLE16())
            case 0x0E:
                fixed = 3
                p = .moveChannelRequest(
                    initiatorCID: try reader.readLE16(), destinationControllerID: try reader.readU8())
            case 0x0F:
                fixed = 4
                p = .moveChannelResponse(initiatorCID: try reader.readLE16(), result: try reader.readLE16())
            case 0x10:
                fixed = 4
                p = .moveChannelConfirmationRequest(initiatorCID: try reader.readLE16(), result: try reader.readLE16())
            case 0x11:
                fixed = 2
                p = .moveChannelConfirmationResponse(initiatorCID: try reader.readLE16())
            case 0x12:
                fixed = 8
                p = .connectionParameterUpdateRequest(
                    intervalMin: try reader.readLE16(), intervalMax: try reader.readLE16(),
                    latency: try reader.readLE16(), timeout: try reader.readLE16())
            case 0x13:
                fixed = 2
                p = .connectionParameterUpdateResponse(result: try reader.readLE16())
            case 0x14:
                fixed = 10
                p = .leCreditBasedConnectionRequest(
                    spsm: try reader.readLE16(), sourceCID: try reader.readLE16(), mtu: try reader.readLE16(),
                    mps: try reader.readLE16(), initialCredits: try reader.readLE16())
            case 0x15:
                fixed = 10
                p = .leCreditBasedConnectionResponse(
                    destinationCID: try reader.readLE16(), mtu: try reader.readLE16(), mps: try reader.readLE16(),
                    initialCredits: try reader.readLE16(), result: try reader.readLE16())
            case 0x16:
                fixed = 4
                p = .flowControlCreditIndication(cid: try reader.readLE16(), credits: try reader.readLE16())
            case 0x17:
                let spsm = try reader.readLE16()
                let mtu = try reader.readLE16()
                let mps = try reader.readLE16()
                let credits = try reader.readLE16()
                p = .creditBasedConnectionRequest(
                    spsm: spsm, mtu: mtu, mps: mps, initialCredits: credits,
                    sourceCIDs: cidList(&reader, &malformed, name))
            case 0x18:
                let mtu = try reader.readLE16()
                let mps = try reader.readLE16()
                let credits = try reader.readLE16()
                let result = try reader.readLE16()
                p = .creditBasedConnectionResponse(
                    mtu: mtu, mps: mps, initialCredits: credits, result: result,
                    destinationCIDs: cidList(&reader, &malformed, name))
            case 0x19:
                let mtu = try reader.readLE16()
                let mps = try reader.readLE16()
                p = .creditBasedReconfigureRequest(
                    mtu: mtu, mps: mps, destinationCIDs: cidList(&reader, &malformed, name))
            case 0x1A:
                fixed = 2
                p = .creditBasedReconfigureResponse(result: try reader.readLE16())
            default:
                return .raw(reader.readRest())
            }
            if fixed != nil, !reader.isAtEnd {
                let n = reader.remaining
                malformed.append(
                    Malformation(
                        layer: .signaling, offset: reader.offset,
                        message: "\(n) trailing byte\(n == 1 ? "" : "s") in \(name)"))
            }
            return p
        } catch {
            malformed.append(
                Malformation(
                    layer: .signaling, offset: start,
                    message: "\(name) too short: \(all.count) byte\(all.count == 1 ? "" : "s") of data"))
            return .raw(all)
        }
    }

    /// Configuration options up to the end of the command (§5).
    static func options(_ reader: inout ByteReader, _ malformed: inout [Malformation]) -> [L2CAPConfigurationOption] {
        var out: [L2CAPConfigurationOption] = []
        while !reader.isAtEnd {
            let at = reader.offset
            do {
                let type = try reader.readU8()
                let length = try reader.readU8()
                let data = try reader.readBytes(Int(length))
                out.append(L2CAPConfigurationOption(rawType: type, data: data, offset: at))
            } catch {
                let rest = reader.readRest()
                malformed.append(
                    Malformation(
                        layer: .signaling, offset: at,
                        message:
                            "configuration option truncated (\(reader.offset - at) bytes: \(Hex.string(rest, separator: " ")))"
                    ))
            }
        }
        return out
    }

    /// 1 to 5 CIDs up to the end of the command (§4.25–§4.27).
    static func cidList(_ reader: inout ByteReader, _ malformed: inout [Malformation], _ name: String) -> [UInt16] {
        var out: [UInt16] = []
        while reader.remaining >= 2 {
            if let cid = try? reader.readLE16() { out.append(cid) }
        }
        if !reader.isAtEnd {
            malformed.append(
                Malformation(
                    layer: .signaling, offset: reader.offset, message: "odd trailing byte in the CID list of \(name)"))
            _ = reader.readRest()
        }
        if out.isEmpty || out.count > 5 {
            malformed.append(
                Malformation(
                    layer: .signaling, offset: reader.offset,
                    message: "\(name) lists \(out.count) CIDs (1 to 5 allowed)"))
        }
        return out
    }
}
