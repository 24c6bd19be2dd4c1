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
        aclFree = analysis.capture.origin.summaryOnly || analysis.capture.aclFrames == 0
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
        aclFree = batch.capture.origin.summaryOnly || batch.capture.aclFrames == 0
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

/// A rule's judgement of some of a capture's items, mergeable: findings (the first
/// `FindingList.limit` per severity, in capture order, the rest counted), reason items (the first
/// `reasonItems` per list) and counts.
struct ItemTally: Sendable {
    /// Per `FindingList.bucket(_:_:)`: severity and side of the attribution.
    private var findings: [FirstByKey<Finding>] = (0..<6).map { _ in FirstByKey(capacity: FindingList.limit) }
    private var lists: [Int: FirstByKey<String>] = [:]
    var counts: [Int: Int] = [:]
    /// `adv.payload-budget`: payload sizes per command label.
    var sizes: [String: PayloadSizes] = [:]
    /// `adv.payload-budget`: extended data judged against the controller's maximum length as read
    /// by the end of the capture: per assembled length (-1: refused by the controller, a finding
    /// whatever the maximum), the commands, rendered at the end.
    var extendedData: [Int: FirstByKey<ExtendedData>] = [:]
    /// `adv.without-need`: spans enabled while a connection was up, judged by the supported
    /// states as read by the end: per state bit, the findings if it is clear (rendered at the
    /// end), and the judgement if it is set (or the states were never read).
    var overlapIfClear: [UInt64: FirstByKey<SpanOverlap>] = [:]
    var overlapIfSet: [UInt64: ItemTally] = [:]
    /// `conn.subscriptions-left-on`: the connections it leaves out, grouped by why (listed in the
    /// order of each group's first connection), each group's count and first connections named.
    var groups: [String: Group] = [:]

    struct Group: Sendable {
        var first: ItemKey
        var count = 0
        var named = FirstByKey<String>(capacity: 3)
    }

    /// Adds the item at `key` to the group `why`, naming it (`name`, built only when named).
    mutating func group(_ why: String, _ key: ItemKey, _ name: () -> String) {
        var g = groups[why] ?? Group(first: key)
        g.first = min(g.first, key)
        g.count += 1
        g.named.insert(key, name)
        groups[why] = g
    }

    struct ExtendedData: Sendable {
        var command: String
        var at: FrameNumber
        var complete: FrameNumber?
        var length: Int
        var kindText: String
        var statusText: String
        var attribution: ActorEvidence
    }

    struct SpanOverlap: Sendable {
        var attribution: ActorEvidence
        var name: String
        var start: FrameNumber
        var enabledWhileConnected: Int64
        var role: Connection.Role
        var complete: FrameNumber
    }

    /// Sizes of one label's payloads, and where the label appears in the summary: the commands
    /// up to the first whose size was recorded (`candidates`, each key a place in the summary).
    struct PayloadSizes: Sendable {
        var count = 0
        var min = Int.max
        var max = Int.min
        var firstSized: ItemKey?
        var candidates: [ItemKey] = []
    }

    mutating func finding(_ key: ItemKey, _ severity: Severity, actor: Actor, _ make: () -> Finding) {
        findings[FindingList.bucket(severity, actor)].insert(key, make)
    }

    mutating func note(_ list: Int = 0, _ key: ItemKey, _ text: () -> String) {
        lists[list, default: FirstByKey(capacity: [String].reasonItems)].insert(key, text)
    }

    mutating func tick(_ counter: Int, _ n: Int = 1) { counts[counter, default: 0] += n }
    func count(_ counter: Int) -> Int { counts[counter] ?? 0 }

