import ScopeCore

/// Advertising the local host set up (RULES.md "Advertising").
public struct AdvertisingActivity: Sendable {
    public var dataCommands: [AdvertisingDataCommand] = []
    public var spans: [AdvertisingSpan] = []
    /// LE Read Supported States result (64-bit mask) and its frame.
    public var supportedStates: UInt64?
    public var supportedStatesFrame: FrameNumber?
    /// LE Read Maximum Advertising Data Length result.
    public var maxAdvertisingDataLength: Int?
    public var maxAdvertisingDataLengthFrame: FrameNumber?

    public init() {}
}

public struct AdvertisingDataCommand: Sendable, Hashable {
    public enum DataKind: String, Sendable, Hashable { case advertising = "adv", scanResponse = "scan_rsp" }
    public var at: FrameTime
    public var complete: FrameTime?
    /// "LE Set Advertising Data", "LE Set Extended Scan Response Data"…
    public var command: String
    /// nil for legacy commands, else the advertising handle.
    public var advertisingHandle: UInt8?
    public var kind: DataKind
    /// The set uses legacy PDUs (legacy commands, or the legacy-PDU property of the set).
    public var legacyPDUs: Bool
    /// Extended: Operation field.
    public var operation: UInt8?
    /// Declared data length.
    public var length: Int
    /// Bytes present in this command.
    public var fragmentLength: Int
    public var data: [UInt8]
    public var status: UInt8?
    /// Extended (non-legacy) data: the set's data assembled so far from its fragments (Operation
    /// 1 first, 0 intermediate, 2 last, 3 complete), recorded by the analysis; nil for legacy data.
    public var assembledLength: Int?
    /// Whose data it is, as its content and timing tell (docs/ATTRIBUTION.md).
    public var attribution = ActorEvidence.localRequest

    public init(
        at: FrameTime, complete: FrameTime?, command: String, advertisingHandle: UInt8?, kind: DataKind, legacyPDUs: Bool,
        operation: UInt8?, length: Int, fragmentLength: Int, data: [UInt8], status: UInt8?
    ) {
        self.at = at
        self.complete = complete
        self.command = command
        self.advertisingHandle = advertisingHandle
        self.kind = kind
        self.legacyPDUs = legacyPDUs
        self.operation = operation
        self.length = length
        self.fragmentLength = fragmentLength
        self.data = data
        self.status = status
    }
}

/// A period during which one advertising set (or legacy advertising) was enabled.
public struct AdvertisingSpan: Sendable, Hashable {
    public var advertisingHandle: UInt8?
    public var api: HCIAPI
    public var connectable: Bool
    public var directed: Bool?
    public var intervalMicros: Int64?
    public var start: FrameTime
    public var stop: FrameTime?
    /// "command", "connection (controller stops legacy advertising)", "end of capture", …
    public var stoppedBy: String
    public var enabledMicros: Int64
    public var connectedWhileEnabledMicros: Int64
    /// What the analysis records of the span as it goes: the first connection (in capture order) that was up when the span started.
    public var connectionAtStart: SpanConnection?
    /// The first connection in the peripheral role completed while the span was enabled (after
    /// its start, up to its stop).
    public var firstArrival: FrameTime?
    /// Length of the last advertising data its set had been given (successfully, or not yet
    /// answered) at its start.
    public var dataLength: Int?
    /// Company identifiers of the manufacturer-specific data in that advertising data (0x004C:
    /// Apple — on iOS only the system advertises manufacturer data; Core Bluetooth apps cannot).
    public var manufacturers: [UInt16] = []
    /// Whose advertising it is, as the frames tell (docs/ATTRIBUTION.md).
    public var attribution = ActorEvidence.localRequest

    /// A connection up when advertising started, as far as the advertising is concerned.
    public struct SpanConnection: Sendable, Hashable {
        public var role: Connection.Role
        public var complete: FrameTime
        /// Its disconnection, when it came while the span was enabled.
        public var disconnect: FrameTime?
        public init(role: Connection.Role, complete: FrameTime, disconnect: FrameTime?) {
            self.role = role
            self.complete = complete
            self.disconnect = disconnect
        }
    }

    public init(
        advertisingHandle: UInt8?, api: HCIAPI, connectable: Bool, directed: Bool?, intervalMicros: Int64?, start: FrameTime,
        stop: FrameTime?, stoppedBy: String, enabledMicros: Int64, connectedWhileEnabledMicros: Int64
    ) {
        self.advertisingHandle = advertisingHandle
        self.api = api
        self.connectable = connectable
        self.directed = directed
        self.intervalMicros = intervalMicros
        self.start = start
        self.stop = stop
        self.stoppedBy = stoppedBy
        self.enabledMicros = enabledMicros
        self.connectedWhileEnabledMicros = connectedWhileEnabledMicros
    }
}
