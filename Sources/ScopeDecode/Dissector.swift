import ScopeCore

/// Turns capture records into decoded frames (STYLE B4: records → packets).
///
/// One `Dissector` owns all cross-frame decode state for one capture: ACL → L2CAP reassembly
/// keyed by (adapter, handle, direction), the command ↔ Command Complete/Status matcher, the
/// per-connection GATT knowledge that names handles, and connection generations so a handle
/// re-used after a disconnect starts fresh. Feed records in order with ``decode(_:)`` and call
/// ``finish()`` at the end for what was left incomplete.
public struct Dissector: Sendable {
    struct HandleKey: Hashable, Sendable {
        var adapter: AdapterIndex
        var handle: UInt16
    }

    private var reassembler = L2CAPReassembler()
    private var commands = HCICommandTracker()
    private var gatt: GATTTrackerSet
    /// Generation of each (adapter, handle): bumped on every successful connection complete.
    private var generations: [HandleKey: Int] = [:]
    /// The last connection looked up in ``generations`` (ATT traffic comes in runs on one
    /// connection); forgotten whenever a generation changes.
    private var lastConnection: (key: HandleKey, connection: GATTConnectionKey)?
    /// Handles some connection event named (so 0x0EDC on such a controller is real traffic).
    private var connectedHandles: Set<HandleKey> = []
    /// Dynamic channels opened through signaling (PSM and mode by CID and direction).
    private var channels = L2CAPChannelMap()
    /// Empty `pdus` arrays of frames the consumer freed (``collectSpareArrays(_:)``): a frame that
    /// completes one L2CAP PDU takes one instead of allocating its own.
    private var spareArrays: [[DecodedPDU]] = []

    /// `detail`: ``DecodeDetail/display`` (what `show` prints) unless the frames only feed an
    /// analysis.
    public init(detail: DecodeDetail = .display) {
        gatt = GATTTrackerSet(detail: detail)
    }

    /// The GATT tracker (the one GATT database) of `connection` as the frames decoded so far left
    /// it; nil before its first ATT PDU and after its Disconnection Complete.
    package func gattTracker(_ connection: GATTConnectionKey) -> GATTTracker? { gatt[connection] }

    /// The controller-debug handle used by Android controllers (Broadcom/Qualcomm) for vendor
    /// trace data; it is not L2CAP unless a connection event created it.
    public static let vendorDebugHandle: UInt16 = 0x0EDC

    public mutating func decode(_ record: consuming CaptureRecord) -> DecodedFrame {
        let (packet, pdus, malformed, match, connection) = parts(of: record)
        return DecodedFrame(
            record: record, packet: packet, pdus: pdus, malformed: malformed, commandMatch: match, connection: connection)
    }

    /// ``decode(_:)`` into `frame`, uninitialised memory where the frame is kept (a consumer
    /// holding frames in a buffer: the frame is built there, not returned and moved in).
    public mutating func decode(_ record: consuming CaptureRecord, into frame: UnsafeMutablePointer<DecodedFrame>) {
        let (packet, pdus, malformed, match, connection) = parts(of: record)
        frame.initialize(
            to: DecodedFrame(
                record: record, packet: packet, pdus: pdus, malformed: malformed, commandMatch: match, connection: connection))
    }

    /// What ``decode(_:)`` works out of `record`. The parts are worked out first and the frame
    /// is built once, where it is kept (a frame is large: filling in an empty one, or building it
    /// in several places, costs copies).
    @inline(__always)
    private mutating func parts(
        of record: borrowing CaptureRecord
    ) -> (Packet, [DecodedPDU], [Malformation], CommandMatch?, GATTConnectionKey?) {
        let packet: Packet
        var pdus: [DecodedPDU] = []
        var malformed: [Malformation]
        var match: CommandMatch?
        var connection: GATTConnectionKey?
        switch record.kind {
        case .command:
            let command = HCICommand.decode(record.payload)
            malformed = command.malformed
            if command.opcode.rawValue != 0 {
                match = commands.sent(command.opcode, adapter: record.adapter, frame: record.frame, timestampMicros: record.timestamp.microseconds)
            }
            packet = .command(command)
        case .event:
            let event = HCIEvent.decode(record.payload)
            // (An event without malformations, almost every one, gives the frame a new empty
            // list: sharing the event's costs a retain, and a release when the frame is freed.)
            malformed = event.malformed.isEmpty ? [] : event.malformed
            if let opcode = event.commandOpcode, opcode.rawValue != 0 {
                match = commands.answered(opcode, adapter: record.adapter, frame: record.frame, timestampMicros: record.timestamp.microseconds)
            }
            if event.handle != nil, event.status == 0 { track(event, adapter: record.adapter, malformed: &malformed) }
            if let handle = event.handle { connection = cachedConnection(HandleKey(adapter: record.adapter, handle: handle)) }
            packet = .event(event)
        case .acl:
            (packet, pdus, malformed, connection) = decodeACL(record)
        case .sco:
            let (header, problems) = SCOHeader.decode(record.payload)
            packet = .sco(header)
            malformed = problems
        case .iso:
            let (header, problems) = ISOHeader.decode(record.payload)
            packet = .iso(header)
            malformed = problems
        default:
            let (payload, problems) = MonitorPayload.decode(kind: record.kind, payload: record.payload)
            packet = .monitor(payload)
            malformed = problems
        }
        return (packet, pdus, malformed, match, connection)
    }

