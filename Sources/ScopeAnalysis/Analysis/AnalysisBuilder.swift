import ScopeCore
import ScopeDecode

/// Builds the timeline and metrics of one capture from its decoded frames (STYLE B4:
/// decoded frames → analysis). Single owner, fed in order:
///
/// ```swift
/// var builder = AnalysisBuilder(file: path, format: "btsnoop-1002")
/// while let record = reader.next() { builder.consume(dissector.decode(record)) }
/// let result = builder.finish()
/// ```
///
/// Definitions follow RULES.md ("Metrics" and "Metric boundaries").
public struct AnalysisBuilder: Sendable {
    // The keys looked up per frame hash one word with `fastHash` rather than SipHash (see there).

    struct HandleKey: Hashable, Sendable {
        var adapter: AdapterIndex
        var handle: UInt16

        func hash(into hasher: inout Hasher) { hasher.combine(UInt32(adapter) << 16 | UInt32(handle)) }
        func _rawHashValue(seed: Int) -> Int { fastHash(UInt64(adapter) << 16 | UInt64(handle), seed: seed) }
    }

    struct CommandKey: Hashable, Sendable {
        var adapter: AdapterIndex
        var opcode: UInt16

        func hash(into hasher: inout Hasher) { hasher.combine(UInt32(adapter) << 16 | UInt32(opcode)) }
        func _rawHashValue(seed: Int) -> Int { fastHash(UInt64(adapter) << 16 | UInt64(opcode), seed: seed) }
    }

    struct PendingCommand: Sendable {
        var at: FrameTime
        var command: HCICommand
    }

    var result: AnalysisResult
    var lastFrame: FrameTime?

    // Commands waiting for their Command Complete / Status.
    var pendingCommands: [CommandKey: PendingCommand] = [:]

    // Scanning.
    var scanParameters: [AdapterIndex: [ScanPHY]] = [:]
    /// The running session on each adapter (its id, `ScanSession.heldID`: the start frame).
    var activeScan: [AdapterIndex: HeldRef<FrameNumber>] = [:]
    /// The running sessions' tracking (one per adapter in `activeScan`, a short list: no hashing).
    var scanState: [ScanTracking] = []
    /// Advertiser → index in `result.devices`.
    var deviceIndex = DeviceTable()
    /// The devices' distinct payloads (owner: the device's index in `result.devices`).
    var devicePayloads = PayloadTable()
    /// Per advertiser and adapter: the last scan session that reported it and its first report
    /// there (per-device state; connection requests record it as `peerDiscovery`).
    var lastDiscovery: [AdapterAddress: Discovery] = [:]
    /// Retired sessions some `lastDiscovery` still points at, by start frame (at most one per
    /// advertiser; the others are dropped at each retirement).
    var retiredDiscoveryScans: [FrameNumber: ScanSession] = [:]
    /// Extended report fragments waiting for their last part.
    var fragments: [FragmentKey: [UInt8]] = [:]

    // Connections.
    /// The request waiting for its answer on each adapter (its ordinal).
    var pendingAttempt: [AdapterIndex: Int] = [:]
    /// The open connection on each handle (its ordinal; its identity, with the generation, is
    /// the dissector's: `DecodedFrame.connection`).
    var openConnections: [HandleKey: HeldRef<Int>] = [:]
    var handlesWithoutSetup: Set<UInt16> = []

