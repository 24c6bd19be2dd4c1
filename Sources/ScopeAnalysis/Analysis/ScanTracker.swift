import ScopeCore
import ScopeDecode

/// Scanning: the scan sessions (from a successful LE Set (Extended) Scan Enable to the one that
/// disables it), the advertisers their reports name (`devices`), and where each advertiser was
/// last found on each adapter (what connection requests record as `peerDiscovery`). Fed by the
/// scan commands' answers and the advertising reports; owned by `AnalysisBuilder`. Its state is
/// private or private(set), changed by its methods only; the advertisers are an
/// `AdvertiserTable`, whose own state is private.
struct ScanTracker: Sendable {
    /// The sessions held (the first `HandOverPolicy.keptScans`, the running ones, and closed ones
    /// not yet handed over), by start frame.
    private(set) var sessions = HeldList<ScanSession, FrameNumber>()
    /// The sums of the sessions handed over (`AnalysisResult.handedOverScans`).
    private(set) var handedOver = HandedOverScans()
    /// Report density of the sessions folded in to bound memory (`AnalysisResult.foldedScanDensity`).
    private(set) var foldedDensity: [AdapterIndex: ReportDensity] = [:]
    /// Closed sessions that may be handed over (every session after the first
    /// `HandOverPolicy.keptScans`), by start frame.
    private(set) var closed: [FrameNumber] = []
    private(set) var parameters: [AdapterIndex: [ScanPHY]] = [:]
    /// The starts of the last scans on each adapter without a system signature, most recent
    /// first (`ScanSession.previousStarts`).
    private var recentStarts: [AdapterIndex: [FrameTime]] = [:]
    /// The scan the host last disabled on each adapter, while it may be a pause for an address
    /// change (`ScanSession.resumesAfterAddressChange`): until scan parameters are set or a scan
    /// is enabled.
    private var paused: [AdapterIndex: PausedScan] = [:]

    private struct PausedScan: Sendable {
        var session: FrameNumber
        var stop: Timestamp
        var filterDuplicates: UInt8
        var api: HCIAPI
        var addressChange: FrameNumber?
    }
    /// Sessions found to be the system's once they ended (`ActorTracker.scanEnded`), for the
    /// trackers that took their start for a local request; drained by `AnalysisBuilder`.
    private(set) var reattributed: [(adapter: AdapterIndex, start: FrameTime, evidence: ActorEvidence)] = []
    /// The running session on each adapter (its start frame).
    private(set) var active: [AdapterIndex: HeldRef<FrameNumber>] = [:]
    /// The running sessions' tracking (one per adapter in `active`, a short list: no hashing).
    private var running: [ScanTracking] = []
    /// The most distinct reports a stopped session had: a new session's duplicate table starts
    /// that large (sessions on one scanner hear about as many; short ones between long ones are
    /// common), not growing from 16 slots.
    private var mostDistinctReports = 0
    /// The advertisers the reports name (`AnalysisResult.devices`).
    private(set) var advertisers = AdvertiserTable()
    /// Per advertiser and adapter: the last scan session that reported it and its first report
    /// there (per-device state; connection requests record it as `peerDiscovery`).
    private var lastDiscovery = DiscoveryTable()
    /// The adapters in `lastDiscovery`'s keys.
    private var discoveryAdapters: [AdapterIndex] = []
    /// Sessions handed over that some `lastDiscovery` still points at, by start frame (at most
    /// one per advertiser; the others are dropped at each hand-over).
    private var handedOverDiscoveryScans: [FrameNumber: ScanSession] = [:]
    /// Extended report fragments waiting for their last part.
    private(set) var fragments: [FragmentKey: [UInt8]] = [:]

    struct AdapterAddress: Hashable, Sendable {
        var adapter: AdapterIndex
        var address: BDAddr

        func hash(into hasher: inout Hasher) { hasher.combine(address.value | UInt64(adapter) << 48) }
    }

    struct Discovery: Sendable {
        /// The session's start frame (its id in `ScanTracker.sessions`), or
        /// `Discovery.connected`.
        var scanStart: FrameNumber
        /// The first report there (for `Discovery.connected`: the connection complete).
        var firstReport: FrameTime

        /// `scanStart` of an advertiser connected since it was last found (`noteConnected`).
        static let connected = FrameNumber.max
    }

    struct FragmentKey: Hashable, Sendable {
        var adapter: AdapterIndex
        var address: BDAddr
        var type: UInt8
        var sid: UInt8?
    }

