import ScopeCore

public enum HCIAPI: String, Sendable, Hashable {
    case legacy, extended
}

/// One scan session: from an LE Set (Extended) Scan Enable (enable) whose Command Complete
/// succeeded to the one that disables it (or the end of the capture). RULES.md "Metrics".
public struct ScanSession: Sendable {
    public var adapter: AdapterIndex
    public var start: FrameTime
    public var startComplete: FrameTime?
    public var stop: FrameTime?
    public var stopComplete: FrameTime?
    /// Last frame of the capture when still running at the end.
    public var end: FrameTime
    public var stillRunningAtEnd: Bool
    public var api: HCIAPI
    public var active: Bool
    public var phys: [ScanPHY]
    /// Filter_Duplicates as sent (0 off, 1 on, 2 on per period).
    public var filterDuplicates: UInt8
    /// Advertising reports received in the session (a report of a fragmented extended advertisement
    /// counts once; scan responses count).
    public var reports = 0
    public var duplicates = 0
    /// HCI event bytes spent on duplicate reports (their share of the events carrying them).
    public var duplicateEventBytes = 0
    public var devicesSeen = 0
    public var firstReport: FrameTime?
    public var lastReport: FrameTime?
    public var firstDuplicate: FrameTime?
    /// Reports and duplicates per time bucket (at most `ReportDensity.maxBuckets`).
    public var density = ReportDensity()
    /// The connection requests made while the session ran, as the analysis sums them up:
    /// the earliest connection request on the adapter while the session ran.
    public var firstRequest: FrameTime?
    /// The first connection request while the session ran whose peer the session had reported.
    public var requestToFoundPeer: FoundPeerRequest?
    /// Whose scan it is, as the frames tell (docs/ATTRIBUTION.md).
    public var attribution = ActorEvidence.localRequest
    /// The starts of the scans before this one on the adapter that were not the system's own
    /// (no system signature), most recent first, at most `ScanSession.startsKept`: what Android's
    /// scan throttle counts (`scan.restart-throttled`).
    public var previousStarts: [FrameTime] = []
    /// Enabled within 2 s of a connection request, connection or disconnection on the adapter:
    /// Android's stack pauses scanning around a connection and resumes it by itself, so such a
    /// start is no app's `startScan` (not counted by `scan.restart-throttled`).
    public var resumesAroundConnection = false
    public static let startsKept = 8

    public struct FoundPeerRequest: Sendable, Hashable {
        public var request: FrameTime
        public var peer: BDAddr
        /// The peer's first report in the session.
        public var reported: FrameTime
        public init(request: FrameTime, peer: BDAddr, reported: FrameTime) {
            self.request = request
            self.peer = peer
            self.reported = reported
        }
    }

    public init(
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

    public var durationMicros: Int64 { (stop?.time ?? end.time).microseconds - start.time.microseconds }
    /// A PHY scans with window = interval: the radio listens all the time.
    public var isFullDuty: Bool { phys.contains { $0.intervalMicros > 0 && $0.windowMicros >= $0.intervalMicros } }
    public var duplicateRatio: Double { reports == 0 ? 0 : Double(duplicates) / Double(reports) }
    /// Estimated scan radio-on time: duration × window/interval, summed over PHYs (RULES.md),
    /// and never more than the duration itself: one radio cannot listen on two PHYs at once, so
    /// a controller asked for window = interval on both alternates between them.
    public var radioOnMicros: Int64 { ScanPHY.radioOnMicros(durationMicros: durationMicros, phys: phys) }
}

/// Sums over scan sessions: what the headline figures need of every session.
public struct ScanTotals: Sendable, Hashable {
    public var sessions = 0
    public var sessionsWithFilterOff = 0
    public var reports = 0
    public var duplicates = 0
    public var duplicateEventBytes = 0
    /// Σ max(0, duration).
    public var durationMicros: Int64 = 0
    /// Σ estimated radio-on time.
    public var radioOnMicros: Int64 = 0
    /// Each session's duplicate rate (duplicates per second of that session, in thousandths), of
    /// the sessions that received reports: the spread, and the session with the highest.
    public var duplicateRate = SumCount()
    /// Σ duration of the sessions with a PHY scanning at 100 % duty (window = interval).
    public var fullDutyMicros: Int64 = 0

    public init() {}

    public mutating func add(_ s: ScanSession) {
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
public struct HandedOverScans: Sendable {
    public var totals = ScanTotals()
    /// Start frame of the first handed over session.
    public var firstStart: FrameNumber?
    /// The same sums per attribution signal (a handful of signals: bounded).
    public var bySignal: [ActorSignal: ScanTotals] = [:]
    public init() {}

    public mutating func add(_ s: ScanSession) {
        totals.add(s)
        bySignal[s.attribution.signal, default: ScanTotals()].add(s)
        firstStart = min(firstStart ?? s.start.frame, s.start.frame)
    }
}

public struct ScanPHY: Sendable, Hashable {
    /// "1M", "Coded".
    public var phy: String
    public var active: Bool
    public var intervalMicros: Int64
    public var windowMicros: Int64
    public init(phy: String, active: Bool, intervalMicros: Int64, windowMicros: Int64) {
        self.phy = phy
        self.active = active
        self.intervalMicros = intervalMicros
        self.windowMicros = windowMicros
    }
    public var dutyCycle: Double { intervalMicros == 0 ? 0 : Double(windowMicros) / Double(intervalMicros) }

    /// The radio-time model for scanning (RULES.md): duration × window/interval summed over the
    /// PHYs, capped at the duration (one radio alternates between PHYs).
    public static func radioOnMicros(durationMicros: Int64, phys: [ScanPHY]) -> Int64 {
        let duration = max(0, durationMicros)
        let summed = phys.reduce(Int64(0)) { $0 + Int64((Double(duration) * $1.dutyCycle).rounded()) }
        return min(summed, duration)
    }
}

/// An advertiser seen in reports.
public struct Device: Sendable {
    public var address: BDAddr
    public var addressType: UInt8
    public var reports = 0
    public var first: FrameTime
    public var last: FrameTime
    public var distinctPayloads = 0
    public var rssiMin: Int8?
    public var rssiMax: Int8?
    public var name: String?
    public var serviceUUIDs: [String] = []
    public var manufacturers: [UInt16] = []
    public var connectable = false
    /// The identity address when `address` is a resolvable private address resolved with an IRK
    /// from the capture.
    public var identity: BDAddr?

    public init(address: BDAddr, addressType: UInt8, first: FrameTime) {
        self.address = address
        self.addressType = addressType
        self.first = first
        self.last = first
    }
}
