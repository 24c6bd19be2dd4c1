import ScopeAnalysis
import ScopeCore

/// What a rule's fold reads: what an analysis still holds at the end, or a batch handed over on
/// the way (`SettledBatch`). Each item is in exactly one view, so the folds over every view are
/// the tally of the whole capture. A class: every rule of an evaluation reads the same view (a
/// value holding the batch's `AnalysisResult` was copied for each rule, 2 % of a run's
/// instructions on the durnerj replay).
final class ItemView {
    let attempts: [ConnectionAttempt]
    let connections: [Connection]
    let pairings: [Pairing]
    /// The pairings of `connections` (`pairings` with the ones that stay).
    let connectionPairings: [Pairing]
    /// The connections the pairings of the view took place on (as far as the view holds them).
    var connectionsOfPairings: [Connection] { connections }
    /// Whose doing the local side of each of `connectionsOfPairings` is
    /// (`Connection.localAttribution`), by id, made once per view (read in place: a connection
    /// copied is a retain of each of its lists).
    private lazy var pairingLinkAttributions: [ConnectionID: ActorEvidence] = {
        let links = connectionsOfPairings
        var byID: [ConnectionID: ActorEvidence] = [:]
        for i in links.indices { byID[links[i].id] = links[i].localAttribution }
        return byID
    }()
    /// Whose doing the local side of the link of a pairing (`Pairing.connection`) is: the
    /// link's `localAttribution`, or a local request when the view does not hold the link.
    func localAttribution(ofPairingLink id: ConnectionID) -> ActorEvidence {
        pairingLinkAttributions[id] ?? .localRequest
    }
    let reconnections: [Reconnection]
    let dataCommands: [AdvertisingDataCommand]
    let spans: [AdvertisingSpan]
    /// Supported states and maximum data length (as read by then, for a batch).
    let advertising: AdvertisingActivity?
    /// The last frame: only the view of the end has one (items still pending there are judged
    /// up to it; a batch holds settled items only).
    let lastFrame: FrameTime?
    /// The host stack that recorded the capture (as far as the frames up to the batch tell).
    let platform: HostPlatform
    /// The capture holds no ACL data (a btsnooz summary, or no ACL record so far): idle times
    /// cannot be measured.
    let aclFree: Bool
    /// What the rules that read connections' ATT detail and scan sessions judge (`RuleScope`
    /// `.connection` and `.scan`): a batch's closed connections (with their ATT detail and
    /// pairings) and closed scan sessions, or at the end the connections no batch judged and the
    /// sessions still held; with the capture as far as it was read (`capture`, health).
    let detail: AnalysisResult
    /// What the rules derive from `detail` (the folds of its connections' ATT PDUs, their GATT
    /// uses), worked out once for every rule of the evaluation.
    let facts: RuleFacts

    /// What `analysis` holds; `detail`: the connections and sessions the detail rules judge
    /// (`analysis` itself unless batches judged some of them).
    init(_ analysis: AnalysisResult, detail: AnalysisResult? = nil, facts: RuleFacts = RuleFacts()) {
        self.detail = detail ?? analysis
        self.facts = facts
        platform = analysis.capture.platform
        aclFree = analysis.capture.holdsNoACL
        attempts = analysis.attempts
        connections = analysis.connections
        pairings = analysis.pairings
        connectionPairings = analysis.pairings
        reconnections = analysis.reconnections
        dataCommands = analysis.advertising?.dataCommands ?? []
        spans = analysis.advertising?.spans ?? []
        advertising = analysis.advertising
        lastFrame = analysis.lastFrame
    }

    /// The items that settled in `batch`, and its closed connections and sessions.
    init(settled items: SettledItems, of batch: AnalysisResult, facts: RuleFacts) {
        detail = batch
        self.facts = facts
        platform = batch.capture.platform
        aclFree = batch.capture.holdsNoACL
        attempts = items.attempts
        connections = items.connections
        pairings = items.pairings
        connectionPairings = items.contextPairings
        reconnections = items.reconnections
        dataCommands = items.advertisingData
        spans = items.advertisingSpans
        advertising = batch.advertising
        lastFrame = nil
    }
}