    /// Closed connections still holding their ATT detail (ordinals), and their ATT PDUs.
    var closedWithDetail: [Int] = []
    var closedDetailEvents = 0
    /// Follows every connection's ATT PDUs as they are applied (the rules' per-connection
    /// state): with one, open connections need not hold every PDU (`heldATTBudget`).
    public var attFollower: (any ATTFollower)?
    /// nil: every connection holds every ATT PDU until it is retired (what rules judging a
    /// finished result fold). A number: once the open connections hold more ATT PDUs than this,
    /// they drop their lists (`Connection.att`) and hold no more; their counts stay exact.
    /// `capture --live` and a followed analysis set it, so that a connection open for a day
    /// holds flat memory.
    public var heldATTBudget: Int?
    /// ATT PDUs held by the open connections.
    var openHeldATT = 0
    /// Closed sessions that may be retired (every session after the first
    /// `retirement.keptScans`), by start frame.
    var closedScans: [FrameNumber] = []
    /// When closed connections and scan sessions are handed over (`retireClosed()`).
    public var retirement = Retirement()
    /// Items created since settled ones were last looked for (`hasRetirableItems`).
    var itemsSinceCheck = 0
    /// Ordinals of the connection requests kept for the headline's discovery-cost list: the
    /// first `retirement.kept` that connected to a known peer (sorted).
    var discoveryKept: [Int] = []

    // Facts recorded on the way (AnalysisBuilder+Items).
    var reconnect: [PeerOnAdapter: ReconnectPeer] = [:]
    /// Requests in some `reconnect` entry's list, by ordinal.
    var requestsWatched: [Int: PeerOnAdapter] = [:]
    /// Per adapter: peers with a waiting connection that no scan followed yet.
    var unscannedPeers: [AdapterIndex: Set<PeerOnAdapter>] = [:]
    var identityCache: [BDAddr: BDAddr?] = [:]
    /// Spans (ordinals) still waiting for a peripheral-role connection.
    var spansAwaitingArrival: [Int] = []
    /// The last connections that went down (for spans whose enable was answered after).
    var recentCloses: [AdvertisingSpan.SpanConnection] = []
    /// Extended advertising data assembled so far, per set and kind.
    var assembling: [DataKey: Int] = [:]
    /// The last advertising data commands per set.
    var advertisingData: [UInt8?: [RecentData]] = [:]

    // Pairing.
    /// Per connection, the ordinal of its pairing still in progress.
    var openPairing: [ConnectionID: Int] = [:]
    /// IRKs waiting for their Identity Address Information, per connection and direction.
    var pendingIRK: [IdentityKey: ([UInt8], FrameTime)] = [:]
    /// Resolve resolvable private addresses with the IRKs the capture distributes (on by default).
    public var resolvePrivateAddressesEnabled = true
    var pendingSecurityRequest: [ConnectionID: FrameTime] = [:]

    // Advertising.
    var advertising = AdvertisingActivity()
    var legacyAdvertisingParameters: [AdapterIndex: AdvertisingSetup] = [:]
    var extendedAdvertisingParameters: [SetKey: AdvertisingSetup] = [:]
    /// The enabled span of each set (its ordinal).
    var openSpans: [SetKey: Int] = [:]
    var advertisingSeen = false

    // Which stack recorded the capture.
    var platformDetector: PlatformDetector
    /// What the detector said after the first `platformWindow` records (`CaptureInfo.platformAtStart`).
    var platformAtStart: HostPlatform?

    // Health.
    var previousTimestamp: [AdapterIndex: Timestamp] = [:]
    /// The last record's adapter and timestamp (not yet in `previousTimestamp`).
    var healthAdapter: AdapterIndex?
    var healthTimestamp = Timestamp(microseconds: 0)

    struct AdapterAddress: Hashable, Sendable {
        var adapter: AdapterIndex
        var address: BDAddr

        func hash(into hasher: inout Hasher) { hasher.combine(address.value | UInt64(adapter) << 48) }
        func _rawHashValue(seed: Int) -> Int { fastHash(address.value | UInt64(adapter) << 48, seed: seed) }
    }

    struct Discovery: Sendable {
        /// The session's start frame (its id, `ScanSession.heldID`).
        var scanStart: FrameNumber
        var firstReport: FrameTime
    }

    struct FragmentKey: Hashable, Sendable {
        var adapter: AdapterIndex
        var address: BDAddr
        var type: UInt8
        var sid: UInt8?
    }

