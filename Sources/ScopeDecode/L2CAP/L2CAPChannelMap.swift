import ScopeCore

/// How frames on a dynamic channel are laid out (Core v5.4, Vol 3, Part A, §2.4, §3).
public enum L2CAPChannelMode: Hashable, Sendable {
    /// B-frames: the payload is the upper-layer PDU (the default on BR/EDR).
    case basic
    /// LE Credit Based Flow Control Mode: K-frames; the first K-frame of an SDU starts with a
    /// 2-byte SDU length.
    case leCreditBased
    /// Enhanced Credit Based Flow Control Mode (EATT and others): K-frames as above.
    case enhancedCreditBased
    /// A mode negotiated with the Retransmission and Flow Control option (§5.4): I/S-frames
    /// with a control field and optional FCS. The raw mode byte is kept.
    case retransmission(mode: UInt8)
}

/// A dynamic channel learned from signaling: its PSM, frame layout and the frame that opened it.
public struct L2CAPChannelInfo: Hashable, Sendable {
    public var psm: PSM
    public var mode: L2CAPChannelMode
    /// The frame of the response that completed the connection.
    public var openedIn: FrameNumber
    /// Destination CID of data travelling in each direction (`.sent` → peer's CID, `.received`
    /// → local CID).
    public var cidBySent: UInt16
    public var cidByReceived: UInt16

    public init(psm: PSM, mode: L2CAPChannelMode, openedIn: FrameNumber, cidBySent: UInt16, cidByReceived: UInt16) {
        self.psm = psm
        self.mode = mode
        self.openedIn = openedIn
        self.cidBySent = cidBySent
        self.cidByReceived = cidByReceived
    }
}

/// Learns dynamic L2CAP channels from the signaling commands of each ACL link, so the
/// dissector can route a dynamic CID to the protocol of its PSM (ATT over BR/EDR on PSM
/// 0x001F, EATT on 0x0027, SDP, RFCOMM, AVDTP …) — Wireshark's `btl2cap.psm` table, keyed here
/// by (adapter, handle) and direction (STYLE C5, C8).
///
/// Connection Request/Response (BR/EDR), LE Credit Based and (enhanced) Credit Based
/// Connection Request/Response open channels when the result is success; Disconnection
/// Request/Response close them; a Retransmission and Flow Control option sets the mode.
/// Responses are matched to requests by the signaling identifier on the opposite direction.
public struct L2CAPChannelMap: Sendable {
    struct LinkKey: Hashable, Sendable {
        var adapter: AdapterIndex
        var handle: UInt16
    }

    struct PendingKey: Hashable, Sendable {
        var link: LinkKey
        /// Direction the request travelled.
        var direction: Direction
        var identifier: UInt8
    }

    struct Pending: Sendable {
        var psm: UInt16
        var mode: L2CAPChannelMode
        /// Source CIDs of the requester, in order.
        var sourceCIDs: [UInt16]
    }

    struct ChannelKey: Hashable, Sendable {
        var link: LinkKey
        var direction: Direction
        var cid: UInt16
    }

    var pending: [PendingKey: Pending] = [:]
    var channels: [ChannelKey: L2CAPChannelInfo] = [:] {
        didSet { lastLookup = nil }
    }
    /// The last answer of ``lookUp(adapter:handle:direction:cid:)``, forgotten whenever a
    /// channel opens, closes or changes.
    private var lastLookup: (key: ChannelKey, channel: L2CAPChannelInfo?)?

    public init() {}

    /// The channel that data travelling in `direction` to `cid` belongs to.
    public func channel(adapter: AdapterIndex, handle: UInt16, direction: Direction, cid: UInt16) -> L2CAPChannelInfo? {
        channels[ChannelKey(link: LinkKey(adapter: adapter, handle: handle), direction: direction, cid: cid)]
    }

    /// ``channel(adapter:handle:direction:cid:)``, remembering the last answer: data comes in
    /// runs on one channel, and a dictionary look-up hashes the whole key every time.
    public mutating func lookUp(adapter: AdapterIndex, handle: UInt16, direction: Direction, cid: UInt16) -> L2CAPChannelInfo? {
        let key = ChannelKey(link: LinkKey(adapter: adapter, handle: handle), direction: direction, cid: cid)
        if let lastLookup, lastLookup.key == key { return lastLookup.channel }
        let found = channels[key]
        lastLookup = (key, found)
        return found
    }

    /// Forgets a link's channels and pending requests (Disconnection Complete).
    public mutating func reset(adapter: AdapterIndex, handle: UInt16) {
        let link = LinkKey(adapter: adapter, handle: handle)
        channels = channels.filter { $0.key.link != link }
        pending = pending.filter { $0.key.link != link }
    }

    static func opposite(_ d: Direction) -> Direction {
        d == .sent ? .received : d == .received ? .sent : .unknown
    }

