import ScopeAnalysis
import ScopeCore
import ScopeRules

/// Everything a reporter shows about one capture: built once from the analysis and the rule
/// verdicts, then rendered by the text, JSON, JUnit, Markdown and HTML reporters. Times are
/// microseconds internally and rendered as milliseconds relative to frame 1.
package struct Report: Sendable {
    /// Bumped when a key is renamed or removed or its meaning changes (docs/REPORT-SCHEMA.md).
    package static let schemaVersion = 2

    package var tool: ToolInfo
    package var config: ConfigSummary
    package var capture: CaptureSummary
    package var scans: [ScanSummary]
    package var devices: [DeviceSummary]
    package var attempts: [AttemptSummary]
    package var connections: [ConnectionSummary]
    package var pairings: [PairingSummary]
    package var advertising: AdvertisingSummary?
    package var headline: Headline
    /// Most severe first, then by rule id, then by first evidence frame.
    package var findings: [Finding]
    package var rules: [RuleVerdict]
    /// Activity per lane for the HTML timeline (not part of the JSON schema).
    package var timeline: Timeline
    /// Set by `compare(with:budgets:)` when a baseline was given.
    package var baseline: BaselineComparison?
    /// Whose findings the report judges: the app's (and what cannot be told apart from it), or
    /// everyone's (`analyze --judge all`). Counts, the exit status and the reports for people
    /// follow it; JSON lists every finding with its actor either way.
    package var judge = JudgeScope.app
    /// What the system and the peer did, summed (the lines the report for people shows instead
    /// of their findings).
    package var activity: Activity
    /// How many of each list the capture has; the lists above keep the first `listLimit`
    /// (figures and verdicts always count everything).
    package var totals: Totals

    /// Items listed per list (sessions, devices, attempts, connections, pairings, discovery
    /// costs, connection timings): a day-long capture has tens of thousands of sessions.
    package static let listLimit = 1000

    package struct Totals: Sendable, Hashable {
        package var scans = 0, devices = 0, attempts = 0, connections = 0, pairings = 0
        package var discovery = 0, connectionTiming = 0
        package var advertisingData = 0, advertisingSets = 0

        /// (JSON key, items not listed) for every list cut short.
        package var notListed: [(key: String, count: Int)] {
            let limit = Report.listLimit
            return [("scans", scans), ("devices", devices), ("connection_attempts", attempts), ("connections", connections),
                    ("pairing", pairings), ("discovery_cost", discovery), ("connection_timing", connectionTiming),
                    ("advertising_data", advertisingData), ("advertising_sets", advertisingSets)]
                .filter { $0.1 > limit }.map { (key: $0.0, count: $0.1 - limit) }
        }
    }

    /// - Parameter timeline: build ``timeline`` (only the HTML report draws it; it has a tick per
    ///   advertising report and ATT PDU, so other formats skip it).
    package init(analysis a: AnalysisResult, verdicts: [RuleVerdict], tool: ToolInfo, config: ConfigSummary, timeline: Bool = true) {
        let origin = a.origin
        func rel(_ t: Timestamp) -> Int64 { t.microseconds &- origin.microseconds }
        self.tool = tool
        self.config = config
        self.capture = CaptureSummary(a.capture, origin: origin)
        let limit = Self.listLimit
        let actor = { (e: ActorEvidence) in a.actor(e) }
        self.scans = a.scans.prefix(limit).map { ScanSummary($0, rel: rel, actor: actor) }
        self.devices = a.devices.prefix(limit).map { DeviceSummary($0, rel: rel) }
        self.attempts = a.attempts.prefix(limit).map { AttemptSummary($0, rel: rel, actor: actor) }
        let endTime = a.capture.lastTimestamp ?? origin
        // Only the connections listed are summarised (a long capture's are not all listed), once:
        // the headline's connection timings read the same summaries.
        let summaries = a.connections.prefix(limit).map {
            ConnectionSummary($0, captureEnd: endTime, summaryOnly: a.capture.origin.summaryOnly, rel: rel, actor: actor)
        }
        self.connections = summaries
        self.pairings = a.pairings.prefix(limit).map { PairingSummary($0, rel: rel) }
        self.advertising = a.advertising.map { AdvertisingSummary($0, rel: rel, actor: actor) }
        let headline = Headline(analysis: a, connections: summaries, listLimit: limit, rel: rel)
        // Items handed over on the way count too.
        let r = a.handedOver
        self.totals = Totals(
            scans: a.scanTotals.sessions, devices: a.devices.count + r.devices, attempts: a.attempts.count + r.attempts,
            connections: a.connections.count + r.connections, pairings: a.pairings.count + r.pairings,
            discovery: headline.discoveryTotal, connectionTiming: headline.connectionTimingTotal,
            advertisingData: (a.advertising?.dataCommands.count ?? 0) + r.advertisingData,
            advertisingSets: (a.advertising?.spans.count ?? 0) + r.advertisingSpans)
        self.headline = headline
        self.activity = Activity(analysis: a, verdicts: verdicts)
        self.findings = verdicts.flatMap(\.findings).sorted(by: Report.findingOrder)
        self.rules = verdicts.sorted { $0.rule < $1.rule }
        self.timeline = timeline ? Timeline(analysis: a, rel: rel) : Timeline(durationMicros: max(1, a.capture.lastTimestamp.map(rel) ?? 1))
    }

    static func findingOrder(_ a: Finding, _ b: Finding) -> Bool {
        if a.severity != b.severity { return a.severity > b.severity }
        if a.rule != b.rule { return a.rule < b.rule }
        let fa = a.evidence.first ?? 0
        let fb = b.evidence.first ?? 0
        if fa != fb { return fa < fb }
        return a.subject < b.subject
    }

    /// Attaches the comparison with an earlier run.
    package mutating func compare(with old: Baseline, budgets: [RegressionBudget]) {
        baseline = BaselineComparison(report: self, baseline: old, budgets: budgets)
    }

    /// Number of findings at or above `level` (omitted ones included) that the report judges.
    package func findings(atOrAbove level: Severity) -> Int {
        Severity.allCases.filter { $0 >= level }.reduce(0) { $0 + findingCount($1) }
    }

    /// Findings of `severity` the report judges (`judge`), listed and omitted (beyond
    /// `FindingList.limit` per rule, severity and side of the attribution).
    package func findingCount(_ severity: Severity) -> Int { rules.reduce(0) { $0 + $1.count(severity, judgedOnly: judge == .app) } }

    /// Findings of `severity` by every actor.
    package func findingCountAll(_ severity: Severity) -> Int { rules.reduce(0) { $0 + $1.count(severity) } }

    /// The findings the report judges, in ``findings``' order.
    package var shownFindings: [Finding] { judge == .all ? findings : findings.filter(\.actor.judgedAsApp) }

    /// Findings not judged (the system's and the peer's), listed and omitted.
    package var notJudgedFindings: Int {
        judge == .all ? 0 : rules.reduce(0) { $0 + $1.totalFindings - $1.totalJudged }
    }

    /// The verdict as the report judges it: violated only by findings it judges; a rule whose
    /// findings are all the system's or the peer's passes for the app.
    package func judgedStatus(_ v: RuleVerdict) -> RuleStatus {
        guard judge == .app, v.status == .violated, v.totalJudged == 0 else { return v.status }
        return .passed
    }

    /// Findings counted but not listed.
    package var omittedFindings: Int { rules.reduce(0) { $0 + $1.omitted.values.reduce(0, +) } }

    package func count(_ status: RuleStatus) -> Int { rules.filter { judgedStatus($0) == status }.count }

    /// The findings of one rule at one severity: what the short text report prints once however
    /// often the rule fired.
    package struct FindingGroup: Sendable {
        /// The rule id (`Finding.rule`, `RuleVerdict.rule`).
        package var rule: String
        package var severity: Severity
        /// The findings kept, in capture order (the first `FindingList.limit`).
        package var findings: [Finding]
        /// Every finding of the rule at this severity, kept and omitted.
        package var total: Int
    }

    /// ``findings`` grouped by severity (most severe first) and rule id, each group counting what
    /// its verdict counts (findings not kept included).
    package var findingGroups: [FindingGroup] {
        struct Key: Hashable { var rule: String, severity: Severity }
        var groups: [FindingGroup] = []
        var index: [Key: Int] = [:]
        // `findings` is sorted by severity, then rule, then first frame: one pass keeps that order.
        for f in shownFindings {
            let key = Key(rule: f.rule, severity: f.severity)
            if let i = index[key] {
                groups[i].findings.append(f)
            } else {
                index[key] = groups.count
                let total = rules.first { $0.rule == f.rule }?.count(f.severity, judgedOnly: judge == .app) ?? 0
                groups.append(FindingGroup(rule: f.rule, severity: f.severity, findings: [f], total: total))
            }
        }
        for i in groups.indices { groups[i].total = max(groups[i].total, groups[i].findings.count) }
        return groups
    }
}