    struct SetKey: Hashable, Sendable {
        var adapter: AdapterIndex
        /// nil: legacy advertising.
        var handle: UInt8?
    }

    /// Advertising data as a set/dictionary key: its length and a 64-bit fingerprint, not the
    /// bytes (duplicate and distinct-payload sets stay small on long captures). Two payloads of
    /// equal length collide with probability about 2^-64.
    struct Payload: Hashable, Sendable {
        var fingerprint: UInt64
        var count: Int
        init(fingerprint: UInt64, count: Int) {
            self.fingerprint = fingerprint
            self.count = count
        }
        @inline(__always)
        init(bytes: UnsafeRawBufferPointer) {
            count = bytes.count
            fingerprint = Self.fingerprint(bytes)
        }

        /// Eight bytes at a time (one multiply–xorshift round per word, little-endian loads; the
        /// last 1–7 bytes zero-padded into a word), then a final mix: a fifth of the instructions
        /// of FNV-1a's byte-by-byte multiply on 31-byte advertising data, computed once per report.
        @inline(__always)
        static func fingerprint(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            guard let base = bytes.baseAddress else { return h }
            let n = bytes.count
            var i = 0
            while i + 8 <= n {
                h = mix(h ^ UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                i += 8
            }
            if i < n, n >= 8 {
                // The last 1–7 bytes as the top of the data's last eight, shifted down: the same
                // zero-padded word as the byte loop below, in one load.
                let last = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
                h = mix(h ^ (last >> UInt64(8 * (8 - (n - i)))))
            } else if i < n {
                var tail: UInt64 = 0
                var shift: UInt64 = 0
                while i < n {
                    tail |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << shift
                    shift += 8
                    i += 1
                }
                h = mix(h ^ tail)
            }
            return mix(h ^ UInt64(n))
        }

        @inline(__always)
        private static func mix(_ x: UInt64) -> UInt64 {
            var x = x &* 0x9E37_79B9_7F4A_7C15
            x ^= x >> 29
            x = x &* 0xBF58_476D_1CE4_E5B9
            return x ^ (x >> 32)
        }

        func hash(into hasher: inout Hasher) { hasher.combine(fingerprint &+ UInt64(count)) }
        func _rawHashValue(seed: Int) -> Int { fastHash(fingerprint &+ UInt64(count), seed: seed) }
    }

    struct ScanTracking: Sendable {
        var adapter: AdapterIndex
        /// The session in `result.scans`: its start frame, and its position when last found
        /// (`session` finds it).
        var session: HeldRef<FrameNumber>
        /// Its distinct reports, to tell duplicates (owner: device index << 16 | event type).
        var seen = PayloadTable()
        /// Devices that reported in the session, and which (bit i: `result.devices[i]`).
        var devices = 0
        var deviceBits: [UInt64] = []

        /// Marks device `index` as seen in the session; true the first time.
        @inline(__always)
        mutating func noteDevice(_ index: Int) -> Bool {
            let word = index >> 6
            let bit = UInt64(1) << UInt64(index & 63)
            if word >= deviceBits.count { deviceBits += repeatElement(0, count: word - deviceBits.count + 1) }
            if deviceBits[word] & bit != 0 { return false }
            deviceBits[word] |= bit
            devices += 1
            return true
        }
        /// Set when the stop command was sent and succeeded: reports count until its Command Complete.
        var closed = false
    }

    public init(file: String, format: String) {
        result = AnalysisResult(capture: CaptureInfo(file: file, format: format))
        platformDetector = PlatformDetector(format: format)
        if format.hasPrefix("pklg") {
            result.capture.health.notes.append(.localClock)
        }
    }

    /// Records where the capture came from (containers, merged files); a btsnooz summary is
    /// named in the health notes, since its packets are cut short.
    public mutating func noteOrigin(_ origin: CaptureOrigin) {
        result.capture.origin = origin
        platformDetector.noteOrigin(origin)
        if origin.summaryOnly {
            result.capture.health.notes.append(.btsnoozSummary)
        }
    }

