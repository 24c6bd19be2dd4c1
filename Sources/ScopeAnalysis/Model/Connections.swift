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
    public enum Outcome: String, Sendable, Hashable {
        case connected, cancelled, failed, pending
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
    /// LE link (false: a BR/EDR ACL link from the classic Connection Complete).
    public var isLE = true
    public var peer: BDAddr?
    public var peerAddressType: UInt8?
    /// The identity address when `peer` is a resolvable private address resolved with an IRK.
    public var peerIdentity: BDAddr?
    /// The connection request that led to it (central side), when captured.
    public var request: FrameTime?
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
    public var disconnect: FrameTime?
    public var disconnectReason: UInt8?
    public var disconnectInitiator: Side = .unknown
    /// Set when the link ended with its controller (`disconnect` is then that frame, and there
    /// is no reason): the controller was reset, closed or removed with the link up.
    public var lostWithController: ControllerLoss?
    /// Last ACL frame with payload (either direction, SMP included).
    public var lastPayload: FrameTime?
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
    /// The first scan session started on the adapter after `ended` and before the first request.
    public var scanStart: FrameTime?
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
        public init(_ a: ConnectionAttempt) {
            request = a.request
            complete = a.complete
            status = a.status
            cancel = a.cancel
        }
    }

    public init(connection: ConnectionID, connectionFirstSeen: FrameNumber, peer: BDAddr, ended: FrameTime, scanStart: FrameTime?, found: FrameTime?, requests: [Request]) {
        self.connection = connection
        self.connectionFirstSeen = connectionFirstSeen
        self.peer = peer
        self.ended = ended
        self.scanStart = scanStart
        self.found = found
        self.requests = requests
    }
}