/// Whose findings a report judges (`analyze --judge`).
package enum JudgeScope: String, Sendable, CaseIterable {
    /// The app's, and what cannot be told apart from it (`Actor.judgedAsApp`).
    case app
    /// Everyone's: the system's and the peer's too.
    case all
}

package struct ToolInfo: Sendable {
    package var name: String
    package var version: String
    package init(name: String = "hciscope", version: String) {
        self.name = name
        self.version = version
    }
}

/// What configured the rules for this run (file, profile, overrides), as plain key/value lines.
package struct ConfigSummary: Sendable {
    /// Path of the config file, nil for defaults.
    package var source: String?
    /// "ios" or nil.
    package var profile: String?
    /// Settings that differ from the defaults, e.g. ("scan.left-running.max_s", "60").
    package var settings: [(key: String, value: String)]
    package init(source: String? = nil, profile: String? = nil, settings: [(key: String, value: String)] = []) {
        self.source = source
        self.profile = profile
        self.settings = settings
    }
}

package struct CaptureSummary: Sendable {
    package var file: String
    package var format: String
    package var frames: Int
    package var firstTimestamp: Timestamp?
    package var lastTimestamp: Timestamp?
    /// Last frame relative to frame 1.
    package var durationMicros: Int64
    package var health: CaptureHealth
    /// Containers opened and files merged (``CaptureOrigin/isPlain`` for a bare capture).
    package var source: CaptureOrigin
    /// The host stack that recorded it, with the evidence (or the `--platform` choice).
    package var platform: HostPlatform
    /// The HCI traffic: first and last HCI packet and the time between them (nil: none).
    package var traffic: (first: FrameNumber, last: FrameNumber, micros: Int64)?
    /// Silences of an hour or more between records (the first few).
    package var gaps: [CaptureInfo.Gap]
    /// ``traffic`` where it says something beside the capture's span: it reads differently
    /// ("12.1 s" twice says nothing).
    package var trafficToShow: (first: FrameNumber, last: FrameNumber, micros: Int64)? {
        guard let t = traffic, ReadableDuration.text(t.micros) != ReadableDuration.text(durationMicros) else { return nil }
        return t
    }
    /// The absolute times come from the file's modification time (raw btsnooz records).
    package var clockFromFileTime: Bool

    init(_ c: CaptureInfo, origin: Timestamp) {
        source = c.origin
        platform = c.platform
        if let f = c.firstTraffic, let l = c.lastTraffic {
            traffic = (f.frame, l.frame, l.time.microseconds &- f.time.microseconds)
        }
        gaps = c.gaps
        clockFromFileTime = c.health.notes.firstIndex(of: .clockFromFileTime) != nil
        file = c.file
        format = c.format
        frames = c.frames
        firstTimestamp = c.firstTimestamp
        lastTimestamp = c.lastTimestamp
        durationMicros = (c.lastTimestamp?.microseconds ?? origin.microseconds) &- origin.microseconds
        health = c.health
    }

    /// Where the capture came from, in one line per fact (empty for a bare capture file): what
    /// the input was, the files merged, the files left out and why.
    /// At most ``sourceLinesListed`` files merged and as many left out are named one per line
    /// (a sysdiagnose of 25,000 logs is one line of count; JSON names every one).
    package var sourceLines: [String] {
        let o = source
        guard !o.isPlain else { return [] }
        var out = ["from: " + o.description]
        let n = Self.sourceLinesListed
        if o.members.count > 1 {
            for m in o.members.prefix(n) { out.append("  merged: \(m.name) (\(m.format))") }
            if o.members.count > n { out.append("  merged: … and \(o.members.count - n) more") }
        }
        for l in o.leftOut.prefix(n) { out.append("  left out: \(l.name): \(l.reason)") }
        if o.leftOut.count > n { out.append("  left out: … and \(o.leftOut.count - n) more") }
        return out
    }

    package static let sourceLinesListed = 20

    /// True when nothing in the health record deserves a line.
    package var healthy: Bool { healthProblems.isEmpty }

    /// One plain sentence per problem.
    package var healthProblems: [String] {
        var out: [String] = []
        let h = health
        // The analysis explains truncated ACL and missing setup in its own notes (appended below);
        // the short forms here are for results whose notes do not.
        var explainsTruncatedACL = false, explainsSetup = false
        for note in h.notes {
            switch note {
            case .truncatedACL: explainsTruncatedACL = true
            case .setupNotCaptured: explainsSetup = true
            default: break
            }
        }
        if h.truncatedACL > 0 {
            if !explainsTruncatedACL {
                out.append("\(h.truncatedACL) ACL record(s) truncated: ATT/GATT analysis is incomplete")
            }
        } else if h.truncatedRecords > 0 {
            out.append("\(h.truncatedRecords) record(s) truncated")
        }
        if h.drops > 0 { out.append("\(h.drops) packet(s) dropped by the capture source") }
        if h.backwardTimestamps > 0 { out.append("\(h.backwardTimestamps) timestamp(s) go backwards") }
        if h.implausibleTimestamps > 0 { out.append("\(h.implausibleTimestamps) implausible timestamp(s)") }
        if h.epochSkewSuspected { out.append("clock looks skewed by ±378 days") }
        if h.unknownRecords > 0 { out.append("\(h.unknownRecords) record(s) of unknown type") }
        if h.malformedFrames > 0 { out.append("\(h.malformedFrames) malformed frame(s)") }
        if h.readErrors > 0 { out.append("\(h.readErrors) read error(s)") }
        if !h.handlesWithoutSetup.isEmpty && !explainsSetup {
            let list = h.handlesWithoutSetup.map { Hex.prefixed($0, digits: 4) }.joined(separator: ", ")
            out.append("connection setup not captured for handle(s) \(list)")
        }
        out.append(contentsOf: h.notes.map(\.text))
        return out
    }
}

