import ScopeAnalysis
import ScopeCore
import ScopeRules

/// Everything a reporter shows about one capture: built once from the analysis and the rule
/// verdicts, then rendered by the text, JSON, JUnit, Markdown and HTML reporters. Times are
/// microseconds internally and rendered as milliseconds relative to frame 1.
public struct Report: Sendable {
    /// Bumped when a key is renamed or removed or its meaning changes (docs/REPORT-SCHEMA.md).
    public static let schemaVersion = 2

    public var tool: ToolInfo
    public var config: ConfigSummary
    public var capture: CaptureSummary
    public var scans: [ScanSummary]
    public var devices: [DeviceSummary]
    public var attempts: [AttemptSummary]
    public var connections: [ConnectionSummary]
    public var pairings: [PairingSummary]
    public var advertising: AdvertisingSummary?
    public var headline: Headline
    /// Most severe first, then by rule id, then by first evidence frame.
    public var findings: [Finding]
    public var rules: [RuleVerdict]
    /// Activity per lane for the HTML timeline (not part of the JSON schema).
    public var timeline: Timeline
    /// Set by `compare(with:budgets:)` when a baseline was given.
    public var baseline: BaselineComparison?
    /// Whose findings the report judges: the app's (and what cannot be told apart from it), or
    /// everyone's (`analyze --judge all`). Counts, the exit status and the reports for people
    /// follow it; JSON lists every finding with its actor either way.
    public var judge = JudgeScope.app
    /// What the system and the peer did, summed (the lines the report for people shows instead
    /// of their findings).
    public var activity: Activity
    /// How many of each list the capture has; the lists above keep the first `listLimit`
    /// (figures and verdicts always count everything).
    public var totals: Totals

    /// Items listed per list (sessions, devices, attempts, connections, pairings, discovery
    /// costs, connection timings): a day-long capture has tens of thousands of sessions.
    public static let listLimit = 1000

    public struct Totals: Sendable, Hashable {
        public var scans = 0, devices = 0, attempts = 0, connections = 0, pairings = 0
        public var discovery = 0, connectionTiming = 0
        public var advertisingData = 0, advertisingSets = 0

        /// (JSON key, items not listed) for every list cut short.
        public var notListed: [(key: String, count: Int)] {
            let limit = Report.listLimit
            return [("scans", scans), ("devices", devices), ("connection_attempts", attempts), ("connections", connections),
                    ("pairing", pairings), ("discovery_cost", discovery), ("connection_timing", connectionTiming),
                    ("advertising_data", advertisingData), ("advertising_sets", advertisingSets)]
                .filter { $0.1 > limit }.map { (key: $0.0, count: $0.1 - limit) }
        }
    }

