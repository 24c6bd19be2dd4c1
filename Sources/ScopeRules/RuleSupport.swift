import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeDecode

// Helpers shared by the catalog: wording and the GATT "use" model of RULES.md (ATT opcode classes
// are ScopeDecode's: `ATTOpcode.isClientOriginated`, `isWrite`, `kind`).

extension ATTEvent {
    /// The side acting as GATT client for this PDU: the other side from the server it is about
    /// (`GATTServerSide`, the one statement of which server a PDU is about); unknown when its
    /// direction is.
    var clientSide: Side {
        guard direction != .unknown else { return .unknown }
        return GATTServerSide(opcode: ATTOpcode(opcode), direction: direction) == .remote ? .local : .remote
    }
}

enum Text {
    /// "30.000 s": `String(format: "%.3f s", (Double(micros) / 1000).rounded() / 1000)`, written
    /// out with integers (String(format:) costs about 12 k instructions a call, and rules write
    /// thousands of these).
    static func seconds(_ micros: Int64) -> String {
        // Past 10 s, in s, min, h with the precision that matters (ReadableDuration).
        if micros.magnitude >= 10_000_000 { return ReadableDuration.text(micros) }
        let ms = (Double(micros) / 1000).rounded()
        guard ms.magnitude < 1e15 else { return String(format: "%.3f s", ms / 1000) }
        return thousandths(negative: ms.sign == .minus, UInt64(ms.magnitude)) + " s"
    }
    /// "200.552 ms": `String(format: "%.3f ms", Double(micros) / 1000)`, with integers.
    static func millis(_ micros: Int64) -> String {
        if micros.magnitude >= 10_000_000 { return ReadableDuration.text(micros) }
        guard micros.magnitude < 1 << 50 else { return String(format: "%.3f ms", Double(micros) / 1000) }
        return thousandths(negative: micros < 0, micros.magnitude) + " ms"
    }
    /// `value` / 1000 with three decimals ("-0.005").
    private static func thousandths(negative: Bool, _ value: UInt64) -> String {
        let fraction = value % 1000
        let digits = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return (negative ? "-" : "") + "\(value / 1000)." + digits
    }
    static func hex2(_ v: UInt8) -> String { Hex.prefixed(v, digits: 2) }
    static func hex4(_ v: UInt16) -> String { Hex.prefixed(v, digits: 4) }
    static func side(_ s: Side) -> String { s == .remote ? "remote" : (s == .local ? "local" : "unknown") }
    /// "12.3 %": `String(format: "%.1f %%", r * 100)`, written out with integers.
    static func percent(_ r: Double) -> String {
        let p = r * 100
        guard p.isFinite, p.magnitude < 1e15 else { return String(format: "%.1f %%", p) }
        let t = tenths(p.magnitude)
        return (p.sign == .minus ? "-" : "") + "\(t / 10).\(t % 10) %"
    }
    /// `v` (0 ≤ v < 1e15) times ten, rounded to nearest (ties to even) from `v`'s exact binary
    /// value, as printf rounds.
    private static func tenths(_ v: Double) -> UInt64 {
        guard v >= 0x1p-10 else { return 0 }
        // v = m / 2^k exactly, with 3 ≤ k ≤ 62 for 2^-10 ≤ v < 2^50; 10 m < 2^57.
        let m = v.significandBitPattern | 1 << 52
        let k = UInt64(52 - Int(v.exponent)), scaled = m * 10
        var q = scaled >> k
        let rest = scaled & (1 << k - 1), half: UInt64 = 1 << (k - 1)
        if rest > half || (rest == half && q & 1 == 1) { q += 1 }
        return q
    }
    static func number(_ d: Double) -> String { d == d.rounded() ? String(Int64(d)) : String(d) }
    static func uuid(_ u: String) -> String { u.count == 4 ? u.uppercased() : u }
}

extension AnalysisResult {
    /// The last frame of the capture (frames are numbered from 1 in order).
    var lastFrame: FrameTime? {
        guard capture.frames > 0, let t = capture.lastTimestamp else { return nil }
        return FrameTime(frame: capture.frames, time: t)
    }

