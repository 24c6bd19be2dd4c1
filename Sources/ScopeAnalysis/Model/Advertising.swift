import ScopeCore

/// Advertising the local host set up (RULES.md "Advertising").
package struct AdvertisingActivity: Sendable {
    package var dataCommands: [AdvertisingDataCommand] = []
    package var spans: [AdvertisingSpan] = []
    /// LE Read Supported States result (64-bit mask) and its frame.
    package var supportedStates: UInt64?
    package var supportedStatesFrame: FrameNumber?
    /// LE Read Maximum Advertising Data Length result.
    package var maxAdvertisingDataLength: Int?
    package var maxAdvertisingDataLengthFrame: FrameNumber?

    package init() {}
}

package struct AdvertisingDataCommand: Sendable, Hashable {
    package enum DataKind: String, Sendable, Hashable { case advertising = "adv", scanResponse = "scan_rsp" }
    package var at: FrameTime
    package var complete: FrameTime?
    /// "LE Set Advertising Data", "LE Set Extended Scan Response Data"…
    package var command: String
    /// nil for legacy commands, else the advertising handle.
    package var advertisingHandle: UInt8?
    package var kind: DataKind
    /// The set uses legacy PDUs (legacy commands, or the legacy-PDU property of the set).
    package var legacyPDUs: Bool
    /// Extended: Operation field.
    package var operation: UInt8?
    /// Declared data length.
    package var length: Int
    /// Bytes present in this command.
    package var fragmentLength: Int
    package var data: [UInt8]
    package var status: UInt8?
    /// Extended (non-legacy) data: the set's data assembled so far from its fragments (Operation
    /// 1 first, 0 intermediate, 2 last, 3 complete), recorded by the analysis; nil for legacy data.
    package var assembledLength: Int?
    /// Whose data it is, as its content and timing tell (docs/ATTRIBUTION.md).
    package var attribution = ActorEvidence.localRequest

    package init(
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
package struct AdvertisingSpan: Sendable, Hashable {
    package var advertisingHandle: UInt8?
    package var api: HCIAPI
    package var connectable: Bool
    package var directed: Bool?
    package var intervalMicros: Int64?
    package var start: FrameTime
    package var stop: FrameTime?
    /// "command", "connection (controller stops legacy advertising)", "end of capture", …
    package var stoppedBy: String
    package var enabledMicros: Int64
    package var connectedWhileEnabledMicros: Int64
    /// What the analysis records of the span as it goes: the first connection (in capture order) that was up when the span started.
    package var connectionAtStart: SpanConnection?
    /// The first connection in the peripheral role completed while the span was enabled (after
    /// its start, up to its stop).
    package var firstArrival: FrameTime?
    /// Length of the last advertising data its set had been given (successfully, or not yet
    /// answered) at its start.
    package var dataLength: Int?
    /// Company identifiers of the manufacturer-specific data in that advertising data (0x004C:
    /// Apple — on iOS only the system advertises manufacturer data; Core Bluetooth apps cannot).
    package var manufacturers: [UInt16] = []
    /// Whose advertising it is, as the frames tell (docs/ATTRIBUTION.md).
    package var attribution = ActorEvidence.localRequest

    /// A connection up when advertising started, as far as the advertising is concerned.
    package struct SpanConnection: Sendable, Hashable {
        package var role: Connection.Role
        package var complete: FrameTime
        /// Its disconnection, when it came while the span was enabled.
        package var disconnect: FrameTime?
        package init(role: Connection.Role, complete: FrameTime, disconnect: FrameTime?) {
            self.role = role
            self.complete = complete
            self.disconnect = disconnect
        }
    }

    package init(
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