    /// - Parameter timeline: build ``timeline`` (only the HTML report draws it; it has a tick per
    ///   advertising report and ATT PDU, so other formats skip it).
    public init(analysis a: AnalysisResult, verdicts: [RuleVerdict], tool: ToolInfo, config: ConfigSummary, timeline: Bool = true) {
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
        let summaries = a.connections.prefix(limit).map { ConnectionSummary($0, captureEnd: endTime, rel: rel, actor: actor) }
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
    public mutating func compare(with old: Baseline, budgets: [RegressionBudget]) {
        baseline = BaselineComparison(report: self, baseline: old, budgets: budgets)
    }

    /// Number of findings at or above `level` (omitted ones included) that the report judges.
    public func findings(atOrAbove level: Severity) -> Int {
        Severity.allCases.filter { $0 >= level }.reduce(0) { $0 + findingCount($1) }
    }

    /// Findings of `severity` the report judges (`judge`), listed and omitted (beyond
    /// `FindingList.limit` per rule, severity and side of the attribution).
    public func findingCount(_ severity: Severity) -> Int { rules.reduce(0) { $0 + $1.count(severity, judgedOnly: judge == .app) } }

    /// Findings of `severity` by every actor.
    public func findingCountAll(_ severity: Severity) -> Int { rules.reduce(0) { $0 + $1.count(severity) } }

    /// The findings the report judges, in ``findings``' order.
    public var shownFindings: [Finding] { judge == .all ? findings : findings.filter(\.actor.judgedAsApp) }

    /// Findings not judged (the system's and the peer's), listed and omitted.
    public var notJudgedFindings: Int {
        judge == .all ? 0 : rules.reduce(0) { $0 + $1.totalFindings - $1.totalJudged }
    }

    /// The verdict as the report judges it: violated only by findings it judges; a rule whose
    /// findings are all the system's or the peer's passes for the app.
    public func judgedStatus(_ v: RuleVerdict) -> RuleStatus {
        guard judge == .app, v.status == .violated, v.totalJudged == 0 else { return v.status }
        return .passed
    }

    /// Findings counted but not listed.
    public var omittedFindings: Int { rules.reduce(0) { $0 + $1.omitted.values.reduce(0, +) } }

    public func count(_ status: RuleStatus) -> Int { rules.filter { judgedStatus($0) == status }.count }

    /// The findings of one rule at one severity: what the short text report prints once however
    /// often the rule fired.
    public struct FindingGroup: Sendable {
        /// The rule id (`Finding.rule`, `RuleVerdict.rule`).
        public var rule: String
        public var severity: Severity
        /// The findings kept, in capture order (the first `FindingList.limit`).
        public var findings: [Finding]
        /// Every finding of the rule at this severity, kept and omitted.
        public var total: Int
    }

    /// ``findings`` grouped by severity (most severe first) and rule id, each group counting what
    /// its verdict counts (findings not kept included).
    public var findingGroups: [FindingGroup] {
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
public enum JudgeScope: String, Sendable, CaseIterable {
    /// The app's, and what cannot be told apart from it (`Actor.judgedAsApp`).
    case app
    /// Everyone's: the system's and the peer's too.
    case all
}

public struct ToolInfo: Sendable {
    public var name: String
    public var version: String
    public init(name: String = "hciscope", version: String) {
        self.name = name
        self.version = version
    }
}

/// What configured the rules for this run (file, profile, overrides), as plain key/value lines.
public struct ConfigSummary: Sendable {
    /// Path of the config file, nil for defaults.
    public var source: String?
    /// "ios" or nil.
    public var profile: String?
    /// Settings that differ from the defaults, e.g. ("scan.left-running.max_s", "60").
    public var settings: [(key: String, value: String)]
    public init(source: String? = nil, profile: String? = nil, settings: [(key: String, value: String)] = []) {
        self.source = source
        self.profile = profile
        self.settings = settings
    }
}

public struct CaptureSummary: Sendable {
    public var file: String
    public var format: String
    public var frames: Int
    public var firstTimestamp: Timestamp?
    public var lastTimestamp: Timestamp?
    /// Last frame relative to frame 1.
    public var durationMicros: Int64
    public var health: CaptureHealth
    /// Containers opened and files merged (``CaptureOrigin/isPlain`` for a bare capture).
    public var source: CaptureOrigin
    /// The host stack that recorded it, with the evidence (or the `--platform` choice).
    public var platform: HostPlatform
    /// The HCI traffic: first and last HCI packet and the time between them (nil: none).
    public var traffic: (first: FrameNumber, last: FrameNumber, micros: Int64)?
    /// Silences of an hour or more between records (the first few).
    public var gaps: [CaptureInfo.Gap]
    /// The absolute times come from the file's modification time (raw btsnooz records).
    public var clockFromFileTime: Bool

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
    public var sourceLines: [String] {
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

    public static let sourceLinesListed = 20

    /// True when nothing in the health record deserves a line.
    public var healthy: Bool { healthProblems.isEmpty }

    /// One plain sentence per problem.
    public var healthProblems: [String] {
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
public struct Attributed: Sendable, Hashable {
    public var actor: Actor
    public var evidence: ActorEvidence
    init(_ evidence: ActorEvidence, _ actor: (ActorEvidence) -> Actor) {
        self.evidence = evidence
        self.actor = actor(evidence)
    }
}

public struct ScanSummary: Sendable {
    public var adapter: AdapterIndex
    public var startFrame: FrameNumber
    public var startMicros: Int64
    public var stopFrame: FrameNumber?
    public var stopMicros: Int64?
    public var endMicros: Int64
    public var stillRunningAtEnd: Bool
    public var durationMicros: Int64
    public var api: String
    public var active: Bool
    public var phys: [ScanPHY]
    public var filterDuplicates: UInt8
    public var reports: Int
    public var duplicates: Int
    public var duplicateRatio: Double
    public var duplicateEventBytes: Int
    public var devicesSeen: Int
    public var firstReportFrame: FrameNumber?
    public var lastReportFrame: FrameNumber?
    public var firstDuplicateFrame: FrameNumber?
    /// Estimated: duration × window/interval summed over PHYs.
    public var radioOnMicros: Int64
    /// Whose scan it is (docs/ATTRIBUTION.md).
    public var who: Attributed

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
    public func perSecond(_ count: Int) -> Double? {
        durationMicros > 0 ? Double(count) * 1_000_000 / Double(durationMicros) : nil
    }
}

public struct DeviceSummary: Sendable {
    public var address: String
    public var addressType: UInt8
    public var name: String?
    public var reports: Int
    public var firstFrame: FrameNumber
    public var firstMicros: Int64
    public var lastFrame: FrameNumber
    public var lastMicros: Int64
    public var distinctPayloads: Int
    public var rssiMin: Int8?
    public var rssiMax: Int8?
    public var serviceUUIDs: [String]
    public var manufacturers: [UInt16]
    public var connectable: Bool
    /// Identity address when the address is a resolvable private address resolved with an IRK.
    public var identity: String?

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
    public var label: String { name.map { "\($0) (\(address))" } ?? address }
}

public struct AttemptSummary: Sendable {
    public var adapter: AdapterIndex
    public var requestFrame: FrameNumber
    public var requestMicros: Int64
    public var api: String
    public var peer: String?
    public var filterPolicy: UInt8
    public var cancelFrame: FrameNumber?
    public var completeFrame: FrameNumber?
    public var status: String?
    public var outcome: String
    /// Set when the request ended with its controller before an answer.
    public var lostWithController: ControllerLoss?
    /// Where the controller accepted a later request while this one had no answer
    /// (`ConnectionAttempt.supersededAt`).
    public var supersededFrame: FrameNumber?
    /// Request → complete, cancel or superseded.
    public var pendingMicros: Int64?
    public var connection: String?
    /// Whose request it is (docs/ATTRIBUTION.md).
    public var who: Attributed

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

public struct ConnectionSummary: Sendable {
    public var id: String
    public var adapter: AdapterIndex
    public var handle: UInt16
    public var generation: Int
    public var role: String
    public var peer: String?
    public var requestFrame: FrameNumber?
    public var requestMicros: Int64?
    public var completeFrame: FrameNumber?
    public var completeMicros: Int64?
    public var setupObserved: Bool
    /// Request → connection complete (a request that named its peer).
    public var setupMicros: Int64?
    /// Filter Accept List request → connection complete: waiting for the device.
    public var acceptListWaitMicros: Int64?
    public var intervalMicros: Int64?
    public var latency: Int?
    public var supervisionTimeoutMicros: Int64?
    public var parameterUpdates: Int
    public var phyUpdates: Int
    public var dataLengthChanges: Int
    public var mtu: Int
    public var encrypted: Bool
    /// Durations from the connection complete.
    public var firstATTMicros: Int64?
    public var discoveryMicros: Int64?
    public var firstDataMicros: Int64?
    /// Complete → disconnection complete (or the last frame while still connected).
    public var lifetimeMicros: Int64?
    /// Last ACL payload (or the complete) → disconnection complete (or the last frame).
    public var idleTailMicros: Int64?
    public var stillConnectedAtEnd: Bool
    public var disconnectFrame: FrameNumber?
    public var disconnectMicros: Int64?
    public var disconnectReason: String?
    public var disconnectInitiator: String
    /// Set when the link ended with its controller: no Disconnection Complete, no reason.
    public var lostWithController: ControllerLoss?
    public var attPDUs: Int
    /// Sorted by opcode name.
    public var attByOpcode: [(name: String, count: Int)]
    public var services: Int
    public var characteristics: Int
    /// Estimated link-layer airtime (see RadioModel.connection).
    public var radioEstimate: RadioModel.ConnectionEstimate?
    /// A BR/EDR (classic) link: listed, never judged by LE rules.
    public var classic: Bool { transport == .bredr }
    /// LE, BR/EDR, or unknown (set up before the capture, nothing on it shows which).
    public var transport: Connection.Transport
    /// How the link ended ("local disconnect", "link lost", "still up", …).
    public var end: String
    /// Who asked for the parameters in force ("local", "remote", "unknown"; nil: those of the
    /// connection complete) and where they were applied.
    public var parametersSetBy: String?
    public var parametersSetFrame: FrameNumber?
    public var phy: String?
    public var dataLength: (tx: Int, rx: Int)?
    /// Whose connection it is (docs/ATTRIBUTION.md).
    public var who: Attributed

    /// The contract name of every ATT opcode (``ContractNames/attOpcode(_:)``), and its place in
    /// the names' order (opcodes of one name share it).
    static let attOpcodeNames: (names: [String], order: [Int]) = {
        let names = (0...255).map { ContractNames.attOpcode(UInt8($0)) }
        var place: [String: Int] = [:]
        for (i, name) in Set(names).sorted().enumerated() { place[name] = i }
        return (names, names.map { place[$0]! })
    }()

    init(_ c: Connection, captureEnd: Timestamp, rel: (Timestamp) -> Int64, actor: (ActorEvidence) -> Actor) {
        who = Attributed(c.attribution, actor)
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
        idleTailMicros = c.idleTailMicros(captureEnd: captureEnd)
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
        (services, characteristics) = c.gatt.counts
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

public struct PairingSummary: Sendable {
    public var connection: String
    public var requestFrame: FrameNumber
    public var requestMicros: Int64
    public var initiatedBy: String
    public var method: String
    public var secureConnections: Bool
    public var bonding: Bool?
    public var mitm: Bool?
    public var initiatorIOCapability: UInt8?
    public var responderIOCapability: UInt8?
    /// Each side's pairing PDU: who sent it and what it asked for (SC, MITM, bonding), so a
    /// report names the side that lacked a feature.
    public var initiatorFeatures: SideFeatures?
    public var responderFeatures: SideFeatures?
    public var repeatsBondFrame: FrameNumber?
    public var linkLostFrame: FrameNumber?

    public struct SideFeatures: Sendable, Hashable {
        public var side: String
        public var frame: FrameNumber
        public var secureConnections: Bool
        public var mitm: Bool
        public var bonding: Bool
        public var keySize: UInt8
    }
    public var keySize: UInt8?
    public var result: String
    public var reason: UInt8?
    public var failedFrame: FrameNumber?
    public var encryptionFrame: FrameNumber?
    /// Request → encryption change or pairing failed.
    public var durationMicros: Int64?

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

public struct AdvertisingSummary: Sendable {
    public struct DataSet: Sendable {
        public var frame: FrameNumber
        public var atMicros: Int64
        public var command: String
        public var handle: UInt8?
        public var kind: String
        public var legacyPDUs: Bool
        public var length: Int
        public var status: UInt8?
        public var who: Attributed
    }
    public struct Span: Sendable {
        public var handle: UInt8?
        public var api: String
        public var connectable: Bool
        public var intervalMicros: Int64?
        public var startFrame: FrameNumber
        public var startMicros: Int64
        public var stopFrame: FrameNumber?
        public var stopMicros: Int64?
        public var stoppedBy: String
        public var enabledMicros: Int64
        public var connectedWhileEnabledMicros: Int64
        /// Estimated (legacy 1M model), see RadioModel.advertising.
        public var estimate: RadioModel.AdvertisingEstimate?
        public var who: Attributed
    }
    public var dataSets: [DataSet]
    public var spans: [Span]
    public var maxAdvertisingDataLength: Int?
    public var supportedStates: UInt64?

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