    /// Rules that need ATT payloads say so when Android-style filtered logs cut ACL short.
    var attIncompleteReason: String? {
        guard capture.health.attAnalysisIncomplete else { return nil }
        return "ATT analysis incomplete: \(capture.health.truncatedACL) ACL record(s) truncated in the capture "
            + "(e.g. an Android filtered snoop log), so ATT PDUs cannot be judged"
    }

    func connection(_ id: ConnectionID) -> Connection? { connections.first { $0.id == id } }

}

extension ScanSession {
    /// What a finding on a scan session adds when the stack resumed it after changing its random
    /// address (`resumesAfterAddressChange`): that it continues an earlier scan, and from where
    /// (named in the text only: the evidence stays the session's own frames, by which findings
    /// are listed).
    var resumptionText: String {
        guard let r = resumesAfterAddressChange else { return "" }
        return " (the stack's resumption, after it changed its random address at frame \(r.addressChange), of the scan of frame \(r.continues))"
    }

}

extension Connection {
    /// "connection 0x0001", with the adapter and generation when they disambiguate.
    var label: String {
        var s = "connection \(Text.hex4(id.handle))"
        if id.adapter != 0 && id.adapter != AdapterIndex.noController { s += " on hci\(id.adapter)" }
        if id.generation > 1 { s += " #\(id.generation)" }
        return s
    }
    var peerText: String { peer.map { "peer \($0)" } ?? "peer unknown" }
    var start: FrameTime? { complete ?? request }

    /// Whose doing what the local host does on the connection is (its ATT requests, its
    /// Disconnect): the connection's attribution, except on a link the remote central opened,
    /// where the local host's requests are its own (docs/ATTRIBUTION.md).
    var localAttribution: ActorEvidence {
        attribution.signal == .remoteCentral ? .localRequest : attribution
    }

    /// Whether the two devices are bonded on this link, so that the server keeps its CCCD values
    /// for the next connection (Core v5.4 Vol 3 Part G §3.3.3.3: for a client that has not
    /// bonded, they are reset at each connection): a successful pairing on the link in which
    /// both sides asked for bonding, or encryption started without pairing (keys from an
    /// earlier bond). `pairings`: the capture's pairings indexed by link (those of this link are
    /// used).
    func bond(_ pairings: PairingsByLink) -> Bond {
        switch pairings[id] {
        case .success(let p)?:
            let both = (p.initiator?.bonding ?? false) && (p.responder?.bonding ?? false)
            return both ? .paired(p.request.frame) : .pairedWithoutBonding(p.request.frame)
        case .noSuccess?:
            return .none
        case nil:
            if let e = encryption.lastSuccess { return .storedKeys(e.frame) }
            return .none
        }
    }

    /// Still up when the capture ended less than `window` µs after `event`: what came after the
    /// event (the use of what was discovered) is not in the capture.
    func cutShort(after event: FrameTime?, window: Int64, captureEnd: Timestamp?) -> Bool {
        guard disconnect == nil, let event, let end = captureEnd else { return false }
        return end.microseconds &- event.time.microseconds < window
    }

    /// The attribution of what the GATT client `side` did on the connection.
    func attribution(client side: Side) -> ActorEvidence {
        side == .remote ? ActorEvidence(.remoteClient, frame: nil) : localAttribution
    }

    /// The service of `server`'s database whose handle range holds `handle`.
    func service(containing handle: UInt16, server: GATTServerSide) -> GATTService? {
        database(server).database.service(containing: handle)
    }
    /// The characteristic of `server`'s database with value handle `valueHandle`.
    func characteristic(valueHandle: UInt16, server: GATTServerSide) -> GATTServerView.Characteristic? {
        database(server).characteristic(valueHandle: valueHandle)
    }
}

/// A GATT "use" (RULES.md): written, subscribed (CCCD write), notified/indicated, or read outside
/// a just-in-case sweep.
struct GATTUse: Sendable {
    var handle: UInt16
    /// The server whose attribute was used.
    var server: GATTServerSide
    var at: FrameTime
    var kind: String
    var client: Side
    /// Its PDU's place among the connection's ATT PDUs.
    var order: Int
    var text: String { "handle \(Text.hex4(handle)) \(kind) (frame \(at.frame))" }
}

