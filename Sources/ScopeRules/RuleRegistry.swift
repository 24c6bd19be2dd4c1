import Foundation
import ScopeCore
import ScopeAnalysis

/// Every rule, in the stable order of RULES.md's table. Explicit on purpose: no registration
/// side effects, and a new rule is one line here.
package enum RuleRegistry {
    package static let all: [any Rule.Type] = folds.map { $0 as any Rule.Type }

    /// `all`, as the folds the engine and the accumulator call: every rule is an `ItemRule`,
    /// folding what it reads of each batch handed over and of the end into its tally. Typed here
    /// rather than found by `as? any ItemRule`: that cast searches the binary's conformance
    /// records at run time, once per rule and process.
    static let folds: [any ItemRule.Type] = [
        ScanLeftRunning.self,
        ScanDuplicatesAllowed.self,
        ScanRestartThrottled.self,
        GATTDiscoverAllServices.self,
        GATTDiscoverAllCharacteristics.self,
        GATTPolling.self,
        ConnIdleBeforeDisconnect.self,
        ConnLeftOpen.self,
        ConnLinkLost.self,
        ConnSubscriptionsLeftOn.self,
        ConnReconnectByScan.self,
        ConnAttemptUnbounded.self,
        AdvPayloadBudget.self,
        AdvWithoutNeed.self,
        SecurityInsufficientAuth.self,
        SecurityLegacyPairing.self,
        SecurityUnauthenticatedPairing.self,
        SecurityPairingFailed.self,
        SecurityRepeatedPairing.self,
        ATTSmallWrites.self,
        ATTAcknowledgedBulk.self,
    ]

    package static var ids: [String] { all.map { $0.id } }

    package static func rule(id: String) -> (any Rule.Type)? { all.first { $0.id == id } }
}

