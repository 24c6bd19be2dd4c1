import ScopeCore

/// An HCI Event packet as sent by the controller (Core v5.4, Vol 4, Part E, §5.4.4), decoded
/// from a record payload without the H4 packet-type byte:
///
/// ```
///  0      1       2
///  +------+-------+-------------------------------------------+
///  | code | plen  | parameters (plen bytes)                    |
///  +------+-------+-------------------------------------------+
///  LE Meta (0x3E):          parameters = subevent u8, subevent parameters
///  Command Complete (0x0E): parameters = Num_HCI_Command_Packets u8, opcode LE16, return parameters
///  Command Status (0x0F):   parameters = Status u8, Num_HCI_Command_Packets u8, opcode LE16
/// ```
///
/// `decode` extracts the typed essentials cheaply (codes, answered opcode, status, handle,
/// advertising reports) and size-checks the parameters against the event's layout;
/// `summary`, `fields` and `addresses` are computed on demand.
public struct HCIEvent: Sendable, Hashable {
    public var code: HCIEventCode
    /// Parameter_Total_Length as stated in the header.
    public var parameterLength: Int
    /// The event as decoded: the record payload (header, then parameters), shared with the
    /// record rather than copied; ``parameters`` is a view of it.
    public var packet: [UInt8]
    /// LE Meta events: the subevent code.
    public var subevent: LESubevent?
    /// Command Complete/Status: the opcode they answer.
    public var commandOpcode: HCIOpcode?
    /// Command Status: its status. Command Complete: the first return parameter, when present.
    /// Other events whose first parameter is Status: that status.
    public var status: UInt8?
    /// Command Complete/Status: how many commands the host may now send.
    public var numHCICommandPackets: UInt8?
    /// The connection handle for events about one connection (Disconnection Complete,
    /// (Enhanced) Connection Complete, Encryption Change, LE Connection Update Complete, PHY
    /// Update, Data Length Change, LTK Request, Read Remote Features, …; and Command Complete
    /// of commands whose return parameters name a handle). 12 bits, flag bits masked off.
    public var handle: UInt16?
    /// LE Advertising Report, LE Directed Advertising Report, LE Extended Advertising Report.
    /// (Always inlined: asking whether there are any costs no more than a look at two properties.)
    @inlinable @inline(__always) public var advertisingReports: AdvertisingReports {
        guard let subevent = singleReport else { return AdvertisingReports(decodedReports) }
        // The subevent parameters after the subevent code (decoding checked that they are there).
        let end = min(packet.count, Self.parametersOffset + parameterLength)
        let start = min(Self.parametersOffset + 1, end)
        return AdvertisingReports(single: subevent, packet[start..<end], baseOffset: Self.parametersOffset + 1)
    }
    /// Whether the event carries advertising reports (``advertisingReports`` is not empty).
    @inlinable @inline(__always) public var hasAdvertisingReports: Bool { singleReport != nil || !decodedReports.isEmpty }

    /// ``AdvertisingReports/forEachEssentials(_:)`` of ``advertisingReports``, read from the
    /// event's storage in place: no view holding a slice of ``packet`` is built (a retain and a
    /// release per event).
    @inlinable @inline(__always)
    public func forEachAdvertisingReport(_ body: (AdvertisingReportEssentials) -> Void) {
        guard let subevent = singleReport else {
            AdvertisingReports.forEachEssentials(decodedReports, body)
            return
        }
        let end = min(packet.count, Self.parametersOffset + parameterLength)
        let start = min(Self.parametersOffset + 1, end)
        packet.withUnsafeBytes { p in
            AdvertisingReports.forEachEssentials(single: subevent, UnsafeRawBufferPointer(rebasing: p[start..<end]), body)
        }
    }
    /// The usual advertising report event, one report filling the parameters: its subevent. The
    /// report is read from ``packet`` when asked for (no array to allocate and free per event;
    /// see ``AdvertisingReports``).
    @usableFromInline var singleReport: LESubevent?
    /// The reports of any other advertising report event.
    @usableFromInline var decodedReports: [AdvertisingReport]
    public var malformed: [Malformation]

