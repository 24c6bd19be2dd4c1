import ScopeCore

/// The facts of the local host's own activity that say whose doing an item is (docs/ATTRIBUTION.md):
/// when each controller was last reset, the scans the stack started right after it (their
/// parameters are its background scan's), whether the controller's advertising filters (Android
/// APCF) are in use. Asked by `AnalysisBuilder` when a scan, advertising span or connection
/// request starts; owned by the builder. Bounded: a few values per adapter.
struct ActorTracker: Sendable {
    private(set) var policy = AttributionPolicy()
    /// The last successful HCI Reset's Command Complete on each adapter.
    private var resets: [AdapterIndex: FrameTime] = [:]
    /// The parameter sets of the scans the stack started after a reset, with the frame of the
    /// first scan of each (at most `maxProfiles` per adapter).
    private var profiles: [AdapterIndex: [Profile]] = [:]
    /// The first Android APCF command (vendor OCF 0x157) on each adapter since its reset.
    private var controllerFilters: [AdapterIndex: FrameNumber] = [:]
    /// Scanning_Filter_Policy of the last scan parameters accepted on each adapter.
    private var scanFilterPolicy: [AdapterIndex: UInt8] = [:]

    struct Profile: Sendable, Hashable {
        var phys: [ScanPHY]
        var firstFrame: FrameNumber
    }

    static let maxProfiles = 8

    /// HCI Reset answered with success on `adapter`.
    mutating func reset(adapter: AdapterIndex, at: FrameTime) {
        resets[adapter] = at
        controllerFilters[adapter] = nil
    }

    /// An Android APCF command (advertising packet content filter, OGF 0x3F OCF 0x157) sent.
    mutating func controllerFilterCommand(adapter: AdapterIndex, at: FrameNumber) {
        if controllerFilters[adapter] == nil { controllerFilters[adapter] = at }
    }

    /// LE Set (Extended) Scan Parameters accepted.
    mutating func scanParameters(filterPolicy: UInt8, adapter: AdapterIndex) {
        scanFilterPolicy[adapter] = filterPolicy
    }

    /// µs from the adapter's last reset to `at` (nil: no reset captured, or `at` before it).
    private func sinceReset(_ adapter: AdapterIndex, _ at: FrameTime) -> (micros: Int64, frame: FrameNumber)? {
        guard let r = resets[adapter] else { return nil }
        let d = at.time.microseconds &- r.time.microseconds
        return d >= 0 ? (d, r.frame) : nil
    }

    /// A scan enabled at `at` with `phys` on `adapter`.
    mutating func scanStarted(phys: [ScanPHY], adapter: AdapterIndex, at: FrameTime) -> ActorEvidence {
        let since = sinceReset(adapter, at)
        // A stack restores its own watches at a low duty; a scan with a PHY at 100 % duty right
        // after the reset is an app's (Android runs one scan at the duty of its most demanding
        // client: dandwhelan's 1M 100/100 ms beside the stack's Coded 730/182.5 ms), or a moment
        // of the stack's start-up: not a profile of the stack's.
        let fullDuty = phys.contains { $0.intervalMicros > 0 && $0.windowMicros >= $0.intervalMicros }
        if let since, since.micros <= policy.bootWindowMicros, fullDuty {
            return ActorEvidence(.scanNearReset, frame: since.frame)
        }
        if let since, since.micros <= policy.bootWindowMicros {
            var list = profiles[adapter] ?? []
            if !list.contains(where: { $0.phys == phys }), list.count < Self.maxProfiles {
                list.append(Profile(phys: phys, firstFrame: at.frame))
                profiles[adapter] = list
            }
            return ActorEvidence(.scanAfterReset, frame: since.frame)
        }
        if let p = profiles[adapter]?.first(where: { Self.matches(phys, $0.phys) }) {
            return ActorEvidence(.scanStackProfile, frame: p.firstFrame)
        }
        if let policy = scanFilterPolicy[adapter], policy & 0x01 != 0, !phys.contains(where: \.active) {
            return ActorEvidence(.scanAcceptListPassive)
        }
        if let since, since.micros <= policy.nearResetWindowMicros {
            return ActorEvidence(.scanNearReset, frame: since.frame)
        }
        return .localRequest
    }

