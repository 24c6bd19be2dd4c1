import ScopeCore

/// Hash tables for the lookups made per advertising report (half the frames of a long scan):
/// the advertiser's device slot, the session's duplicate check (which also names the device)
/// and the device's distinct payloads. All are open addressing with linear probing in one flat
/// array of fixed-size entries, never empty and less than 3/4 full (a table grows after the
/// insert that fills it so far, not before each probe), hashed with one `fastHash` or one
/// multiply: a `Dictionary`/`Set` of a custom key goes through generic hashing, equality and
/// copy-on-write machinery that cost several times the probe itself. Only the `removeAll`s go
/// through a table, to filter it: no table's order reaches any output.

/// An advertiser (address and address type, as one word) → its slot in `ScanTracker.devices`.
/// Hashed by the address alone: the advertisers of one address (one per address type) share a
/// probe run, where ``forEachIndex(ofAddress:_:)`` finds them all.
struct DeviceTable: Sendable {
    /// `key == DeviceTable.empty` marks a free slot (real keys use 56 bits).
    private struct Entry: Sendable {
        var key: UInt64
        var index: Int
    }
    private static let empty = UInt64.max
    private var entries = [Entry](repeating: Entry(key: DeviceTable.empty, index: 0), count: 64)
    private var count = 0

    /// The word of an advertiser: address in the low 48 bits, type above.
    @inline(__always)
    static func key(address: BDAddr, type: UInt8) -> UInt64 { address.value | UInt64(type) << 48 }

    private static let addressBits: UInt64 = 0xFFFF_FFFF_FFFF

    @inline(__always)
    private static func home(_ key: UInt64) -> Int { fastHash(key & addressBits, seed: 0) }

    /// The index stored for `key`, or else the free slot where ``insert(_:index:at:)`` puts it
    /// (valid until then: the table grows only after an insert).
    @inline(__always)
    func find(_ key: UInt64) -> (index: Int?, slot: Int) {
        entries.withUnsafeBufferPointer { e in
            let mask = e.count - 1
            var i = Self.home(key) & mask
            while true {
                let k = e[i].key
                if k == key { return (e[i].index, i) }
                if k == Self.empty { return (nil, i) }
                i = (i + 1) & mask
            }
        }
    }

    /// Stores `index` for `key` at the slot ``find(_:)`` returned for it.
    mutating func insert(_ key: UInt64, index: Int, at slot: Int) {
        entries[slot] = Entry(key: key, index: index)
        count += 1
        if count * 4 >= entries.count * 3 { grow() }
    }

    /// Calls `body` with the index of every advertiser of `address` (the low 48 bits of a key).
    func forEachIndex(ofAddress address: UInt64, _ body: (Int) -> Void) {
        entries.withUnsafeBufferPointer { e in
            let mask = e.count - 1
            var i = Self.home(address) & mask
            while e[i].key != Self.empty {
                if e[i].key & Self.addressBits == address { body(e[i].index) }
                i = (i + 1) & mask
            }
        }
    }

    /// Keeps only the advertisers whose index `isGone` says no to.
    mutating func removeAll(where isGone: (Int) -> Bool) {
        let free = Entry(key: Self.empty, index: 0)
        count -= removeEntries(
            from: &entries, free: free, isFree: { $0.key == Self.empty }, home: { Self.home($0.key) }, where: { isGone($0.index) })
        let capacity = PayloadTable.capacity(for: count)
        guard capacity * 4 <= entries.count else { return }
        let old = entries
        entries = Array(repeating: free, count: capacity)
        for e in old where e.key != Self.empty { place(e) }
    }

    private mutating func grow() {
        let old = entries
        entries = Array(repeating: Entry(key: Self.empty, index: 0), count: old.count * 2)
        for e in old where e.key != Self.empty { place(e) }
    }

    private mutating func place(_ e: Entry) {
        let mask = entries.count - 1
        var i = Self.home(e.key) & mask
        while entries[i].key != Self.empty { i = (i + 1) & mask }
        entries[i] = e
    }
}