    /// Lends the dissector's store of empty `pdus` arrays to `body`, which appends the arrays
    /// of freed frames, emptied, for the next frames to fill: a consumer that frees frames in
    /// bulk spares an allocation and a free per ACL frame, and the arrays go straight where
    /// they are taken from. At most 4,096 are kept.
    public mutating func collectSpareArrays(_ body: (inout [[DecodedPDU]]) -> Void) {
        body(&spareArrays)
        if spareArrays.count > Self.maximumSpareArrays {
            spareArrays.removeLast(spareArrays.count - Self.maximumSpareArrays)
        }
    }

    static let maximumSpareArrays = 4096

    /// Diagnostics for state left open at the end of the capture (incomplete L2CAP PDUs).
    public mutating func finish() -> [Malformation] {
        reassembler.finish()
    }

    /// Follows connection lifetimes: a successful connection complete starts a new generation of
    /// its handle; it and Disconnection Complete drop reassembly and GATT state, and whatever
    /// was incomplete is reported on this event's frame (added to `malformed`).
    private mutating func track(_ event: HCIEvent, adapter: AdapterIndex, malformed: inout [Malformation]) {
        guard let handle = event.handle, event.status == 0 else { return }
        let key = HandleKey(adapter: adapter, handle: handle)
        let issues: [Malformation]
        if Self.isConnectionComplete(event) {
            gatt.remove(connection(key))
            generations[key, default: 0] += 1
            lastConnection = nil
            connectedHandles.insert(key)
            channels.reset(adapter: adapter, handle: handle)
            issues = reassembler.reset(adapter: adapter, handle: handle)
        } else if event.code == .disconnectionComplete {
            gatt.remove(connection(key))
            channels.reset(adapter: adapter, handle: handle)
            issues = reassembler.reset(adapter: adapter, handle: handle)
        } else {
            return
        }
        if !issues.isEmpty { malformed += issues }
    }

    private func connection(_ key: HandleKey) -> GATTConnectionKey {
        GATTConnectionKey(adapter: key.adapter, handle: key.handle, generation: generations[key] ?? 0)
    }

    /// ``connection(_:)``, remembering the last answer.
    private mutating func cachedConnection(_ key: HandleKey) -> GATTConnectionKey {
        if let last = lastConnection, last.key == key { return last.connection }
        let c = connection(key)
        lastConnection = (key, c)
        return c
    }

    /// Connection Complete (BR/EDR) and the LE connection complete subevents.
    static func isConnectionComplete(_ event: HCIEvent) -> Bool {
        if event.code == .connectionComplete { return true }
        guard let sub = event.subevent else { return false }
        return sub == .connectionComplete || sub == .enhancedConnectionCompleteV1 || sub == .enhancedConnectionCompleteV2
    }