/// Who did an item, and the signal that says so (docs/ATTRIBUTION.md).
package struct Attributed: Sendable, Hashable {
    package var actor: Actor
    package var evidence: ActorEvidence
    init(_ evidence: ActorEvidence, _ actor: (ActorEvidence) -> Actor) {
        self.evidence = evidence
        self.actor = actor(evidence)
    }
}

package struct ScanSummary: Sendable {
    package var adapter: AdapterIndex
    package var startFrame: FrameNumber
    package var startMicros: Int64
    package var stopFrame: FrameNumber?
    package var stopMicros: Int64?
    package var endMicros: Int64
    package var stillRunningAtEnd: Bool
    package var durationMicros: Int64
    package var api: String
    package var active: Bool
    package var phys: [ScanPHY]
    package var filterDuplicates: UInt8
    package var reports: Int
    package var duplicates: Int
    package var duplicateRatio: Double
    package var duplicateEventBytes: Int
    package var devicesSeen: Int
    package var firstReportFrame: FrameNumber?
    package var lastReportFrame: FrameNumber?
    package var firstDuplicateFrame: FrameNumber?
    /// Estimated: duration × window/interval summed over PHYs.
    package var radioOnMicros: Int64
    /// Whose scan it is (docs/ATTRIBUTION.md).
    package var who: Attributed

    init(_ s: ScanSession, rel: (Timestamp) -> Int64, actor: (ActorEvidence) -> Actor) {
        who = Attributed(s.attribution, actor)
        adapter = s.adapter
        startFrame = s.start.frame
        startMicros = rel(s.start.time)
        stopFrame = s.stop?.frame
        stopMicros = s.stop.map { rel($0.time) }
        endMicros = rel((s.stop ?? s.end).time)
        stillRunningAtEnd = s.stillRunningAtEnd
        durationMicros = s.durationMicros
        api = s.api.rawValue
        active = s.active
        phys = s.phys
        filterDuplicates = s.filterDuplicates
        reports = s.reports
        duplicates = s.duplicates
        duplicateRatio = s.duplicateRatio
        duplicateEventBytes = s.duplicateEventBytes
        devicesSeen = s.devicesSeen
        firstReportFrame = s.firstReport?.frame
        lastReportFrame = s.lastReport?.frame
        firstDuplicateFrame = s.firstDuplicate?.frame
        radioOnMicros = s.radioOnMicros
    }

    /// Per second of scanning, nil for a zero-length session.
    package func perSecond(_ count: Int) -> Double? {
        durationMicros > 0 ? Double(count) * 1_000_000 / Double(durationMicros) : nil
    }
}