    /// Advertising data as a set/dictionary key: a 64-bit fingerprint of its bytes and length,
    /// not the bytes (duplicate and distinct-payload sets stay small on long captures). Two
    /// payloads collide with probability about 2^-64: the fingerprint's last multiply mixes the
    /// length in, so payloads of different lengths are told apart as surely as payloads of one.
    struct Payload: Hashable, Sendable {
        var fingerprint: UInt64
        init(fingerprint: UInt64) {
            self.fingerprint = fingerprint
        }
        @inline(__always)
        init(bytes: UnsafeRawBufferPointer) {
            fingerprint = Self.fingerprint(bytes)
        }

        /// wyhash's scheme (final version 4, a constant seed): sixteen bytes per 64×64→128-bit
        /// multiply (the product's halves xored), the last sixteen (overlapping; for 4–16 bytes
        /// two overlapping 4-byte pairs) in one more, whose halves a last multiply mixes with the
        /// length: on 31-byte advertising data three multiplies where an eight-byte-word mix
        /// chains ten. Computed once per report.
        @inline(__always)
        static func fingerprint(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
            let n = bytes.count
            guard n > 0, let p = bytes.baseAddress else { return secret0 }
            var seed = secret0
            var a: UInt64
            var b: UInt64
            if n <= 16 {
                if n >= 4 {
                    let step = (n >> 3) << 2
                    a = word4(p, 0) << 32 | word4(p, step)
                    b = word4(p, n - 4) << 32 | word4(p, n - 4 - step)
                } else {
                    a = UInt64(p.load(as: UInt8.self)) << 16 | UInt64(p.load(fromByteOffset: n >> 1, as: UInt8.self)) << 8
                        | UInt64(p.load(fromByteOffset: n - 1, as: UInt8.self))
                    b = 0
                }
            } else {
                var i = 0
                while n - i > 16 {
                    seed = mum(word8(p, i) ^ secret1, word8(p, i + 8) ^ seed)
                    i += 16
                }
                a = word8(p, n - 16)
                b = word8(p, n - 8)
            }
            let (high, low) = (a ^ secret1).multipliedFullWidth(by: b ^ seed)
            return mum(low ^ secret0 ^ UInt64(n), high ^ secret1)
        }

        private static let secret0: UInt64 = 0xa076_1d64_78bd_642f
        private static let secret1: UInt64 = 0xe703_7ed1_a0b4_28db

        @inline(__always)
        private static func mum(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let (high, low) = a.multipliedFullWidth(by: b)
            return high ^ low
        }

        @inline(__always)
        private static func word8(_ p: UnsafeRawPointer, _ offset: Int) -> UInt64 {
            UInt64(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }

        @inline(__always)
        private static func word4(_ p: UnsafeRawPointer, _ offset: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }

        func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }
    }

    struct ScanTracking: Sendable {
        var adapter: AdapterIndex
        /// The session in `sessions`: its start frame, and its position when last found
        /// (`session` finds it).
        var session: HeldRef<FrameNumber>
        /// Its distinct reports, to tell duplicates and name their devices.
        var seen: SessionReportTable
        /// Devices that reported in the session, and which (bit i: `devices[i]`).
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

}

extension ScanTracker {
    /// LE Set (Extended) Scan Enable answered: a successful enable starts a session at the command
    /// frame; a successful disable stops it there, and its reports run up to this Command Complete.
    /// Returns true when a session started.
    mutating func scanEnable(
        _ e: LESetScanEnable, api: HCIAPI, status: UInt8, command: FrameTime, complete: FrameTime,
        adapter: AdapterIndex, keptScans: Int, actors: inout ActorTracker, resumesAroundConnection: Bool = false
    ) -> Bool {
        guard status == 0 else { return false }
        if e.enable {
            guard active[adapter] == nil else { return false }
            let phys = parameters[adapter] ?? []
            var session = ScanSession(
                adapter: adapter, start: command, end: command, stillRunningAtEnd: true, api: api, active: phys.contains { $0.active },
                phys: phys, filterDuplicates: e.filterDuplicates)
            session.startComplete = complete
            session.attribution = actors.scanStarted(phys: phys, adapter: adapter, at: command)
            session.previousStarts = recentStarts[adapter] ?? []
            session.resumesAroundConnection = resumesAroundConnection
            if let p = paused.removeValue(forKey: adapter), let change = p.addressChange, p.api == api,
                p.filterDuplicates == e.filterDuplicates, command.time.microseconds &- p.stop.microseconds <= ScanResumption.maxPauseMicros
            {
                session.resumesAfterAddressChange = ScanResumption(continues: p.session, addressChange: change)
            }
            if !session.attribution.signal.isSystemSignature, !session.isStackResumption {
                var starts = [command] + (recentStarts[adapter] ?? [])
                if starts.count > ScanSession.startsKept { starts.removeLast(starts.count - ScanSession.startsKept) }
                recentStarts[adapter] = starts
            }
            sessions.append(session, id: command.frame)
            let ref = HeldRef(id: command.frame, position: sessions.count - 1)
            active[adapter] = ref
            running.append(
                ScanTracking(adapter: adapter, session: ref, seen: SessionReportTable(expected: mostDistinctReports)))
            return true
        } else if let position = activePosition(adapter) {
            let pause = PausedScan(
                session: sessions[position].start.frame, stop: command.time, filterDuplicates: sessions[position].filterDuplicates,
                api: sessions[position].api)
            stop(adapter: adapter, command: command, complete: complete, keptScans: keptScans, actors: &actors)
            paused[adapter] = pause
        }
        return false
    }

