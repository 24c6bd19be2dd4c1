import ScopeCore
import ScopeDecode

package enum Side: String, Sendable, Hashable {
    case local, remote, unknown
}

/// How a controller dropped its links without a Disconnection Complete for them: the host
/// reset it (HCI Reset), or closed it (Close Index: `hciconfig down`, the adapter powered off
/// without disconnecting first) or it went away (Delete Index: unplugged, driver unloaded).
package enum ControllerLoss: String, Sendable, Hashable {
    case reset, closed, removed

    /// "HCI Reset", "controller closed", "controller removed".
    package var label: String {
        switch self {
        case .reset: return "HCI Reset"
        case .closed: return "controller closed"
        case .removed: return "controller removed"
        }
    }
}

/// LE Create Connection / LE Extended Create Connection and what became of it.
package struct ConnectionAttempt: Sendable {
    /// What became of a request.
    package enum Outcome: String, Sendable, Hashable {
        /// A connection came up and stayed up past its establishment.
        case connected
        /// LE Create Connection Cancel answered (or the cancelled request replaced).
        case cancelled
        /// The controller refused the request (Command Status or LE Connection Complete with an
        /// error other than 0x02 after a cancel and 0x3E), or its controller was reset, closed
        /// or removed before an answer.
        case failed
        /// The link did not survive its establishment: LE Connection Complete with 0x3E
        /// (Connection Failed to be Established), or a Disconnection Complete with 0x3E for the
        /// connection it produced.
        case failedToEstablish = "failed_to_establish"
        /// The controller accepted a later request on the adapter while this one had no answer
        /// (`supersededAt`).
        case superseded
        /// Still waiting at the last frame.
        case pending
    }

    package var adapter: AdapterIndex
    package var request: FrameTime
    package var api: HCIAPI
    /// nil when the filter accept list is used.
    package var peer: BDAddr?
    package var peerAddressType: UInt8?
    package var filterPolicy: UInt8
    package var cancel: FrameTime?
    package var complete: FrameTime?
    package var status: UInt8?
    package var outcome: Outcome
    /// Set when the request ended with its controller before an answer (reset, closed or
    /// removed): `complete` is that frame, `status` nil, the outcome failed.
    package var lostWithController: ControllerLoss?
    /// Set when the controller accepted a later request on the adapter while this one had no
    /// answer: it was no longer pending there (a controller refuses a second request while one
    /// is, Vol 4 Part E §7.8.12), and its end was not captured. The frame of that acceptance
    /// (the later request's Command Status); `complete` stays nil, the outcome pending.
    package var supersededAt: FrameTime?
    /// The connection it produced.
    package var connection: ConnectionID?
    /// The identity address when `peer` is a resolvable private address resolved with an IRK.
    package var peerIdentity: BDAddr?
    /// Advertising reports the scan session running on the adapter had counted when the request
    /// was sent, and that session's start frame; nil when no scan was running.
    package var scanReportsAtRequest: Int?
    package var scanStartFrameAtRequest: FrameNumber?
    /// The last scan session on the adapter that reported the peer before the request (its start
    /// frame) and the peer's first report in that session; nil when the peer was not reported
    /// before the request.
    package var peerDiscovery: PeerDiscovery?
    /// The frame of the peer's last connection complete on the adapter when no scan reported the
    /// peer after it: the request reconnects a device already found, and the sighting before that
    /// connection is no discovery of this one (nil otherwise).
    package var peerConnectedBefore: FrameNumber?
    /// The peer of the connection it produced (set by the analysis; a request to the filter
    /// accept list names no peer).
    package var connectionPeer: BDAddr?
    /// Whose request it is, as the frames tell (docs/ATTRIBUTION.md).
    package var attribution = ActorEvidence.localRequest
    /// The requests to the same peer (or, for a request to the Filter Accept List, to the list)
    /// on the adapter that did not connect since the last that did, set when this one connected:
    /// what discovery cost leaves out when it counts from the request that connected.
    package var earlierFailures: FailedAttempts?
    /// A request to the Filter Accept List: the devices on the list when it was sent, where the
    /// capture tells the whole list (since a Clear or a Reset); nil otherwise.
    package var acceptListMembers: [BDAddr]?
    /// Counted among the failures the next connecting request carries (once).
    var countedAsFailed = false
    package init(adapter: AdapterIndex, request: FrameTime, api: HCIAPI, peer: BDAddr?, peerAddressType: UInt8?, filterPolicy: UInt8) {
        self.adapter = adapter
        self.request = request
        self.api = api
        self.peer = peer
        self.peerAddressType = peerAddressType
        self.filterPolicy = filterPolicy
        self.outcome = .pending
    }
}