    public mutating func consume(_ frame: DecodedFrame) {
        let record = frame.record
        let at = FrameTime(frame: record.frame, time: record.timestamp)
        noteHealth(frame, at: at)
        platformDetector.consume(frame)
        if platformAtStart == nil, result.capture.frames >= Self.platformWindow { platformAtStart = platformDetector.platform }
        lastFrame = at
        switch frame.packet {
        case .command(let command):
            pendingCommands[CommandKey(adapter: record.adapter, opcode: command.opcode.rawValue)] = PendingCommand(
                at: at, command: command)
            commandSent(command, adapter: record.adapter, at: at)
        case .event(let event):
            eventReceived(event, adapter: record.adapter, at: at, frame: frame)
        case .acl(let header):
            guard let header else { return }
            acl(frame, header: header, adapter: record.adapter, at: at)
        case .monitor(let payload):
            switch payload {
            case .userLogging(_, let ident, let message):
                result.markers.append(Marker(at: at, text: ident.isEmpty ? message : "\(ident): \(message)"))
            case .note(let text):
                result.markers.append(Marker(at: at, text: text))
            default: break
            }
        case .vendorDebugACL, .none, .sco, .iso:
            break
        }
    }

    public mutating func finish() -> AnalysisResult {
        let end = lastFrame
        finishScans(end: end)
        finishAttempts()
        finishAdvertising(end: end)
        finishReconnections()
        result.capture.health.handlesWithoutSetup = handlesWithoutSetup.sorted()
        if result.capture.health.truncatedACL > 0 {
            result.capture.health.notes.append(.truncatedACL(count: result.capture.health.truncatedACL))
        }
        if !handlesWithoutSetup.isEmpty {
            result.capture.health.notes.append(.setupNotCaptured(handles: handlesWithoutSetup.sorted()))
        }
        if advertisingSeen { result.advertising = advertising }
        result.capture.platform = platformDetector.platform
        result.capture.platformAtStart = platformAtStart ?? platformDetector.platform
        resolvePrivateAddresses()
        return result
    }

    // MARK: Health

    // Updates `result.capture` in place (a copy of CaptureInfo per frame would copy its arrays
    // and strings).
    private mutating func noteHealth(_ frame: DecodedFrame, at: FrameTime) {
        let record = frame.record
        let timestamp = record.timestamp
        result.capture.frames += 1
        if result.capture.firstTimestamp == nil { result.capture.firstTimestamp = timestamp }
        result.capture.lastTimestamp = timestamp
        // (`record.isTruncated`, inlined: a call into ScopeCore per frame.)
        let truncated = record.payload.count < record.originalLength
        if truncated {
            result.capture.health.truncatedRecords += 1
            if record.kind == .acl { result.capture.health.truncatedACL += 1 }
        }
        if record.drops > result.capture.health.drops { result.capture.health.drops = record.drops }
        // A record cut short by its writer (filtered and btsnooz logs) is counted as truncated,
        // not also as malformed: what is missing from its PDUs is the cut, not a fault.
        if !truncated, !frame.malformed.isEmpty || Self.anyMalformedPDU(frame.pdus) { result.capture.health.malformedFrames += 1 }
        switch record.kind {
        case .unknownH4, .unknownMonitor, .unknownPacketLogger: result.capture.health.unknownRecords += 1
        default: break
        }
        // The previous timestamp of this adapter: the last record's when it is the same adapter.
        let previous: Timestamp?
        if healthAdapter == record.adapter {
            previous = healthTimestamp
        } else {
            if let adapter = healthAdapter { previousTimestamp[adapter] = healthTimestamp }
            previous = previousTimestamp[record.adapter]
            healthAdapter = record.adapter
        }
        healthTimestamp = timestamp
        if let previous {
            let delta = timestamp.microseconds.subtractingReportingOverflow(previous.microseconds)
            let day: Int64 = 86_400_000_000
            let skew: Int64 = 378 * day
            if !delta.overflow, delta.partialValue.magnitude >= UInt64(skew - day), delta.partialValue.magnitude <= UInt64(skew + day) {
                result.capture.health.epochSkewSuspected = true
            } else if timestamp < previous {
                result.capture.health.backwardTimestamps += 1
            } else if !delta.overflow, delta.partialValue >= day, result.capture.health.forwardJumps.count < 10 {
                // A gap of a day or more between consecutive records: PacketLogger writes its
                // preamble notes with the time they were created, often days before the session.
                result.capture.health.forwardJumps.append(FrameTime(frame: record.frame, time: timestamp))
                result.capture.health.notes.append(.forwardJump(frame: record.frame, gapMicros: delta.partialValue))
            }
        }
        if !timestamp.isPlausible { result.capture.health.implausibleTimestamps += 1 }
    }