    /// LE Set Random Address succeeded on `adapter`: if a scan is paused there, the stack is
    /// changing its address.
    mutating func randomAddressChanged(adapter: AdapterIndex, at: FrameTime) {
        guard paused[adapter] != nil else { return }
        paused[adapter]?.addressChange = at.frame
    }

    /// The session running on `adapter`, if any, stops at `command` (a successful disable, or
    /// the controller reset, closed or removed); its reports run up to `complete`.
    mutating func stop(adapter: AdapterIndex, command: FrameTime, complete: FrameTime, keptScans: Int, actors: inout ActorTracker) {
        // (A disable records its pause after this; a controller lost pauses nothing.)
        paused[adapter] = nil
        guard var session = active.removeValue(forKey: adapter), let index = sessions.position(of: &session) else { return }
        let start = session.id
        sessions[index].stop = command
        sessions[index].stopComplete = complete
        sessions[index].end = command
        sessions[index].stillRunningAtEnd = false
        let before = sessions[index].attribution.signal
        sessions[index].attribution = actors.scanEnded(sessions[index])
        // Found to be the system's once it ended: not a start the throttle counts.
        if sessions[index].attribution.signal.isSystemSignature, !before.isSystemSignature {
            if recentStarts[adapter]?.first?.frame == sessions[index].start.frame { recentStarts[adapter]?.removeFirst() }
            reattributed.append((adapter, sessions[index].start, sessions[index].attribution))
        }
        if let r = running.firstIndex(where: { $0.session.id == start }) {
            mostDistinctReports = max(mostDistinctReports, running[r].seen.count)
            running.remove(at: r)
        }
        foldDensity(index)
        if index >= keptScans { closed.append(start) }
    }

    /// The position in `sessions` of the session running on `adapter`.
    mutating func activePosition(_ adapter: AdapterIndex) -> Int? {
        active.position(of: adapter, in: sessions)
    }

    /// The advertising reports of `event`.
    mutating func advertisingReports(of event: borrowing HCIEvent, adapter: AdapterIndex, at: FrameTime, eventBytes: Int) {
        // The running session on this adapter (as `active[adapter]`); its position, found
        // once per event, is `running[slot].session.position` for the reports.
        let slot = running.firstIndex { $0.adapter == adapter }
        if let slot, !sessions.holds(running[slot].session) { findRunningScan(slot) }
        var duplicatesInEvent = 0
        var counted = 0
        // Each report's essentials read in place from the event's bytes (no `AdvertisingReport`).
        event.forEachAdvertisingReport { report in
            advertisingReport(report, adapter: adapter, slot: slot, at: at, counted: &counted, duplicates: &duplicatesInEvent)
        }
        if let slot, duplicatesInEvent > 0, counted > 0 {
            // The event's bytes shared equally among the reports it carried (all of them when
            // every report was a duplicate, as for the usual one-report event: no division).
            let share = duplicatesInEvent == counted ? eventBytes : eventBytes * duplicatesInEvent / counted
            sessions[running[slot].session.position].duplicateEventBytes += share
        }
    }

    /// Sessions before the running one left: where it is now.
    private mutating func findRunningScan(_ slot: Int) {
        var session = running[slot].session
        guard let index = sessions.position(of: &session) else { return }
        running[slot].session.position = index
    }