    /// Offset of the first parameter byte in the record payload.
    public static let parametersOffset = 2

    /// An event with these parameters (its ``packet`` is the header followed by them).
    public init(
        code: HCIEventCode, parameterLength: Int, parameters: [UInt8], subevent: LESubevent? = nil,
        commandOpcode: HCIOpcode? = nil, status: UInt8? = nil, numHCICommandPackets: UInt8? = nil,
        handle: UInt16? = nil, advertisingReports: [AdvertisingReport] = [], malformed: [Malformation] = []
    ) {
        self.init(
            code: code, parameterLength: parameterLength,
            packet: [code.rawValue, UInt8(truncatingIfNeeded: parameterLength)] + parameters, subevent: subevent,
            commandOpcode: commandOpcode, status: status, numHCICommandPackets: numHCICommandPackets, handle: handle,
            advertisingReports: advertisingReports, malformed: malformed)
    }

    init(
        code: HCIEventCode, parameterLength: Int, packet: [UInt8], subevent: LESubevent? = nil,
        commandOpcode: HCIOpcode? = nil, status: UInt8? = nil, numHCICommandPackets: UInt8? = nil,
        handle: UInt16? = nil, advertisingReports: [AdvertisingReport] = [], malformed: [Malformation] = []
    ) {
        self.code = code
        self.parameterLength = parameterLength
        self.packet = packet
        self.singleReport = nil
        self.subevent = subevent
        self.commandOpcode = commandOpcode
        self.status = status
        self.numHCICommandPackets = numHCICommandPackets
        self.handle = handle
        self.decodedReports = advertisingReports
        self.malformed = malformed
    }

    /// The parameter bytes actually present (at most ``parameterLength``): a slice of
    /// ``packet``, so its indices are packet indices — the first parameter is at
    /// `parametersOffset`, not 0. Read it through `first`, `dropFirst`, offsets from `startIndex`
    /// or a ``ByteReader``.
    public var parameters: ArraySlice<UInt8> {
        let start = min(Self.parametersOffset, packet.count)
        return packet[start..<max(start, min(packet.count, Self.parametersOffset + parameterLength))]
    }

    /// Command Complete: the return parameters, after Num_HCI_Command_Packets and the opcode
    /// (empty otherwise). A slice of ``parameters``, indexed like it (not from 0).
    public var returnParameters: ArraySlice<UInt8> {
        code == .commandComplete && parameters.count >= 3 ? parameters.dropFirst(3) : []
    }

    /// `status` as an error code.
    public var statusCode: HCIStatus? { status.map(HCIStatus.init(rawValue:)) }

    /// Decodes an event payload. Never traps: a short header, a parameter block shorter or
    /// longer than Parameter_Total_Length, and parameters that do not fit the event's layout
    /// become malformations (offsets within `payload`); whatever could be decoded is kept.
    public static func decode(_ payload: [UInt8]) -> HCIEvent {
        HCIEvent(decoding: payload)
    }

    /// ``decode(_:)`` as an initialiser: the event is decoded where it is returned (decoding
    /// into a local and returning it costs a copy of the whole event).
    ///
    /// `payload` is borrowed: the caller passes a record's payload without copying the record
    /// (an initialiser's argument is owned); the event keeps one reference to it.
    init(decoding payload: borrowing [UInt8]) {
        guard payload.count >= 2 else {
            let m = Malformation(
                layer: .hci, offset: 0, message: "truncated event header: needed 2 bytes, \(payload.count) available")
            self.init(code: HCIEventCode(rawValue: payload.first ?? 0), parameterLength: 0, packet: copy payload, malformed: [m])
            return
        }
        if let sub = Self.singleAdvertisingReport(payload) {
            // Most events of a scan: recognised from the payload's bytes, with no parameter
            // slice or header check to build (the header holds exactly the stated length).
            self.init(code: .leMeta, parameterLength: payload.count - 2, packet: copy payload, subevent: sub)
            singleReport = sub
            return
        }
        // The parameters are read in the payload, between these indices: a slice of it would
        // retain its storage once more per event (docs/PERFORMANCE.md).
        let (length, params, headerIssues) = HCIPacketBody.bounds(payload, headerSize: 2)
        self.init(
            code: HCIEventCode(rawValue: payload[0]), parameterLength: length, packet: copy payload, malformed: headerIssues)
        let complete = headerIssues.isEmpty
        switch code {
        case .commandComplete: decodeCommandComplete(payload, params, validate: complete)
        case .commandStatus: decodeCommandStatus(payload, params, validate: complete)
        case .leMeta: decodeLEMeta(payload, params, validate: complete)
        default:
            guard let layout = Self.layoutByCode[Int(code.rawValue)] else { break }
            apply(layout, payload, params, baseOffset: Self.parametersOffset, validate: complete)
        }
    }