    /// Whether a PDU has malformations, reading the flag in place (`contains(where:)` copies every
    /// PDU, with its arrays and strings, to hand it to the closure).
    @inline(__always)
    private static func anyMalformedPDU(_ pdus: [DecodedPDU]) -> Bool {
        for p in pdus.indices where pdus[p].hasMalformations { return true }
        return false
    }

    /// Records what the capture reader reported (read errors, warnings).
    public mutating func noteReaderDiagnostics(_ diagnostics: [Diagnostic]) {
        for d in diagnostics {
            if d.severity == .error { result.capture.health.readErrors += 1 } else { result.capture.health.readWarnings += 1 }
            if d.code == .epochSkew { result.capture.health.epochSkewSuspected = true }
        }
    }

    // MARK: Commands

    private mutating func commandSent(_ command: HCICommand, adapter: AdapterIndex, at: FrameTime) {
        switch command.typed {
        case .leCreateConnection(let c)?:
            startAttempt(filterPolicy: c.initiatorFilterPolicy, peerAddressType: c.peerAddressType, peer: c.peer, api: .legacy, adapter: adapter, at: at)
        case .leExtendedCreateConnection(let c)?:
            startAttempt(filterPolicy: c.initiatorFilterPolicy, peerAddressType: c.peerAddressType, peer: c.peer, api: .extended, adapter: adapter, at: at)
        case .leCreateConnectionCancel?:
            if let i = pendingAttemptPosition(adapter), result.attempts[i].cancel == nil {
                result.attempts[i].cancel = at
                noteRequestChanged(i)
            }
        case .disconnect(let d)?:
            if let i = openConnection(HandleKey(adapter: adapter, handle: d.handle)), result.connections[i].disconnectCommand == nil {
                result.connections[i].disconnectCommand = at
            }
        case .leSetAdvertisingData(let d)?:
            legacyAdvertisingDataCommand(d, name: command.opcode.name ?? command.opcode.description, at: at)
        case .leSetExtendedAdvertisingData(let d)?:
            extendedAdvertisingDataCommand(d, name: command.opcode.name ?? command.opcode.description, adapter: adapter, at: at)
        default:
            // The other data commands too short for their view still say advertising is in use.
            switch command.opcode {
            case .leSetAdvertisingData, .leSetScanResponseData, .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData:
                advertisingSeen = true
            default:
                break
            }
        }
    }

