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
    /// (Boxed: the only case over 40 bytes, and a rare one; the others fit in 40.)
    indirect case signedWrite(handle: UInt16, value: ArraySlice<UInt8>, signature: [UInt8])
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
///
/// The stored properties are laid out to keep the PDU at 64 bytes (the small fields fill the
/// parameters' tail, offset and length are kept in 32 bits): it travels by value in
/// ``DecodedPDU/Upper`` with its annotation, and a value under 128 bytes is copied inline.
public struct ATTPDU: Sendable, Hashable {
    public var parameters: ATTParameters
    public var handle: UInt16?
    public var opcode: ATTOpcode
    /// Error Response only: the raw error code (see `error`).
    public var errorCode: UInt8?
    /// Error Response only: the opcode of the request that failed.
    public var requestOpcodeInError: ATTOpcode?
    public var malformed: [Malformation]
    private var storedBaseOffset: UInt32
    private var storedLength: UInt32

    /// Offset of the opcode byte (see ``L2CAPPDU/payloadOffset``).
    public var baseOffset: Int {
        get { Int(storedBaseOffset) }
        set { storedBaseOffset = UInt32(newValue) }
    }
    /// Bytes in the PDU.
    public var length: Int {
        get { Int(storedLength) }
        set { storedLength = UInt32(newValue) }
    }

    public init(
        opcode: ATTOpcode, handle: UInt16? = nil, errorCode: UInt8? = nil, requestOpcodeInError: ATTOpcode? = nil,
        parameters: ATTParameters = .none, malformed: [Malformation] = [], baseOffset: Int = 0, length: Int = 0
    ) {
        self.opcode = opcode
        self.handle = handle
        self.errorCode = errorCode
        self.requestOpcodeInError = requestOpcodeInError
        self.parameters = parameters
        self.malformed = malformed
        // A record holds at most 2^32 - 1 bytes (its length fields are 32-bit), and so does a
        // PDU reassembled from one.
        self.storedBaseOffset = UInt32(baseOffset)
        self.storedLength = UInt32(length)
    }

