import ScopeCore

/// A range of attribute handles, inclusive (Core v5.4, Vol 3, Part F, §3.4.3).
public struct ATTHandleRange: Hashable, Sendable, CustomStringConvertible {
    public var start: UInt16
    public var end: UInt16
    public init(start: UInt16, end: UInt16) {
        self.start = start
        self.end = end
    }
    public func contains(_ handle: UInt16) -> Bool { start <= handle && handle <= end }
    /// "0x0001..0xffff" as tshark writes it.
    public var description: String { Hex.prefixed(start, digits: 4) + ".." + Hex.prefixed(end, digits: 4) }
}

/// One entry of a Find Information Response (§3.4.3.2).
public struct ATTHandleUUID: Hashable, Sendable {
    public var handle: UInt16
    public var uuid: ATTUUID
    public init(handle: UInt16, uuid: ATTUUID) {
        self.handle = handle
        self.uuid = uuid
    }
}

/// One Attribute Data entry of a Read By Type Response (§3.4.4.2: handle + value) or a Read By
/// Group Type Response (§3.4.4.10: handle + end group handle + value).
public struct ATTAttributeData: Hashable, Sendable {
    public var handle: UInt16
    /// Only for Read By Group Type Response.
    public var endGroupHandle: UInt16?
    /// A slice of the PDU's bytes (no copy), indexed like them: read it from `startIndex`.
    public var value: ArraySlice<UInt8>
    public init(handle: UInt16, endGroupHandle: UInt16? = nil, value: ArraySlice<UInt8>) {
        self.handle = handle
        self.endGroupHandle = endGroupHandle
        self.value = value
    }
}