    /// The subevent of an LE Meta event whose parameters are exactly Parameter_Total_Length
    /// bytes and hold one advertising report filling them (``AdvertisingReport/isSingle(subevent:_:)``),
    /// or nil: what ``decodeLEMeta(_:_:validate:)`` finds for such an event, read in place.
    @inline(__always)
    private static func singleAdvertisingReport(_ payload: borrowing [UInt8]) -> LESubevent? {
        payload.withUnsafeBytes { b -> LESubevent? in
            guard b.count >= 3, b[0] == HCIEventCode.leMeta.rawValue, Int(b[1]) == b.count - 2 else { return nil }
            let sub = LESubevent(rawValue: b[2])
            guard sub == .advertisingReport || sub == .extendedAdvertisingReport,
                AdvertisingReport.fillsExactly(subevent: sub, UnsafeRawBufferPointer(rebasing: b[3...]))
            else { return nil }
            return sub
        }
    }

    // The decoders below read the event's parameters at `params`, payload indices worked out
    // once (`parameters` is the same bytes).

    /// Status/handle from fixed positions, and the layout size check.
    private mutating func apply(
        _ layout: EventLayout, _ payload: borrowing [UInt8], _ params: Range<Int>, baseOffset: Int, validate: Bool
    ) {
        if layout.hasStatus, !params.isEmpty { status = payload[params.lowerBound] }
        if let offset = layout.handleOffset, let h = Self.le16(payload, params, at: offset) { handle = h & 0x0FFF }
        if validate, !layout.fitsExactly(payload, params) {
            let issues = ParamLayout.validate(layout.parameters, payload[params], baseOffset: baseOffset)
            if !issues.isEmpty { malformed += issues }
        }
    }

    /// The little-endian 16-bit value at `offset` into `payload[params]`, nil past its end.
    static func le16(_ payload: borrowing [UInt8], _ params: Range<Int>, at offset: Int) -> UInt16? {
        let i = params.lowerBound + offset
        guard offset >= 0, i + 1 < params.upperBound else { return nil }
        return UInt16(payload[i]) | UInt16(payload[i + 1]) << 8
    }

    /// Command Complete (§7.7.14): Num_HCI_Command_Packets, Command_Opcode, return parameters.
    private mutating func decodeCommandComplete(_ payload: borrowing [UInt8], _ params: Range<Int>, validate: Bool) {
        let start = params.lowerBound
        guard params.count >= 3 else {
            if !params.isEmpty { numHCICommandPackets = payload[start] }
            if validate {
                malformed.append(
                    Malformation(
                        layer: .hci, offset: Self.parametersOffset + params.count,
                        message: "Command Complete: truncated: needed 3 bytes, \(params.count) available"))
            }
            return
        }
        numHCICommandPackets = payload[start]
        let opcode = HCIOpcode(rawValue: UInt16(payload[start + 1]) | UInt16(payload[start + 2]) << 8)
        commandOpcode = opcode
        let returned = (start + 3)..<params.upperBound
        status = returned.isEmpty ? nil : payload[returned.lowerBound]
        guard let shape = HCICommand.returnShape(opcode.rawValue) else { return }
        if let offset = shape.handleOffset, let h = Self.le16(payload, returned, at: offset) { handle = h & 0x0FFF }
        // Return parameters of the usual size fit their layout: nothing to validate.
        if validate, shape.exactSize?.fits(payload, returned) != true, let returns = HCICommand.returnLayout(opcode.rawValue) {
            let bytes = payload[returned]
            if !Self.isStatusOnlyFailure(returns, bytes) {
                let issues = ParamLayout.validate(returns, bytes, baseOffset: Self.parametersOffset + 3)
                if !issues.isEmpty { malformed += issues }
            }
        }
    }