/// Runs every rule of the registry against one analysis.
package enum RuleEngine {
    /// One verdict per registered rule, in registry order. Disabled rules are `not_evaluated`
    /// ("disabled in the configuration"); a severity override rewrites the rule's findings.
    package static func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration = RuleConfiguration()) -> [RuleVerdict] {
        evaluate(analysis, config: config, handedOver: nil)
    }

    /// As `evaluate(_:config:)`, merging what `handedOver` judged in the batches the analysis handed
    /// over on the way (the connections it judged are not judged again; their detail is gone
    /// from `analysis`).
    ///
    /// With two CPUs for it (as for the analysis pipeline: `AnalysisLoad`), the rules run on two
    /// threads, each taking the next rule not yet taken; the verdicts are the same, in registry
    /// order.
    package static func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration, handedOver: RuleAccumulator?) -> [RuleVerdict] {
        evaluate(analysis, config: config, handedOver: handedOver, concurrent: nil)
    }

    /// `concurrent`: nil decides by the CPUs available; true/false force it (tests compare both).
    static func evaluate(
        _ analysis: AnalysisResult, config: RuleConfiguration, handedOver: RuleAccumulator?, concurrent: Bool?
    ) -> [RuleVerdict] {
        // Batches still waiting for the platform the first records name are judged by it now.
        let handedOver = handedOver.map { $0.judgingWaiting(platform: analysis.capture.platformAtStart ?? analysis.capture.platform) }
        // The connection rules see only the connections no batch judged.
        var rest = analysis
        let someHandedOver = handedOver.map { !$0.isEmpty } ?? false
        if let handedOver, someHandedOver {
            rest.connections = analysis.connections.filter { !handedOver.hasJudged($0) }
            rest.pairings = analysis.pairings(of: rest.connections)
        }
        let connectionRules = rest
        // What several rules derive, worked out once (one set per analysis they see).
        let follower = handedOver?.follower
        let facts = RuleFacts(follower: follower), connectionFacts = someHandedOver ? RuleFacts(follower: follower) : facts
        @Sendable func verdict(_ index: Int) -> RuleVerdict {
            let type = RuleRegistry.folds[index]
            let id = type.id
            if !config.isEnabled(id) {
                return RuleVerdict(rule: id, status: .notEvaluated, reason: "disabled in the configuration")
            }
            var verdict: RuleVerdict
            // The end folded after what the batches folded: the connection rules read the
            // connections no batch judged.
            if type.scope == .connection {
                // ATT analysis found incomplete by the end: nothing judged on the way stands.
                let handed = analysis.attIncompleteReason == nil ? handedOver?.tallies[id] : nil
                verdict = type.init().evaluate(analysis, config: config, handedOver: handed, detail: connectionRules, facts: connectionFacts)
            } else {
                verdict = type.init().evaluate(analysis, config: config, handedOver: handedOver?.tallies[id], facts: facts)
            }
            verdict = speak(verdict, documentation: type.documentation, context: PlatformContext(analysis.capture.platform, config))
            if let severity = config.severityOverrides[id] {
                verdict.findings = verdict.findings.map {
                    var f = $0
                    f.severity = severity
                    return f
                }
                let omitted = verdict.omitted.values.reduce(0, +)
                verdict.omitted = omitted > 0 ? [severity: omitted] : [:]
                let judged = verdict.omittedJudged.values.reduce(0, +)
                verdict.omittedJudged = judged > 0 ? [severity: judged] : [:]
            }
            return verdict
        }
        let count = RuleRegistry.all.count
        if concurrent == false { return (0..<count).map(verdict) }
        let running = AnalysisLoad.shared.enter()
        defer { AnalysisLoad.shared.leave() }
        if concurrent ?? AnalysisLoad.hasTwoCPUs(running: running) {
            return twoThreadMap(count: count, verdict)
        }
        return (0..<count).map(verdict)
    }

    /// The verdict with every finding's advice in the platform's API: a finding that does not
    /// speak a platform yet gets the rule's documented cause and fix for it (then a pointer to
    /// the other platforms' advice). Unknown platform: the rule's own text, iOS first.
    static func speak(_ v: RuleVerdict, documentation: RuleDocumentation, context: PlatformContext) -> RuleVerdict {
        var v = v
        if let share = v.platformShare, !v.reasonNamesPlatformShare {
            v.reason += " (" + share.description + ")"
            v.reasonNamesPlatformShare = true
        }
        guard let platform = context.platform, let advice = documentation.advice(for: platform), v.status == .violated else { return v }
        v.findings = v.findings.map { f in
            // The peer's findings keep the rule's own words: the local platform's API is not what
            // the peer runs (a bike discovering an iPhone's server is not `discoverCharacteristics`).
            guard f.platform == nil, f.actor != .peer, let shows = f.shows else { return f }
            var f = f
            if f.actor == .os {
                // The system's own activity: the app's API is not the cause, nor its fix.
                f.message = shows + ". The system's own Bluetooth activity on \(platform.name), not the app's"
                    + (advice.stackDoes.map { " (" + $0.trimmingCharacters(in: CharacterSet(charactersIn: ".")) + ")" } ?? "")
                f.recommendation = "Nothing to change in the app: the system does this by itself. (What the app's own would look like: `hciscope rules \(f.rule)`.)"
            } else {
                f.message = shows + ". Usual cause on \(platform.name): " + advice.cause
                f.recommendation = advice.fix + " (Other stacks: `hciscope rules \(f.rule)`.)"
            }
            f.platform = platform
            return f
        }
        v.reason = RuleVerdict.violationReason(v.findings, omitted: v.omitted)
            + (v.platformShare.map { " (" + $0.description + ")" } ?? "")
        return v
    }

    /// `(0..<count).map(body)` on the calling thread and one more: each takes the next index not
    /// yet taken.
    static func twoThreadMap<T: Sendable>(count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let work = TwoThreadWork<T>(count)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            work.run(body)
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        work.run(body)
        done.wait()
        return work.results.compactMap { $0 }
    }

    /// All findings of the verdicts, most severe first, then by first evidence frame.
    package static func findings(_ verdicts: [RuleVerdict]) -> [Finding] {
        verdicts.flatMap(\.findings).sorted {
            if $0.severity != $1.severity { return $0.severity > $1.severity }
            return ($0.evidence.first ?? 0) < ($1.evidence.first ?? 0)
        }
    }
}

/// The indices and results of `RuleEngine.twoThreadMap` (shared under the lock).
private final class TwoThreadWork<T: Sendable>: @unchecked Sendable {
    let lock = NSLock()
    var next = 0
    var results: [T?]
    init(_ count: Int) { results = Array(repeating: nil, count: count) }

    func run(_ body: (Int) -> T) {
        while true {
            lock.lock()
            let i = next
            next += 1
            lock.unlock()
            guard i < results.count else { return }
            let result = body(i)
            lock.lock()
            results[i] = result
            lock.unlock()
        }
    }
}