/// Connection requests that did not connect (cancelled, refused, superseded, failed to be
/// established), summed: how many, how long they were pending, and the first one's request.
package struct FailedAttempts: Sendable, Hashable {
    package var count = 0
    /// Σ request → its end (cancel, answer, the later request that superseded it).
    package var pendingMicros: Int64 = 0
    package var firstRequest: FrameTime?
    package init() {}

    package mutating func add(_ a: ConnectionAttempt) {
        count += 1
        let end = a.cancel ?? a.complete ?? a.supersededAt
        if let end { pendingMicros = pendingMicros &+ max(0, end.time.microseconds &- a.request.time.microseconds) }
        if firstRequest.map({ a.request.frame < $0.frame }) ?? true { firstRequest = a.request }
    }

    package mutating func add(_ other: FailedAttempts) {
        count += other.count
        pendingMicros = pendingMicros &+ other.pendingMicros
        if let f = other.firstRequest, firstRequest.map({ f.frame < $0.frame }) ?? true { firstRequest = f }
    }
}

/// Where a connection request's peer was found: the scan session and its first report there.
package struct PeerDiscovery: Sendable, Hashable {
    package var scanStartFrame: FrameNumber
    package var firstReport: FrameTime
    /// That session as far as the request is concerned, recorded by the analysis when it notes
    /// the discovery (the session itself may be handed to the rules and dropped before the end
    /// of a long capture); nil when the analysis no longer held the session then.
    package var scan: DiscoveryScan?
    package init(scanStartFrame: FrameNumber, firstReport: FrameTime, scan: DiscoveryScan? = nil) {
        self.scanStartFrame = scanStartFrame
        self.firstReport = firstReport
        self.scan = scan
    }
}

/// The scan session that found a connection request's peer, up to the request: what discovery
/// cost needs of it.
package struct DiscoveryScan: Sendable, Hashable {
    package var start: FrameTime
    /// The request, or the session's stop when it stopped before the request.
    package var until: Timestamp
    package var phys: [ScanPHY]
    /// The session's attribution when the request was sent: a scan with a system signature is
    /// never the app's search for the device (`ActorSignal.isSystemSignature`).
    package var attribution: ActorEvidence
    /// Advertising reports the session counted before the request; nil when that cannot be told
    /// (the session went on reporting after the request and no count was taken at the request).
    package var reportsUntilRequest: Int?

    package init(start: FrameTime, until: Timestamp, phys: [ScanPHY], attribution: ActorEvidence = .localRequest, reportsUntilRequest: Int?) {
        self.start = start
        self.until = until
        self.phys = phys
        self.attribution = attribution
        self.reportsUntilRequest = reportsUntilRequest
    }

    /// `session` as it stands (or stood) for `attempt`'s request. Exact whenever it is taken at
    /// or after the request: a session still running then cannot have stopped before it, and its
    /// count at the request is on the attempt. (Taken at the end of a capture whose last
    /// timestamp went back before the request, a running session's end would cut `until` short;
    /// taken on the way, it cannot.)
    package init(_ session: ScanSession, for attempt: ConnectionAttempt) {
        let request = attempt.request.time
        start = session.start
        // A session without a stop is still running: it ran at least until the request.
        until = session.stop.map { min(request, $0.time) } ?? request
        phys = session.phys
        attribution = session.attribution
        if session.reports > 0, let n = attempt.scanReportsAtRequest, attempt.scanStartFrameAtRequest == session.start.frame {
            reportsUntilRequest = n
        } else if let last = session.lastReport, last.time <= request {
            reportsUntilRequest = session.reports
        } else {
            reportsUntilRequest = nil
        }
    }

    /// Session start → `request` (the headline's discovery cost).
    package func scanToRequestMicros(_ request: Timestamp) -> Int64 { request.microseconds &- start.time.microseconds }

    /// Estimated radio-on time of the session up to the request (`ScanPHY.radioOnMicros`).
    package var radioOnMicros: Int64 {
        ScanPHY.radioOnMicros(durationMicros: max(0, until.microseconds &- start.time.microseconds), phys: phys)
    }
}