/// Removes the entries `isGone` names from a table of open addressing with linear probing, in
/// place (no second table): each entry left is moved back to the first free slot from its home
/// slot, so every probe run stays unbroken. Returns how many it removed.
@inline(__always)
private func removeEntries<Entry>(
    from entries: inout [Entry], free: Entry, isFree: (Entry) -> Bool, home: (Entry) -> Int, where isGone: (Entry) -> Bool
) -> Int {
    // Walked from a free slot: no probe run crosses it, so an entry is never moved back past
    // the start of the walk.
    guard let start = entries.firstIndex(where: isFree) else { return 0 }
    let mask = entries.count - 1
    var removed = 0
    for k in 1...entries.count {
        let i = (start + k) & mask
        let e = entries[i]
        if isFree(e) { continue }
        if isGone(e) {
            entries[i] = free
            removed += 1
            continue
        }
        var j = home(e) & mask
        while j != i && !isFree(entries[j]) { j = (j + 1) & mask }
        if j != i {
            entries[j] = e
            entries[i] = free
        }
    }
    return removed
}

/// A scan session's distinct reports: advertiser (address and type, as `DeviceTable.key`), event
/// type (data status bits cleared for extended reports) and payload, each with the advertiser's
/// device slot. A duplicate, most reports of a long scan, is told and its device found in one
/// probe (no `DeviceTable` lookup). Entries of a device that leaves go with it
/// (`removeAll(where:)`), so a slot here always names the advertiser of its entry.
struct SessionReportTable: Sendable {
    private struct Entry: Sendable {
        /// `SessionReportTable.empty` marks a free slot.
        var advertiser: UInt64
        /// Device slot << 16 | event type.
        var owner: UInt64
        var payload: ScanTracker.Payload
    }
    private static let empty = UInt64.max
    private var entries: [Entry] = []
    /// Reports held.
    private(set) var count = 0

    /// A table sized for about `expected` reports before it grows (at least 16 slots, at most
    /// 4,096).
    init(expected: Int = 0) {
        allocate(PayloadTable.capacity(for: min(expected, 3_000)))
    }

    /// The device of the report when the session had it already (a duplicate), or else the
    /// free slot where ``insert(advertiser:eventType:payload:device:at:)`` puts it (valid until
    /// then: the table grows only after an insert).
    @inline(__always)
    func find(advertiser: UInt64, eventType: UInt16, payload: ScanTracker.Payload) -> (device: Int?, slot: Int) {
        entries.withUnsafeBufferPointer { e in
            let mask = e.count - 1
            var i = Self.slot(advertiser, eventType, payload) & mask
            while true {
                let a = e[i].advertiser
                if a == Self.empty { return (nil, i) }
                if a == advertiser && UInt16(truncatingIfNeeded: e[i].owner) == eventType && e[i].payload == payload {
                    return (Int(truncatingIfNeeded: e[i].owner >> 16), i)
                }
                i = (i + 1) & mask
            }
        }
    }

    /// Stores the report, from `device`, at the slot ``find(advertiser:eventType:payload:)``
    /// returned for it.
    mutating func insert(advertiser: UInt64, eventType: UInt16, payload: ScanTracker.Payload, device: Int, at slot: Int) {
        entries[slot] = Entry(advertiser: advertiser, owner: UInt64(device) << 16 | UInt64(eventType), payload: payload)
        count += 1
        if count * 4 >= entries.count * 3 { grow() }
    }

    /// Keeps only the reports of the devices `isGone` says no to (in place; a table four times
    /// too large for them is made smaller).
    mutating func removeAll(where isGone: (Int) -> Bool) {
        count -= removeEntries(
            from: &entries, free: Self.free, isFree: { $0.advertiser == Self.empty },
            home: { Self.slot($0.advertiser, UInt16(truncatingIfNeeded: $0.owner), $0.payload) },
            where: { isGone(Int(truncatingIfNeeded: $0.owner >> 16)) })
        let capacity = PayloadTable.capacity(for: count)
        guard capacity * 4 <= entries.count else { return }
        let old = entries
        allocate(capacity)
        for e in old where e.advertiser != Self.empty { place(e) }
    }