package struct DeviceSummary: Sendable {
    package var address: String
    package var addressType: UInt8
    package var name: String?
    package var reports: Int
    package var firstFrame: FrameNumber
    package var firstMicros: Int64
    package var lastFrame: FrameNumber
    package var lastMicros: Int64
    package var distinctPayloads: Int
    package var rssiMin: Int8?
    package var rssiMax: Int8?
    package var serviceUUIDs: [String]
    package var manufacturers: [UInt16]
    package var connectable: Bool
    /// Identity address when the address is a resolvable private address resolved with an IRK.
    package var identity: String?

    init(_ d: Device, rel: (Timestamp) -> Int64) {
        address = d.address.description
        identity = d.identity?.description
        addressType = d.addressType
        name = d.name
        reports = d.reports
        firstFrame = d.first.frame
        firstMicros = rel(d.first.time)
        lastFrame = d.last.frame
        lastMicros = rel(d.last.time)
        distinctPayloads = d.distinctPayloads
        rssiMin = d.rssiMin
        rssiMax = d.rssiMax
        serviceUUIDs = d.serviceUUIDs
        manufacturers = d.manufacturers
        connectable = d.connectable
    }

    /// "Heart Rate Strap (FB:15:C9:74:99:D9)" or the address alone.
    package var label: String { name.map { "\($0) (\(address))" } ?? address }
}