/// One tuple of a Multiple Handle Value Notification (§3.4.7.4).
public struct ATTHandleValue: Hashable, Sendable {
    public var handle: UInt16
    public var value: [UInt8]
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// The typed parameters of an ATT PDU, one case per parameter layout (Core v5.4, Vol 3,
/// Part F, §3.4).
public enum ATTParameters: Sendable, Hashable {
    /// Write Response, Execute Write Response, Handle Value Confirmation.
    case none
    /// Error Response (§3.4.1.1).
    case error(requestOpcode: ATTOpcode, handle: UInt16, code: ATTErrorCode)
    /// Exchange MTU Request (Client Rx MTU) / Response (Server Rx MTU) (§3.4.2).
    case mtu(UInt16)
    /// Find Information Request (§3.4.3.1).
    case findInformationRequest(range: ATTHandleRange)
    /// Find Information Response (§3.4.3.2): format 0x01 = 16-bit UUIDs, 0x02 = 128-bit.
    case findInformationResponse(format: UInt8, entries: [ATTHandleUUID])
    /// Find By Type Value Request (§3.4.3.3): the type is always a 16-bit UUID.
    case findByTypeValueRequest(range: ATTHandleRange, type: UInt16, value: ArraySlice<UInt8>)
    /// Find By Type Value Response (§3.4.3.4): found attribute handle .. group end handle.
    case findByTypeValueResponse(handles: [ATTHandleRange])
    /// Read By Type Request (§3.4.4.1) and Read By Group Type Request (§3.4.4.9).
    case typedRange(range: ATTHandleRange, type: ATTUUID)
    /// Read By Type Response (§3.4.4.2) and Read By Group Type Response (§3.4.4.10).
    case attributeDataList(length: UInt8, entries: [ATTAttributeData])
    /// Read Request (§3.4.4.3).
    case handle(UInt16)
    /// Read Response, Read Blob Response, Read Multiple Response (set of values) (§3.4.4.4, .6, .8).
    case value(ArraySlice<UInt8>)
    /// Read Blob Request (§3.4.4.5).
    case handleOffset(handle: UInt16, offset: UInt16)
    /// Read Multiple Request (§3.4.4.7) and Read Multiple Variable Request (§3.4.4.11).
    case handles([UInt16])
    /// Read Multiple Variable Response (§3.4.4.12). The last value may be cut to fit the MTU.
    case lengthValueList(values: [[UInt8]], lastTruncated: Bool)
    /// Write Request, Write Command, Handle Value Notification/Indication (§3.4.5, §3.4.7).
    case handleValue(handle: UInt16, value: ArraySlice<UInt8>)
    /// Signed Write Command (§3.4.5.4): value then the 12-byte authentication signature
    /// (SignCounter LE32 + MAC 8 bytes).
    case signedWrite(handle: UInt16, value: ArraySlice<UInt8>, signature: [UInt8])
    /// Prepare Write Request/Response (§3.4.6.1, §3.4.6.2).
    case prepareWrite(handle: UInt16, offset: UInt16, value: ArraySlice<UInt8>)
    /// Execute Write Request (§3.4.6.3): 0x00 cancel all, 0x01 write all.
    case executeWrite(flags: UInt8)
    /// Multiple Handle Value Notification (§3.4.7.4).
    case handleValueList([ATTHandleValue])
    /// Unknown opcode, or a PDU too short to decode: the bytes after the opcode.
    case raw([UInt8])
}

/// One Attribute Protocol PDU (Core v5.4, Vol 3, Part F, §3.3–§3.4).
///
/// The typed essentials (`opcode`, `handle`, `errorCode`, `value`) are decoded eagerly and
/// cheaply; `summary` and `fields` build strings on demand.
///
/// `handle` is the PDU's own single attribute handle and matches what tshark puts in
/// `btatt.handle` for that PDU: the handle in error (Error Response); the handle of Read, Read
/// Blob, Write, Prepare Write (request and response), Write/Signed Write Command and Handle
/// Value Notification/Indication. It is nil for PDUs that name a range (Find Information, Find
/// By Type Value, Read By Type and Read By Group Type requests: tshark uses
/// `btatt.starting_handle`/`ending_handle` there) or a list (their responses, Read Multiple,
/// Multiple Handle Value Notification: see `handles`), and for PDUs without handles (Read/Write/
/// Execute Write responses, Confirmation). tshark additionally shows a *generated* handle on
/// responses, taken from the matching request; that is ``GATTTracker``'s `inferredHandle`.
public struct ATTPDU: Sendable, Hashable {
    public var opcode: ATTOpcode
    public var handle: UInt16?
    /// Error Response only: the raw error code (see `error`).
    public var errorCode: UInt8?
    /// Error Response only: the opcode of the request that failed.
    public var requestOpcodeInError: ATTOpcode?
    /// Attribute value bytes: the value read, written, notified or indicated, the part value of
    /// Read Blob / Prepare Write, the set of values of Read Multiple Response, the value searched
    /// by Find By Type Value Request; empty otherwise. A slice of the PDU's bytes (no copy), so
    /// its indices are those of the bytes decoded, not 0-based: read it through `first`,
    /// `startIndex` offsets or `Array(value)`.
    public var value: ArraySlice<UInt8>
    public var parameters: ATTParameters
    public var malformed: [Malformation]
    /// Offset of the opcode byte (see ``L2CAPPDU/payloadOffset``).
    public var baseOffset: Int
    /// Bytes in the PDU.
    public var length: Int

    public init(
        opcode: ATTOpcode, handle: UInt16? = nil, errorCode: UInt8? = nil, requestOpcodeInError: ATTOpcode? = nil,
        value: ArraySlice<UInt8> = [], parameters: ATTParameters = .none, malformed: [Malformation] = [], baseOffset: Int = 0,
        length: Int = 0
    ) {
        self.opcode = opcode
        self.handle = handle
        self.errorCode = errorCode
        self.requestOpcodeInError = requestOpcodeInError
        self.value = value
        self.parameters = parameters
        self.malformed = malformed
        self.baseOffset = baseOffset
        self.length = length
    }

    /// The error code as a named type (Error Response only).
    public var error: ATTErrorCode? { errorCode.map { ATTErrorCode($0) } }