/// (adapter, handle, generation): a handle reused after a disconnect is a new connection.
package struct ConnectionID: Sendable, Hashable, CustomStringConvertible {
    package var adapter: AdapterIndex
    package var handle: UInt16
    package var generation: Int
    package init(adapter: AdapterIndex, handle: UInt16, generation: Int) {
        self.adapter = adapter
        self.handle = handle
        self.generation = generation
    }
    package var description: String { "hci\(adapter) handle \(Hex.prefixed(handle, digits: 4))" + (generation > 1 ? " #\(generation)" : "") }

    // Looked up once per ATT PDU (`ATTFollower`): one word, hashed with `fastHash`.
    private var word: UInt64 { UInt64(adapter) << 48 | UInt64(handle) << 32 | UInt64(UInt32(truncatingIfNeeded: generation)) }
    package func hash(into hasher: inout Hasher) { hasher.combine(word) }
    package func _rawHashValue(seed: Int) -> Int { fastHash(word, seed: seed) }
}

package struct Connection: Sendable {
    package enum Role: String, Sendable, Hashable { case central, peripheral, unknown }

    package var id: ConnectionID
    package var role: Role
    /// LE or BR/EDR: from the connection complete event, or, for a link set up before the
    /// capture began, from what crossed it (LE-only channels and events; BR/EDR signalling).
    package enum Transport: String, Sendable, Hashable { case le, bredr, unknown }
    package var transport = Transport.unknown
    /// An LE link: the LE rules judge only these (a link whose transport the capture does not
    /// show is judged by none).
    package var isLE: Bool { transport == .le }
    /// The first evidence of the transport decides it (a connection complete sets it at once).
    package mutating func learnTransport(_ t: Transport) {
        if transport == .unknown { transport = t }
    }
    package var peer: BDAddr?
    package var peerAddressType: UInt8?
    /// The identity address when `peer` is a resolvable private address resolved with an IRK.
    package var peerIdentity: BDAddr?
    /// The connection request that led to it (central side), when captured.
    package var request: FrameTime?
    /// That request named no peer (Filter Accept List): its time to the connection complete is
    /// time waiting for a listed device to come back, not setup.
    package var requestUsedAcceptList = false
    /// The connection complete event; nil when the setup was not captured.
    package var complete: FrameTime?
    package var setupObserved: Bool { complete != nil }
    package var intervalMicros: Int64?
    package var peripheralLatency: Int?
    package var supervisionTimeoutMicros: Int64?
    /// Connection parameter, PHY and data length updates: how many and the latest, which is
    /// all the reports and the radio model read (a connection that stays open for days does
    /// not pile them up).
    package var parameterUpdates = CountedLatest<ParameterUpdate>()
    package var phyUpdates = CountedLatest<PHYUpdate>()
    package var dataLengthChanges = CountedLatest<DataLengthChange>()
    /// Effective ATT_MTU (23 until an exchange).
    package var mtu = 23
    /// MTU Exchange requests and responses: the first `BoundedPrefix.capacity`, the last and
    /// how many (a link that exchanges again and again does not pile them up).
    package var mtuExchanges: BoundedPrefix<FrameTime> {
        _read { yield lists.value.mtuExchanges }
        _modify { yield &lists.value.mtuExchanges }
    }
    /// Encryption Change and Encryption Key Refresh Complete events: the first
    /// `BoundedPrefix.capacity`, the last and how many; `encryption` folds every one of them.
    package private(set) var encryptionChanges: BoundedPrefix<EncryptionChange> {
        _read { yield lists.value.encryptionChanges }
        _modify { yield &lists.value.encryptionChanges }
    }
    package private(set) var encryption = EncryptionState()
    package var disconnectCommand: FrameTime?
    /// The reason the local host gave in its Disconnect (0x15: the device is powering off —
    /// Bluetooth being turned off, not a decision about the link).
    package var disconnectCommandReason: UInt8?
    package var disconnect: FrameTime?
    package var disconnectReason: UInt8?
    package var disconnectInitiator: Side = .unknown
    /// Set when the link ended with its controller (`disconnect` is then that frame, and there
    /// is no reason): the controller was reset, closed or removed with the link up.
    package var lostWithController: ControllerLoss?
    /// Last ACL frame with payload (either direction, SMP included).
    package var lastPayload: FrameTime?
    /// Last ACL frame with payload the local host sent, and the last it received.
    package var lastSent: FrameTime?
    package var lastReceived: FrameTime?
    /// Who asked for the connection parameters in force (interval, latency, supervision
    /// timeout), and the LE Connection Update Complete that applied them (nil: the parameters of
    /// the connection complete). `.local`: the host's LE Connection Update; `.remote`: the
    /// peer's L2CAP Connection Parameter Update Request or LE Remote Connection Parameter
    /// Request; `.unknown`: the controller's own update, or the request not captured.
    package var parametersSetBy: Side?
    package var parametersSetAt: FrameTime?
    /// Who asked for the next parameter update (the analysis's, until the update completes).
    var pendingParameterRequest: Side?
    /// An SMP Pairing Request was seen on the link.
    package var pairedOnLink = false
    /// Read RSSI answers on the link (the host polled the signal strength).
    package var rssiReadings = RSSIReadings()
    /// The last advertising report heard from the peer before the link came up, when it carried
    /// an RSSI (the signal strength the link started with, where the capture has no better).
    package var peerAdvertisingRSSI: RSSIReading?

    /// Encrypted with keys of an earlier bond: a successful encryption and no pairing on the link.
    package var encryptedWithStoredKeys: Bool { encryption.lastSuccess != nil && !pairedOnLink }

    /// Keys of an earlier bond were used: encrypted with them, or an encryption with no pairing on
    /// the link cut off by the link's loss (the central had a key to start it with: Bafang's
    /// 0x0402 #9, LE Enable Encryption at frame 45178, Encryption Change status 0x08 at 45368).
    package var usedStoredKeys: Bool {
        encryptedWithStoredKeys || (!pairedOnLink && encryptionChanges.last.map { LinkEnd.isLinkLoss($0.status) } == true)
    }

    /// The attribution once the link has ended (or the capture): a connection from an accept-list
    /// request to a device it is not bonded with is no background reconnection of a known device.
    /// Nor is it the stack reconnecting its bonded devices after a reset when it carried ATT
    /// traffic and keys of a bond were never used: Android encrypts a bonded LE link as it comes
    /// up (joelarula: accept-list request 4.45 s after the HCI Reset, frame 207, a link never
    /// encrypted with GATT discovery on it, closed by the host 2.2 s later, then the same request
    /// again at 324; whoisbe: links 0x0041/0x0042 from requests 1.1 and 1.8 s after the reset,
    /// an hour of unencrypted ATT with devices the app connects again later). A link that ended
    /// before any ATT (dandwhelan's 0x0041, failed to be established in 124 ms) could not tell.
    mutating func settleAttribution() {
        let unbonded =
            !usedStoredKeys
            && (attribution.signal == .requestAcceptList || (attribution.signal == .requestAcceptListAfterReset && attTotals.pdus > 0))
        if unbonded {
            attribution = ActorEvidence(.requestAcceptListUnbonded, frame: attribution.frame)
        }
    }
    /// The ATT PDUs of the connection the analysis holds, in order: every one, unless the
    /// analysis was told to follow them instead (`AnalysisBuilder.attFollower`), when an open
    /// connection drops its list once the open connections hold more than
    /// `AnalysisBuilder.heldATTBudget` of them (the counts below stay exact).
    package var att: [ATTEvent] {
        _read { yield lists.value.att }
        _modify { yield &lists.value.att }
    }
    /// Counts of every ATT PDU of the connection, held or not.
    package private(set) var attTotals: ATTTotals {
        _read { yield lists.value.attTotals }
        _modify { yield &lists.value.attTotals }
    }
    /// False once the analysis stopped holding this connection's ATT PDUs in `att`.
    var holdsATT = true
    /// The remote device's GATT server on this connection, as the local client discovered it:
    /// its database (the decoder's type, learning what the decoder's GATT tracker reported it
    /// learned, by the tracker's own `learn(_:)`) and the discovery requests.
    package var gatt: GATTServerView {
        _read { yield lists.value.gatt }
        _modify { yield &lists.value.gatt }
    }
    /// The same for the local device's own GATT server, as the remote client discovered it (a
    /// phone serving the accessory on the same connection: its handles are its own).
    package var localGATT: GATTServerView {
        _read { yield lists.value.localGATT }
        _modify { yield &lists.value.localGATT }
    }
    /// CCCD writes (Write Request / Write Command to a Client Characteristic Configuration):
    /// the first `BoundedPrefix.capacity`, the last and how many; `clientConfiguration` folds
    /// every one of them.
    package private(set) var cccdWrites: BoundedPrefix<CCCDWrite> {
        _read { yield lists.value.cccdWrites }
        _modify { yield &lists.value.cccdWrites }
    }
    package private(set) var clientConfiguration: ClientConfigurationState {
        _read { yield lists.value.clientConfiguration }
        _modify { yield &lists.value.clientConfiguration }
    }
    package var firstATT: FrameTime?
    /// Last response the local GATT client received to a discovery procedure (the peer's
    /// discovery of the local server is not counted; nor anything sent when the capture does not
    /// tell directions apart, where every response counts).
    package var discoveryEnd: FrameTime?
    /// First Read Response or notification/indication carrying a value that the local host
    /// received (the local server's own, a Service Changed indication among them, is not data).
    package var firstData: FrameTime?
    /// The local host sent at least one ATT request or command.
    package var localIsGATTClient = false
    package var remoteIsGATTClient = false
    /// The frame that opened it for the analysis: its connection complete, or the first frame
    /// on its handle when the setup was not captured (connections are in this order).
    package var firstSeen: FrameNumber = 0
    /// Whose connection it is, as the frames tell (docs/ATTRIBUTION.md): the request's, the
    /// remote central's, or not known when the setup was not captured.
    package var attribution = ActorEvidence(.setupNotCaptured)

    package init(id: ConnectionID, role: Role) {
        self.id = id
        self.role = role
    }

    /// The connection's lists (ATT PDUs and their counts, both GATT databases, MTU exchanges,
    /// encryption changes, CCCD writes), behind one reference: a copy of the connection retains
    /// that one reference, not the fifteen the lists hold (`CopyOnWrite`).
    private var lists = CopyOnWrite(Lists())

    struct Lists: Sendable {
        var mtuExchanges = BoundedPrefix<FrameTime>()
        var encryptionChanges = BoundedPrefix<EncryptionChange>()
        var att: [ATTEvent] = []
        var attTotals = ATTTotals()
        var gatt = GATTServerView()
        var localGATT = GATTServerView()
        var cccdWrites = BoundedPrefix<CCCDWrite>()
        var clientConfiguration = ClientConfigurationState()
    }

    /// ATT PDUs of the connection (held or not).
    package var attCount: Int { attTotals.pdus }

    /// ATT PDUs per opcode (held or not).
    package var attByOpcode: [UInt8: Int] { Dictionary(uniqueKeysWithValues: attTotals.opcodeCounts.map { ($0.opcode, Int($0.count)) }) }

    /// Σ (value length + 7) over the ATT PDUs (held or not): the radio-time model's data bytes.
    package var attAirBytes: Int64 { attTotals.airBytes }

    /// Counts `e` and holds it in `att` while the connection holds its PDUs.
    mutating func record(_ e: ATTEvent) {
        attTotals.add(e)
        if holdsATT { att.append(e) }
    }

    /// Records an Encryption Change or Encryption Key Refresh Complete.
    mutating func record(_ change: EncryptionChange) {
        encryptionChanges.append(change)
        encryption.add(change)
    }

    /// Records a CCCD write (`disconnectCommand` set: the write came after the host asked to
    /// disconnect).
    mutating func record(_ write: CCCDWrite) {
        cccdWrites.append(write)
        clientConfiguration.add(write, afterDisconnectCommand: disconnectCommand != nil)
    }

    /// Stops holding the ATT PDUs in `att` (their counts go on).
    mutating func stopHoldingATT() {
        holdsATT = false
        att = []
    }

    /// Drops the ATT detail of a closed connection the rules have judged: its ATT PDUs (their
    /// counts stay in `attTotals`), CCCD writes and GATT attributes (their counts stay:
    /// `GATTServerView.counts`).
    package mutating func dropJudgedDetail() {
        att = []
        cccdWrites = BoundedPrefix()
        clientConfiguration = ClientConfigurationState()
        gatt.dropAttributes()
        localGATT.dropAttributes()
    }

    /// Services and characteristics discovered on the connection, both servers' (the remote
    /// device's, and the local one's when the peer discovered it).
    package var gattCounts: (services: Int, characteristics: Int) {
        (gatt.counts.services + localGATT.counts.services, gatt.counts.characteristics + localGATT.counts.characteristics)
    }

    /// The database of one GATT server of the connection (`GATTServerSide(opcode:direction:)`
    /// says which one a PDU is about).
    package func database(_ server: GATTServerSide) -> GATTServerView { server == .local ? localGATT : gatt }
}