    /// The packet, the PDUs it completes, what was malformed, and the connection of its handle
    /// (nil without an ACL header, and for controller debug traffic).
    private mutating func decodeACL(_ record: CaptureRecord) -> (Packet, [DecodedPDU], [Malformation], GATTConnectionKey?) {
        // Peek at the handle first: controller debug traffic must not feed the reassembler.
        if record.payload.count >= 2 {
            let handle = (UInt16(record.payload[0]) | UInt16(record.payload[1]) << 8) & 0x0FFF
            let key = HandleKey(adapter: record.adapter, handle: handle)
            if ACLHeader.isVendorHandle(handle), !connectedHandles.contains(key) {
                let packet = ACLPacket.decode(record.payload, captureTruncated: record.isTruncated)
                return (.vendorDebugACL(packet.header), [], packet.malformed, nil)
            }
        }
        // The usual case, a whole PDU in one fragment, without the reassembler's step value.
        var header: ACLHeader?
        if let pdu = reassembler.completeSingleFragment(
            adapter: record.adapter, direction: record.direction, frame: record.frame, record.payload, header: &header)
        {
            let connection = cachedConnection(HandleKey(adapter: record.adapter, handle: pdu.handle))
            let decoded = decodeUpper(
                consume pdu, adapter: record.adapter, direction: record.direction, frame: record.frame, connection: connection)
            guard var pdus = spareArrays.popLast() else { return (.acl(header), [decoded], [], connection) }
            pdus.append(consume decoded)
            return (.acl(header), pdus, [], connection)
        }
        let step = reassembler.consume(
            adapter: record.adapter, direction: record.direction, frame: record.frame, payload: record.payload,
            capturedTruncated: record.isTruncated)
        let connection = step.header.map { cachedConnection(HandleKey(adapter: record.adapter, handle: $0.handle)) }
        var pdus: [DecodedPDU] = []
        // The PDUs a fragment completes are on its handle.
        if step.completed.count == 1, let connection {
            // The usual case: one array of the right size.
            pdus = [
                decodeUpper(
                    step.completed[0], adapter: record.adapter, direction: record.direction, frame: record.frame,
                    connection: connection)
            ]
        } else {
            for pdu in step.completed {
                let key = connection ?? cachedConnection(HandleKey(adapter: record.adapter, handle: pdu.handle))
                pdus.append(
                    decodeUpper(pdu, adapter: record.adapter, direction: record.direction, frame: record.frame, connection: key))
            }
        }
        return (.acl(step.header), pdus, step.malformed, connection)
    }

    /// `connection`: the connection of the PDU's handle.
    private mutating func decodeUpper(
        _ pdu: consuming L2CAPPDU, adapter: AdapterIndex, direction: Direction, frame: FrameNumber,
        connection: GATTConnectionKey
    ) -> DecodedPDU {
        var basicModeATT = false
        var bearer = pdu.cid
        if pdu.cid >= ChannelID.firstDynamic,
            let channel = channels.lookUp(adapter: adapter, handle: pdu.handle, direction: direction, cid: pdu.cid)
        {
            // ATT over a BR/EDR basic-mode channel (PSM 0x001F, Core v5.4 Vol 3 Part F §3.2.11).
            // EATT channels use credit-based K-frames (SDU length first) and are not handed to ATT.
            basicModeATT = channel.psm == PSM.att && channel.mode == .basic
            // Each side addresses the channel by the other's CID: name the bearer by one of them.
            bearer = channel.cidBySent
        }
        switch pdu.cid {
        case ChannelID.att.rawValue:
            return decodeATT(pdu, connection: connection, direction: direction, frame: frame, bearer: bearer)
        case _ where basicModeATT:
            return decodeATT(pdu, connection: connection, direction: direction, frame: frame, bearer: bearer)
        case ChannelID.smp.rawValue, ChannelID.bredrSMP.rawValue:
            let smp = SMPPDU.decode(pdu.payload, baseOffset: pdu.payloadOffset)
            return DecodedPDU(pdu: pdu, upper: .smp(smp), hasMalformations: !smp.malformed.isEmpty)
        case ChannelID.leSignaling.rawValue, ChannelID.signaling.rawValue:
            let signaling = SignalingPDU.decode(pdu.payload, channel: ChannelID(pdu.cid), baseOffset: pdu.payloadOffset)
            channels.observe(signaling, adapter: adapter, handle: pdu.handle, direction: direction, frame: frame)
            return DecodedPDU(pdu: pdu, upper: .signaling(signaling), hasMalformations: !signaling.malformed.isEmpty)
        default:
            return DecodedPDU(pdu: pdu, upper: .other, hasMalformations: false)
        }
    }

    private mutating func decodeATT(
        _ pdu: consuming L2CAPPDU, connection: GATTConnectionKey, direction: Direction, frame: FrameNumber, bearer: UInt16
    ) -> DecodedPDU {
        let att = ATTPDU.decode(pdu.payload, baseOffset: pdu.payloadOffset)
        let annotation = gatt.observe(att, connection: connection, direction: direction, frame: frame, cid: bearer)
        let malformed = !att.malformed.isEmpty
        return DecodedPDU(pdu: pdu, upper: .att(consume att, annotation), hasMalformations: malformed)
    }
}