    /// Advertiser and event type in one word (the event type's low byte in the advertiser's
    /// free top byte), spread with the payload as ``PayloadTable`` spreads an owner's.
    @inline(__always)
    private static func slot(_ advertiser: UInt64, _ eventType: UInt16, _ payload: ScanTracker.Payload) -> Int {
        PayloadTable.slot(advertiser ^ UInt64(eventType) << 56, payload)
    }

    private mutating func grow() {
        let old = entries
        allocate(old.count * 2)
        for e in old where e.advertiser != Self.empty { place(e) }
    }

    private static let free = Entry(advertiser: empty, owner: 0, payload: ScanTracker.Payload(fingerprint: 0))

    private mutating func allocate(_ capacity: Int) {
        entries = Array(repeating: Self.free, count: capacity)
    }

    private mutating func place(_ e: Entry) {
        let mask = entries.count - 1
        var i = Self.slot(e.advertiser, UInt16(truncatingIfNeeded: e.owner), e.payload) & mask
        while entries[i].advertiser != Self.empty { i = (i + 1) & mask }
        entries[i] = e
    }
}

/// Distinct payloads per owner, as one set of (owner, payload) pairs: the devices' distinct
/// payloads, owner = device slot (one table rather than a `Set<Payload>` per device).
struct PayloadTable: Sendable {
    private struct Entry: Sendable {
        /// `PayloadTable.empty` marks a free slot.
        var owner: UInt64
        var payload: ScanTracker.Payload
    }
    private static let empty = UInt64.max
    private var entries: [Entry] = []
    /// Pairs held.
    private(set) var count = 0

    init() {
        allocate(16)
    }

    /// Adds the pair; false when it was there already (the usual answer: a duplicate costs one
    /// probe and no write).
    @inline(__always)
    mutating func insert(_ owner: UInt64, _ payload: ScanTracker.Payload) -> Bool {
        let free: Int? = entries.withUnsafeBufferPointer { e in
            let mask = e.count - 1
            var i = Self.slot(owner, payload) & mask
            while true {
                let o = e[i].owner
                if o == Self.empty { return i }
                if o == owner && e[i].payload == payload { return nil }
                i = (i + 1) & mask
            }
        }
        guard let free else { return false }
        entries[free] = Entry(owner: owner, payload: payload)
        count += 1
        if count * 4 >= entries.count * 3 { grow() }
        return true
    }

    /// Keeps only the pairs whose owner `isGone` says no to (what a device leaving frees; in
    /// place, and a table four times too large for them is made smaller).
    mutating func removeAll(where isGone: (UInt64) -> Bool) {
        count -= removeEntries(
            from: &entries, free: Self.free, isFree: { $0.owner == Self.empty }, home: { Self.slot($0.owner, $0.payload) },
            where: { isGone($0.owner) })
        let capacity = Self.capacity(for: count)
        guard capacity * 4 <= entries.count else { return }
        let old = entries
        allocate(capacity)
        for e in old where e.owner != Self.empty { place(e) }
    }

    /// The least power of two, at least 16, of which `count` is less than 3/4.
    static func capacity(for count: Int) -> Int {
        var capacity = 16
        while count * 4 >= capacity * 3 { capacity *= 2 }
        return capacity
    }

    /// The payload's fingerprint is mixed already: one 64×64→128-bit multiply with the owner
    /// (the product's halves xored) spreads the pair, where `fastHash` would chain three.
    @inline(__always)
    fileprivate static func slot(_ owner: UInt64, _ payload: ScanTracker.Payload) -> Int {
        let (high, low) = (owner ^ 0x9E37_79B9_7F4A_7C15).multipliedFullWidth(by: payload.fingerprint)
        return Int(truncatingIfNeeded: high ^ low)
    }

    private mutating func grow() {
        let old = entries
        allocate(old.count * 2)
        for e in old where e.owner != Self.empty { place(e) }
    }

    private static let free = Entry(owner: empty, payload: ScanTracker.Payload(fingerprint: 0))

    private mutating func allocate(_ capacity: Int) {
        entries = Array(repeating: Self.free, count: capacity)
    }