    /// One report; `slot`: the running session's entry in `running`. (Not inlined into the
    /// per-event loop: there its array accesses are no longer inlined and cost more.)
    @inline(never)
    private mutating func advertisingReport(
        _ report: AdvertisingReportEssentials, adapter: AdapterIndex, slot: Int?, at: FrameTime, counted: inout Int,
        duplicates: inout Int
    ) {
        if !report.isLegacyEvent {
            let fragmentKey = FragmentKey(adapter: adapter, address: report.address, type: report.addressType, sid: report.sid)
            // Extended reports: data status bits 5–6 of Event_Type; 1 = incomplete, more to come.
            let status = (report.eventType >> 5) & 0x03
            if status == 1 {
                fragments[fragmentKey, default: []] += report.data
                return
            }
            if !fragments.isEmpty, let earlier = fragments.removeValue(forKey: fragmentKey) {
                (earlier + report.data).withUnsafeBytes { data in
                    countReport(report, data: data, adapter: adapter, slot: slot, at: at, counted: &counted, duplicates: &duplicates)
                }
                return
            }
        }
        countReport(report, data: report.data, adapter: adapter, slot: slot, at: at, counted: &counted, duplicates: &duplicates)
    }

    /// A complete report (`data`: its data, or a reassembled extended report's) counted for its
    /// device and the running session.
    @inline(__always)
    private mutating func countReport(
        _ report: AdvertisingReportEssentials, data: UnsafeRawBufferPointer, adapter: AdapterIndex, slot: Int?, at: FrameTime,
        counted: inout Int, duplicates: inout Int
    ) {
        let address = report.address
        let addressType = report.addressType
        let eventType = report.eventType
        counted += 1
        // The payload's fingerprint once, for the session's and the device's tables.
        let payload = Payload(bytes: data)
        let advertiser = DeviceTable.key(address: address, type: addressType)
        let device: Int
        var isDuplicate = false
        if let slot {
            let s = running[slot].session.position
            // Mutate in place: copying the session or its tracking per report would copy their
            // collections each time (quadratic on long scans).
            let reportType = report.isLegacyEvent ? eventType : eventType & ~UInt16(0x60)
            let (known, free) = running[slot].seen.find(advertiser: advertiser, eventType: reportType, payload: payload)
            if let known {
                // A duplicate in the session (same advertiser, event type and data): its device
                // reported in the session already and its payload is known.
                device = known
                isDuplicate = true
                duplicates += 1
            } else {
                device = advertisers.slot(of: advertiser, address: address, addressType: addressType, at: at)
                running[slot].seen.insert(advertiser: advertiser, eventType: reportType, payload: payload, device: device, at: free)
                // Only a device's first report in the session can change where its address was found.
                if running[slot].noteDevice(device) { noteDiscovery(address, adapter: adapter, session: s, at: at) }
            }
            Self.noteReport(at: at, isDuplicate: isDuplicate, devicesSeen: running[slot].devices, in: &sessions[s])
        } else {
            device = advertisers.slot(of: advertiser, address: address, addressType: addressType, at: at)
        }
        advertisers.report(
            device, payload: payload, data: data, rssi: report.rssi, connectable: report.isConnectable, isDuplicate: isDuplicate, at: at)
    }

    /// `address` reported on `adapter` for the first time in the session at `session`: where it
    /// was last found, unless another device of that address was found there already. A session
    /// with a system signature (the stack's background or accept-list scan) does not take the
    /// place of a scan of the app's that found it since its last connection: BlueZ's kernel scans
    /// passively for the device a connect names, after the app's own scan found it.
    private mutating func noteDiscovery(_ address: BDAddr, adapter: AdapterIndex, session s: Int, at: FrameTime) {
        let seenAt = AdapterAddress(adapter: adapter, address: address)
        let start = sessions[s].start.frame
        let system = sessions[s].attribution.signal.isSystemSignature
        // One lookup: the address found here in an earlier session (or none), or, rarely,
        // already in this one (another device of that address), whose first report stays.
        if let earlier = lastDiscovery.updateValue(Discovery(scanStart: start, firstReport: at), forKey: seenAt) {
            if earlier.scanStart == start {
                lastDiscovery.updateValue(earlier, forKey: seenAt)
            } else if system, earlier.scanStart != Discovery.connected, !isSystemSession(earlier.scanStart) {
                lastDiscovery.updateValue(earlier, forKey: seenAt)
            }
        } else if !discoveryAdapters.contains(adapter) {
            discoveryAdapters.append(adapter)
        }
    }