/// How a link ended, as its last event says (Core v5.4 Vol 1 Part F for the reasons).
package enum LinkEnd: Sendable, Hashable {
    /// Still up at the last frame.
    case stillUp
    /// The link was lost: Connection Timeout (0x08, the supervision timeout expired).
    case linkLost(reason: UInt8, at: FrameTime)
    /// The link never became a working connection: Connection Failed to be Established (0x3E).
    case failedToEstablish(at: FrameTime)
    /// The local host asked for the disconnect (HCI Disconnect, or reason 0x16).
    case localDisconnect(reason: UInt8, at: FrameTime)
    /// The remote device ended it (0x13–0x15 and the other remote reasons).
    case remoteDisconnect(reason: UInt8, at: FrameTime)
    /// Ended with its controller (HCI Reset, Close or Delete Index) without a Disconnection Complete.
    case controllerLost(ControllerLoss, at: FrameTime)

    /// Reasons that say the link was lost rather than closed.
    package static func isLinkLoss(_ reason: UInt8) -> Bool { reason == 0x08 }

    /// Whether one side chose to end the link (the disconnects `conn.idle-before-disconnect`
    /// judges): a Disconnect, or the local host resetting or closing its controller with the link
    /// up; not a lost link, nor a controller that went away.
    package var isChosen: Bool {
        switch self {
        case .localDisconnect, .remoteDisconnect: return true
        case .controllerLost(let loss, _): return loss != .removed
        default: return false
        }
    }

    /// The frame it ended at (nil: still up).
    package var at: FrameTime? {
        switch self {
        case .stillUp: return nil
        case .linkLost(_, let at), .failedToEstablish(let at), .localDisconnect(_, let at), .remoteDisconnect(_, let at),
            .controllerLost(_, let at):
            return at
        }
    }

    /// "link lost", "failed to be established", "local disconnect", "remote disconnect", …
    package var label: String {
        switch self {
        case .stillUp: return "still up"
        case .linkLost: return "link lost"
        case .failedToEstablish: return "failed to be established"
        case .localDisconnect: return "local disconnect"
        case .remoteDisconnect: return "remote disconnect"
        case .controllerLost(let loss, _): return loss.label
        }
    }
}