    /// Puts a pair not in the table in its first free slot.
    private mutating func place(_ e: Entry) {
        let mask = entries.count - 1
        var i = Self.slot(e.owner, e.payload) & mask
        while entries[i].owner != Self.empty { i = (i + 1) & mask }
        entries[i] = e
    }
}

/// Where each advertiser was last found on each adapter (`ScanTracker.lastDiscovery`): the
/// scan session's start frame and its first report there, by adapter and address (one word:
/// address in the low 48 bits, adapter above). Written on each advertiser's first report in a
/// session; removals (a device leaving) shift the probe run back, no tombstones.
struct DiscoveryTable: Sendable {
    private struct Entry: Sendable {
        var key: UInt64
        /// `DiscoveryTable.free` marks a free slot.
        var scanStart: FrameNumber
        var firstReport: FrameTime
    }
    private static let free = FrameNumber.min
    private var entries = [Entry](
        repeating: Entry(key: 0, scanStart: DiscoveryTable.free, firstReport: FrameTime(frame: 0, time: Timestamp(microseconds: 0))),
        count: 64)
    private var count = 0

    @inline(__always)
    private static func key(_ at: ScanTracker.AdapterAddress) -> UInt64 { at.address.value | UInt64(at.adapter) << 48 }

    /// The slot holding `key`, or else the free slot that ends its probe run.
    @inline(__always)
    private func find(_ key: UInt64) -> (found: Bool, slot: Int) {
        entries.withUnsafeBufferPointer { e in
            let mask = e.count - 1
            var i = fastHash(key, seed: 0) & mask
            while true {
                if e[i].scanStart == Self.free { return (false, i) }
                if e[i].key == key { return (true, i) }
                i = (i + 1) & mask
            }
        }
    }

    subscript(at: ScanTracker.AdapterAddress) -> ScanTracker.Discovery? {
        let (found, slot) = find(Self.key(at))
        guard found else { return nil }
        let e = entries[slot]
        return ScanTracker.Discovery(scanStart: e.scanStart, firstReport: e.firstReport)
    }

    /// Stores `discovery` for `at`; returns the one it replaces.
    @discardableResult
    mutating func updateValue(_ discovery: ScanTracker.Discovery, forKey at: ScanTracker.AdapterAddress) -> ScanTracker.Discovery? {
        let key = Self.key(at)
        let (found, slot) = find(key)
        let old = found ? ScanTracker.Discovery(scanStart: entries[slot].scanStart, firstReport: entries[slot].firstReport) : nil
        entries[slot] = Entry(key: key, scanStart: discovery.scanStart, firstReport: discovery.firstReport)
        if !found {
            count += 1
            if count * 4 >= entries.count * 3 { grow() }
        }
        return old
    }

    /// Forgets `at`: the entries after it in its probe run move back into the gap when their
    /// own start slot lets them, so every run stays unbroken.
    mutating func removeValue(forKey at: ScanTracker.AdapterAddress) {
        let (found, slot) = find(Self.key(at))
        guard found else { return }
        let mask = entries.count - 1
        var gap = slot
        var i = (slot + 1) & mask
        while entries[i].scanStart != Self.free {
            let home = fastHash(entries[i].key, seed: 0) & mask
            // The entry may fill the gap when its home is not in (gap, i] (cyclically).
            if (i - home) & mask >= (i - gap) & mask {
                entries[gap] = entries[i]
                gap = i
            }
            i = (i + 1) & mask
        }
        entries[gap].scanStart = Self.free
        count -= 1
    }

    /// The discoveries held, in no particular order.
    var values: [ScanTracker.Discovery] {
        entries.compactMap { $0.scanStart == Self.free ? nil : ScanTracker.Discovery(scanStart: $0.scanStart, firstReport: $0.firstReport) }
    }

    private mutating func grow() {
        let old = entries
        entries = Array(repeating: Entry(key: 0, scanStart: Self.free, firstReport: old[0].firstReport), count: old.count * 2)
        let mask = entries.count - 1
        for e in old where e.scanStart != Self.free {
            var i = fastHash(e.key, seed: 0) & mask
            while entries[i].scanStart != Self.free { i = (i + 1) & mask }
            entries[i] = e
        }
    }
}
