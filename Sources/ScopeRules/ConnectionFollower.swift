import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeDecode

/// What the connection rules keep of one connection's ATT PDUs, folded one PDU at a time
/// (`add`): each rule's own fold (`GATTPolling.Fold`, …), bounded by what the rule reports,
/// not by the PDUs. The same folds run while the analysis applies the PDUs
/// (`ConnectionFollower`, so a connection open for a day holds flat memory) or over the PDUs a
/// finished connection holds (`init(folding:config:)`): one algorithm per rule, whichever way.
struct ConnectionFolds: Sendable {
    var polling: GATTPolling.Fold
    var bulk: ATTAcknowledgedBulk.Fold
    var smallWrites: ATTSmallWrites.Fold
    var insufficient = SecurityInsufficientAuth.Fold()
    var usage = GATTUsage.Fold()

    init(config: RuleConfiguration) {
        polling = GATTPolling.Fold()
        bulk = ATTAcknowledgedBulk.Fold(config: config)
        smallWrites = ATTSmallWrites.Fold(config: config)
    }

    /// The folds of the PDUs `c` holds.
    init(folding c: Connection, config: RuleConfiguration) {
        self.init(config: config)
        for e in c.att { add(c.step(e)) }
    }

    mutating func add(_ step: ATTStep) {
        polling.add(step.event)
        bulk.add(step.event)
        smallWrites.add(step.event)
        insufficient.add(step.event)
        usage.add(step)
    }
}

/// Follows every connection's ATT PDUs for the connection rules while the analysis runs
/// (`AnalysisBuilder.attFollower`): the folds of each connection until it is judged. Written by
/// the thread feeding the analysis, then read by the rules once it has handed the connections
/// over (a batch, or the end): never both at once.
package final class ConnectionFollower: ATTFollower, @unchecked Sendable {
    /// The folds of a connection none of whose PDUs came yet (the thresholds read once).
    private let empty: ConnectionFolds
    // Touched on every ATT PDU, by one thread at a time (see above): the folds in slots, the
    // slot of each connection, slots given back, and the last connection looked up (PDUs come
    // in runs on one connection: most look-ups stop there).
    @exclusivity(unchecked) private var folds: [ConnectionFolds] = []
    @exclusivity(unchecked) private var slots: [ConnectionID: Int] = [:]
    @exclusivity(unchecked) private var free: [Int] = []
    @exclusivity(unchecked) private var last: (connection: ConnectionID, slot: Int)?

    package init(config: RuleConfiguration) { empty = ConnectionFolds(config: config) }

    package func follow(_ step: ATTStep, on connection: ConnectionID) {
        folds[slot(of: connection)].add(step)
    }

    private func slot(of connection: ConnectionID) -> Int {
        if let last, last.connection == connection { return last.slot }
        let slot: Int
        if let s = slots[connection] {
            slot = s
        } else if let s = free.popLast() {
            slot = s
            folds[s] = empty
            slots[connection] = s
        } else {
            slot = folds.count
            folds.append(empty)
            slots[connection] = slot
        }
        last = (connection, slot)
        return slot
    }

    /// The folds of `connection`; nil when none of its PDUs was followed.
    func folds(of connection: ConnectionID) -> ConnectionFolds? { slots[connection].map { folds[$0] } }

    /// Forgets judged connections (their slots serve the next ones).
    func forget(_ connections: [Connection]) {
        for c in connections {
            guard let s = slots.removeValue(forKey: c.id) else { continue }
            folds[s] = empty
            free.append(s)
            if last?.connection == c.id { last = nil }
        }
    }

    /// Connections followed and not yet forgotten.
    package var following: Int { slots.count }
}

/// A run of consecutive writes to one handle (what `att.acknowledged-bulk` and
/// `att.small-writes` report of it).
struct WriteRun: Sendable {
    /// The first write (its handle, client side and ATT_MTU are the run's).
    var first: ATTEvent
    var last: FrameTime
    var count = 1
    var commands: Int
    var total: Int
    var smallest: Int
    var largest: Int
    var longestGap: Int64 = 0

    init(_ e: ATTEvent) {
        first = e
        last = e.at
        commands = e.opcode == ATTOpcode.writeCommand.rawValue ? 1 : 0
        total = e.valueLength
        smallest = e.valueLength
        largest = e.valueLength
    }

    mutating func add(_ e: ATTEvent) {
        longestGap = max(longestGap, e.at.time.microseconds - last.time.microseconds)
        last = e.at
        count += 1
        if e.opcode == ATTOpcode.writeCommand.rawValue { commands += 1 }
        total += e.valueLength
        smallest = min(smallest, e.valueLength)
        largest = max(largest, e.valueLength)
    }
}

/// A GATT client side and a handle it reads or writes (per-handle grouping in the folds, without
/// building a text key per PDU).
struct ClientHandle: Hashable, Sendable {
    var side: Side
    var handle: UInt16
    /// The order findings come in ("local/18" before "local/9": text order).
    var text: String { "\(side.rawValue)/\(handle)" }

    /// `keys` in the order of their texts.
    static func inTextOrder(_ keys: some Sequence<ClientHandle>) -> [ClientHandle] {
        keys.sorted(by: textOrder)
    }

    /// Whether `a`'s text comes before `b`'s, without making the texts (two per comparison were
    /// 0.4 % of the durnerj replay): the sides' names sort as the sides are declared (local,
    /// remote, unknown), and two handles' decimal digits compare as the numbers scaled to the same
    /// number of digits, the shorter first when those are equal ("18" before "9", "1" before "10").
    static func textOrder(_ a: ClientHandle, _ b: ClientHandle) -> Bool {
        if a.side != b.side { return a.sideCode < b.sideCode }
        var x = UInt64(a.handle), y = UInt64(b.handle)
        let (dx, dy) = (digits(a.handle), digits(b.handle))
        for _ in dx..<max(dx, dy) { x *= 10 }
        for _ in dy..<max(dx, dy) { y *= 10 }
        return x != y ? x < y : dx < dy
    }

    private static func digits(_ n: UInt16) -> Int {
        n >= 10_000 ? 5 : n >= 1000 ? 4 : n >= 100 ? 3 : n >= 10 ? 2 : 1
    }

    private var sideCode: UInt64 { side == .local ? 0 : side == .remote ? 1 : 2 }

    // Looked up per PDU: one word, hashed with `fastHash`.
    private var word: UInt64 { sideCode << 16 | UInt64(handle) }
    func hash(into hasher: inout Hasher) { hasher.combine(word) }
    func _rawHashValue(seed: Int) -> Int { fastHash(word, seed: seed) }
}
