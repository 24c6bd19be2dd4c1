import ScopeCore

/// Hash tables for the lookups made per advertising report (half the frames of a long scan):
/// the advertiser's device slot, the session's duplicate check and the device's distinct
/// payloads. All are open addressing with linear probing in one flat array of fixed-size
/// entries, at most 3/4 full, hashed with one `fastHash`: a `Dictionary`/`Set` of a custom key
/// goes through generic hashing, equality and copy-on-write machinery that cost several times
/// the probe itself. Only `PayloadTable.removeAll` goes through a table, to filter it: no table's order reaches any output.

/// An advertiser (address and address type, as one word) → its slot in `ScanTracker.devices`.
struct DeviceTable: Sendable {
    /// `key == DeviceTable.empty` marks a free slot (real keys use 56 bits).
    private struct Entry: Sendable {
        var key: UInt64
        var index: Int
    }
    private static let empty = UInt64.max
    private var entries: [Entry] = []
    private var count = 0

    /// The word of an advertiser: address in the low 48 bits, type above.
    @inline(__always)
    static func key(address: BDAddr, type: UInt8) -> UInt64 { address.value | UInt64(type) << 48 }

    /// The index stored for `key`, or else the free slot where ``insert(_:index:at:)`` puts it
    /// (valid until then: the table grows here, before the probe, never between).
    @inline(__always)
    mutating func find(_ key: UInt64) -> (index: Int?, slot: Int) {
        if count * 4 >= entries.count * 3 { grow() }
        let mask = entries.count - 1
        var i = fastHash(key, seed: 0) & mask
        while true {
            let k = entries[i].key
            if k == key { return (entries[i].index, i) }
            if k == Self.empty { return (nil, i) }
            i = (i + 1) & mask
        }
    }

    /// Stores `index` for `key` at the slot ``find(_:)`` returned for it.
    mutating func insert(_ key: UInt64, index: Int, at slot: Int) {
        entries[slot] = Entry(key: key, index: index)
        count += 1
    }

    private mutating func grow() {
        let old = entries
        entries = Array(repeating: Entry(key: Self.empty, index: 0), count: max(64, old.count * 2))
        let mask = entries.count - 1
        for e in old where e.key != Self.empty {
            var i = fastHash(e.key, seed: 0) & mask
            while entries[i].key != Self.empty { i = (i + 1) & mask }
            entries[i] = e
        }
    }
}

/// Distinct payloads per owner, as one set of (owner, payload) pairs. A scan session's distinct
/// reports: owner = advertiser (its device slot) << 16 | event type (data status bits cleared
/// for extended reports); equal entries are exactly equal `ReportKey`s of the set this replaced
/// (a held device's slot stands for address and type one to one). The devices' distinct payloads:
/// owner = device slot (one table rather than a `Set<Payload>` per device).
struct PayloadTable: Sendable {
    private struct Entry: Sendable {
        /// `PayloadTable.empty` marks a free slot.
        var owner: UInt64
        var payload: ScanTracker.Payload
    }
    private static let empty = UInt64.max
    private var entries: [Entry] = []
    private var count = 0

    /// Adds the pair; false when it was there already.
    @inline(__always)
    mutating func insert(_ owner: UInt64, _ payload: ScanTracker.Payload) -> Bool {
        if count * 4 >= entries.count * 3 { grow() }
        let mask = entries.count - 1
        var i = Self.slot(owner, payload) & mask
        while true {
            let o = entries[i].owner
            if o == Self.empty { break }
            if o == owner && entries[i].payload == payload { return false }
            i = (i + 1) & mask
        }
        entries[i] = Entry(owner: owner, payload: payload)
        count += 1
        return true
    }

    /// Keeps only the pairs whose owner `isGone` says no to, in a table sized for them (what
    /// a device leaving frees).
    mutating func removeAll(where isGone: (UInt64) -> Bool) {
        let kept = entries.filter { $0.owner != Self.empty && !isGone($0.owner) }
        guard kept.count < count else { return }
        entries = []
        count = 0
        var capacity = 16
        while kept.count * 4 >= capacity * 3 { capacity *= 2 }
        allocate(capacity)
        for e in kept { place(e) }
        count = kept.count
    }

    /// The payload's fingerprint is mixed already: one 64×64→128-bit multiply with the owner
    /// (the product's halves xored) spreads the pair, where `fastHash` would chain three.
    @inline(__always)
    private static func slot(_ owner: UInt64, _ payload: ScanTracker.Payload) -> Int {
        let (high, low) = (owner ^ 0x9E37_79B9_7F4A_7C15).multipliedFullWidth(by: payload.fingerprint &+ UInt64(payload.count))
        return Int(truncatingIfNeeded: high ^ low)
    }

    private mutating func grow() {
        let old = entries
        allocate(max(16, old.count * 2))
        for e in old where e.owner != Self.empty { place(e) }
    }

    private mutating func allocate(_ capacity: Int) {
        entries = Array(repeating: Entry(owner: Self.empty, payload: ScanTracker.Payload(fingerprint: 0, count: 0)), count: capacity)
    }

    /// Puts a pair not in the table in its first free slot.
    private mutating func place(_ e: Entry) {
        let mask = entries.count - 1
        var i = Self.slot(e.owner, e.payload) & mask
        while entries[i].owner != Self.empty { i = (i + 1) & mask }
        entries[i] = e
    }
}
