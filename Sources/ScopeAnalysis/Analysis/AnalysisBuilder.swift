import ScopeCapture
import ScopeCore
import ScopeDecode

/// Builds the timeline and metrics of one capture from its decoded frames (STYLE B4:
/// decoded frames → analysis). Single owner, fed in order:
///
/// ```swift
/// var builder = AnalysisBuilder(file: path, format: .btsnoopH4)
/// while let record = reader.next() { builder.consume(dissector.decode(record)) }
/// let result = builder.finish()
/// ```
///
/// Definitions follow RULES.md ("Metrics" and "Metric boundaries").
/// The builder routes each decoded frame to the trackers that own the state it changes
/// (`ScanTracker`, `ConnectionTracker`, `AdvertisingTracker`, `PairingTracker`,
/// `ReconnectionTracker`), and carries what one tracker learns to another (a connection request
/// records where its peer was found; a connection that comes up or goes down is what advertising
/// spans and reconnections wait for). The capture's own facts (frames, health, platform,
/// markers) are `CaptureTracker`'s.
package struct AnalysisBuilder: Sendable {
    struct PendingCommand: Sendable {
        var at: FrameTime
        var command: HCICommand
    }

    /// The commands sent and not yet answered, for what the analysis reads of them when they
    /// are. Which answer (or later command) settles which is the Dissector's to say
    /// (`DecodedFrame.commandMatch`, by the command's frame): it keeps one per adapter and opcode,
    /// so these are few, and searched from the end.
    var sentCommands: [PendingCommand] = []

    /// The command of `match` (sent at its frame), taken out of `sentCommands`.
    private mutating func takeCommand(_ match: CommandMatch?) -> PendingCommand? {
        guard let match, let i = sentCommands.lastIndex(where: { $0.at.frame == match.commandFrame }) else { return nil }
        return sentCommands.remove(at: i)
    }

    /// The capture's own facts: frames, health, markers, platform.
    var capture: CaptureTracker
    /// What the trackers handed over, summed (the rest of `AnalysisResult` is made in `finish()`).
    var handedOver = HandedOverItems()
    var lastFrame: FrameTime? { capture.lastFrame }

    var scans = ScanTracker()
    var links = ConnectionTracker()
    var advertising = AdvertisingTracker()
    var pairing = PairingTracker()
    var reconnections = ReconnectionTracker()
    /// Who started what (docs/ATTRIBUTION.md).
    var actors = ActorTracker()
    /// The last connection request, connection or disconnection on each adapter.
    var lastConnectionEvent: [AdapterIndex: Timestamp] = [:]

    /// When closed connections and scan sessions are handed over (`handOverSettled()`).
    package var handOverPolicy = HandOverPolicy() {
        didSet { scans.scheduleDeviceLook(kept: handOverPolicy.kept, every: handOverPolicy.devices, cap: handOverPolicy.heldDevices) }
    }
    /// Connection requests, connections, pairings and advertising records created when settled
    /// ones were last looked for (`hasItemsToHandOver`).
    var itemsAtCheck = 0

    /// Follows every connection's ATT PDUs as they are applied (the rules' per-connection
    /// state): with one, open connections need not hold every PDU (`heldATTBudget`).
    package var attFollower: (any ATTFollower)? {
        get { links.follower }
        set { links.follower = newValue }
    }
    /// nil: every connection holds every ATT PDU until it is handed over (what rules judging a
    /// finished result fold). A number: once the open connections hold more ATT PDUs than this,
    /// they drop their lists (`Connection.att`) and hold no more; their counts stay exact.
    /// `capture --live` and a followed analysis set it, so that a connection open for a day
    /// holds flat memory.
    package var heldATTBudget: Int? {
        get { links.heldATTBudget }
        set { links.heldATTBudget = newValue }
    }
    /// Resolve resolvable private addresses with the IRKs the capture distributes (on by default).
    package var resolvePrivateAddressesEnabled: Bool {
        get { pairing.resolvePrivateAddresses }
        set { pairing.resolvePrivateAddresses = newValue }
    }

    /// `format`: the file's; nil for records that come from no file (`capture --live`, named
    /// "live" in the report).
    package init(file: String, format: CaptureFormat?) {
        capture = CaptureTracker(file: file, format: format)
        scans.scheduleDeviceLook(kept: handOverPolicy.kept, every: handOverPolicy.devices, cap: handOverPolicy.heldDevices)
    }

    /// Records where the capture came from (containers, merged files); a btsnooz summary is
    /// named in the health notes, since its packets are cut short.
    package mutating func noteOrigin(_ origin: CaptureOrigin) {
        capture.noteOrigin(origin)
    }

    /// Records what the capture reader reported (read errors, warnings).
    package mutating func noteReaderDiagnostics(_ diagnostics: [Diagnostic]) {
        capture.noteReaderDiagnostics(diagnostics)
    }

    package mutating func consume(_ frame: consuming DecodedFrame) {
        analyse(&frame)
    }

    /// ``consume(_:)`` of a frame lent where it is kept (``FramePipeline``'s batches): it is
    /// read there and not changed. (Lent as `inout`, the only way to hand over memory that is
    /// not a value's own without copying it: a frame borrowed from a buffer is copied with its
    /// references retained, and one moved out and back in is written twice.)
    mutating func consume(lent frame: inout DecodedFrame) {
        analyse(&frame)
    }

    /// Reads `frame` where it is kept and does not change it. (Taken by value, the whole frame
    /// is copied to the stack first; its parts are read in place, and ACL frames are lent on.)
    @inline(__always)
    private mutating func analyse(_ frame: inout DecodedFrame) {
        let record = frame.record
        let at = FrameTime(frame: record.frame, time: record.timestamp)
        capture.consume(&frame, at: at)
        switch frame.packet {
        case .command(let command):
            // The Dissector matches commands: an earlier one of this opcode, never answered, is
            // replaced by this one.
            if let replaced = takeCommand(frame.commandMatch) { advertising.commandReplaced(replaced.command, sentAt: replaced.at) }
            // (The Dissector matches no opcode 0x0000: such a command is never answered.)
            if command.opcode.rawValue != 0 { sentCommands.append(PendingCommand(at: at, command: command)) }
            commandSent(command, adapter: record.adapter, at: at)
        case .event(let event):
            // Advertising reports (LE Meta events, most of a scan's frames) go straight to the
            // scan tracker.
            if event.hasAdvertisingReports {
                scans.advertisingReports(of: event, adapter: record.adapter, at: at, eventBytes: record.payload.count)
            } else {
                eventReceived(event, adapter: record.adapter, at: at, connection: frame.connection, answers: frame.commandMatch)
            }
        case .acl(let header):
            guard let header else { return }
            acl(&frame, header: header, adapter: record.adapter, at: at)
        case .monitor(let payload):
            switch payload {
            case .userLogging(_, let ident, let message):
                capture.noteMarker(at: at, ident.isEmpty ? message : "\(ident): \(message)", limit: handOverPolicy.markers, textBytes: handOverPolicy.markerBytes)
            case .note(let text):
                capture.noteMarker(at: at, text, limit: handOverPolicy.markers, textBytes: handOverPolicy.markerBytes)
            default:
                if record.kind == .closeIndex {
                    controllerLost(.closed, adapter: record.adapter, at: at)
                } else if record.kind == .deleteIndex {
                    controllerLost(.removed, adapter: record.adapter, at: at)
                }
            }
        case .vendorDebugACL, .none, .sco, .iso:
            break
        }
    }

    package mutating func finish() -> AnalysisResult {
        let end = lastFrame
        let devicesNotHeld = scans.advertisers.notHeld
        scans.finish(end: end, actors: &actors)
        links.finishRequests()
        advertising.finish(end: end, connections: links.connections)
        reconnections.finish()
        var result = AnalysisResult(
            capture: capture.finish(
                markerBytes: handOverPolicy.markerBytes, devicesNotHeld: devicesNotHeld, heldDevices: handOverPolicy.heldDevices,
                handlesWithoutSetup: links.handlesWithoutSetup.sorted()))
        result.markers = capture.markers
        result.handedOver = handedOver
        result.scans = scans.sessions.items
        result.handedOverScans = scans.handedOver
        result.foldedScanDensity = scans.foldedDensity
        (result.devices, result.firstDeviceOfAddress) = scans.advertisers.inOrder()
        result.handedOver.devices = scans.advertisers.left
        result.attempts = links.attempts.items
        result.connections = links.connections.items.map {
            var c = $0
            c.settleAttribution()
            return c
        }
        result.pairings = pairing.pairings.items
        result.handedOver.attempts = links.attempts.left
        result.handedOver.connections = links.connections.left
        result.handedOver.pairings = pairing.pairings.left
        result.handedOver.advertisingData = advertising.dataCommands.left
        result.handedOver.advertisingSpans = advertising.spans.left
        result.identities = pairing.identities
        result.reconnections = reconnections.settled
        if advertising.seen { result.advertising = advertising.activity }
        pairing.resolveAddresses(in: &result)
        return result
    }

    // MARK: Commands

    private mutating func commandSent(_ command: HCICommand, adapter: AdapterIndex, at: FrameTime) {
        // Only these commands count when sent (the others when answered: `commandAnswered`):
        // the typed view is built for them alone (scans and advertising enable and disable
        // often, and each view decodes its parameters).
        if AdvertisingTracker.takesWhenSent(command.opcode) {
            advertising.commandSent(command, adapter: adapter, at: at, actors: actors)
            return
        }
        if ConnectionTracker.takesWhenSent(command.opcode) {
            if let i = links.commandSent(command, adapter: adapter, at: at) { noteRequestChanged(i) }
            return
        }
        switch command.opcode {
        case .leCreateConnection, .leExtendedCreateConnectionV1, .leExtendedCreateConnectionV2:
            break
        case .androidAdvertisingPacketContentFilter:
            actors.controllerFilterCommand(adapter: adapter, at: at.frame)
            return
        default:
            return
        }
        switch command.typed {
        case .leCreateConnection(let c)?:
            lastConnectionEvent[adapter] = at.time
            startAttempt(filterPolicy: c.initiatorFilterPolicy, peerAddressType: c.peerAddressType, peer: c.peer, api: .legacy, adapter: adapter, at: at)
        case .leExtendedCreateConnection(let c)?:
            lastConnectionEvent[adapter] = at.time
            startAttempt(filterPolicy: c.initiatorFilterPolicy, peerAddressType: c.peerAddressType, peer: c.peer, api: .extended, adapter: adapter, at: at)
        default:
            break
        }
    }

    /// An event other than advertising reports. `connection`: the frame's.
    /// `answers`: for a Command Complete or Status, the command it answers (the Dissector's match).
    private mutating func eventReceived(
        _ event: HCIEvent, adapter: AdapterIndex, at: FrameTime, connection: GATTConnectionKey?, answers: CommandMatch?
    ) {
        if event.commandOpcode != nil, event.code == .commandComplete || event.code == .commandStatus {
            if let pending = takeCommand(answers) {
                commandAnswered(pending, event: event, adapter: adapter, at: at)
            }
            return
        }
        switch event.typed {
        case .disconnectionComplete(let d)?:
            lastConnectionEvent[adapter] = at.time
            disconnectionComplete(d, adapter: adapter, at: at, connection: connection)
        case .encryptionChange(let e)?:
            encryption(
                handle: e.handle, adapter: adapter, change: EncryptionChange(at: at, status: e.status, enabled: e.enabled, isKeyRefresh: false),
                connection: connection)
        case .encryptionKeyRefreshComplete(let e)?:
            encryption(
                handle: e.handle, adapter: adapter, change: EncryptionChange(at: at, status: e.status, enabled: nil, isKeyRefresh: true),
                connection: connection)
        case .connectionComplete(let c)?:
            if c.status == 0 { connectionComplete(ConnectionSetup(classic: c), adapter: adapter, at: at, connection: connection) }
        case .leConnectionComplete(let c)?:
            lastConnectionEvent[adapter] = at.time
            connectionComplete(ConnectionSetup(c), adapter: adapter, at: at, connection: connection)
        case .leAdvertisingSetTerminated(let t)?:
            advertising.advertisingSetTerminated(t, adapter: adapter, at: at)
        case let typed?:
            links.linkEvent(typed, adapter: adapter, at: at)
        case nil:
            break
        }
    }

    private mutating func commandAnswered(_ pending: PendingCommand, event: HCIEvent, adapter: AdapterIndex, at: FrameTime) {
        let command = pending.command
        let status = event.status ?? 0xFF
        switch command.opcode {
        case .leSetScanParameters, .leSetExtendedScanParameters, .androidExtendedScanParameters, .leSetScanEnable, .leSetExtendedScanEnable:
            let started = scans.commandAnswered(
                command, sentAt: pending.at, status: status, adapter: adapter, at: at, keptScans: handOverPolicy.keptScans,
                lastConnectionEvent: lastConnectionEvent[adapter], actors: &actors)
            if let started { reconnections.noteScanStarted(pending.at, adapter: adapter, evidence: started) }
            noteScansReattributed()
        case .leCreateConnection, .leExtendedCreateConnectionV1, .leExtendedCreateConnectionV2, .leCreateConnectionCancel, .readRSSI,
            .leAddDeviceToFilterAcceptList, .leRemoveDeviceFromFilterAcceptList, .leClearFilterAcceptList:
            if let i = links.commandAnswered(command, event: event, sentAt: pending.at, status: status, adapter: adapter, at: at) {
                noteRequestChanged(i)
            }
        case .leSetRandomAddress:
            if status == 0 { scans.randomAddressChanged(adapter: adapter, at: pending.at) }
        case .reset:
            // The controller drops its links, scan and advertising without an event for them.
            if status == 0 {
                controllerLost(.reset, adapter: adapter, at: at)
                actors.reset(adapter: adapter, at: at)
                links.acceptListCleared(adapter: adapter)
            }
        default:
            if let accepted = advertising.commandAnswered(command, sentAt: pending.at, event: event, status: status, adapter: adapter, at: at) {
                advertisingEnable(accepted.enable, handles: accepted.handles, adapter: adapter, at: pending.at)
            }
        }
    }
}