package struct AttemptSummary: Sendable {
    package var adapter: AdapterIndex
    package var requestFrame: FrameNumber
    package var requestMicros: Int64
    package var api: String
    package var peer: String?
    package var filterPolicy: UInt8
    package var cancelFrame: FrameNumber?
    package var completeFrame: FrameNumber?
    package var status: String?
    package var outcome: String
    /// Set when the request ended with its controller before an answer.
    package var lostWithController: ControllerLoss?
    /// Where the controller accepted a later request while this one had no answer
    /// (`ConnectionAttempt.supersededAt`).
    package var supersededFrame: FrameNumber?
    /// Request → complete, cancel or superseded.
    package var pendingMicros: Int64?
    package var connection: String?
    /// Whose request it is (docs/ATTRIBUTION.md).
    package var who: Attributed

    init(_ a: ConnectionAttempt, rel: (Timestamp) -> Int64, actor: (ActorEvidence) -> Actor) {
        who = Attributed(a.attribution, actor)
        adapter = a.adapter
        requestFrame = a.request.frame
        requestMicros = rel(a.request.time)
        api = a.api.rawValue
        peer = a.peer?.description
        filterPolicy = a.filterPolicy
        cancelFrame = a.cancel?.frame
        completeFrame = a.complete?.frame
        status = a.status.map(ContractNames.hciStatus)
        outcome = a.outcome.rawValue
        lostWithController = a.lostWithController
        supersededFrame = a.supersededAt?.frame
        if let end = a.complete ?? a.cancel ?? a.supersededAt { pendingMicros = end.time.microseconds &- a.request.time.microseconds }
        connection = a.connection?.description
    }
}