    mutating func merge(_ other: ItemTally) {
        for rank in findings.indices { findings[rank].merge(other.findings[rank]) }
        for (k, list) in other.lists { lists[k, default: FirstByKey(capacity: [String].reasonItems)].merge(list) }
        for (k, n) in other.counts { counts[k, default: 0] += n }
        for (label, s) in other.sizes {
            var mine = sizes[label] ?? PayloadSizes()
            mine.count += s.count
            mine.min = Swift.min(mine.min, s.min)
            mine.max = Swift.max(mine.max, s.max)
            if let f = s.firstSized, mine.firstSized.map({ f < $0 }) ?? true { mine.firstSized = f }
            mine.candidates += s.candidates
            sizes[label] = mine
        }
        for (k, list) in other.extendedData { extendedData[k, default: FirstByKey(capacity: FindingList.limit)].merge(list) }
        for (k, list) in other.overlapIfClear { overlapIfClear[k, default: FirstByKey(capacity: FindingList.limit)].merge(list) }
        for (k, t) in other.overlapIfSet { overlapIfSet[k, default: ItemTally()].merge(t) }
        for (why, g) in other.groups {
            var mine = groups[why] ?? Group(first: g.first)
            mine.first = min(mine.first, g.first)
            mine.count += g.count
            mine.named.merge(g.named)
            groups[why] = mine
        }
    }

    /// Adds the findings of `list`, rendered now (those beyond it, never rendered, count as
    /// judged as the app's).
    mutating func findings<V>(_ list: FirstByKey<V>, _ severity: Severity, _ render: (V) -> Finding) {
        for item in list.items {
            let f = render(item.value)
            findings[FindingList.bucket(severity, f.actor)].insert(item.key) { f }
        }
        findings[FindingList.bucket(severity, .unknown)].addOmitted(list.more)
    }

    /// The findings as one rule run would have listed them.
    var findingList: FindingList {
        var list = FindingList()
        let kept = findings.flatMap(\.items).sorted { $0.key < $1.key }
        for f in kept { list.append(f.value) }
        var omitted: [Severity: Int] = [:]
        var judged: [Severity: Int] = [:]
        for severity in Severity.allCases {
            for actor in [Actor.unknown, .os] {
                let more = findings[FindingList.bucket(severity, actor)].more
                guard more > 0 else { continue }
                omitted[severity, default: 0] += more
                if actor.judgedAsApp { judged[severity, default: 0] += more }
            }
        }
        list.merge(findings: [], omitted: omitted, omittedJudged: judged)
        return list
    }

    func isEmpty(list: Int = 0) -> Bool { lists[list]?.isEmpty ?? true }

    /// `allItems.joinedBounded(separator:)` of a reason list.
    func joined(_ list: Int = 0, separator: String) -> String {
        guard let l = lists[list] else { return "" }
        let items = l.values
        guard l.more > 0 else { return items.joined(separator: separator) }
        return items.joined(separator: separator) + separator + "… and \(l.count - [String].reasonItems) more"
    }
}

/// A rule, as every rule is: a fold. It judges what it reads (`RuleScope`: settled connection
/// requests, connections as links, pairings, reconnections and advertising records; or closed
/// connections' ATT detail; or scan sessions) one item at a time into its `ItemTally`, in
/// batches as a long capture hands them over and then what the analysis holds at the end, and
/// gives its verdict once, from the tally: the verdict of the whole capture, whatever the batches
/// (`RuleAccumulator`). Text is written only for what the verdict lists.
protocol ItemRule: Rule {
    /// Judges the items of `view`, adding them to `t`: a fold over the batches handed over and
    /// the items held at the end (a list already full of findings builds no more of them).
    func tally(_ view: ItemView, into t: inout ItemTally, config: RuleConfiguration)
    /// The verdict on every item tallied; `end` is the view of the end (capture-wide facts).
    func verdict(_ tally: ItemTally, end: ItemView, config: RuleConfiguration) -> RuleVerdict
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
        _ analysis: AnalysisResult, config: RuleConfiguration, handedOver: ItemTally?, detail: AnalysisResult? = nil,
        facts: RuleFacts = RuleFacts()
    ) -> RuleVerdict {
        let view = ItemView(analysis, detail: detail, facts: facts)
        var t = handedOver ?? ItemTally()
        tally(view, into: &t, config: config)
        return verdict(t, end: view, config: config)
    }

    /// `key` of item `index` of a list judged, which began at `frame`.
    func key(_ phase: Int, _ frame: Int, tie: Int = 0, _ index: Int, _ sub: Int = 0) -> ItemKey {
        ItemKey(phase: phase, frame: frame, tie: tie, index: index, sub: sub)
    }
}