    /// Controllers answer a failed command with just the Status byte; btmon accepts that too.
    static func isStatusOnlyFailure(_ returns: [ParamField], _ bytes: ArraySlice<UInt8>) -> Bool {
        returns.count > 1 && bytes.count == 1 && bytes.first != 0x00 && ParamLayout.startsWithStatus(returns)
    }

    static let commandStatusLayout: [ParamField] = [
        .status, .u8("Num HCI Command Packets", .decimal), .u16("Command Opcode", .opcode),
    ]
    static let commandStatusSize = ParamLayout.ExactSize(commandStatusLayout)

    /// Command Status (§7.7.15): Status, Num_HCI_Command_Packets, Command_Opcode.
    private mutating func decodeCommandStatus(_ payload: borrowing [UInt8], _ params: Range<Int>, validate: Bool) {
        let start = params.lowerBound
        status = params.isEmpty ? nil : payload[start]
        if params.count >= 2 { numHCICommandPackets = payload[start + 1] }
        if let op = Self.le16(payload, params, at: 2) { commandOpcode = HCIOpcode(rawValue: op) }
        if validate, Self.commandStatusSize?.fits(payload, params) != true {
            let issues = ParamLayout.validate(Self.commandStatusLayout, payload[params], baseOffset: Self.parametersOffset)
            if !issues.isEmpty { malformed += issues }
        }
    }

    /// LE Meta (§7.7.65): subevent code, then the subevent's parameters.
    private mutating func decodeLEMeta(_ payload: borrowing [UInt8], _ params: Range<Int>, validate: Bool) {
        guard !params.isEmpty else {
            if validate {
                malformed.append(
                    Malformation(
                        layer: .hci, offset: Self.parametersOffset, message: "Subevent Code: truncated: needed 1 byte, 0 available"))
            }
            return
        }
        let sub = LESubevent(rawValue: payload[params.lowerBound])
        subevent = sub
        let subParams = (params.lowerBound + 1)..<params.upperBound
        let offset = Self.parametersOffset + 1
        switch sub {
        case .advertisingReport, .directedAdvertisingReport, .extendedAdvertisingReport:
            let bytes = payload[subParams]
            if AdvertisingReport.isSingle(subevent: sub, bytes) {
                singleReport = sub
                return
            }
            let (reports, issues) = AdvertisingReport.fieldByField(subevent: sub, bytes, baseOffset: offset)
            decodedReports = reports
            // A packet already known to be cut short reports that once, at the header level.
            if validate, !issues.isEmpty { malformed += issues }
        default:
            guard let layout = Self.leLayoutBySubevent[Int(sub.rawValue)] else { return }
            apply(layout, payload, subParams, baseOffset: offset, validate: validate)
        }
    }
}

// MARK: - On-demand rendering

extension HCIEvent {
    /// The layout row describing this event's (or subevent's) parameters.
    private var layoutAndBytes: (EventLayout, ArraySlice<UInt8>, Int)? {
        if code == .leMeta, let sub = subevent, let layout = Self.leLayouts[sub.rawValue] {
            return (layout, parameters.dropFirst(), Self.parametersOffset + 1)
        }
        if code != .leMeta, code != .commandComplete, code != .commandStatus, let layout = Self.layouts[code.rawValue] {
            return (layout, parameters, Self.parametersOffset)
        }
        return nil
    }