/// How much a ``Dissector`` works out beyond the typed essentials.
public enum DecodeDetail: Sendable, Hashable {
    /// Everything `show` prints: GATT annotations name handles, list what discovery learned and
    /// carry display fields.
    case display
    /// What `AnalysisBuilder` reads: GATT annotations carry what changed in the connection's GATT
    /// database (discovery procedures and what they found, CCCD writes, the effective MTU, the
    /// request answered) and the inferred handle only (no names, fields or request handle lists;
    /// building them is most of the cost of annotating), and notifications and commands other
    /// than CCCD writes get none. Everything else is decoded as for display.
    case analysis
}

/// One record, decoded as far as its layers allow.
public struct DecodedFrame: Sendable {
    // (No default values: the initialisers set every property once.)
    public private(set) var record: CaptureRecord
    public var packet: Packet
    /// L2CAP PDUs completed by this frame (a PDU reassembled from several fragments is reported
    /// on the frame that completed it), each with its upper-layer decode.
    public var pdus: [DecodedPDU]
    /// Everything that could not be decoded, at every layer, in order.
    public var malformed: [Malformation]
    /// For Command Complete/Status: the command it answers (its frame) and the latency. For an
    /// HCI command: the command of the same opcode sent earlier on the adapter
    /// and never answered, which this one replaces (the controller answers one of them), or nil.
    /// The one place commands are matched to their answers (`HCICommandTracker`).
    public var commandMatch: CommandMatch?
    /// The connection an ACL fragment or an event with a connection handle belongs to: its
    /// adapter, handle and generation (counted by the dissector, one per successful connection
    /// complete; a Connection Complete names the connection it starts). Everything downstream
    /// identifies connections by it rather than counting again.
    public var connection: GATTConnectionKey?

    public init(record: CaptureRecord) {
        self.init(record: record, packet: .none, pdus: [], malformed: [], commandMatch: nil, connection: nil)
    }

    init(
        record: CaptureRecord, packet: Packet, pdus: [DecodedPDU], malformed: [Malformation], commandMatch: CommandMatch?,
        connection: GATTConnectionKey?
    ) {
        self.record = record
        self.packet = packet
        self.pdus = pdus
        self.malformed = malformed
        self.commandMatch = commandMatch
        self.connection = connection
    }

    /// Moves the frame's payload array and PDU array out, leaving empty ones in their place, for
    /// a pool to reuse their storage once the frame is freed (`FramePipeline`): called where the
    /// frame is kept, nothing is copied and no reference is retained or released (copied out,
    /// each array was retained there and released again when the frame was freed: two atomic
    /// operations per frame).
    package mutating func takeArrays() -> (payload: [UInt8], pdus: [DecodedPDU]) {
        var payload: [UInt8] = []
        var taken: [DecodedPDU] = []
        swap(&payload, &record.payload)
        swap(&taken, &pdus)
        return (payload, taken)
    }

    /// All malformations, including those of the upper-layer PDUs.
    public var allMalformations: [Malformation] {
        var out = malformed
        for p in pdus { out += p.malformed }
        return out
    }
}

public enum Packet: Sendable {
    case none
    case command(HCICommand)
    case event(HCIEvent)
    /// An ACL fragment (header nil when even the 4-byte header is missing).
    case acl(ACLHeader?)
    /// ACL on the controller-debug handle 0x0EDC: vendor trace data, not L2CAP.
    case vendorDebugACL(ACLHeader?)
    case sco(SCOHeader?)
    case iso(ISOHeader?)
    case monitor(MonitorPayload)
}

public struct DecodedPDU: Sendable {
    public enum Upper: Sendable {
        case att(ATTPDU, GATTAnnotation?)
        case smp(SMPPDU)
        case signaling(SignalingPDU)
        case other
    }

    public var pdu: L2CAPPDU
    public var upper: Upper {
        didSet { hasMalformations = !Self.malformed(upper).isEmpty }
    }
    /// Whether ``malformed`` is non-empty, worked out when ``upper`` is set: reading it does not
    /// copy the upper-layer PDU (binding an enum payload in a `switch` copies it, with every
    /// array and string in it retained and released).
    public private(set) var hasMalformations: Bool

    init(pdu: L2CAPPDU, upper: Upper, hasMalformations: Bool) {
        self.pdu = pdu
        self.upper = upper
        self.hasMalformations = hasMalformations
    }

    public var malformed: [Malformation] { Self.malformed(upper) }

    private static func malformed(_ upper: Upper) -> [Malformation] {
        switch upper {
        case .att(let a, _): return a.malformed
        case .smp(let s): return s.malformed
        case .signaling(let s): return s.malformed
        case .other: return []
        }
    }
}