/// An attribute of one GATT server of a connection (the two sides' handles overlap) as a
/// dictionary key looked up per ATT PDU: hashed with one multiply–xorshift round instead of
/// SipHash (`_rawHashValue(seed:)` is the standard library's hook for that; `hash(into:)` stays
/// for every other use).
struct AttributeHandle: Hashable, Sendable {
    /// The handle, and bit 16 set for the local server's.
    private var key: UInt32
    init(_ handle: UInt16, _ server: GATTServerSide) { key = UInt32(handle) | (server == .local ? 0x1_0000 : 0) }
    var handle: UInt16 { UInt16(truncatingIfNeeded: key) }
    func hash(into hasher: inout Hasher) { hasher.combine(key) }
    func _rawHashValue(seed: Int) -> Int { fastHash(UInt64(key), seed: seed) }
}

/// Uses and sweep reads of one connection.
struct GATTUsage: Sendable {
    /// The first use of each attribute, in PDU order.
    private(set) var uses: [GATTUse] = []
    /// Read Requests that belong to a "just in case" sweep (not uses).
    private(set) var sweepReads: [ATTEvent] = []

    /// What `GATTUsage` needs of a connection's ATT PDUs, one at a time: the first use of each
    /// attribute, and the runs of Read Requests that may be sweeps (whether they are depends on
    /// the characteristics known by their start: judged with the connection's database).
    struct Fold: Sendable {
        typealias Read = (event: ATTEvent, order: Int)
        /// Per attribute (value handle for a CCCD write): its first use outside the runs below.
        var firstUse: [AttributeHandle: GATTUse] = [:]
        /// Per client side (local, remote): runs of two or more Read Requests right after a
        /// discovery request, each handle at most once.
        var runs: [[[Read]]] = [[], []]
        /// Per client side: the run being collected after a discovery request.
        var collecting: [(reads: [Read], seen: Set<UInt16>)?] = [nil, nil]
        var order = 0

        mutating func add(_ step: ATTStep) {
            let e = step.event
            defer { order += 1 }
            if ATTOpcode(e.opcode).isClientOriginated, let side = Self.index(e.clientSide) {
                if collecting[side] != nil {
                    if e.opcode == ATTOpcode.readRequest.rawValue, let h = e.handle, !collecting[side]!.seen.contains(h) {
                        collecting[side]!.seen.insert(h)
                        collecting[side]!.reads.append((e, order))
                        return
                    }
                    end(side)
                }
                if e.startsDiscovery { collecting[side] = ([], []) }
            }
            guard let h = e.handle else { return }
            switch e.opcode {
            case ATTOpcode.readRequest.rawValue, ATTOpcode.readBlobRequest.rawValue:
                useNow(h, e, kind: "read")
            case _ where ATTOpcode(e.opcode).isWrite:
                if let w = step.clientConfigurationWrite {
                    useNow(w.characteristicValueHandle ?? h, e, kind: "subscribed (CCCD write)")
                } else {
                    useNow(h, e, kind: "written")
                }
            case ATTOpcode.handleValueNotification.rawValue:
                useNow(h, e, kind: "notified")
            case ATTOpcode.handleValueIndication.rawValue:
                useNow(h, e, kind: "indicated")
            default:
                break
            }
        }

        private static func index(_ side: Side) -> Int? {
            switch side {
            case .local: 0
            case .remote: 1
            case .unknown: nil
            }
        }

        /// Keeps the use of `handle` by the PDU being added when the attribute has none yet:
        /// every use kept so far has a smaller order, so an existing one stands (looked up by
        /// key only: no use built, no kept one copied).
        private mutating func useNow(_ handle: UInt16, _ e: ATTEvent, kind: String) {
            let server = e.server
            let key = AttributeHandle(handle, server)
            guard firstUse.index(forKey: key) == nil else { return }
            firstUse[key] = GATTUse(handle: handle, server: server, at: e.at, kind: kind, client: e.clientSide, order: order)
        }

        /// Keeps `u` when it is the attribute's first use so far (a read held in a run comes
        /// back here after later PDUs when the run proves too short).
        private mutating func use(_ u: GATTUse) {
            let key = AttributeHandle(u.handle, u.server)
            if let earlier = firstUse[key], earlier.order < u.order { return }
            firstUse[key] = u
        }