    private mutating func eventReceived(_ event: HCIEvent, adapter: AdapterIndex, at: FrameTime, frame: DecodedFrame) {
        if let opcode = event.commandOpcode, event.code == .commandComplete || event.code == .commandStatus {
            let key = CommandKey(adapter: adapter, opcode: opcode.rawValue)
            if let pending = pendingCommands.removeValue(forKey: key) {
                commandAnswered(pending, event: event, adapter: adapter, at: at)
            }
            return
        }
        // Built once (each read of `event.advertisingReports` assembles the view anew).
        let reports = event.advertisingReports
        if !reports.isEmpty {
            advertisingReports(reports, adapter: adapter, at: at, eventBytes: frame.record.payload.count)
            return
        }
        switch event.typed {
        case .disconnectionComplete(let d)?:
            disconnectionComplete(d, adapter: adapter, at: at, connection: frame.connection)
        case .encryptionChange(let e)?:
            encryption(
                handle: e.handle, adapter: adapter, change: EncryptionChange(at: at, status: e.status, enabled: e.enabled, isKeyRefresh: false),
                connection: frame.connection)
        case .encryptionKeyRefreshComplete(let e)?:
            encryption(
                handle: e.handle, adapter: adapter, change: EncryptionChange(at: at, status: e.status, enabled: nil, isKeyRefresh: true),
                connection: frame.connection)
        case .connectionComplete(let c)?:
            if c.status == 0 { connectionComplete(ConnectionSetup(classic: c), adapter: adapter, at: at, connection: frame.connection) }
        case .leConnectionComplete(let c)?:
            connectionComplete(ConnectionSetup(c), adapter: adapter, at: at, connection: frame.connection)
        case .leConnectionUpdateComplete(let u)?:
            if u.status == 0, let i = openConnection(HandleKey(adapter: adapter, handle: u.handle)) {
                let update = ParameterUpdate(
                    at: at, intervalMicros: u.intervalMicros, peripheralLatency: Int(u.peripheralLatency),
                    supervisionTimeoutMicros: u.supervisionTimeoutMicros)
                result.connections[i].parameterUpdates.append(update)
                result.connections[i].intervalMicros = update.intervalMicros
                result.connections[i].peripheralLatency = update.peripheralLatency
                result.connections[i].supervisionTimeoutMicros = update.supervisionTimeoutMicros
            }
        case .lePHYUpdateComplete(let u)?:
            if u.status == 0, let i = openConnection(HandleKey(adapter: adapter, handle: u.handle)) {
                result.connections[i].phyUpdates.append(PHYUpdate(at: at, tx: u.txPHY, rx: u.rxPHY))
            }
        case .leDataLengthChange(let d)?:
            if let i = openConnection(HandleKey(adapter: adapter, handle: d.handle)) {
                result.connections[i].dataLengthChanges.append(
                    DataLengthChange(at: at, maxTXOctets: Int(d.maxTXOctets), maxRXOctets: Int(d.maxRXOctets)))
            }
        case .leAdvertisingSetTerminated(let t)?:
            advertisingSetTerminated(t, adapter: adapter, at: at)
        default:
            break
        }
    }