    /// One line: "Command Complete (0x0e) LE Set Scan Enable (0x08|0x000c) Status: Success (0x00)",
    /// "LE Extended Advertising Report (0x0d) 1 report: aa:bb:… ADV_IND RSSI -59 dBm",
    /// "Disconnection Complete (0x05) Status: …, Connection Handle: 0x0040, Reason: …".
    public var summary: String {
        switch code {
        case .commandComplete, .commandStatus:
            var s = code.description
            if let op = commandOpcode { s += " " + op.description }
            if let st = statusCode { s += " Status: \(st)" }
            return s
        case .leMeta:
            guard let sub = subevent else { return code.description }
            if !advertisingReports.isEmpty {
                let n = advertisingReports.count
                let items = advertisingReports.map { r in
                    "\(r.address) \(r.eventTypeName) RSSI \(r.rssi == 127 ? "n/a" : "\(r.rssi) dBm")"
                }
                return "\(sub) \(n) report\(n == 1 ? "" : "s"): " + items.joined(separator: "; ")
            }
            guard let (layout, bytes, offset) = layoutAndBytes else { return sub.description }
            let fields = ParamLayout.decode(layout.parameters, bytes, baseOffset: offset).fields
            return HCIPacketBody.summary(sub.description, fields, names: layout.summary)
        default:
            guard let (layout, bytes, offset) = layoutAndBytes, !layout.summary.isEmpty else { return code.description }
            let fields = ParamLayout.decode(layout.parameters, bytes, baseOffset: offset).fields
            return HCIPacketBody.summary(code.description, fields, names: layout.summary)
        }
    }

    /// The decoded fields, with Command Complete return parameters decoded by the answered
    /// command's return layout; events without a layout show their parameters as raw hex.
    public var fields: [Field] {
        var out = [
            Field("Event Code", code.description),
            Field("Parameter Total Length", "\(parameterLength)"),
        ]
        switch code {
        case .commandComplete:
            out += commandCompleteFields
        case .commandStatus:
            out += ParamLayout.decode(Self.commandStatusLayout, parameters, baseOffset: Self.parametersOffset).fields
        case .leMeta:
            if let sub = subevent {
                out.append(Field("Subevent Code", sub.description))
                if let (layout, bytes, offset) = layoutAndBytes {
                    out += ParamLayout.decode(layout.parameters, bytes, baseOffset: offset).fields
                } else if parameters.count > 1 {
                    out.append(Field("Parameters", Hex.string(parameters.dropFirst(), separator: " ")))
                }
            }
        default:
            if let (layout, bytes, offset) = layoutAndBytes {
                out += ParamLayout.decode(layout.parameters, bytes, baseOffset: offset).fields
            } else if !parameters.isEmpty {
                out.append(Field("Parameters", Hex.string(parameters, separator: " ")))
            }
        }
        out += malformed.map { Field("Malformed", $0.description) }
        return out
    }

    private var commandCompleteFields: [Field] {
        var out: [Field] = []
        if let n = numHCICommandPackets { out.append(Field("Num HCI Command Packets", "\(n)")) }
        guard let op = commandOpcode else { return out }
        out.append(Field("Command Opcode", op.description))
        let bytes = returnParameters
        let offset = Self.parametersOffset + 3
        if let returns = HCICommand.returnLayout(op.rawValue) {
            let layout = Self.isStatusOnlyFailure(returns, bytes) ? [ParamField.status] : returns
            out += ParamLayout.decode(layout, bytes, baseOffset: offset).fields
        } else if op.isVendor || op == .nop {
            // Vendor return parameters are opaque (even the status byte is vendor-defined).
            if !bytes.isEmpty { out.append(Field("Return Parameters", Hex.string(bytes, separator: " "))) }
        } else if let st = bytes.first {
            out.append(Field("Status", HCIStatus(rawValue: st).description))
            if bytes.count > 1 { out.append(Field("Return Parameters", Hex.string(bytes.dropFirst(), separator: " "))) }
        }
        return out
    }

    /// Every peer BD_ADDR the event names: advertisers in reports, connection peers, pairing
    /// peers, addresses returned by Command Complete (e.g. LE Read Peer Resolvable Address).
    public var addresses: [BDAddr] {
        if !advertisingReports.isEmpty { return advertisingReports.map(\.address).filter { $0.value != 0 } }
        if code == .commandComplete, let op = commandOpcode, let returns = HCICommand.returnLayout(op.rawValue) {
            return ParamLayout.peerAddresses(returns, returnParameters)
        }
        guard let (layout, bytes, _) = layoutAndBytes else { return [] }
        return ParamLayout.peerAddresses(layout.parameters, bytes)
    }
}