    /// Feeds the signaling PDU carried on `handle` in `direction`, completed in `frame`.
    public mutating func observe(
        _ pdu: SignalingPDU, adapter: AdapterIndex, handle: UInt16, direction: Direction, frame: FrameNumber
    ) {
        let link = LinkKey(adapter: adapter, handle: handle)
        for command in pdu.commands {
            let requestKey = PendingKey(link: link, direction: direction, identifier: command.identifier)
            let answerKey = PendingKey(
                link: link, direction: L2CAPChannelMap.opposite(direction), identifier: command.identifier)
            switch command.parameters {
            case .connectionRequest(let psm, let scid), .createChannelRequest(let psm, let scid, _):
                pending[requestKey] = Pending(psm: psm, mode: .basic, sourceCIDs: [scid])
            case .leCreditBasedConnectionRequest(let spsm, let scid, _, _, _):
                pending[requestKey] = Pending(psm: spsm, mode: .leCreditBased, sourceCIDs: [scid])
            case .creditBasedConnectionRequest(let spsm, _, _, _, let scids):
                pending[requestKey] = Pending(psm: spsm, mode: .enhancedCreditBased, sourceCIDs: scids)
            case .connectionResponse(let dcid, let scid, let result, _),
                .createChannelResponse(let dcid, let scid, let result, _):
                if result == 0x0001 { continue }  // pending: a final response follows
                guard let p = pending.removeValue(forKey: answerKey), result == 0 else { continue }
                open(
                    link: link, responseDirection: direction, requesterCID: scid, responderCID: dcid, psm: p.psm,
                    mode: p.mode, frame: frame)
            case .leCreditBasedConnectionResponse(let dcid, _, _, _, let result):
                guard let p = pending.removeValue(forKey: answerKey), result == 0, let scid = p.sourceCIDs.first else {
                    continue
                }
                open(
                    link: link, responseDirection: direction, requesterCID: scid, responderCID: dcid, psm: p.psm,
                    mode: p.mode, frame: frame)
            case .creditBasedConnectionResponse(_, _, _, let result, let dcids):
                guard let p = pending.removeValue(forKey: answerKey) else { continue }
                // Results 0x0004, 0x0009, 0x000A refuse only some channels: their DCID is 0.
                guard [0x0000, 0x0004, 0x0009, 0x000A].contains(result) else { continue }
                for (scid, dcid) in zip(p.sourceCIDs, dcids) where dcid != 0 {
                    open(
                        link: link, responseDirection: direction, requesterCID: scid, responderCID: dcid, psm: p.psm,
                        mode: p.mode, frame: frame)
                }
            case .disconnectionRequest(let dcid, let scid), .disconnectionResponse(let dcid, let scid):
                // Request in direction D: data in D goes to dcid, data the other way to scid.
                // The response repeats the request's CIDs unchanged (§4.7), so the direction of
                // the request is the opposite of the response's.
                let d = command.code == .disconnectionRequest ? direction : L2CAPChannelMap.opposite(direction)
                channels[ChannelKey(link: link, direction: d, cid: dcid)] = nil
                channels[ChannelKey(link: link, direction: L2CAPChannelMap.opposite(d), cid: scid)] = nil
            case .configurationRequest(let dcid, _, let options):
                // Sent in direction D to the channel whose CID, for data in D, is dcid.
                if let mode = options.first(where: { $0.type == 0x04 })?.data.first, mode != 0 {
                    setMode(.retransmission(mode: mode), link: link, direction: direction, cid: dcid)
                }
            default:
                continue
            }
        }
    }

    mutating func open(
        link: LinkKey, responseDirection r: Direction, requesterCID: UInt16, responderCID: UInt16, psm: UInt16,
        mode: L2CAPChannelMode, frame: FrameNumber
    ) {
        // Data travelling like the response (responder → requester) goes to the requester's CID.
        let toRequester = r
        let toResponder = L2CAPChannelMap.opposite(r)
        let info = L2CAPChannelInfo(
            psm: PSM(psm), mode: mode, openedIn: frame,
            cidBySent: toRequester == .sent ? requesterCID : responderCID,
            cidByReceived: toRequester == .received ? requesterCID : responderCID)
        channels[ChannelKey(link: link, direction: toRequester, cid: requesterCID)] = info
        channels[ChannelKey(link: link, direction: toResponder, cid: responderCID)] = info
    }

    mutating func setMode(_ mode: L2CAPChannelMode, link: LinkKey, direction: Direction, cid: UInt16) {
        let key = ChannelKey(link: link, direction: direction, cid: cid)
        guard var info = channels[key] else { return }
        info.mode = mode
        channels[key] = info
        let other = direction == .sent ? info.cidByReceived : info.cidBySent
        channels[ChannelKey(link: link, direction: L2CAPChannelMap.opposite(direction), cid: other)] = info
    }
}