package struct ConnectionSummary: Sendable {
    package var id: String
    package var adapter: AdapterIndex
    package var handle: UInt16
    package var generation: Int
    package var role: String
    package var peer: String?
    package var requestFrame: FrameNumber?
    package var requestMicros: Int64?
    package var completeFrame: FrameNumber?
    package var completeMicros: Int64?
    package var setupObserved: Bool
    /// Request → connection complete (a request that named its peer).
    package var setupMicros: Int64?
    /// Filter Accept List request → connection complete: waiting for the device.
    package var acceptListWaitMicros: Int64?
    package var intervalMicros: Int64?
    package var latency: Int?
    package var supervisionTimeoutMicros: Int64?
    package var parameterUpdates: Int
    package var phyUpdates: Int
    package var dataLengthChanges: Int
    package var mtu: Int
    package var encrypted: Bool
    /// Durations from the connection complete.
    package var firstATTMicros: Int64?
    package var discoveryMicros: Int64?
    package var firstDataMicros: Int64?
    /// Complete → disconnection complete (or the last frame while still connected).
    package var lifetimeMicros: Int64?
    /// Last ACL payload (or the complete) → disconnection complete (or the last frame).
    package var idleTailMicros: Int64?
    package var stillConnectedAtEnd: Bool
    package var disconnectFrame: FrameNumber?
    package var disconnectMicros: Int64?
    package var disconnectReason: String?
    package var disconnectInitiator: String
    /// Set when the link ended with its controller: no Disconnection Complete, no reason.
    package var lostWithController: ControllerLoss?
    package var attPDUs: Int
    /// Sorted by opcode name.
    package var attByOpcode: [(name: String, count: Int)]
    package var services: Int
    package var characteristics: Int
    /// Estimated link-layer airtime (see RadioModel.connection).
    package var radioEstimate: RadioModel.ConnectionEstimate?
    /// A BR/EDR (classic) link: listed, never judged by LE rules.
    package var classic: Bool { transport == .bredr }
    /// LE, BR/EDR, or unknown (set up before the capture, nothing on it shows which).
    package var transport: Connection.Transport
    /// How the link ended ("local disconnect", "link lost", "still up", …).
    package var end: String
    /// Who asked for the parameters in force ("local", "remote", "unknown"; nil: those of the
    /// connection complete) and where they were applied.
    package var parametersSetBy: String?
    package var parametersSetFrame: FrameNumber?
    package var phy: String?
    package var dataLength: (tx: Int, rx: Int)?
    /// Whose connection it is (docs/ATTRIBUTION.md).
    package var who: Attributed
    /// Read RSSI answers on the link, and the peer's last advertising report before it came up.
    package var rssiReadings: RSSIReadings
    package var peerAdvertisingRSSI: RSSIReading?

    /// The contract name of every ATT opcode (``ContractNames/attOpcode(_:)``), and its place in
    /// the names' order (opcodes of one name share it).
    static let attOpcodeNames: (names: [String], order: [Int]) = {
        let names = (0...255).map { ContractNames.attOpcode(UInt8($0)) }
        var place: [String: Int] = [:]
        for (i, name) in Set(names).sorted().enumerated() { place[name] = i }
        return (names, names.map { place[$0]! })
    }()

    init(
        _ c: Connection, captureEnd: Timestamp, summaryOnly: Bool, rel: (Timestamp) -> Int64, actor: (ActorEvidence) -> Actor
    ) {
        who = Attributed(c.attribution, actor)
        rssiReadings = c.rssiReadings
        peerAdvertisingRSSI = c.peerAdvertisingRSSI
        transport = c.transport
        end = c.end.label
        parametersSetBy = c.parametersSetBy?.rawValue
        parametersSetFrame = c.parametersSetAt?.frame
        phy = c.phyUpdates.last.map { u in u.tx == u.rx ? Self.phyName(u.tx) : "\(Self.phyName(u.tx))/\(Self.phyName(u.rx))" }
        dataLength = c.dataLengthChanges.last.map { (tx: $0.maxTXOctets, rx: $0.maxRXOctets) }
        id = c.id.description
        adapter = c.id.adapter
        handle = c.id.handle
        generation = c.id.generation
        role = c.role.rawValue
        peer = c.peer?.description
        requestFrame = c.request?.frame
        requestMicros = c.request.map { rel($0.time) }
        completeFrame = c.complete?.frame
        completeMicros = c.complete.map { rel($0.time) }
        setupObserved = c.setupObserved
        setupMicros = c.setupMicros
        acceptListWaitMicros = c.acceptListWaitMicros
        intervalMicros = c.parameterUpdates.last?.intervalMicros ?? c.intervalMicros
        latency = c.parameterUpdates.last?.peripheralLatency ?? c.peripheralLatency
        supervisionTimeoutMicros = c.parameterUpdates.last?.supervisionTimeoutMicros ?? c.supervisionTimeoutMicros
        parameterUpdates = c.parameterUpdates.count
        phyUpdates = c.phyUpdates.count
        dataLengthChanges = c.dataLengthChanges.count
        mtu = c.mtu
        encrypted = c.encryption.lastSuccess != nil
        firstATTMicros = c.sinceComplete(c.firstATT)
        discoveryMicros = c.sinceComplete(c.discoveryEnd)
        firstDataMicros = c.sinceComplete(c.firstData)
        stillConnectedAtEnd = c.disconnect == nil
        lifetimeMicros = c.lifetimeMicros(captureEnd: captureEnd)
        idleTailMicros = c.idleTailMicros(captureEnd: captureEnd, summaryOnly: summaryOnly)
        disconnectFrame = c.disconnect?.frame
        disconnectMicros = c.disconnect.map { rel($0.time) }
        disconnectReason = c.disconnectReason.map(ContractNames.hciStatus)
        disconnectInitiator = c.disconnectInitiator.rawValue
        lostWithController = c.lostWithController
        attPDUs = c.attCount
        // By name (opcodes of one name summed): the opcodes are put in name order by their places
        // in ``attOpcodeNames``, worked out once, rather than by naming and comparing per connection.
        let names = Self.attOpcodeNames
        let ranked = c.attTotals.opcodeCounts.sorted { names.order[Int($0.opcode)] < names.order[Int($1.opcode)] }
        var byName: [(name: String, count: Int)] = []
        byName.reserveCapacity(ranked.count)
        var lastOrder = -1
        for item in ranked {
            let order = names.order[Int(item.opcode)]
            if order == lastOrder {
                byName[byName.count - 1].count += Int(item.count)
            } else {
                byName.append((name: names.names[Int(item.opcode)], count: Int(item.count)))
            }
            lastOrder = order
        }
        attByOpcode = byName
        (services, characteristics) = c.gattCounts
        radioEstimate = RadioModel.connection(c, lifetimeMicros: lifetimeMicros)
    }

    /// "1M", "2M", "Coded".
    static func phyName(_ v: UInt8) -> String {
        switch v {
        case 1: return "1M"
        case 2: return "2M"
        case 3: return "Coded"
        default: return "PHY \(v)"
        }
    }
}