    /// The session started at `start` (held, or handed over and still pointed at) has a system
    /// signature.
    private func isSystemSession(_ start: FrameNumber) -> Bool {
        discoverySession(start)?.attribution.signal.isSystemSignature ?? false
    }

    /// The session started at `start` that a `lastDiscovery` entry points at: held, or handed over
    /// and kept for it.
    private func discoverySession(_ start: FrameNumber) -> ScanSession? {
        sessions.position(of: start).map { sessions[$0] } ?? handedOverDiscoveryScans[start]
    }

    private static func noteReport(at: FrameTime, isDuplicate: Bool, devicesSeen: Int, in scan: inout ScanSession) {
        scan.reports += 1
        if scan.firstReport == nil { scan.firstReport = at }
        scan.lastReport = at
        scan.devicesSeen = devicesSeen
        scan.density.add(at: at, duplicate: isDuplicate)
        if isDuplicate {
            scan.duplicates += 1
            if scan.firstDuplicate == nil { scan.firstDuplicate = at }
        }
    }

    /// Long captures: a closed session's density joins its adapter's capture-wide density once
    /// there are more than `AnalysisResult.foldDensityAfterSessions` sessions (memory stays flat).
    mutating func foldDensity(_ index: Int) {
        guard index >= AnalysisResult.foldDensityAfterSessions else { return }
        let adapter = sessions[index].adapter
        var folded = foldedDensity.removeValue(forKey: adapter) ?? ReportDensity(limit: AnalysisResult.capturedDensityBuckets)
        folded.absorb(sessions[index].density)
        foldedDensity[adapter] = folded
        sessions[index].density = ReportDensity()
    }

    /// The end of the capture: the running sessions end there. The lookups made for the reports
    /// and connection requests to come (which advertiser is which device, the devices' payloads,
    /// where each address was found, fragments) go before the result is built from the rest
    /// (`devicesInOrder`): `deviceFirst` and `peerDiscovery` answer nothing after this.
    mutating func finish(end: FrameTime?, actors: inout ActorTracker) {
        advertisers.dropLookups()
        lastDiscovery = DiscoveryTable()
        handedOverDiscoveryScans = [:]
        fragments = [:]
        guard let end else { return }
        for (_, var session) in active {
            guard let index = sessions.position(of: &session) else { continue }
            sessions[index].end = end
            sessions[index].stillRunningAtEnd = true
            sessions[index].attribution = actors.scanEnded(sessions[index])
        }
        active = [:]
        running = []
    }
}

// MARK: What connection requests learn of the scans

extension ScanTracker {
    /// The last scan session on `adapter` that reported `peer` before `attempt`'s request, its
    /// first report of it there, and the session as far as the request goes.
    func peerDiscovery(_ peer: BDAddr, adapter: AdapterIndex, for attempt: ConnectionAttempt) -> PeerDiscovery? {
        guard let found = lastDiscovery[AdapterAddress(adapter: adapter, address: peer)],
            found.scanStart != Discovery.connected, found.firstReport.frame < attempt.request.frame
        else { return nil }
        let session = discoverySession(found.scanStart)
        return PeerDiscovery(
            scanStartFrame: found.scanStart, firstReport: found.firstReport, scan: session.map { DiscoveryScan($0, for: attempt) })
    }

    /// The frame of `peer`'s connection complete on `adapter` when no scan reported it since
    /// (`ConnectionAttempt.peerConnectedBefore`).
    func connectedSinceFound(_ peer: BDAddr, adapter: AdapterIndex) -> FrameNumber? {
        guard let found = lastDiscovery[AdapterAddress(adapter: adapter, address: peer)], found.scanStart == Discovery.connected
        else { return nil }
        return found.firstReport.frame
    }

    /// `peer` connected on `adapter` (`at`: the connection complete): where it was found is no
    /// discovery for the requests that reconnect it, until a scan session reports it again.
    mutating func noteConnected(_ peer: BDAddr, adapter: AdapterIndex, at: FrameTime) {
        let key = AdapterAddress(adapter: adapter, address: peer)
        guard lastDiscovery[key] != nil else { return }
        lastDiscovery.updateValue(Discovery(scanStart: Discovery.connected, firstReport: at), forKey: key)
    }