    /// Every attribute handle the PDU itself names, in order — tshark's `btatt.handle` list
    /// minus the handles it generates from the matching request. Ranges are not included.
    public var handles: [UInt16] {
        switch parameters {
        case .error(_, let h, _), .handle(let h), .handleOffset(let h, _), .handleValue(let h, _),
            .signedWrite(let h, _, _), .prepareWrite(let h, _, _):
            return [h]
        case .findInformationResponse(_, let entries): return entries.map(\.handle)
        case .findByTypeValueResponse(let ranges): return ranges.map(\.start)
        case .attributeDataList(_, let entries): return entries.map(\.handle)
        case .handles(let hs): return hs
        case .handleValueList(let list): return list.map(\.handle)
        default: return []
        }
    }

    /// The Exchange MTU Request/Response Rx MTU.
    public var mtu: UInt16? {
        if case .mtu(let m) = parameters { return m }
        return nil
    }

    /// The handle range of a Find Information, Find By Type Value, Read By Type or Read By
    /// Group Type request.
    public var range: ATTHandleRange? {
        switch parameters {
        case .findInformationRequest(let r), .findByTypeValueRequest(let r, _, _), .typedRange(let r, _): return r
        default: return nil
        }
    }

    /// The attribute type of a Read By Type / Read By Group Type / Find By Type Value request.
    public var attributeType: ATTUUID? {
        switch parameters {
        case .typedRange(_, let t): return t
        case .findByTypeValueRequest(_, let t, _): return ATTUUID(t)
        default: return nil
        }
    }

    /// Size of the ATT authentication signature (§3.3.1).
    public static let signatureSize = 12

    /// Decodes one ATT PDU (the whole L2CAP payload of CID 0x0004 or of an EATT channel).
    ///
    /// - Parameters:
    ///   - bytes: the PDU, opcode first.
    ///   - baseOffset: offset of the first byte of `bytes` for malformation offsets (``L2CAPPDU/payloadOffset``).
    ///
    /// Never traps. Too few bytes for a fixed part, trailing bytes after fixed-size PDUs,
    /// list entries that don't divide evenly, bad UUID sizes and bad formats become
    /// malformations; everything read before the problem is kept (e.g. the handle of a
    /// truncated Error Response).
    public static func decode(_ bytes: ArraySlice<UInt8>, baseOffset: Int) -> ATTPDU {
        var d = Decoder(bytes: bytes, baseOffset: baseOffset)
        d.run()
        // The PDU is swapped out of the decoder for an empty one: returning `d.pdu` copies it,
        // with a retain of everything it holds, and the decoder's end then releases the same.
        var pdu = ATTPDU(opcode: ATTOpcode(0), baseOffset: baseOffset, length: 0)
        swap(&pdu, &d.pdu)
        return pdu
    }

    public static func decode(_ bytes: [UInt8], baseOffset: Int) -> ATTPDU {
        decode(bytes[...], baseOffset: baseOffset)
    }

    /// The decoding state: the PDU under construction and a reader. Every step writes into
    /// `pdu` as soon as a field is read, so a truncation keeps the fields before it.
    struct Decoder {
        var pdu: ATTPDU
        var reader: ByteReader
        /// The PDU's bytes (the reader's).
        var bytes: ArraySlice<UInt8> { reader.underlyingBytes }

        init(bytes: ArraySlice<UInt8>, baseOffset: Int) {
            self.reader = ByteReader(bytes, layer: .att, baseOffset: baseOffset)
            self.pdu = ATTPDU(opcode: ATTOpcode(0), baseOffset: baseOffset, length: bytes.count)
        }

        var name: String { pdu.opcode.name ?? "ATT PDU" }

        mutating func flag(_ message: String, at offset: Int? = nil) {
            pdu.malformed.append(Malformation(layer: .att, offset: offset ?? reader.offset, message: message))
        }

        /// Reports bytes left after a fixed-size PDU.
        mutating func expectEnd() {
            guard !reader.isAtEnd else { return }
            let n = reader.remaining
            flag("\(n) trailing byte\(n == 1 ? "" : "s") after \(name)")
        }

        /// Decodes into ``pdu``.
        mutating func run() {
            guard let op = try? reader.readU8() else {
                flag("empty ATT PDU")
                return
            }
            pdu.opcode = ATTOpcode(op)
            do throws(DecodeError) {
                try body()
            } catch {
                // Whatever was read stays in `pdu`; the parameters fall back to raw bytes
                // unless a typed case was already set.
                if case .none = pdu.parameters {
                    pdu.parameters = .raw(Array(bytes.dropFirst()))
                }
                flag("\(name) truncated: \(error.message)", at: error.offset)
            }
        }