/// Every rule's tally of the batches the analysis hands over as it goes
/// (`AnalysisBuilder.handOverSettled()`): bounded, since a tally keeps the first findings and
/// reason items of each list and counts the rest; the end folds what the analysis still holds
/// and gives each verdict once (`RuleEngine.evaluate`).
package struct RuleAccumulator: Sendable {
    var config: RuleConfiguration
    /// Every rule's tally of what was handed over so far.
    var tallies: [String: any RuleState] = [:]
    /// The connections a batch handed to the connection rules that have not left the analysis
    /// yet (the first ones stay to the end, for the reports): the end judges the others. Bounded
    /// by the items the analysis keeps.
    private var judgedConnections: Set<JudgedConnection> = []

    /// A connection, by what tells it from every other one of the capture.
    struct JudgedConnection: Hashable, Sendable {
        var id: ConnectionID
        var firstSeen: FrameNumber
        init(_ c: Connection) {
            id = c.id
            firstSeen = c.firstSeen
        }
    }

    /// Whether a batch judged connection `c` (the end must not judge it again).
    func hasJudged(_ c: Connection) -> Bool { judgedConnections.contains(JudgedConnection(c)) }
    /// Batches absorbed.
    package private(set) var batches = 0
    /// Batches handed over before the platform was known (`absorb`).
    var waiting: [SettledBatch] = []

    /// Follows every connection's ATT PDUs while the analysis runs, for the connection rules
    /// (`AnalysisBuilder.analyze(path:follower:)`): the folds of a connection go once it is judged.
    package let follower: ConnectionFollower

    package init(config: RuleConfiguration = RuleConfiguration()) {
        self.config = config
        follower = ConnectionFollower(config: config)
    }

    package var isEmpty: Bool { batches == 0 && waiting.isEmpty }

    /// This accumulator with the batches still waiting judged by `platform`.
    func judgingWaiting(platform: HostPlatform) -> RuleAccumulator {
        guard !waiting.isEmpty else { return self }
        var judged = self
        judged.judgeWaiting(platform: platform)
        return judged
    }

    /// Judges the batches that waited for the platform the first records name, by `platform`.
    package mutating func judgeWaiting(platform: HostPlatform) {
        if config.platform == nil, config.detectedPlatform == nil { config.detectedPlatform = platform }
        let held = waiting
        waiting = []
        for batch in held { absorb(batch) }
    }

    /// Folds a batch into every enabled rule's tally: its settled items, closed connections and
    /// closed scan sessions.
    package mutating func absorb(_ settled: SettledBatch) {
        let batch = settled.partial
        let items = settled.items.isEmpty ? nil : settled.items
        guard !batch.connections.isEmpty || !batch.scans.isEmpty || items != nil else { return }
        if config.platform == nil, config.detectedPlatform == nil {
            // Judged once the platform the first records name is known (a batch handed over
            // within them waits, with what it holds: a bounded number of items).
            guard let platform = batch.capture.platformAtStart else {
                waiting.append(settled)
                return
            }
            judgeWaiting(platform: platform)
        }
        batches += 1
        for c in batch.connections { judgedConnections.insert(JudgedConnection(c)) }
        for c in items?.connections ?? [] { judgedConnections.remove(JudgedConnection(c)) }
        let facts = RuleFacts(follower: follower)
        defer { follower.forget(batch.connections) }
        // Every rule folds what it reads of the batch into its tally: the item rules the items
        // that settled, the connection rules the closed connections' ATT detail, the scan rules
        // the closed sessions.
        let view = ItemView(settled: settled.items, of: batch, facts: facts)
        for type in RuleRegistry.folds where config.isEnabled(type.id) {
            switch type.scope {
            case .items: guard items != nil else { continue }
            case .connection: guard !batch.connections.isEmpty else { continue }
            case .scan: guard !batch.scans.isEmpty else { continue }
            }
            type.fold(view, into: &tallies[type.id], config: config)
        }
    }

}

extension RuleEngine {
    /// Analyses a capture and judges it, in memory that does not grow with the number of
    /// connections' ATT PDUs: closed connections are judged in batches as the analysis goes.
    /// `threads`: 1 analyses and judges on this thread alone; 2 or more takes a second thread
    /// when two CPUs are free for it (sooner, for more CPU time).
    package static func analyze(
        path: String, config: RuleConfiguration = RuleConfiguration(), resolvePrivateAddresses: Bool = true,
        handOverPolicy: AnalysisBuilder.HandOverPolicy = AnalysisBuilder.HandOverPolicy(), threads: Int = 1
    ) throws -> (analysis: AnalysisResult, verdicts: [RuleVerdict]) {
        var config = config
        var handedOver = RuleAccumulator(config: config)
        var analysis = try AnalysisBuilder.analyze(
            path: path, options: config.limits.readerOptions, resolvePrivateAddresses: resolvePrivateAddresses,
            handOverPolicy: config.limits.applied(to: handOverPolicy), threads: threads, follower: handedOver.follower
        ) { handedOver.absorb($0) }
        analysis.capture.platform = analysis.capture.platform.overridden(by: config.platform?.kind)
        // The batches and the end go by the platform the first records name.
        let atStart = analysis.capture.platformAtStart ?? HostPlatform()
        handedOver.judgeWaiting(platform: atStart)
        if config.platform == nil, config.detectedPlatform == nil { config.detectedPlatform = atStart }
        return (analysis, evaluate(analysis, config: config, handedOver: handedOver, concurrent: AnalysisLoad.secondThread(threads)))
    }
}