extension Connection {
    /// How the link ended.
    package var end: LinkEnd {
        guard let d = disconnect else { return .stillUp }
        if let loss = lostWithController { return .controllerLost(loss, at: d) }
        let reason = disconnectReason ?? 0
        if reason == 0x3E { return .failedToEstablish(at: d) }
        if LinkEnd.isLinkLoss(reason) { return .linkLost(reason: reason, at: d) }
        // The host's Disconnect decides it (the controller then reports 0x16, some echo the
        // reason the host gave); without one, the peer ended it.
        if reason == 0x16 || disconnectCommand != nil { return .localDisconnect(reason: reason, at: d) }
        return .remoteDisconnect(reason: reason, at: d)
    }
}

/// The counts of a connection's ATT PDUs, kept as they come (whether or not the PDUs are held).
package struct ATTTotals: Sendable, Hashable {
    package var pdus = 0
    /// ATT PDUs per opcode, in opcode order: a short array, not a dictionary (a connection is
    /// kept for the rest of the analysis, and a small dictionary costs several hundred bytes).
    package private(set) var opcodeCounts: [OpcodeCount] = []
    package struct OpcodeCount: Sendable, Hashable {
        package var opcode: UInt8
        package var count: UInt32
    }
    /// Σ (value length + 7) over the ATT PDUs: the data bytes of the radio-time model.
    package var airBytes: Int64 = 0

    /// Where the last PDU's opcode was counted (PDUs come in runs of one opcode).
    private var last = 0

    mutating func add(_ e: ATTEvent) {
        pdus += 1
        airBytes += Int64(e.valueLength) + 7
        if last < opcodeCounts.count, opcodeCounts[last].opcode == e.opcode {
            opcodeCounts[last].count &+= 1
            return
        }
        // A connection uses a dozen opcodes or so: a plain scan, inserting in order.
        var i = 0
        while i < opcodeCounts.count, opcodeCounts[i].opcode < e.opcode { i += 1 }
        if i < opcodeCounts.count, opcodeCounts[i].opcode == e.opcode {
            opcodeCounts[i].count &+= 1
        } else {
            opcodeCounts.insert(OpcodeCount(opcode: e.opcode, count: 1), at: i)
        }
        last = i
    }
}