/// Where a judged item stands in the capture: findings and reason items are listed in this order
/// (the order of judging the whole capture at once).
struct ItemKey: Comparable, Hashable, Sendable {
    /// The rule's pass over the capture (e.g. pairings first, then encryption changes).
    var phase: Int
    /// The frame where the item began (a request's or pairing's first frame, a connection's
    /// `firstSeen`, a span's start)…
    var frame: Int
    /// …what orders items that began in the same frame (advertising spans one enable started:
    /// their handle)…
    var tie = 0
    /// …its index in the list judged…
    var index: Int
    /// …and a place within the item.
    var sub = 0

    static func < (a: ItemKey, b: ItemKey) -> Bool {
        (a.phase, a.frame, a.tie, a.index, a.sub) < (b.phase, b.frame, b.tie, b.index, b.sub)
    }
}

/// The first `capacity` values by key, and how many more there were: exact under merging.
struct FirstByKey<Value: Sendable>: Sendable {
    private(set) var items: [(key: ItemKey, value: Value)] = []
    private(set) var more = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { items.count + more }
    var isEmpty: Bool { count == 0 }

    /// Adds `value` (built only when it is kept).
    mutating func insert(_ key: ItemKey, _ value: () -> Value) {
        if items.count == capacity, let last = items.last, !(key < last.key) {
            more += 1
            return
        }
        let lo = items.partitionPoint { !($0.key < key) }
        items.insert((key, value()), at: lo)
        if items.count > capacity {
            items.removeLast()
            more += 1
        }
    }

    mutating func addOmitted(_ n: Int) { more += n }

    mutating func merge(_ other: FirstByKey) {
        for item in other.items { insert(item.key) { item.value } }
        more += other.more
    }

    var values: [Value] { items.map(\.value) }
}

/// The findings of a rule's fold: the first `FindingList.limit` per severity and side of the
/// attribution (`FindingList.bucket(_:_:)`), in capture order, the rest counted; exact under
/// merging. A finding's text is built only when it is kept.
struct FindingTally: Sendable {
    private var buckets: [FirstByKey<Finding>] = (0..<6).map { _ in FirstByKey(capacity: FindingList.limit) }

    mutating func add(_ key: ItemKey, _ severity: Severity, actor: Actor, _ make: () -> Finding) {
        buckets[FindingList.bucket(severity, actor)].insert(key, make)
    }

    /// Adds the findings of `list`, rendered now (those beyond it, never rendered, count as
    /// judged as the app's).
    mutating func add<V>(_ list: FirstByKey<V>, _ severity: Severity, _ render: (V) -> Finding) {
        for item in list.items {
            let f = render(item.value)
            buckets[FindingList.bucket(severity, f.actor)].insert(item.key) { f }
        }
        buckets[FindingList.bucket(severity, .unknown)].addOmitted(list.more)
    }

    mutating func merge(_ other: FindingTally) {
        for rank in buckets.indices { buckets[rank].merge(other.buckets[rank]) }
    }

    /// The findings as one rule run would have listed them.
    var list: FindingList {
        var list = FindingList()
        let kept = buckets.flatMap(\.items).sorted { $0.key < $1.key }
        for f in kept { list.append(f.value) }
        var omitted: [Severity: Int] = [:]
        var judged: [Severity: Int] = [:]
        for severity in Severity.allCases {
            for actor in [Actor.unknown, .os] {
                let more = buckets[FindingList.bucket(severity, actor)].more
                guard more > 0 else { continue }
                omitted[severity, default: 0] += more
                if actor.judgedAsApp { judged[severity, default: 0] += more }
            }
        }
        list.merge(findings: [], omitted: omitted, omittedJudged: judged)
        return list
    }
}

/// One list of a verdict's reason (the items judged and found fine, or left out and why): the
/// first `[String].reasonItems` texts by key, the rest counted; a text is built only when kept.
struct ReasonList: Sendable {
    private var texts = FirstByKey<String>(capacity: [String].reasonItems)