        mutating func range() throws(DecodeError) -> ATTHandleRange {
            let s = try reader.readLE16()
            let e = try reader.readLE16()
            return ATTHandleRange(start: s, end: e)
        }

        mutating func body() throws(DecodeError) {
            switch pdu.opcode.rawValue {
            case 0x01:
                let req = ATTOpcode(try reader.readU8())
                pdu.requestOpcodeInError = req
                let h = try reader.readLE16()
                pdu.handle = h
                let code = try reader.readU8()
                pdu.errorCode = code
                pdu.parameters = .error(requestOpcode: req, handle: h, code: ATTErrorCode(code))
                expectEnd()
            case 0x02, 0x03:
                let mtu = try reader.readLE16()
                pdu.parameters = .mtu(mtu)
                if mtu < 23 { flag("Rx MTU \(mtu) is below the minimum ATT_MTU of 23", at: reader.offset - 2) }
                expectEnd()
            case 0x04:
                pdu.parameters = .findInformationRequest(range: try range())
                expectEnd()
            case 0x05:
                try findInformationResponse()
            case 0x06:
                let r = try range()
                let type = try reader.readLE16()
                pdu.value = reader.readRestSlice()
                pdu.parameters = .findByTypeValueRequest(range: r, type: type, value: pdu.value)
            case 0x07:
                var list: [ATTHandleRange] = []
                while reader.remaining >= 4 { list.append(try range()) }
                pdu.parameters = .findByTypeValueResponse(handles: list)
                leftover(entry: 4)
                if list.isEmpty { flag("\(name) without Handles Information") }
            case 0x08, 0x10:
                let r = try range()
                let at = reader.offset
                let rest = reader.readRest()
                if let uuid = ATTUUID(littleEndian: rest), rest.count != 4 {
                    pdu.parameters = .typedRange(range: r, type: uuid)
                } else {
                    pdu.parameters = .raw(Array(bytes.dropFirst()))
                    flag("attribute type must be a 2- or 16-byte UUID, got \(rest.count) bytes", at: at)
                }
            case 0x09, 0x11:
                try attributeDataList(grouped: pdu.opcode.rawValue == 0x11)
            case 0x0A:
                let h = try reader.readLE16()
                pdu.handle = h
                pdu.parameters = .handle(h)
                expectEnd()
            case 0x0B, 0x0D, 0x0F:
                pdu.value = reader.readRestSlice()
                pdu.parameters = .value(pdu.value)
            case 0x0C:
                let h = try reader.readLE16()
                pdu.handle = h
                let offset = try reader.readLE16()
                pdu.parameters = .handleOffset(handle: h, offset: offset)
                expectEnd()
            case 0x0E, 0x20:
                var hs: [UInt16] = []
                while reader.remaining >= 2 { hs.append(try reader.readLE16()) }
                pdu.parameters = .handles(hs)
                leftover(entry: 2)
                if hs.count < 2 { flag("\(name) needs at least 2 handles, got \(hs.count)") }
            case 0x12, 0x52, 0x1B, 0x1D:
                let h = try reader.readLE16()
                pdu.handle = h
                pdu.value = reader.readRestSlice()
                pdu.parameters = .handleValue(handle: h, value: pdu.value)
            case 0xD2:
                try signedWrite()
            case 0x13, 0x19, 0x1E:
                pdu.parameters = .none
                expectEnd()
            case 0x16, 0x17:
                let h = try reader.readLE16()
                pdu.handle = h
                let offset = try reader.readLE16()
                pdu.value = reader.readRestSlice()
                pdu.parameters = .prepareWrite(handle: h, offset: offset, value: pdu.value)
            case 0x18:
                let flags = try reader.readU8()
                pdu.parameters = .executeWrite(flags: flags)
                if flags > 0x01 {
                    flag("Execute Write flags \(Hex.prefixed(flags, digits: 2)) is reserved", at: reader.offset - 1)
                }
                expectEnd()
            case 0x21:
                var values: [[UInt8]] = []
                var cut = false
                while !reader.isAtEnd {
                    if reader.remaining < 2 {
                        cut = true
                        _ = reader.readRest()
                        break
                    }
                    let n = Int(try reader.readLE16())
                    if reader.remaining < n { cut = true }
                    var part = reader.sliceUpTo(n)
                    values.append(part.readRest())
                }
                pdu.parameters = .lengthValueList(values: values, lastTruncated: cut)
            case 0x23:
                var list: [ATTHandleValue] = []
                pdu.parameters = .handleValueList([])
                while !reader.isAtEnd {
                    let h = try reader.readLE16()
                    let n = Int(try reader.readLE16())
                    let v = try reader.readBytes(n)
                    list.append(ATTHandleValue(handle: h, value: v))
                    pdu.parameters = .handleValueList(list)
                }
                if list.count < 2 {
                    flag("\(name) carries \(list.count) value\(list.count == 1 ? "" : "s") (2 or more expected)")
                }
            default:
                pdu.parameters = .raw(reader.readRest())
            }
        }