/// How many values came, and the latest: a list whose items only count, and whose last one is
/// the one in force.
package struct CountedLatest<Element: Sendable>: Sendable {
    package private(set) var count = 0
    package private(set) var last: Element?

    package init() {}

    package var isEmpty: Bool { count == 0 }

    package mutating func append(_ element: Element) {
        count += 1
        last = element
    }
}

/// The first `capacity` values in order, the last, and how many came: a list whose first items
/// are listed (as evidence, or compared with a scenario's truth) and whose later ones only
/// count. 64 is above every corpus capture and scenario (a connection there has at most a few
/// MTU exchanges, encryption changes, CCCD writes or discovery requests of one kind); beyond it
/// a connection that repeats them for days holds no more.
package struct BoundedPrefix<Element: Sendable>: Sendable {
    package static var capacity: Int { 64 }
    /// The first `capacity` values, in order.
    package private(set) var kept: [Element] = []
    package private(set) var count = 0
    package private(set) var last: Element?

    package init() {}

    package var isEmpty: Bool { count == 0 }
    package var first: Element? { kept.first }
    /// Every value is in `kept`.
    package var isComplete: Bool { kept.count == count }

    package mutating func append(_ element: Element) {
        count += 1
        last = element
        if kept.count < Self.capacity { kept.append(element) }
    }
}

