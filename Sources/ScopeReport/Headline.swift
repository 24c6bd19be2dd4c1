import ScopeAnalysis
import ScopeCore

/// The figures the project exists for: discovery cost, duplicate-scan overhead and connection
/// timing (RULES.md "Metrics"), plus a flat list of scalar figures compared against baselines.
package struct Headline: Sendable {
    /// Discovery cost of one device that was connected to: the request's `AttemptDiscovery`
    /// (its fields read through: `cost.scanToRequestMicros`, …) and what names it.
    @dynamicMemberLookup
    package struct DiscoveryCost: Sendable {
        package var device: String
        package var connection: String?
        package var requestFrame: FrameNumber
        package var discovery: AttemptDiscovery

        package subscript<T>(dynamicMember field: KeyPath<AttemptDiscovery, T>) -> T { discovery[keyPath: field] }
    }

    package struct Duplicates: Sendable {
        package var sessions: Int
        package var sessionsWithFilterOff: Int
        package var reports: Int
        package var duplicates: Int
        package var ratio: Double
        package var eventBytes: Int
        package var scanMicros: Int64
        /// Each session's duplicate rate (duplicates per second of that session), over the
        /// sessions that received reports: how many, the median and the peak with its session.
        package var rateSessions: Int
        package var rateMedian: Double?
        package var ratePeak: Double?
        package var ratePeakSessionFrame: FrameNumber?
        /// Of the scan time, what the app's scans (and those not told apart from the system's)
        /// spent at 100 % duty (window = interval).
        package var appFullDutyMicros: Int64
    }

    package struct ConnectionTiming: Sendable {
        package var connection: String
        package var peer: String?
        package var setupMicros: Int64?
        /// A Filter Accept List request → connection complete: waiting for the device, not setup.
        package var acceptListWaitMicros: Int64?
        package var firstATTMicros: Int64?
        package var discoveryMicros: Int64?
        package var firstDataMicros: Int64?
        package var lifetimeMicros: Int64?
        package var idleTailMicros: Int64?
    }

    /// One scalar for baselines: `key` is stable (docs/REPORT-SCHEMA.md).
    package struct Figure: Sendable {
        package var key: String
        /// ms figures are kept in µs; counts and ratios as they are.
        package var value: Double?
        package var unit: Unit
        package var estimated: Bool
        package var explanation: String

        package enum Unit: String, Sendable { case ms, count, ratio, bytes }

        /// The JSON/text rendering of the value.
        package var rendered: String? {
            guard let value else { return nil }
            switch unit {
            case .ms: return Millis.string(Int64(value.rounded()))
            case .ratio: return Millis.ratio(value)
            case .count, .bytes: return String(Int64(value.rounded()))
            }
        }
    }

    package var discovery: [DiscoveryCost] = []
    package var duplicates: Duplicates
    package var connectionTiming: [ConnectionTiming] = []
    package var figures: [Figure] = []

    /// Discovery costs and connection timings counted (the lists keep the first `listLimit`).
    package var discoveryTotal = 0
    package var connectionTimingTotal = 0
    /// Of the discovery costs, those of requests that followed a scan which found the peer.
    package var discoveryScanned = 0
    /// Of the discovery costs, those whose peer only the system's own scan had found.
    package var discoverySystemScanned = 0
    /// Of the connection timings, those with no figure at all.
    package var connectionTimingBlank = 0
    /// Each figure's spread over every item of the capture, held or handed over (nil: no item has it).
    package var spreads: [SpreadFigure: Spread] = [:]

    /// The figures whose spread the headline gives.
    package enum SpreadFigure: Sendable, Hashable {
        case scanToRequest, reportsUntilRequest, radioOn, firstReportToRequest
        case setup, acceptListWait, firstATT, gattDiscovery, firstData, lifetime, idleTail
    }

    /// One figure over every item that has it: how many, the median and 90th percentile (nearest
    /// rank: each a value some item has; estimated past 4,096 items, `exact` false), the maximum
    /// and the first item with it.
    package struct Spread: Sendable, Equatable {
        package var count: Int
        package var median: Int64
        package var p90: Int64
        package var max: Int64
        package var exact: Bool
        package var worst: FigureItem
        /// The worst item's device as the report names it ("name (address)" or the address).
        package var worstDevice: String?

        init?(_ s: SumCount, device: (BDAddr?) -> String?) {
            guard let max = s.max, let worst = s.worst, s.count > 0 else { return nil }
            let ranks = [50, 90].map { StreamingQuantiles.nearestRank($0, of: s.count) }
            let values = s.spread.values(atRanks: ranks)
            count = s.count
            median = values[0]
            p90 = values[1]
            self.max = max
            exact = s.spread.isExact
            self.worst = worst
            worstDevice = device(worst.peer)
        }
    }

    /// `connections`: the summary of every connection, in order; `listLimit`: how many discovery
    /// costs and connection timings the lists keep (the figures count all).
    init(analysis a: AnalysisResult, connections: some Sequence<ConnectionSummary>, listLimit: Int, rel: (Timestamp) -> Int64) {
        // Discovery cost, per connection attempt that connected: the first `listLimit` listed,
        // every one summed (`discoveryTotals`, by the same `ConnectionAttempt.discovery`).
        var discoveryList: [DiscoveryCost] = []
        for attempt in a.attempts where discoveryList.count < listLimit {
            guard let peer = attempt.connectedPeer,
                let d = attempt.discovery(deviceFirst: a.deviceFirst(peer))
            else { continue }
            discoveryList.append(
                DiscoveryCost(
                    device: Self.deviceLabel(peer, in: a), connection: attempt.connection?.description,
                    requestFrame: attempt.request.frame, discovery: d))
        }
        let sums = a.discoveryTotals
        discoveryScanned = sums.scanned
        discoverySystemScanned = sums.systemScanned
        func device(_ peer: BDAddr?) -> String? { peer.map { Self.deviceLabel($0, in: a) } }
        let discoverySpreads: [(SpreadFigure, SumCount)] = [
            (.scanToRequest, sums.scanToRequest), (.reportsUntilRequest, sums.reportsUntilRequest), (.radioOn, sums.radioOn),
            (.firstReportToRequest, sums.firstReportToRequest),
        ]
        for (figure, sum) in discoverySpreads { spreads[figure] = Spread(sum, device: device) }

        // Every session, handed over ones included.
        let totals = a.scanTotals
        let scanMicros = totals.durationMicros
        let reports = totals.reports
        let dups = totals.duplicates
        let rate = Spread(totals.duplicateRate, device: { _ in nil })
        // 100 %-duty scanning by the app (and what cannot be told apart from it).
        var fullDuty: Int64 = 0
        for s in a.scans where s.isFullDuty && a.actor(s.attribution).judgedAsApp { fullDuty &+= max(0, s.durationMicros) }
        for (signal, t) in a.handedOverScans.bySignal where a.actor(ActorEvidence(signal)).judgedAsApp { fullDuty &+= t.fullDutyMicros }
        duplicates = Duplicates(
            sessions: totals.sessions, sessionsWithFilterOff: totals.sessionsWithFilterOff,
            reports: reports, duplicates: dups, ratio: reports == 0 ? 0 : Double(dups) / Double(reports),
            eventBytes: totals.duplicateEventBytes, scanMicros: scanMicros,
            rateSessions: rate?.count ?? 0, rateMedian: rate.map { Double($0.median) / 1000 },
            ratePeak: rate.map { Double($0.max) / 1000 }, ratePeakSessionFrame: rate?.worst.frame, appFullDutyMicros: fullDuty)

        discovery = discoveryList
        discoveryTotal = sums.count
        // The first `listLimit` connections listed, every one summed (`timingTotals`).
        for c in connections.prefix(listLimit) {
            connectionTiming.append(
                ConnectionTiming(
                    connection: c.id, peer: c.peer, setupMicros: c.setupMicros, acceptListWaitMicros: c.acceptListWaitMicros,
                    firstATTMicros: c.firstATTMicros,
                    discoveryMicros: c.discoveryMicros, firstDataMicros: c.firstDataMicros, lifetimeMicros: c.lifetimeMicros,
                    idleTailMicros: c.idleTailMicros))
        }
        let timing = a.timingTotals
        connectionTimingTotal = timing.count
        connectionTimingBlank = timing.blank
        let timingSpreads: [(SpreadFigure, SumCount)] = [
            (.setup, timing.setup), (.acceptListWait, timing.acceptListWait), (.firstATT, timing.firstATT),
            (.gattDiscovery, timing.discovery), (.firstData, timing.firstData),
            (.lifetime, timing.lifetime), (.idleTail, timing.idleTail),
        ]
        for (figure, sum) in timingSpreads { spreads[figure] = Spread(sum, device: { _ in nil }) }

        // Every figure of a spread is its median (and p90), as the text report states it; never a
        // mean under the same name.
        func median(_ f: SpreadFigure) -> Double? { spreads[f].map { Double($0.median) } }
        func p90(_ f: SpreadFigure) -> Double? { spreads[f].map { Double($0.p90) } }
        figures = [
            Figure(key: "discovery_ms", value: median(.scanToRequest), unit: .ms, estimated: false,
                   explanation: "scan start → connection request, median over the devices connected to"),
            Figure(key: "discovery_p90_ms", value: p90(.scanToRequest), unit: .ms, estimated: false,
                   explanation: "scan start → connection request, 90th percentile"),
            Figure(key: "discovery_reports", value: sums.reports.map(Double.init), unit: .count, estimated: false,
                   explanation: "advertising reports the host processed before those connection requests, in all"),
            Figure(key: "discovery_radio_on_ms", value: median(.radioOn), unit: .ms, estimated: true,
                   explanation: "scan radio-on time until the request (duration × window/interval), median"),
            Figure(key: "first_report_to_request_ms", value: median(.firstReportToRequest), unit: .ms,
                   estimated: false, explanation: "the device's first advertising report → connection request, median"),
            Figure(key: "failed_attempts", value: Double(sums.failedAttempts), unit: .count,
                   estimated: false, explanation: "connection requests to the same devices that did not connect before the ones that did"),
            Figure(key: "failed_attempts_ms", value: Double(sums.failedAttemptsMicros), unit: .ms,
                   estimated: false, explanation: "time those requests were pending, in all"),
            Figure(key: "scan_ms", value: Double(scanMicros), unit: .ms, estimated: false,
                   explanation: "total time scanning was enabled"),
            Figure(key: "scan_radio_on_ms", value: Double(totals.radioOnMicros), unit: .ms,
                   estimated: true, explanation: "total scan radio-on time (duration × window/interval per PHY)"),
            Figure(key: "app_full_duty_scan_ms", value: Double(fullDuty), unit: .ms, estimated: false,
                   explanation: "time the app's scans (and those not told apart from the system's) ran at 100 % duty"),
            Figure(key: "reports", value: Double(reports), unit: .count, estimated: false,
                   explanation: "advertising reports received while scanning"),
            Figure(key: "duplicate_reports", value: Double(dups), unit: .count, estimated: false,
                   explanation: "reports repeating an earlier report of the same device, type and data in the session"),
            Figure(key: "duplicate_ratio", value: duplicates.ratio, unit: .ratio, estimated: false,
                   explanation: "duplicate reports / all reports"),
            Figure(key: "duplicate_rate_median", value: duplicates.rateMedian, unit: .ratio, estimated: false,
                   explanation: "duplicates per second of a scan session, median over the sessions with reports"),
            Figure(key: "duplicate_rate_peak", value: duplicates.ratePeak, unit: .ratio, estimated: false,
                   explanation: "duplicates per second of the session with the most"),
            Figure(key: "duplicate_event_bytes", value: Double(duplicates.eventBytes), unit: .bytes, estimated: false,
                   explanation: "HCI event bytes spent on duplicate reports"),
            Figure(key: "setup_ms", value: median(.setup), unit: .ms, estimated: false,
                   explanation: "connection request naming its peer → connection complete, median"),
            Figure(key: "setup_p90_ms", value: p90(.setup), unit: .ms, estimated: false,
                   explanation: "connection request naming its peer → connection complete, 90th percentile"),
            Figure(key: "accept_list_wait_ms", value: median(.acceptListWait), unit: .ms, estimated: false,
                   explanation: "Filter Accept List request → connection complete (waiting for the device), median"),
            Figure(key: "first_att_ms", value: median(.firstATT), unit: .ms, estimated: false,
                   explanation: "connection complete → first ATT PDU, median"),
            Figure(key: "gatt_discovery_ms", value: median(.gattDiscovery), unit: .ms, estimated: false,
                   explanation: "connection complete → end of GATT discovery, median"),
            Figure(key: "first_data_ms", value: median(.firstData), unit: .ms, estimated: false,
                   explanation: "connection complete → first read response or notification with a value, median"),
            Figure(key: "idle_tail_ms", value: median(.idleTail), unit: .ms, estimated: false,
                   explanation: "last ACL payload → disconnection (or end of capture), median"),
        ]
    }

    package func figure(_ key: String) -> Figure? { figures.first { $0.key == key } }

    /// A device as the report names it: "name (address)" when its advertising named it, else the
    /// address.
    static func deviceLabel(_ peer: BDAddr, in a: AnalysisResult) -> String {
        let device = a.firstDeviceOfAddress[peer].map { a.devices[$0] }
        return device.flatMap { d in d.name.map { "\($0) (\(peer))" } } ?? peer.description
    }
}

extension SumCount {
    /// Mean of the values summed; nil when there were none.
    var mean: Double? { count == 0 ? nil : Double(sum) / Double(count) }
}