    private mutating func commandAnswered(_ pending: PendingCommand, event: HCIEvent, adapter: AdapterIndex, at: FrameTime) {
        let command = pending.command
        let status = event.status ?? 0xFF
        switch command.opcode {
        case .leSetScanParameters, .leSetExtendedScanParameters:
            guard status == 0 else { break }
            switch command.typed {
            case .leSetScanParameters(let s)?:
                scanParameters[adapter] = [
                    ScanPHY(phy: "1M", active: s.active, intervalMicros: s.intervalMicros, windowMicros: s.windowMicros)
                ]
            case .leSetExtendedScanParameters(let s)?:
                scanParameters[adapter] = s.phys.compactMap { p in
                    Self.scanPHYName(bit: p.bit).map {
                        ScanPHY(phy: $0, active: p.active, intervalMicros: p.intervalMicros, windowMicros: p.windowMicros)
                    }
                }
            default:
                break
            }
        case .leSetScanEnable, .leSetExtendedScanEnable:
            if case .leSetScanEnable(let e)? = command.typed {
                scanEnable(e, api: e.extended ? .extended : .legacy, status: status, command: pending.at, complete: at, adapter: adapter)
            }
        case .leCreateConnection, .leExtendedCreateConnectionV1, .leExtendedCreateConnectionV2:
            // A refused request (Command Status with an error) ends the attempt there.
            if event.code == .commandStatus, status != 0, let i = pendingAttemptPosition(adapter),
                result.attempts[i].request == pending.at
            {
                result.attempts[i].complete = at
                result.attempts[i].status = status
                result.attempts[i].outcome = .failed
                pendingAttempt[adapter] = nil
                noteRequestChanged(i)
            }
        case .leSetAdvertisingParameters:
            advertisingSeen = true
            if status == 0, case .leSetAdvertisingParameters(let a)? = command.typed {
                legacyAdvertisingParameters[adapter] = AdvertisingSetup(
                    intervalMicros: a.intervalMinMicros, connectable: a.connectable, directed: a.directed, legacyPDUs: true)
            }
        case .leSetExtendedAdvertisingParametersV1, .leSetExtendedAdvertisingParametersV2:
            advertisingSeen = true
            if status == 0, case .leSetExtendedAdvertisingParameters(let a)? = command.typed {
                extendedAdvertisingParameters[SetKey(adapter: adapter, handle: a.advertisingHandle)] = AdvertisingSetup(
                    intervalMicros: a.primaryIntervalMinMicros, connectable: a.connectable, directed: a.directed,
                    legacyPDUs: a.legacyPDUs)
            }
        case .leSetAdvertisingData, .leSetScanResponseData, .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData:
            if let i = advertising.dataCommands.lastIndex(where: { $0.at == pending.at }) {
                advertising.dataCommands[i].complete = at
                advertising.dataCommands[i].status = status
                noteDataCommandAnswered(i)
            }
        case .leSetAdvertisingEnable:
            if status == 0, case .leSetAdvertisingEnable(let e)? = command.typed {
                advertisingEnable(e.enable, handles: [nil], adapter: adapter, at: pending.at)
            }
        case .leSetExtendedAdvertisingEnable:
            if status == 0, case .leSetExtendedAdvertisingEnable(let e)? = command.typed {
                if !e.enable && e.sets.isEmpty {
                    let all = openSpans.keys.filter { $0.adapter == adapter && $0.handle != nil }.map(\.handle)
                    advertisingEnable(false, handles: all, adapter: adapter, at: pending.at)
                } else {
                    advertisingEnable(e.enable, handles: e.sets.map { Optional($0.advertisingHandle) }, adapter: adapter, at: pending.at)
                }
            }
        case .leReadSupportedStates:
            if case .leReadSupportedStates(let s)? = event.typed {
                advertising.supportedStates = s.states
                advertising.supportedStatesFrame = at.frame
            }
        case .leReadMaximumAdvertisingDataLength:
            if case .leReadMaximumAdvertisingDataLength(let m)? = event.typed {
                advertising.maxAdvertisingDataLength = m.maxLength
                advertising.maxAdvertisingDataLengthFrame = at.frame
            }
        default:
            break
        }
    }

    /// The scanning PHYs the analysis reports, by their Scanning_PHYs bit (LE 2M cannot scan).
    static func scanPHYName(bit: Int) -> String? {
        switch bit {
        case 0: return "1M"
        case 2: return "Coded"
        default: return nil
        }
    }
}

/// The per-report keys' hash for Set and Dictionary, instead of SipHash over the same word (about a
/// tenth of the instructions): a multiply–xorshift mix (bijective for a given seed, so distinct
/// words never collide in full; the table's per-instance seed still varies bucket placement).
/// `_rawHashValue(seed:)` is the standard library's hook for exactly this; `hash(into:)` stays
/// for every other use.
@inline(__always)
func fastHash(_ word: UInt64, seed: Int) -> Int {
    var x = word ^ UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15
    x = (x ^ (x >> 32)) &* 0xD6E8_FEB8_6659_FD93
    x = (x ^ (x >> 32)) &* 0xD6E8_FEB8_6659_FD93
    return Int(truncatingIfNeeded: x ^ (x >> 32))
}