/// What a connection's encryption changes add up to, folded over every one of them.
package struct EncryptionState: Sendable, Hashable {
    /// The link is encrypted after the latest Encryption Change (a key refresh does not change it).
    package private(set) var isEncrypted = false
    /// The latest change that left the link encrypted: status 0x00 with encryption on, or a
    /// successful key refresh.
    package private(set) var lastSuccess: FrameTime?
    /// Changes with status 0x00.
    package private(set) var succeeded = 0

    package init() {}

    mutating func add(_ change: EncryptionChange) {
        if change.status == 0 { succeeded += 1 }
        if change.leavesEncrypted { lastSuccess = change.at }
        if !change.isKeyRefresh { isEncrypted = change.status == 0 && (change.enabled ?? 0) != 0 }
    }
}

/// What a connection's CCCD writes add up to, folded over every one of them: bounded by the
/// CCCD handles and characteristics the connection has, not by the writes.
package struct ClientConfigurationState: Sendable {
    /// The latest write the local host sent to each CCCD before it sent Disconnect, in CCCD
    /// handle order, and whether it ever enabled that CCCD then.
    package private(set) var hostWrites: [HostWrite] = []
    /// The characteristics (by value handle) whose notifications or indications a write enabled,
    /// in handle order.
    package private(set) var enabledCharacteristics: [UInt16] = []

    package struct HostWrite: Sendable, Hashable {
        package var latest: CCCDWrite
        package var everEnabled: Bool
    }

    package init() {}

    mutating func add(_ w: CCCDWrite, afterDisconnectCommand: Bool) {
        let enables = w.value & 0x0003 != 0
        if enables, let h = w.characteristicValueHandle {
            let i = enabledCharacteristics.partitionPoint { $0 >= h }
            if i == enabledCharacteristics.count || enabledCharacteristics[i] != h { enabledCharacteristics.insert(h, at: i) }
        }
        guard w.direction == .sent, !afterDisconnectCommand else { return }
        let i = hostWrites.partitionPoint { $0.latest.handle >= w.handle }
        if i < hostWrites.count, hostWrites[i].latest.handle == w.handle {
            hostWrites[i].latest = w
            if enables { hostWrites[i].everEnabled = true }
        } else {
            hostWrites.insert(HostWrite(latest: w, everEnabled: enables), at: i)
        }
    }

    /// A write enabled notifications or indications of the characteristic with value handle `h`.
    package func everEnabled(characteristic h: UInt16) -> Bool {
        let i = enabledCharacteristics.partitionPoint { $0 >= h }
        return i < enabledCharacteristics.count && enabledCharacteristics[i] == h
    }
}

/// A received signal strength the capture holds for a link: a Read RSSI answer on it, or the
/// last advertising report heard from its peer before it came up.
package struct RSSIReading: Sendable, Hashable {
    /// dBm (Read RSSI on a BR/EDR link: relative to the controller's golden receive range).
    package var dBm: Int
    package var at: FrameTime
    package init(dBm: Int, at: FrameTime) {
        self.dBm = dBm
        self.at = at
    }
}

/// The Read RSSI answers of a link: how many, the latest and the weakest.
package struct RSSIReadings: Sendable, Hashable {
    package private(set) var count = 0
    package private(set) var last: RSSIReading?
    package private(set) var weakest: RSSIReading?
    package init() {}

    package mutating func add(_ r: RSSIReading) {
        count += 1
        last = r
        if weakest.map({ r.dBm < $0.dBm }) ?? true { weakest = r }
    }
}