    /// Attribute value bytes: the value read, written, notified or indicated, the part value of
    /// Read Blob / Prepare Write, the set of values of Read Multiple Response, the value searched
    /// by Find By Type Value Request; empty otherwise. A slice of the PDU's bytes (no copy), so
    /// its indices are those of the bytes decoded, not 0-based: read it through `first`,
    /// `startIndex` offsets or `Array(value)`. Taken from ``parameters``, where it is kept.
    @inlinable public var value: ArraySlice<UInt8> {
        switch parameters {
        case .value(let v), .handleValue(_, let v), .prepareWrite(_, _, let v), .signedWrite(_, let v, _),
            .findByTypeValueRequest(_, _, let v):
            return v
        default:
            return []
        }
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
    public static func decode(_ bytes: consuming ArraySlice<UInt8>, baseOffset: Int) -> ATTPDU {
        var pdu = ATTPDU(opcode: ATTOpcode(0), baseOffset: baseOffset, length: bytes.count)
        // (`bytes` is taken, not borrowed: the reader keeps it without a retain of its own.)
        var d = Decoder(bytes: consume bytes, baseOffset: baseOffset)
        d.run(&pdu)
        return pdu
    }

    public static func decode(_ bytes: [UInt8], baseOffset: Int) -> ATTPDU {
        decode(bytes[...], baseOffset: baseOffset)
    }

    /// The decoding state: a reader over the PDU's bytes. Every step writes into the PDU under
    /// construction (kept by the caller, where it is returned from: it is built in place, not
    /// moved out of the decoder) as soon as a field is read, so a truncation keeps the fields
    /// before it.
    struct Decoder {
        var reader: ByteReader
        /// The PDU's bytes (the reader's).
        var bytes: ArraySlice<UInt8> { reader.underlyingBytes }

        init(bytes: consuming ArraySlice<UInt8>, baseOffset: Int) {
            self.reader = ByteReader(consume bytes, layer: .att, baseOffset: baseOffset)
        }

        func name(_ pdu: borrowing ATTPDU) -> String { pdu.opcode.name ?? "ATT PDU" }

        func flag(_ message: String, at offset: Int? = nil, in pdu: inout ATTPDU) {
            pdu.malformed.append(Malformation(layer: .att, offset: offset ?? reader.offset, message: message))
        }

        /// Reports bytes left after a fixed-size PDU.
        func expectEnd(_ pdu: inout ATTPDU) {
            guard !reader.isAtEnd else { return }
            let n = reader.remaining
            flag("\(n) trailing byte\(n == 1 ? "" : "s") after \(name(pdu))", in: &pdu)
        }

        /// Decodes into `pdu`.
        mutating func run(_ pdu: inout ATTPDU) {
            guard let op = try? reader.readU8() else {
                flag("empty ATT PDU", in: &pdu)
                return
            }
            pdu.opcode = ATTOpcode(op)
            do throws(DecodeError) {
                try body(&pdu)
            } catch {
                // Whatever was read stays in `pdu`; the parameters fall back to raw bytes
                // unless a typed case was already set.
                if case .none = pdu.parameters {
                    pdu.parameters = .raw(Array(bytes.dropFirst()))
                }
                flag("\(name(pdu)) truncated: \(error.message)", at: error.offset, in: &pdu)
            }
        }

        mutating func range() throws(DecodeError) -> ATTHandleRange {
            let s = try reader.readLE16()
            let e = try reader.readLE16()
            return ATTHandleRange(start: s, end: e)
        }

        mutating func body(_ pdu: inout ATTPDU) throws(DecodeError) {
            switch pdu.opcode.rawValue {
            case 0x01:
                let req = ATTOpcode(try reader.readU8())
                pdu.requestOpcodeInError = req
                let h = try reader.readLE16()
                pdu.handle = h
                let code = try reader.readU8()
                pdu.errorCode = code
                pdu.parameters = .error(requestOpcode: req, handle: h, code: ATTErrorCode(code))
                expectEnd(&pdu)
            case 0x02, 0x03:
                let mtu = try reader.readLE16()
                pdu.parameters = .mtu(mtu)
                if mtu < 23 { flag("Rx MTU \(mtu) is below the minimum ATT_MTU of 23", at: reader.offset - 2, in: &pdu) }
                expectEnd(&pdu)
            case 0x04:
                pdu.parameters = .findInformationRequest(range: try range())
                expectEnd(&pdu)
            case 0x05:
                try findInformationResponse(&pdu)
            case 0x06:
                let r = try range()
                let type = try reader.readLE16()
                pdu.parameters = .findByTypeValueRequest(range: r, type: type, value: reader.readRestSlice())
            case 0x07:
                var list: [ATTHandleRange] = []
                list.reserveCapacity(reader.remaining / 4)
                while reader.remaining >= 4 { list.append(try range()) }
                pdu.parameters = .findByTypeValueResponse(handles: list)
                leftover(&pdu, entry: 4)
                if list.isEmpty { flag("\(name(pdu)) without Handles Information", in: &pdu) }
            case 0x08, 0x10:
                let r = try range()
                let at = reader.offset
                let rest = reader.readRestSlice()
                if let uuid = ATTUUID(littleEndian: rest), rest.count != 4 {
                    pdu.parameters = .typedRange(range: r, type: uuid)
                } else {
                    pdu.parameters = .raw(Array(bytes.dropFirst()))
                    flag("attribute type must be a 2- or 16-byte UUID, got \(rest.count) bytes", at: at, in: &pdu)
                }
            case 0x09, 0x11:
                try attributeDataList(&pdu, grouped: pdu.opcode.rawValue == 0x11)
            case 0x0A:
                let h = try reader.readLE16()
                pdu.handle = h
                pdu.parameters = .handle(h)
                expectEnd(&pdu)
            case 0x0B, 0x0D, 0x0F:
                pdu.parameters = .value(reader.readRestSlice())
            case 0x0C:
                let h = try reader.readLE16()
                pdu.handle = h
                let offset = try reader.readLE16()
                pdu.parameters = .handleOffset(handle: h, offset: offset)
                expectEnd(&pdu)
            case 0x0E, 0x20:
                var hs: [UInt16] = []
                while reader.remaining >= 2 { hs.append(try reader.readLE16()) }
                pdu.parameters = .handles(hs)
                leftover(&pdu, entry: 2)
                if hs.count < 2 { flag("\(name(pdu)) needs at least 2 handles, got \(hs.count)", in: &pdu) }
            case 0x12, 0x52, 0x1B, 0x1D:
                let h = try reader.readLE16()
                pdu.handle = h
                pdu.parameters = .handleValue(handle: h, value: reader.readRestSlice())
            case 0xD2:
                try signedWrite(&pdu)
            case 0x13, 0x19, 0x1E:
                pdu.parameters = .none
                expectEnd(&pdu)
            case 0x16, 0x17:
                let h = try reader.readLE16()
                pdu.handle = h
                let offset = try reader.readLE16()
                pdu.parameters = .prepareWrite(handle: h, offset: offset, value: reader.readRestSlice())
            case 0x18:
                let flags = try reader.readU8()
                pdu.parameters = .executeWrite(flags: flags)
                if flags > 0x01 {
                    flag("Execute Write flags \(Hex.prefixed(flags, digits: 2)) is reserved", at: reader.offset - 1, in: &pdu)
                }
                expectEnd(&pdu)
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
                    flag("\(name(pdu)) carries \(list.count) value\(list.count == 1 ? "" : "s") (2 or more expected)", in: &pdu)
                }
            default:
                pdu.parameters = .raw(reader.readRest())
            }
        }

        mutating func leftover(_ pdu: inout ATTPDU, entry: Int) {
            guard !reader.isAtEnd else { return }
            let n = reader.remaining
            flag("\(n) trailing byte\(n == 1 ? "" : "s") do not form a complete \(entry)-byte entry", in: &pdu)
            _ = reader.readRest()
        }

        mutating func findInformationResponse(_ pdu: inout ATTPDU) throws(DecodeError) {
            let formatAt = reader.offset
            let format = try reader.readU8()
            let uuidSize: Int
            switch format {
            case 0x01: uuidSize = 2
            case 0x02: uuidSize = 16
            default:
                pdu.parameters = .raw(Array(bytes.dropFirst()))
                flag("Find Information Response format \(Hex.prefixed(format, digits: 2)) is reserved", at: formatAt, in: &pdu)
                _ = reader.readRest()
                return
            }
            var entries: [ATTHandleUUID] = []
            entries.reserveCapacity(reader.remaining / (2 + uuidSize))
            while reader.remaining >= 2 + uuidSize {
                let h = reader.uncheckedLE16()
                let uuid = reader.withUncheckedBytes(uuidSize) { ATTUUID(littleEndian: $0) }
                if let uuid { entries.append(ATTHandleUUID(handle: h, uuid: uuid)) }
            }
            pdu.parameters = .findInformationResponse(format: format, entries: entries)
            leftover(&pdu, entry: 2 + uuidSize)
            if entries.isEmpty { flag("Find Information Response without entries", in: &pdu) }
        }

        mutating func attributeDataList(_ pdu: inout ATTPDU, grouped: Bool) throws(DecodeError) {
            let lengthAt = reader.offset
            let length = try reader.readU8()
            let minimum = grouped ? 4 : 2
            guard Int(length) >= minimum else {
                pdu.parameters = .raw(Array(bytes.dropFirst()))
                flag("attribute data length \(length) is shorter than the \(minimum)-byte handle part", at: lengthAt, in: &pdu)
                _ = reader.readRest()
                return
            }
            let size = Int(length)
            var entries: [ATTAttributeData] = []
            entries.reserveCapacity(reader.remaining / size)
            while reader.remaining >= size {
                let h = reader.uncheckedLE16()
                let end: UInt16? = grouped ? reader.uncheckedLE16() : nil
                // The value: the rest of the entry, as a slice of the PDU's bytes (index `i` of
                // the bytes is at offset `baseOffset + i`).
                let start = reader.offset - reader.baseOffset
                let valueSize = size - minimum
                try reader.skip(valueSize)
                entries.append(ATTAttributeData(handle: h, endGroupHandle: end, value: bytes[start..<(start + valueSize)]))
            }
            pdu.parameters = .attributeDataList(length: length, entries: entries)
            leftover(&pdu, entry: Int(length))
            if entries.isEmpty { flag("\(name(pdu)) without attribute data", in: &pdu) }
        }

        mutating func signedWrite(_ pdu: inout ATTPDU) throws(DecodeError) {
            let h = try reader.readLE16()
            pdu.handle = h
            let rest = reader.readRestSlice()
            guard rest.count >= ATTPDU.signatureSize else {
                pdu.parameters = .signedWrite(handle: h, value: rest, signature: [])
                flag("authentication signature truncated: \(rest.count) of \(ATTPDU.signatureSize) bytes",
                    at: reader.offset - rest.count, in: &pdu)
                return
            }
            let split = rest.endIndex - ATTPDU.signatureSize
            pdu.parameters = .signedWrite(handle: h, value: rest[..<split], signature: Array(rest[split...]))
        }
    }
}