package struct PairingSummary: Sendable {
    package var connection: String
    package var requestFrame: FrameNumber
    package var requestMicros: Int64
    package var initiatedBy: String
    package var method: String
    package var secureConnections: Bool
    package var bonding: Bool?
    package var mitm: Bool?
    package var initiatorIOCapability: UInt8?
    package var responderIOCapability: UInt8?
    /// Each side's pairing PDU: who sent it and what it asked for (SC, MITM, bonding), so a
    /// report names the side that lacked a feature.
    package var initiatorFeatures: SideFeatures?
    package var responderFeatures: SideFeatures?
    package var repeatsBondFrame: FrameNumber?
    package var linkLostFrame: FrameNumber?

    package struct SideFeatures: Sendable, Hashable {
        package var side: String
        package var frame: FrameNumber
        package var secureConnections: Bool
        package var mitm: Bool
        package var bonding: Bool
        package var keySize: UInt8
    }
    package var keySize: UInt8?
    package var result: String
    package var reason: UInt8?
    package var failedFrame: FrameNumber?
    package var encryptionFrame: FrameNumber?
    /// Request → encryption change or pairing failed.
    package var durationMicros: Int64?

    init(_ p: Pairing, rel: (Timestamp) -> Int64) {
        connection = p.connection.description
        requestFrame = p.request.frame
        requestMicros = rel(p.request.time)
        initiatedBy = p.initiatedBy.rawValue
        method = p.method.rawValue
        secureConnections = p.secureConnections
        if let i = p.initiator, let r = p.responder {
            bonding = i.bonding && r.bonding
            mitm = i.mitm || r.mitm
            keySize = min(i.maxKeySize, r.maxKeySize)
        }
        initiatorIOCapability = p.initiator?.ioCapability
        responderIOCapability = p.responder?.ioCapability
        let responseSide: Side = p.initiatedBy == .local ? .remote : p.initiatedBy == .remote ? .local : .unknown
        initiatorFeatures = p.initiator.map {
            SideFeatures(side: p.initiatedBy.rawValue, frame: p.request.frame, secureConnections: $0.secureConnections, mitm: $0.mitm,
                         bonding: $0.bonding, keySize: $0.maxKeySize)
        }
        if let r = p.responder, let frame = p.response?.frame {
            responderFeatures = SideFeatures(side: responseSide.rawValue, frame: frame, secureConnections: r.secureConnections, mitm: r.mitm,
                                             bonding: r.bonding, keySize: r.maxKeySize)
        }
        repeatsBondFrame = p.repeatsBond?.frame
        linkLostFrame = p.linkLost?.frame
        result = p.result.rawValue
        reason = p.reason
        failedFrame = p.failed?.frame
        encryptionFrame = p.encryption?.frame
        if let end = p.encryption ?? p.failed { durationMicros = end.time.microseconds &- p.request.time.microseconds }
    }
}