package struct ParameterUpdate: Sendable, Hashable {
    package var at: FrameTime
    package var intervalMicros: Int64
    package var peripheralLatency: Int
    package var supervisionTimeoutMicros: Int64
    package init(at: FrameTime, intervalMicros: Int64, peripheralLatency: Int, supervisionTimeoutMicros: Int64) {
        self.at = at
        self.intervalMicros = intervalMicros
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeoutMicros = supervisionTimeoutMicros
    }
}

package struct PHYUpdate: Sendable, Hashable {
    package var at: FrameTime
    package var tx: UInt8
    package var rx: UInt8
    package init(at: FrameTime, tx: UInt8, rx: UInt8) {
        self.at = at
        self.tx = tx
        self.rx = rx
    }
}

package struct DataLengthChange: Sendable, Hashable {
    package var at: FrameTime
    package var maxTXOctets: Int
    package var maxRXOctets: Int
    package init(at: FrameTime, maxTXOctets: Int, maxRXOctets: Int) {
        self.at = at
        self.maxTXOctets = maxTXOctets
        self.maxRXOctets = maxRXOctets
    }
}

package struct EncryptionChange: Sendable, Hashable {
    package var at: FrameTime
    package var status: UInt8
    /// Encryption_Enabled (0 off); nil for Encryption Key Refresh Complete.
    package var enabled: UInt8?
    package var isKeyRefresh: Bool
    package init(at: FrameTime, status: UInt8, enabled: UInt8?, isKeyRefresh: Bool) {
        self.at = at
        self.status = status
        self.enabled = enabled
        self.isKeyRefresh = isKeyRefresh
    }
    /// Status 0x00 with encryption on, or a successful key refresh.
    package var leavesEncrypted: Bool { status == 0 && (isKeyRefresh || (enabled ?? 0) != 0) }
}

/// What `conn.reconnect-by-scan` judges of one connection that ended: the next connection
/// request(s) to the same peer (its identity when an IRK known by then resolves its address) on
/// the same adapter, and whether a scan started in between. Recorded by the analysis as the
/// capture goes (`AnalysisResult.reconnections`), so that neither every request nor every scan
/// start has to be kept; only connections followed by such a request get one.
package struct Reconnection: Sendable, Hashable {
    package var connection: ConnectionID
    /// `Connection.firstSeen` of the connection that ended: verdicts list reconnections in
    /// connection order.
    package var connectionFirstSeen: FrameNumber
    package var peer: BDAddr
    /// The Disconnection Complete.
    package var ended: FrameTime
    /// The first scan session without a system signature started on the adapter after `ended`
    /// and before the first request.
    package var scanStart: FrameTime?
    /// The first one with a system signature (docs/ATTRIBUTION.md), before `scanStart`, and
    /// that signature: on a platform where it names the system, it is not the app's search.
    package var systemScanStart: FrameTime?
    package var systemScanEvidence: ActorEvidence?
    /// Where that first request's peer was last found, when in a session started after `ended`.
    package var found: FrameTime?
    /// The requests from the first one after `ended` up to the one that connected (all of them
    /// when none did).
    package var requests: [Request]

    package struct Request: Sendable, Hashable {
        package var request: FrameTime
        package var complete: FrameTime?
        package var status: UInt8?
        package var cancel: FrameTime?
        package var attribution: ActorEvidence
        /// The request named the peer (not the Filter Accept List).
        package var direct: Bool
        package init(_ a: ConnectionAttempt) {
            request = a.request
            complete = a.complete
            status = a.status
            cancel = a.cancel
            attribution = a.attribution
            direct = a.peer != nil
        }
    }

    package init(
        connection: ConnectionID, connectionFirstSeen: FrameNumber, peer: BDAddr, ended: FrameTime, scanStart: FrameTime?,
        systemScanStart: FrameTime? = nil, systemScanEvidence: ActorEvidence? = nil, found: FrameTime?, requests: [Request]
    ) {
        self.connection = connection
        self.connectionFirstSeen = connectionFirstSeen
        self.peer = peer
        self.ended = ended
        self.scanStart = scanStart
        self.systemScanStart = systemScanStart
        self.systemScanEvidence = systemScanEvidence
        self.found = found
        self.requests = requests
    }
}