    /// A request on `attempt.adapter`: what `scan.left-running` needs of it, on the session
    /// running there.
    mutating func noteRequest(_ attempt: ConnectionAttempt) {
        guard let s = activePosition(attempt.adapter) else { return }
        let session = sessions[s]
        guard session.start.time <= attempt.request.time else { return }
        if session.firstRequest.map({ attempt.request.time < $0.time }) ?? true { sessions[s].firstRequest = attempt.request }
        if session.requestToFoundPeer == nil, let peer = attempt.peer, let d = attempt.peerDiscovery,
            d.scanStartFrame == session.start.frame, d.firstReport.frame < attempt.request.frame
        {
            sessions[s].requestToFoundPeer = ScanSession.FoundPeerRequest(request: attempt.request, peer: peer, reported: d.firstReport)
        }
    }

    /// Sums over every scan session, handed over or held (`AnalysisResult.scanTotals`).
    var totals: ScanTotals { sessions.items.reduce(into: handedOver.totals) { $0.add($1) } }

    /// The first report of the device `address` (the first device of that address held).
    func deviceFirst(_ address: BDAddr?) -> FrameTime? { advertisers.firstReport(of: address) }

    /// Hands over the closed sessions (`closed`): they leave `sessions` and their sums stay in
    /// `handedOver`.
    mutating func handOverClosed() -> [ScanSession] {
        let positions = sessions.positions(of: closed)
        closed = []
        guard !positions.isEmpty else { return [] }
        let handed = positions.map { sessions[$0] }
        for s in handed { handedOver.add(s) }
        // Sessions where an advertiser was last found stay for later requests to it (at most one
        // per advertiser); the others go.
        let handedStarts = Set(handed.map(\.start.frame))
        var pointedAt = Set<FrameNumber>()
        for d in lastDiscovery.values where handedStarts.contains(d.scanStart) || handedOverDiscoveryScans[d.scanStart] != nil {
            pointedAt.insert(d.scanStart)
        }
        handedOverDiscoveryScans = handedOverDiscoveryScans.filter { pointedAt.contains($0.key) }
        for s in handed where pointedAt.contains(s.start.frame) { handedOverDiscoveryScans[s.start.frame] = s }
        sessions.remove(positions)
        return handed
    }
}

extension ScanTracker {
    /// LE Set (Extended) Scan Parameters succeeded on `adapter`: the parameters of its next scans.
    mutating func parametersSet(_ phys: [ScanPHY], adapter: AdapterIndex) {
        parameters[adapter] = phys
        // A scan with new parameters is a new scan, not a paused one resumed.
        paused[adapter] = nil
    }

    /// The sessions found to be the system's when they ended since last asked; forgotten here.
    mutating func takeReattributed() -> [(adapter: AdapterIndex, start: FrameTime, evidence: ActorEvidence)] {
        defer { reattributed = [] }
        return reattributed
    }
}

// MARK: Devices that leave

extension ScanTracker {
    /// Whether enough devices came since the last look for quiet ones. Asked after every frame.
    @inline(__always)
    var hasDevicesToLookAt: Bool { advertisers.isDueForLook }

    /// When the devices are looked at next (`AdvertiserTable.scheduleLook`).
    mutating func scheduleDeviceLook(kept: Int, every: Int, cap: Int = .max) {
        advertisers.scheduleLook(kept: kept, every: every, cap: cap)
    }

    /// The devices after the first `kept` not heard since `quietSince` leave
    /// (`AdvertiserTable.forgetQuiet`), with their slots in the running sessions' duplicate
    /// tables and, for an address no device held has any more, where it was last found.
    mutating func forgetQuietDevices(quietSince cutoff: Timestamp, kept: Int, every: Int, cap: Int = .max) {
        let departure = advertisers.forgetQuiet(quietSince: cutoff, kept: kept, every: every, cap: cap)
        guard !departure.slots.isEmpty else { return }
        let table = advertisers
        for r in running.indices {
            running[r].seen.removeAll { !table.holds($0) }
            for slot in departure.slots where slot >> 6 < running[r].deviceBits.count {
                running[r].deviceBits[slot >> 6] &= ~(UInt64(1) << UInt64(slot & 63))
            }
        }
        for address in departure.addresses {
            for adapter in discoveryAdapters { lastDiscovery.removeValue(forKey: AdapterAddress(adapter: adapter, address: address)) }
        }
    }
}