        mutating func leftover(entry: Int) {
            guard !reader.isAtEnd else { return }
            let n = reader.remaining
            flag("\(n) trailing byte\(n == 1 ? "" : "s") do not form a complete \(entry)-byte entry")
            _ = reader.readRest()
        }

        mutating func findInformationResponse() throws(DecodeError) {
            let formatAt = reader.offset
            let format = try reader.readU8()
            let uuidSize: Int
            switch format {
            case 0x01: uuidSize = 2
            case 0x02: uuidSize = 16
            default:
                pdu.parameters = .raw(Array(bytes.dropFirst()))
                flag("Find Information Response format \(Hex.prefixed(format, digits: 2)) is reserved", at: formatAt)
                _ = reader.readRest()
                return
            }
            var entries: [ATTHandleUUID] = []
            while reader.remaining >= 2 + uuidSize {
                let h = reader.uncheckedLE16()
                let uuid = reader.withUncheckedBytes(uuidSize) { ATTUUID(littleEndian: $0) }
                if let uuid { entries.append(ATTHandleUUID(handle: h, uuid: uuid)) }
            }
            pdu.parameters = .findInformationResponse(format: format, entries: entries)
            leftover(entry: 2 + uuidSize)
            if entries.isEmpty { flag("Find Information Response without entries") }
        }

        mutating func attributeDataList(grouped: Bool) throws(DecodeError) {
            let lengthAt = reader.offset
            let length = try reader.readU8()
            let minimum = grouped ? 4 : 2
            guard Int(length) >= minimum else {
                pdu.parameters = .raw(Array(bytes.dropFirst()))
                flag("attribute data length \(length) is shorter than the \(minimum)-byte handle part", at: lengthAt)
                _ = reader.readRest()
                return
            }
            var entries: [ATTAttributeData] = []
            while reader.remaining >= Int(length) {
                var entry = try reader.slice(Int(length))
                let h = try entry.readLE16()
                let end: UInt16? = grouped ? try entry.readLE16() : nil
                entries.append(ATTAttributeData(handle: h, endGroupHandle: end, value: entry.readRestSlice()))
            }
            pdu.parameters = .attributeDataList(length: length, entries: entries)
            leftover(entry: Int(length))
            if entries.isEmpty { flag("\(name) without attribute data") }
        }

        mutating func signedWrite() throws(DecodeError) {
            let h = try reader.readLE16()
            pdu.handle = h
            let rest = reader.readRestSlice()
            guard rest.count >= ATTPDU.signatureSize else {
                pdu.value = rest
                pdu.parameters = .signedWrite(handle: h, value: rest, signature: [])
                flag(
                    "authentication signature truncated: \(rest.count) of \(ATTPDU.signatureSize) bytes",
                    at: reader.offset - rest.count)
                return
            }
            let split = rest.endIndex - ATTPDU.signatureSize
            pdu.value = rest[..<split]
            pdu.parameters = .signedWrite(handle: h, value: pdu.value, signature: Array(rest[split...]))
        }
    }
}