package struct AdvertisingSummary: Sendable {
    package struct DataSet: Sendable {
        package var frame: FrameNumber
        package var atMicros: Int64
        package var command: String
        package var handle: UInt8?
        package var kind: String
        package var legacyPDUs: Bool
        package var length: Int
        package var status: UInt8?
        package var who: Attributed
    }
    package struct Span: Sendable {
        package var handle: UInt8?
        package var api: String
        package var connectable: Bool
        package var intervalMicros: Int64?
        package var startFrame: FrameNumber
        package var startMicros: Int64
        package var stopFrame: FrameNumber?
        package var stopMicros: Int64?
        package var stoppedBy: String
        package var enabledMicros: Int64
        package var connectedWhileEnabledMicros: Int64
        /// Estimated (legacy 1M model), see RadioModel.advertising.
        package var estimate: RadioModel.AdvertisingEstimate?
        package var who: Attributed
    }
    package var dataSets: [DataSet]
    package var spans: [Span]
    package var maxAdvertisingDataLength: Int?
    package var supportedStates: UInt64?

    init(_ a: AdvertisingActivity, rel: (Timestamp) -> Int64, actor: (ActorEvidence) -> Actor) {
        dataSets = a.dataCommands.prefix(Report.listLimit).map {
            DataSet(
                frame: $0.at.frame, atMicros: rel($0.at.time), command: $0.command, handle: $0.advertisingHandle,
                kind: $0.kind.rawValue, legacyPDUs: $0.legacyPDUs, length: $0.length, status: $0.status,
                who: Attributed($0.attribution, actor))
        }
        spans = a.spans.prefix(Report.listLimit).map { s in
            Span(
                handle: s.advertisingHandle, api: s.api.rawValue, connectable: s.connectable, intervalMicros: s.intervalMicros,
                startFrame: s.start.frame, startMicros: rel(s.start.time), stopFrame: s.stop?.frame,
                stopMicros: s.stop.map { rel($0.time) }, stoppedBy: s.stoppedBy, enabledMicros: s.enabledMicros,
                connectedWhileEnabledMicros: s.connectedWhileEnabledMicros,
                estimate: RadioModel.advertising(dataLength: s.dataLength ?? 0, intervalMicros: s.intervalMicros,
                                                 enabledMicros: s.enabledMicros),
                who: Attributed(s.attribution, actor))
        }
        maxAdvertisingDataLength = a.maxAdvertisingDataLength
        supportedStates = a.supportedStates
    }
}
