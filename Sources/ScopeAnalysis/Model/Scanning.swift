import ScopeCore

package enum HCIAPI: String, Sendable, Hashable {
    case legacy, extended
    /// Android's vendor LE Multi-Advertising command (advertising instances on controllers
    /// without LE extended advertising).
    case androidMultiAdvertising = "android_multi_adv"
}

/// One scan session: from an LE Set (Extended) Scan Enable (enable) whose Command Complete
/// succeeded to the one that disables it (or the end of the capture). RULES.md "Metrics".
package struct ScanSession: Sendable {
    package var adapter: AdapterIndex
    package var start: FrameTime
    package var startComplete: FrameTime?
    package var stop: FrameTime?
    package var stopComplete: FrameTime?
    /// Last frame of the capture when still running at the end.
    package var end: FrameTime
    package var stillRunningAtEnd: Bool
    package var api: HCIAPI
    package var active: Bool
    package var phys: [ScanPHY]
    /// Filter_Duplicates as sent (0 off, 1 on, 2 on per period).
    package var filterDuplicates: UInt8
    /// Advertising reports received in the session (a report of a fragmented extended advertisement
    /// counts once; scan responses count).
    package var reports = 0
    package var duplicates = 0
    /// HCI event bytes spent on duplicate reports (their share of the events carrying them).
    package var duplicateEventBytes = 0
    package var devicesSeen = 0
    package var firstReport: FrameTime?
    package var lastReport: FrameTime?
    package var firstDuplicate: FrameTime?
    /// Reports and duplicates per time bucket (at most `ReportDensity.maxBuckets`).
    package var density = ReportDensity()
    /// The connection requests made while the session ran, as the analysis sums them up:
    /// the earliest connection request on the adapter while the session ran.
    package var firstRequest: FrameTime?
    /// The first connection request while the session ran whose peer the session had reported.
    package var requestToFoundPeer: FoundPeerRequest?
    /// Whose scan it is, as the frames tell (docs/ATTRIBUTION.md).
    package var attribution = ActorEvidence.localRequest
    /// The starts of the scans before this one on the adapter that were not the system's own
    /// (no system signature), most recent first, at most `ScanSession.startsKept`: what Android's
    /// scan throttle counts (`scan.restart-throttled`).
    package var previousStarts: [FrameTime] = []
    /// Enabled within 2 s of a connection request, connection or disconnection on the adapter:
    /// Android's stack pauses scanning around a connection and resumes it by itself, so such a
    /// start is no app's `startScan` (not counted by `scan.restart-throttled`).
    package var resumesAroundConnection = false
    /// The stack paused the scan before this one on the adapter to change its random address and
    /// enabled it again with the same settings (scan disabled, LE Set Random Address, scan enabled
    /// within `ScanResumption.maxPauseMicros`, no scan parameters set between): this session
    /// continues that scan. Android rotates its private address this way every few minutes, with
    /// no call of the app's. Not a start `scan.restart-throttled` counts.
    package var resumesAfterAddressChange: ScanResumption?
    package static let startsKept = 8

    /// Not a start of the app's: a resumption by the stack (`resumesAroundConnection`,
    /// `resumesAfterAddressChange`).
    package var isStackResumption: Bool { resumesAroundConnection || resumesAfterAddressChange != nil }

    package struct FoundPeerRequest: Sendable, Hashable {
        package var request: FrameTime
        package var peer: BDAddr
        /// The peer's first report in the session.
        package var reported: FrameTime
        package init(request: FrameTime, peer: BDAddr, reported: FrameTime) {
            self.request = request
            self.peer = peer
            self.reported = reported
        }
    }

    package init(
        adapter: AdapterIndex, start: FrameTime, end: FrameTime, stillRunningAtEnd: Bool, api: HCIAPI, active: Bool,
        phys: [ScanPHY], filterDuplicates: UInt8
    ) {
        self.adapter = adapter
        self.start = start
        self.end = end
        self.stillRunningAtEnd = stillRunningAtEnd
        self.api = api
        self.active = active
        self.phys = phys
        self.filterDuplicates = filterDuplicates
    }

    package var durationMicros: Int64 { (stop?.time ?? end.time).microseconds - start.time.microseconds }
    /// A PHY scans with window = interval: the radio listens all the time.
    package var isFullDuty: Bool { phys.contains { $0.intervalMicros > 0 && $0.windowMicros >= $0.intervalMicros } }
    package var duplicateRatio: Double { reports == 0 ? 0 : Double(duplicates) / Double(reports) }
    /// Estimated scan radio-on time: duration × window/interval, summed over PHYs (RULES.md),
    /// and never more than the duration itself: one radio cannot listen on two PHYs at once, so
    /// a controller asked for window = interval on both alternates between them.
    package var radioOnMicros: Int64 { ScanPHY.radioOnMicros(durationMicros: durationMicros, phys: phys) }
}