    mutating func note(_ key: ItemKey, _ text: () -> String) { texts.insert(key, text) }

    mutating func merge(_ other: ReasonList) { texts.merge(other.texts) }

    var isEmpty: Bool { texts.isEmpty }

    /// `allItems.joinedBounded(separator:)` of the list.
    func joined(separator: String) -> String {
        let items = texts.values
        guard texts.more > 0 else { return items.joined(separator: separator) }
        return items.joined(separator: separator) + separator + "… and \(texts.count - [String].reasonItems) more"
    }
}

/// What a rule's fold carries from item to item and from batch to batch: its findings, and what
/// else its verdict needs, in fields of its own (`ItemRule.State`).
protocol RuleState: Sendable {
    init()
    var findings: FindingTally { get set }
}

extension RuleState {
    /// Adds a finding on the item at `key` (built only when it is kept).
    mutating func finding(_ key: ItemKey, _ severity: Severity, actor: Actor, _ make: () -> Finding) {
        findings.add(key, severity, actor: actor, make)
    }

    /// The findings as one rule run would have listed them.
    var findingList: FindingList { findings.list }
}

/// The state of the rules whose verdict needs only their findings and one reason list.
struct FindingsAndReasons: RuleState {
    var findings = FindingTally()
    var reasons = ReasonList()

    mutating func merge(_ other: FindingsAndReasons) {
        findings.merge(other.findings)
        reasons.merge(other.reasons)
    }
}

/// A rule, as every rule is: a fold. It judges what it reads (`RuleScope`: settled connection
/// requests, connections as links, pairings, reconnections and advertising records; or closed
/// connections' ATT detail; or scan sessions) one item at a time into its `State`, in batches as
/// a long capture hands them over and then what the analysis holds at the end, and gives its
/// verdict once, from the state: the verdict of the whole capture, whatever the batches
/// (`RuleAccumulator`). Text is written only for what the verdict lists.
protocol ItemRule: Rule {
    /// What the fold carries: the rule's findings and its own counts and lists.
    associatedtype State: RuleState
    /// Judges the items of `view`, adding them to `t`: a fold over the batches handed over and
    /// the items held at the end (a list already full of findings builds no more of them).
    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration)
    /// The verdict on every item tallied; `end` is the view of the end (capture-wide facts).
    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict
}

extension ItemRule {
    package static var scope: RuleScope { .items }

    package func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration) -> RuleVerdict {
        evaluate(analysis, config: config, handedOver: nil)
    }

    package func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration, facts: RuleFacts) -> RuleVerdict {
        evaluate(analysis, config: config, handedOver: nil, facts: facts)
    }

    /// `evaluate` after the tally of what was handed over on the way; `detail`: the connections
    /// and sessions no batch judged (`ItemView.detail`).
    func evaluate(
        _ analysis: AnalysisResult, config: RuleConfiguration, handedOver: (any RuleState)?, detail: AnalysisResult? = nil,
        facts: RuleFacts = RuleFacts()
    ) -> RuleVerdict {
        let view = ItemView(analysis, detail: detail, facts: facts)
        var t = (handedOver as? State) ?? State()
        tally(view, into: &t, config: config)
        return verdict(t, end: view, config: config)
    }

    /// Folds `view` into `state` (this rule's `State`, or nothing yet).
    static func fold(_ view: ItemView, into state: inout (any RuleState)?, config: RuleConfiguration) {
        var t = (state as? State) ?? State()
        // Out of the box, so that the fold changes the only copy.
        state = nil
        Self().tally(view, into: &t, config: config)
        state = t
    }

    /// `key` of item `index` of a list judged, which began at `frame`.
    func key(_ phase: Int, _ frame: Int, tie: Int = 0, _ index: Int, _ sub: Int = 0) -> ItemKey {
        ItemKey(phase: phase, frame: frame, tie: tie, index: index, sub: sub)
    }
}