        /// Ends the run being collected: two reads or more may be a sweep; fewer are uses.
        private mutating func end(_ side: Int) {
            // Moved out of its slot: the slot is left nil and the run is not copied.
            guard let run = collecting[side].take() else { return }
            if run.reads.count >= 2 {
                runs[side].append(run.reads)
            } else {
                for r in run.reads {
                    use(
                        GATTUse(
                            handle: r.event.handle ?? 0, server: r.event.server, at: r.event.at, kind: "read", client: r.event.clientSide,
                            order: r.order))
                }
            }
        }

        /// The fold with the runs being collected ended.
        func finished() -> Fold {
            var done = self
            done.end(0)
            done.end(1)
            return done
        }
    }

    /// `fold`'s uses and sweeps on connection `c`: a run is a sweep when it covers every
    /// readable characteristic known before it (outside GAP/GATT), at least one; the reads of
    /// the other runs are uses.
    init(_ fold: Fold, _ c: Connection) {
        let fold = fold.finished()
        var firstUse = fold.firstUse
        for side in fold.runs {
            for run in side {
                guard let first = run.first?.event else { continue }
                // The reads of a run go to one server: the one its client reads.
                let server = first.server
                let seen = Set(run.compactMap(\.event.handle))
                let readable = c.database(server).characteristics.filter { ch in
                    ch.properties & 0x02 != 0 && ch.learnedIn < first.at.frame
                        && !(c.service(containing: ch.valueHandle, server: server)?.isGAPOrGATT ?? false)
                }
                if !readable.isEmpty, readable.allSatisfy({ seen.contains($0.valueHandle) }) {
                    sweepReads += run.map(\.event)
                    continue
                }
                for r in run {
                    guard let h = r.event.handle else { continue }
                    let key = AttributeHandle(h, server)
                    if let u = firstUse[key], u.order < r.order { continue }
                    firstUse[key] = GATTUse(
                        handle: h, server: server, at: r.event.at, kind: "read", client: r.event.clientSide, order: r.order)
                }
            }
        }
        uses = firstUse.values.sorted { $0.order < $1.order }
    }

    /// The first use of an attribute of `server` inside `service` of that server (CCCD and value
    /// handles lie in its range).
    func firstUse(in service: GATTService, server: GATTServerSide) -> GATTUse? {
        uses.first { $0.server == server && service.start <= $0.handle && $0.handle <= service.end }
    }
}

/// What several rules derive from the same connections (the GATT uses of each), worked out once
/// per evaluation and shared by them (`Rule.evaluate(_:config:facts:)`). Belongs to one
/// `AnalysisResult`: connections are named by their index in its `connections`. Thread-safe
/// (`RuleEngine` may run rules concurrently); a connection's uses are worked out under the lock,
/// so a rule asking for them while another works them out waits for them instead of doing the
/// work again.
package final class RuleFacts: @unchecked Sendable {
    private let lock = NSLock()
    /// Per connection (its index): the folds of its ATT PDUs, and its GATT uses.
    private var folds: [Int: ConnectionFolds] = [:]
    private var usage: [Int: GATTUsage] = [:]
    /// The folds the analysis made as it went, when it was followed.
    let follower: ConnectionFollower?

    package init(follower: ConnectionFollower? = nil) { self.follower = follower }

    /// The folds of `analysis.connections[index]`'s ATT PDUs: the follower's, when it followed
    /// them as the analysis went, else folded now over the PDUs the connection holds.
    func folds(_ analysis: AnalysisResult, _ index: Int, config: RuleConfiguration) -> ConnectionFolds {
        lock.lock()
        defer { lock.unlock() }
        if let f = folds[index] { return f }
        let c = analysis.connections[index]
        let f = follower?.folds(of: c.id) ?? ConnectionFolds(folding: c, config: config)
        folds[index] = f
        return f
    }

    /// `analysis.connections[index]`'s GATT uses (`GATTUsage`).
    func usage(_ analysis: AnalysisResult, _ index: Int, config: RuleConfiguration) -> GATTUsage {
        if let u = lockedUsage(index) { return u }
        let u = GATTUsage(folds(analysis, index, config: config).usage, analysis.connections[index])
        lock.lock()
        defer { lock.unlock() }
        usage[index] = u
        return u
    }

    private func lockedUsage(_ index: Int) -> GATTUsage? {
        lock.lock()
        defer { lock.unlock() }
        return usage[index]
    }
}