/// Sums over scan sessions: what the headline figures need of every session.
package struct ScanTotals: Sendable, Hashable {
    package var sessions = 0
    package var sessionsWithFilterOff = 0
    package var reports = 0
    package var duplicates = 0
    package var duplicateEventBytes = 0
    /// Σ max(0, duration).
    package var durationMicros: Int64 = 0
    /// Σ estimated radio-on time.
    package var radioOnMicros: Int64 = 0
    /// Each session's duplicate rate (duplicates per second of that session, in thousandths), of
    /// the sessions that received reports: the spread, and the session with the highest.
    package var duplicateRate = SumCount()
    /// Σ duration of the sessions with a PHY scanning at 100 % duty (window = interval).
    package var fullDutyMicros: Int64 = 0

    package init() {}

    package mutating func add(_ s: ScanSession) {
        sessions += 1
        if s.filterDuplicates == 0 { sessionsWithFilterOff += 1 }
        reports += s.reports
        duplicates += s.duplicates
        duplicateEventBytes += s.duplicateEventBytes
        durationMicros = durationMicros &+ max(0, s.durationMicros)
        radioOnMicros = radioOnMicros &+ s.radioOnMicros
        if s.reports > 0, s.durationMicros > 0 {
            let (scaled, overflow) = Int64(s.duplicates).multipliedReportingOverflow(by: 1_000_000_000)
            if !overflow {
                duplicateRate.add(scaled / s.durationMicros, item: FigureItem(frame: s.start.frame, connection: nil, peer: nil))
            }
        }
        if s.isFullDuty { fullDutyMicros = fullDutyMicros &+ max(0, s.durationMicros) }
    }
}

/// What stays of the scan sessions a long capture hands to the scan rules on the way
/// (`AnalysisBuilder.handOverSettled()`): their sums, and where the first of them started.
package struct HandedOverScans: Sendable {
    package var totals = ScanTotals()
    /// Start frame of the first handed over session.
    package var firstStart: FrameNumber?
    /// The same sums per attribution signal (a handful of signals: bounded).
    package var bySignal: [ActorSignal: ScanTotals] = [:]
    package init() {}

    package mutating func add(_ s: ScanSession) {
        totals.add(s)
        bySignal[s.attribution.signal, default: ScanTotals()].add(s)
        firstStart = min(firstStart ?? s.start.frame, s.start.frame)
    }
}

package struct ScanPHY: Sendable, Hashable {
    /// "1M", "Coded".
    package var phy: String
    package var active: Bool
    package var intervalMicros: Int64
    package var windowMicros: Int64
    package init(phy: String, active: Bool, intervalMicros: Int64, windowMicros: Int64) {
        self.phy = phy
        self.active = active
        self.intervalMicros = intervalMicros
        self.windowMicros = windowMicros
    }
    package var dutyCycle: Double { intervalMicros == 0 ? 0 : Double(windowMicros) / Double(intervalMicros) }

    /// The radio-time model for scanning (RULES.md): duration × window/interval summed over the
    /// PHYs, capped at the duration (one radio alternates between PHYs).
    package static func radioOnMicros(durationMicros: Int64, phys: [ScanPHY]) -> Int64 {
        let duration = max(0, durationMicros)
        let summed = phys.reduce(Int64(0)) { $0 + Int64((Double(duration) * $1.dutyCycle).rounded()) }
        return min(summed, duration)
    }
}

/// An advertiser seen in reports.
package struct Device: Sendable {
    package var address: BDAddr
    package var addressType: UInt8
    package var reports = 0
    package var first: FrameTime
    package var last: FrameTime
    package var distinctPayloads = 0
    package var rssiMin: Int8?
    package var rssiMax: Int8?
    package var name: String?
    package var serviceUUIDs: [String] = []
    package var manufacturers: [UInt16] = []
    package var connectable = false
    /// The identity address when `address` is a resolvable private address resolved with an IRK
    /// from the capture.
    package var identity: BDAddr?

    package init(address: BDAddr, addressType: UInt8, first: FrameTime) {
        self.address = address
        self.addressType = addressType
        self.first = first
        self.last = first
    }
}

/// A scan the stack paused to change its random address and enabled again
/// (`ScanSession.resumesAfterAddressChange`).
package struct ScanResumption: Sendable, Hashable {
    /// The start of the session it continues (itself maybe a resumption).
    package var continues: FrameNumber
    /// The LE Set Random Address between the pause and the resumption.
    package var addressChange: FrameNumber
    /// The longest pause taken as one: the stack disables the scan, sets the address and enables
    /// it again at once (about 14 ms in the captures seen).
    package static let maxPauseMicros: Int64 = 1_000_000
}