    /// What a scan session's attribution becomes once it ended: a low-duty scan of the local
    /// host's with the controller's advertising filters in use that delivered no report is the
    /// system's watch offloaded to the controller. One that delivered reports is not told apart
    /// from an app's filtered scan (it is judged), and its parameters prove nothing about later
    /// scans: on Android every client's scan runs with the parameters of the most demanding one.
    func scanEnded(_ session: ScanSession) -> ActorEvidence {
        guard session.attribution.signal == .localRequest || session.attribution.signal == .scanNearReset, session.reports == 0,
            let filters = controllerFilters[session.adapter], filters <= session.start.frame,
            !session.phys.isEmpty, session.phys.allSatisfy({ $0.dutyCycle <= policy.controllerFilteredMaxDuty })
        else { return session.attribution }
        return ActorEvidence(.scanControllerFiltered, frame: filters)
    }

    /// Advertising enabled at `at` with data carrying `manufacturers` and `serviceUUIDs`
    /// (16-bit UUIDs of service data and service lists).
    /// `findHub`: Eddystone service data of frame type 0x40/0x41 (the end-to-end encrypted
    /// identifiers of Google's Find Hub network, advertised by the phone for itself).
    func advertisingStarted(
        manufacturers: [UInt16], serviceUUIDs: [UInt16], findHub: Bool = false, dataFrame: FrameNumber?, adapter: AdapterIndex,
        at: FrameTime
    ) -> ActorEvidence {
        if manufacturers.contains(Self.apple) { return ActorEvidence(.advertisingAppleData, frame: dataFrame) }
        if serviceUUIDs.contains(where: Self.systemServices.contains) || findHub {
            return ActorEvidence(.advertisingGoogleService, frame: dataFrame)
        }
        if let since = sinceReset(adapter, at), since.micros <= policy.bootWindowMicros {
            return ActorEvidence(.advertisingAfterReset, frame: since.frame)
        }
        return .localRequest
    }

    /// A connection request sent at `at`; `acceptList`: it names no peer.
    func requestSent(acceptList: Bool, adapter: AdapterIndex, at: FrameTime) -> ActorEvidence {
        guard acceptList else { return .localRequest }
        if let since = sinceReset(adapter, at), since.micros <= policy.nearResetWindowMicros {
            return ActorEvidence(.requestAcceptListAfterReset, frame: since.frame)
        }
        return ActorEvidence(.requestAcceptList, frame: at.frame)
    }

    /// A scan's PHYs match a profile of the stack's: the same parameters on every PHY, or the
    /// same LE 1M parameters with the other PHYs below 100 % duty (the stack adds or drops the
    /// Coded PHY as its clients ask, and its background scan goes on on 1M).
    static func matches(_ phys: [ScanPHY], _ profile: [ScanPHY]) -> Bool {
        if phys == profile { return true }
        guard let mine = phys.first(where: { $0.phy == "1M" }), let theirs = profile.first(where: { $0.phy == "1M" }),
            mine == theirs
        else { return false }
        return phys.allSatisfy { $0.phy == "1M" || $0.windowMicros < $0.intervalMicros }
    }

    /// Apple's company identifier.
    static let apple: UInt16 = 0x004C
    /// 16-bit service UUIDs of the system services phones advertise for themselves: Google Play
    /// services' Fast Pair (0xFE2C), Nearby (0xFEF3, 0xFCF1) and Exposure Notification (0xFD6F);
    /// Samsung's SmartThings Find (0xFD5A, 0xFD69); Xiaomi's continuity (0xFDAA). Eddystone
    /// (0xFEAA) is an app's beacon unless its frame is Find Hub's (`findHub`).
    static let systemServices: Set<UInt16> = [0xFE2C, 0xFEF3, 0xFCF1, 0xFD6F, 0xFD5A, 0xFD69, 0xFDAA]
}
