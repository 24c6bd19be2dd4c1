import ScopeCore

public enum Side: String, Sendable, Hashable {
    case local, remote, unknown
}

/// How a controller dropped its links without a Disconnection Complete for them: the host
/// reset it (HCI Reset), or closed it (Close Index: `hciconfig down`, the adapter powered off
/// without disconnecting first) or it went away (Delete Index: unplugged, driver unloaded).
public enum ControllerLoss: String, Sendable, Hashable {
    case reset, closed, removed

    /// "HCI Reset", "controller closed", "controller removed".
    public var label: String {
        switch self {
        case .reset: return "HCI Reset"
        case .closed: return "controller closed"
        case .removed: return "controller removed"
        }
    }
}

/// LE Create Connection / LE Extended Create Connection and what became of it.
public struct ConnectionAttempt: Sendable {
    /// What became of a request.
    public enum Outcome: String, Sendable, Hashable {
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

    public var adapter: AdapterIndex
    public var request: FrameTime
    public var api: HCIAPI
    /// nil when the filter accept list is used.
    public var peer: BDAddr?
    public var peerAddressType: UInt8?
    public var filterPolicy: UInt8
    public var cancel: FrameTime?
    public var complete: FrameTime?
    public var status: UInt8?
    public var outcome: Outcome
    /// Set when the request ended with its controller before an answer (reset, closed or
    /// removed): `complete` is that frame, `status` nil, the outcome failed.
    public var lostWithController: ControllerLoss?
    /// Set when the controller accepted a later request on the adapter while this one had no
    /// answer: it was no longer pending there (a controller refuses a second request while one
    /// is, Vol 4 Part E §7.8.12), and its end was not captured. The frame of that acceptance
    /// (the later request's Command Status); `complete` stays nil, the outcome pending.
    public var supersededAt: FrameTime?
    /// The connection it produced.
    public var connection: ConnectionID?
    /// The identity address when `peer` is a resolvable private address resolved with an IRK.
    public var peerIdentity: BDAddr?
    /// Advertising reports the scan session running on the adapter had counted when the request
    /// was sent, and that session's start frame; nil when no scan was running.
    public var scanReportsAtRequest: Int?
    public var scanStartFrameAtRequest: FrameNumber?
    /// The last scan session on the adapter that reported the peer before the request (its start
    /// frame) and the peer's first report in that session; nil when the peer was not reported
    /// before the request.
    public var peerDiscovery: PeerDiscovery?
    /// The peer of the connection it produced (set by the analysis; a request to the filter
    /// accept list names no peer).
    public var connectionPeer: BDAddr?
    /// Whose request it is, as the frames tell (docs/ATTRIBUTION.md).
    public var attribution = ActorEvidence.localRequest
    /// The requests to the same peer (or, for a request to the Filter Accept List, to the list)
    /// on the adapter that did not connect since the last that did, set when this one connected:
    /// what discovery cost leaves out when it counts from the request that connected.
    public var earlierFailures: FailedAttempts?
    /// Counted among the failures the next connecting request carries (once).
    var countedAsFailed = false
    public init(adapter: AdapterIndex, request: FrameTime, api: HCIAPI, peer: BDAddr?, peerAddressType: UInt8?, filterPolicy: UInt8) {
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
public struct FailedAttempts: Sendable, Hashable {
    public var count = 0
    /// Σ request → its end (cancel, answer, the later request that superseded it).
    public var pendingMicros: Int64 = 0
    public var firstRequest: FrameTime?
    public init() {}

    public mutating func add(_ a: ConnectionAttempt) {
        count += 1
        let end = a.cancel ?? a.complete ?? a.supersededAt
        if let end { pendingMicros = pendingMicros &+ max(0, end.time.microseconds &- a.request.time.microseconds) }
        if firstRequest.map({ a.request.frame < $0.frame }) ?? true { firstRequest = a.request }
    }

    public mutating func add(_ other: FailedAttempts) {
        count += other.count
        pendingMicros = pendingMicros &+ other.pendingMicros
        if let f = other.firstRequest, firstRequest.map({ f.frame < $0.frame }) ?? true { firstRequest = f }
    }
}

/// Where a connection request's peer was found: the scan session and its first report there.
public struct PeerDiscovery: Sendable, Hashable {
    public var scanStartFrame: FrameNumber
    public var firstReport: FrameTime
    /// That session as far as the request is concerned, recorded by the analysis when it notes
    /// the discovery (the session itself may be handed to the rules and dropped before the end
    /// of a long capture); nil when the analysis no longer held the session then.
    public var scan: DiscoveryScan?
    public init(scanStartFrame: FrameNumber, firstReport: FrameTime, scan: DiscoveryScan? = nil) {
        self.scanStartFrame = scanStartFrame
        self.firstReport = firstReport
        self.scan = scan
    }
}

/// The scan session that found a connection request's peer, up to the request: what discovery
/// cost needs of it.
public struct DiscoveryScan: Sendable, Hashable {
    public var start: FrameTime
    /// The request, or the session's stop when it stopped before the request.
    public var until: Timestamp
    public var phys: [ScanPHY]
    /// Advertising reports the session counted before the request; nil when that cannot be told
    /// (the session went on reporting after the request and no count was taken at the request).
    public var reportsUntilRequest: Int?

    public init(start: FrameTime, until: Timestamp, phys: [ScanPHY], reportsUntilRequest: Int?) {
        self.start = start
        self.until = until
        self.phys = phys
        self.reportsUntilRequest = reportsUntilRequest
    }

    /// `session` as it stands (or stood) for `attempt`'s request. Exact whenever it is taken at
    /// or after the request: a session still running then cannot have stopped before it, and its
    /// count at the request is on the attempt. (Taken at the end of a capture whose last
    /// timestamp went back before the request, a running session's end would cut `until` short;
    /// taken on the way, it cannot.)
    public init(_ session: ScanSession, for attempt: ConnectionAttempt) {
        let request = attempt.request.time
        start = session.start
        // A session without a stop is still running: it ran at least until the request.
        until = session.stop.map { min(request, $0.time) } ?? request
        phys = session.phys
        if session.reports > 0, let n = attempt.scanReportsAtRequest, attempt.scanStartFrameAtRequest == session.start.frame {
            reportsUntilRequest = n
        } else if let last = session.lastReport, last.time <= request {
            reportsUntilRequest = session.reports
        } else {
            reportsUntilRequest = nil
        }
    }

    /// Session start → `request` (the headline's discovery cost).
    public func scanToRequestMicros(_ request: Timestamp) -> Int64 { request.microseconds &- start.time.microseconds }

    /// Estimated radio-on time of the session up to the request (`ScanPHY.radioOnMicros`).
    public var radioOnMicros: Int64 {
        ScanPHY.radioOnMicros(durationMicros: max(0, until.microseconds &- start.time.microseconds), phys: phys)
    }
}

/// (adapter, handle, generation): a handle reused after a disconnect is a new connection.
public struct ConnectionID: Sendable, Hashable, CustomStringConvertible {
    public var adapter: AdapterIndex
    public var handle: UInt16
    public var generation: Int
    public init(adapter: AdapterIndex, handle: UInt16, generation: Int) {
        self.adapter = adapter
        self.handle = handle
        self.generation = generation
    }
    public var description: String { "hci\(adapter) handle \(Hex.prefixed(handle, digits: 4))" + (generation > 1 ? " #\(generation)" : "") }

    // Looked up once per ATT PDU (`ATTFollower`): one word, hashed with `fastHash`.
    private var word: UInt64 { UInt64(adapter) << 48 | UInt64(handle) << 32 | UInt64(UInt32(truncatingIfNeeded: generation)) }
    public func hash(into hasher: inout Hasher) { hasher.combine(word) }
    public func _rawHashValue(seed: Int) -> Int { fastHash(word, seed: seed) }
}

public struct Connection: Sendable {
    public enum Role: String, Sendable, Hashable { case central, peripheral, unknown }

    public var id: ConnectionID
    public var role: Role
    /// LE or BR/EDR: from the connection complete event, or, for a link set up before the
    /// capture began, from what crossed it (LE-only channels and events; BR/EDR signalling).
    public enum Transport: String, Sendable, Hashable { case le, bredr, unknown }
    public var transport = Transport.unknown
    /// An LE link: the LE rules judge only these (a link whose transport the capture does not
    /// show is judged by none).
    public var isLE: Bool { transport == .le }
    /// The first evidence of the transport decides it (a connection complete sets it at once).
    public mutating func learnTransport(_ t: Transport) {
        if transport == .unknown { transport = t }
    }
    public var peer: BDAddr?
    public var peerAddressType: UInt8?
    /// The identity address when `peer` is a resolvable private address resolved with an IRK.
    public var peerIdentity: BDAddr?
    /// The connection request that led to it (central side), when captured.
    public var request: FrameTime?
    /// That request named no peer (Filter Accept List): its time to the connection complete is
    /// time waiting for a listed device to come back, not setup.
    public var requestUsedAcceptList = false
    /// The connection complete event; nil when the setup was not captured.
    public var complete: FrameTime?
    public var setupObserved: Bool { complete != nil }
    public var intervalMicros: Int64?
    public var peripheralLatency: Int?
    public var supervisionTimeoutMicros: Int64?
    /// Connection parameter, PHY and data length updates: how many and the latest, which is
    /// all the reports and the radio model read (a connection that stays open for days does
    /// not pile them up).
    public var parameterUpdates = CountedLatest<ParameterUpdate>()
    public var phyUpdates = CountedLatest<PHYUpdate>()
    public var dataLengthChanges = CountedLatest<DataLengthChange>()
    /// Effective ATT_MTU (23 until an exchange).
    public var mtu = 23
    /// MTU Exchange requests and responses: the first `BoundedPrefix.capacity`, the last and
    /// how many (a link that exchanges again and again does not pile them up).
    public var mtuExchanges = BoundedPrefix<FrameTime>()
    /// Encryption Change and Encryption Key Refresh Complete events: the first
    /// `BoundedPrefix.capacity`, the last and how many; `encryption` folds every one of them.
    public private(set) var encryptionChanges = BoundedPrefix<EncryptionChange>()
    public private(set) var encryption = EncryptionState()
    public var disconnectCommand: FrameTime?
    /// The reason the local host gave in its Disconnect (0x15: the device is powering off —
    /// Bluetooth being turned off, not a decision about the link).
    public var disconnectCommandReason: UInt8?
    public var disconnect: FrameTime?
    public var disconnectReason: UInt8?
    public var disconnectInitiator: Side = .unknown
    /// Set when the link ended with its controller (`disconnect` is then that frame, and there
    /// is no reason): the controller was reset, closed or removed with the link up.
    public var lostWithController: ControllerLoss?
    /// Last ACL frame with payload (either direction, SMP included).
    public var lastPayload: FrameTime?
    /// Last ACL frame with payload the local host sent, and the last it received.
    public var lastSent: FrameTime?
    public var lastReceived: FrameTime?
    /// Who asked for the connection parameters in force (interval, latency, supervision
    /// timeout), and the LE Connection Update Complete that applied them (nil: the parameters of
    /// the connection complete). `.local`: the host's LE Connection Update; `.remote`: the
    /// peer's L2CAP Connection Parameter Update Request or LE Remote Connection Parameter
    /// Request; `.unknown`: the controller's own update, or the request not captured.
    public var parametersSetBy: Side?
    public var parametersSetAt: FrameTime?
    /// Who asked for the next parameter update (the analysis's, until the update completes).
    var pendingParameterRequest: Side?
    /// An SMP Pairing Request was seen on the link.
    public var pairedOnLink = false

    /// Encrypted with keys of an earlier bond: a successful encryption and no pairing on the link.
    public var encryptedWithStoredKeys: Bool { encryption.lastSuccess != nil && !pairedOnLink }

    /// The attribution once the link has ended (or the capture): a connection from an accept-list
    /// request to a device it is not bonded with is no background reconnection of a known device.
    mutating func settleAttribution() {
        if attribution.signal == .requestAcceptList, !encryptedWithStoredKeys {
            attribution = ActorEvidence(.requestAcceptListUnbonded, frame: attribution.frame)
        }
    }
    /// The ATT PDUs of the connection the analysis holds, in order: every one, unless the
    /// analysis was told to follow them instead (`AnalysisBuilder.attFollower`), when an open
    /// connection drops its list once the open connections hold more than
    /// `AnalysisBuilder.heldATTBudget` of them (the counts below stay exact).
    public var att: [ATTEvent] = []
    /// Counts of every ATT PDU of the connection, held or not.
    public private(set) var attTotals = ATTTotals()
    /// False once the analysis stopped holding this connection's ATT PDUs in `att`.
    var holdsATT = true
    /// What the decoder's GATT tracker discovered on this connection (the changes its annotations
    /// report, applied in order; nothing is decoded here).
    public var gatt = GATTDatabase()
    /// CCCD writes (Write Request / Write Command to a Client Characteristic Configuration):
    /// the first `BoundedPrefix.capacity`, the last and how many; `clientConfiguration` folds
    /// every one of them.
    public private(set) var cccdWrites = BoundedPrefix<CCCDWrite>()
    public private(set) var clientConfiguration = ClientConfigurationState()
    public var firstATT: FrameTime?
    /// Last response of a discovery procedure.
    public var discoveryEnd: FrameTime?
    /// First Read Response or notification/indication carrying a value.
    public var firstData: FrameTime?
    /// The local host sent at least one ATT request or command.
    public var localIsGATTClient = false
    public var remoteIsGATTClient = false
    /// The frame that opened it for the analysis: its connection complete, or the first frame
    /// on its handle when the setup was not captured (connections are in this order).
    public var firstSeen: FrameNumber = 0
    /// Whose connection it is, as the frames tell (docs/ATTRIBUTION.md): the request's, the
    /// remote central's, or not known when the setup was not captured.
    public var attribution = ActorEvidence(.setupNotCaptured)

    public init(id: ConnectionID, role: Role) {
        self.id = id
        self.role = role
    }

    /// ATT PDUs of the connection (held or not).
    public var attCount: Int { attTotals.pdus }

    /// ATT PDUs per opcode (held or not).
    public var attByOpcode: [UInt8: Int] { Dictionary(uniqueKeysWithValues: attTotals.opcodeCounts.map { ($0.opcode, Int($0.count)) }) }

    /// Σ (value length + 7) over the ATT PDUs (held or not): the radio-time model's data bytes.
    public var attAirBytes: Int64 { attTotals.airBytes }

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
    /// `GATTDatabase.counts`).
    public mutating func dropJudgedDetail() {
        att = []
        cccdWrites = BoundedPrefix()
        clientConfiguration = ClientConfigurationState()
        gatt.dropAttributes()
    }
}

/// How a link ended, as its last event says (Core v5.4 Vol 1 Part F for the reasons).
public enum LinkEnd: Sendable, Hashable {
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
    public static func isLinkLoss(_ reason: UInt8) -> Bool { reason == 0x08 }

    /// Whether one side chose to end the link (the disconnects `conn.idle-before-disconnect`
    /// judges): a Disconnect, or the local host resetting or closing its controller with the link
    /// up; not a lost link, nor a controller that went away.
    public var isChosen: Bool {
        switch self {
        case .localDisconnect, .remoteDisconnect: return true
        case .controllerLost(let loss, _): return loss != .removed
        default: return false
        }
    }

    /// The frame it ended at (nil: still up).
    public var at: FrameTime? {
        switch self {
        case .stillUp: return nil
        case .linkLost(_, let at), .failedToEstablish(let at), .localDisconnect(_, let at), .remoteDisconnect(_, let at),
            .controllerLost(_, let at):
            return at
        }
    }

    /// "link lost", "failed to be established", "local disconnect", "remote disconnect", …
    public var label: String {
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
    public var end: LinkEnd {
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
public struct ATTTotals: Sendable, Hashable {
    public var pdus = 0
    /// ATT PDUs per opcode, in opcode order: a short array, not a dictionary (a connection is
    /// kept for the rest of the analysis, and a small dictionary costs several hundred bytes).
    public private(set) var opcodeCounts: [OpcodeCount] = []
    public struct OpcodeCount: Sendable, Hashable {
        public var opcode: UInt8
        public var count: UInt32
    }
    /// Σ (value length + 7) over the ATT PDUs: the data bytes of the radio-time model.
    public var airBytes: Int64 = 0

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
public struct CountedLatest<Element: Sendable>: Sendable {
    public private(set) var count = 0
    public private(set) var last: Element?

    public init() {}

    public var isEmpty: Bool { count == 0 }

    public mutating func append(_ element: Element) {
        count += 1
        last = element
    }
}

/// The first `capacity` values in order, the last, and how many came: a list whose first items
/// are listed (as evidence, or compared with a scenario's truth) and whose later ones only
/// count. 64 is above every corpus capture and scenario (a connection there has at most a few
/// MTU exchanges, encryption changes, CCCD writes or discovery requests of one kind); beyond it
/// a connection that repeats them for days holds no more.
public struct BoundedPrefix<Element: Sendable>: Sendable {
    public static var capacity: Int { 64 }
    /// The first `capacity` values, in order.
    public private(set) var kept: [Element] = []
    public private(set) var count = 0
    public private(set) var last: Element?

    public init() {}

    public var isEmpty: Bool { count == 0 }
    public var first: Element? { kept.first }
    /// Every value is in `kept`.
    public var isComplete: Bool { kept.count == count }

    public mutating func append(_ element: Element) {
        count += 1
        last = element
        if kept.count < Self.capacity { kept.append(element) }
    }
}

/// What a connection's encryption changes add up to, folded over every one of them.
public struct EncryptionState: Sendable, Hashable {
    /// The link is encrypted after the latest Encryption Change (a key refresh does not change it).
    public private(set) var isEncrypted = false
    /// The latest change that left the link encrypted: status 0x00 with encryption on, or a
    /// successful key refresh.
    public private(set) var lastSuccess: FrameTime?
    /// Changes with status 0x00.
    public private(set) var succeeded = 0

    public init() {}

    mutating func add(_ change: EncryptionChange) {
        if change.status == 0 { succeeded += 1 }
        if change.leavesEncrypted { lastSuccess = change.at }
        if !change.isKeyRefresh { isEncrypted = change.status == 0 && (change.enabled ?? 0) != 0 }
    }
}

/// What a connection's CCCD writes add up to, folded over every one of them: bounded by the
/// CCCD handles and characteristics the connection has, not by the writes.
public struct ClientConfigurationState: Sendable {
    /// The latest write the local host sent to each CCCD before it sent Disconnect, in CCCD
    /// handle order, and whether it ever enabled that CCCD then.
    public private(set) var hostWrites: [HostWrite] = []
    /// The characteristics (by value handle) whose notifications or indications a write enabled,
    /// in handle order.
    public private(set) var enabledCharacteristics: [UInt16] = []

    public struct HostWrite: Sendable, Hashable {
        public var latest: CCCDWrite
        public var everEnabled: Bool
    }

    public init() {}

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
    public func everEnabled(characteristic h: UInt16) -> Bool {
        let i = enabledCharacteristics.partitionPoint { $0 >= h }
        return i < enabledCharacteristics.count && enabledCharacteristics[i] == h
    }
}

public struct ParameterUpdate: Sendable, Hashable {
    public var at: FrameTime
    public var intervalMicros: Int64
    public var peripheralLatency: Int
    public var supervisionTimeoutMicros: Int64
    public init(at: FrameTime, intervalMicros: Int64, peripheralLatency: Int, supervisionTimeoutMicros: Int64) {
        self.at = at
        self.intervalMicros = intervalMicros
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeoutMicros = supervisionTimeoutMicros
    }
}

public struct PHYUpdate: Sendable, Hashable {
    public var at: FrameTime
    public var tx: UInt8
    public var rx: UInt8
    public init(at: FrameTime, tx: UInt8, rx: UInt8) {
        self.at = at
        self.tx = tx
        self.rx = rx
    }
}

public struct DataLengthChange: Sendable, Hashable {
    public var at: FrameTime
    public var maxTXOctets: Int
    public var maxRXOctets: Int
    public init(at: FrameTime, maxTXOctets: Int, maxRXOctets: Int) {
        self.at = at
        self.maxTXOctets = maxTXOctets
        self.maxRXOctets = maxRXOctets
    }
}

public struct EncryptionChange: Sendable, Hashable {
    public var at: FrameTime
    public var status: UInt8
    /// Encryption_Enabled (0 off); nil for Encryption Key Refresh Complete.
    public var enabled: UInt8?
    public var isKeyRefresh: Bool
    public init(at: FrameTime, status: UInt8, enabled: UInt8?, isKeyRefresh: Bool) {
        self.at = at
        self.status = status
        self.enabled = enabled
        self.isKeyRefresh = isKeyRefresh
    }
    /// Status 0x00 with encryption on, or a successful key refresh.
    public var leavesEncrypted: Bool { status == 0 && (isKeyRefresh || (enabled ?? 0) != 0) }
}

/// What `conn.reconnect-by-scan` judges of one connection that ended: the next connection
/// request(s) to the same peer (its identity when an IRK known by then resolves its address) on
/// the same adapter, and whether a scan started in between. Recorded by the analysis as the
/// capture goes (`AnalysisResult.reconnections`), so that neither every request nor every scan
/// start has to be kept; only connections followed by such a request get one.
public struct Reconnection: Sendable, Hashable {
    public var connection: ConnectionID
    /// `Connection.firstSeen` of the connection that ended: verdicts list reconnections in
    /// connection order.
    public var connectionFirstSeen: FrameNumber
    public var peer: BDAddr
    /// The Disconnection Complete.
    public var ended: FrameTime
    /// The first scan session without a system signature started on the adapter after `ended`
    /// and before the first request.
    public var scanStart: FrameTime?
    /// The first one with a system signature (docs/ATTRIBUTION.md), before `scanStart`, and
    /// that signature: on a platform where it names the system, it is not the app's search.
    public var systemScanStart: FrameTime?
    public var systemScanEvidence: ActorEvidence?
    /// Where that first request's peer was last found, when in a session started after `ended`.
    public var found: FrameTime?
    /// The requests from the first one after `ended` up to the one that connected (all of them
    /// when none did).
    public var requests: [Request]

    public struct Request: Sendable, Hashable {
        public var request: FrameTime
        public var complete: FrameTime?
        public var status: UInt8?
        public var cancel: FrameTime?
        public var attribution: ActorEvidence
        /// The request named the peer (not the Filter Accept List).
        public var direct: Bool
        public init(_ a: ConnectionAttempt) {
            request = a.request
            complete = a.complete
            status = a.status
            cancel = a.cancel
            attribution = a.attribution
            direct = a.peer != nil
        }
    }

    public init(
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