extension Array where Element == String {
    /// Items a verdict's reason lists before "… and N more" (a long capture has thousands of
    /// sessions or connections; the reason stays readable and bounded).
    static var reasonItems: Int { 20 }

    /// The first `reasonItems` items joined, then "… and N more" for the rest.
    func joinedBounded(separator: String) -> String {
        guard count > Self.reasonItems else { return joined(separator: separator) }
        return prefix(Self.reasonItems).joined(separator: separator) + separator + "… and \(count - Self.reasonItems) more"
    }
}

/// Each link's pairings as ``Connection/bond(_:)`` reads them: the first successful one, or
/// that there were pairings and none succeeded. Built in one pass over the pairings.
struct PairingsByLink {
    enum Entry {
        case success(Pairing)
        case noSuccess
    }
    private var entries: [ConnectionID: Entry] = [:]

    init(_ pairings: [Pairing]) {
        for p in pairings {
            if case .success? = entries[p.connection] { continue }
            entries[p.connection] = p.result == .success ? .success(p) : .noSuccess
        }
    }

    subscript(_ id: ConnectionID) -> Entry? { entries[id] }
}

/// Whether a link is bonded, and the frame that shows it.
enum Bond: Sendable, Hashable {
    /// Paired on this link, both sides asking for bonding (the Pairing Request's frame).
    case paired(FrameNumber)
    /// Paired on this link without bonding: keys for this connection only.
    case pairedWithoutBonding(FrameNumber)
    /// Encrypted without pairing on this link: keys of an earlier bond (the Encryption Change).
    case storedKeys(FrameNumber)
    /// Never encrypted.
    case none

    var isBonded: Bool {
        switch self {
        case .paired, .storedKeys: return true
        case .pairedWithoutBonding, .none: return false
        }
    }

    /// Why the link is not bonded, for a not-evaluated reason.
    var notBondedText: String {
        switch self {
        case .pairedWithoutBonding(let f): return "paired without bonding (Pairing Request frame \(f))"
        default: return "never encrypted, so not bonded"
        }
    }
}

extension Pairing {
    /// The side that sent the Pairing Request (`initiator` features) and the one that sent the
    /// Pairing Response (`responder`).
    var requestSide: Side { initiatedBy }
    var responseSide: Side { initiatedBy == .local ? .remote : initiatedBy == .remote ? .local : .unknown }

    /// Which sides' PDUs lack a feature (`has` reads it from the features): the Pairing Request's
    /// sender, the Pairing Response's, both or neither.
    func lacking(_ has: (Features) -> Bool) -> (request: Bool, response: Bool) {
        (initiator.map { !has($0) } ?? false, responder.map { !has($0) } ?? false)
    }

    /// "the Pairing Request (frame 58, sent by the local host)".
    func pduText(request: Bool) -> String {
        let side = request ? requestSide : responseSide
        let frame = request ? self.request.frame : (response?.frame ?? self.request.frame)
        let who = side == .local ? "sent by the local host" : side == .remote ? "sent by the peer" : "sender unknown"
        return "the Pairing \(request ? "Request" : "Response") (frame \(frame), \(who))"
    }

    /// Who lacked a feature, for the finding's attribution: the local host stack when its own
    /// PDU lacks it (the stack sets Secure Connections and MITM, not an app), else the peer (its
    /// firmware must offer it: the local side cannot make up for it); `local` when neither PDU
    /// lacks the flag (the IO capabilities decided).
    func attribution(lacking: (request: Bool, response: Bool), local: ActorEvidence) -> ActorEvidence {
        let localLacks = (lacking.request && requestSide == .local) || (lacking.response && responseSide == .local)
        let remoteLacks = (lacking.request && requestSide == .remote) || (lacking.response && responseSide == .remote)
        if localLacks {
            return ActorEvidence(.localPairingFeatures, frame: requestSide == .local ? request.frame : response?.frame)
        }
        if remoteLacks {
            return ActorEvidence(.remotePairingFeatures, frame: requestSide == .remote ? request.frame : response?.frame)
        }
        return local
    }
}
