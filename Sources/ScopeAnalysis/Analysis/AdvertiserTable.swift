import ScopeCore
import ScopeDecode

/// The advertisers a scan tracker heard (`ScanTracker.advertisers`): each one's figures by slot,
/// its distinct payloads, and its name, service UUIDs and companies kept once for every device
/// that sends the same (`traits`). Its state is private: the scan tracker finds a report's slot
/// (`slot(of:address:addressType:at:)`), counts the report on it (`report`), and lets quiet
/// devices go (`forgetQuiet`).
///
/// Flat memory on a scan that hears ever new advertisers: a resolvable private address changes
/// every 15 minutes or so, so a scan left running among phones for a day hears a new device for
/// each address each phone uses. Every device after the first `HandOverPolicy.kept` (which the
/// reports list and which stay) leaves the scan tracker once it has not been heard for
/// `HandOverPolicy.deviceQuietMicros`, longer than a private address lives: its record, distinct
/// payloads, slot in the running sessions' duplicate tables and where it was last found go, and
/// only the count stays (`HandedOverItems.devices`). An address heard again after that is a new
/// device: for a rotating address that never happens; a static one that comes back after so
/// long counts twice.
struct AdvertiserTable: Sendable {
    /// Advertisers by slot: a device's slot is its id while it is held (the values of `index`,
    /// the owners in `payloads`, and the ids in the running sessions' tables). The first
    /// `HandOverPolicy.kept` devices fill the first slots in the order heard and stay; a later
    /// one can leave once quiet (`forgetQuiet`), and its slot goes to the next new device.
    private var devices: [HeldDevice] = []
    /// The names, service UUIDs and companies of the devices held, each combination once
    /// (`HeldDevice.traits`; entry 0: none), and each one's entry.
    private var traits: [DeviceTraits] = [DeviceTraits()]
    private var traitsIndex: [DeviceTraits: UInt32] = [DeviceTraits(): 0]
    /// Traits not held by any device are looked for once `traits` holds this many
    /// (`forgetUnusedTraits`): a device whose name changes keeps one name, not all it sent.
    private var traitsLimit = AdvertiserTable.fewTraits
    /// Per slot: its device's place in the order devices were first heard (what the reports list
    /// by), or `AdvertiserTable.freeSlot`.
    private var order: [Int] = []
    /// Slots whose device left, for the next new devices.
    private var freeSlots: [Int] = []
    /// Devices heard, and how many of them left (`HandedOverItems.devices`).
    private(set) var heard = 0
    private(set) var left = 0
    /// Of those that left, the ones let go before they were quiet: more advertisers within the
    /// quiet time than `HandOverPolicy.heldDevices` (`forgetQuiet`).
    private(set) var notHeld = 0
    /// Quiet devices are looked for once this many are held (`scheduleLook`).
    private var lookWhenHeld = Int.max
    /// Advertiser → its slot (the devices of one address found together: `firstHeld(of:)`).
    private var index = DeviceTable()
    /// The devices' distinct payloads (owner: the device's slot).
    private var payloads = PayloadTable()

    /// `order` of a slot whose device left.
    private static let freeSlot = -1

    /// Devices held now.
    var held: Int { heard - left }

    /// Whether enough devices came since the last look for quiet ones (`lookWhenHeld`).
    /// Asked after every frame: one comparison.
    @inline(__always)
    var isDueForLook: Bool { held >= lookWhenHeld }

    /// Whether the device at `slot` is held (not left).
    func holds(_ slot: Int) -> Bool { order[slot] != Self.freeSlot }

    /// Sets when the devices are looked at next: once `every` more are held after the first
    /// `kept` than after the last look, or a quarter more, whichever is more (each look costs time
    /// in proportion to the devices held).
    /// At the latest once `cap` devices are held after the first `kept`.
    mutating func scheduleLook(kept: Int, every: Int, cap: Int = .max) {
        let beyondKept = max(0, held - kept)
        let (limit, overflow) = kept.addingReportingOverflow(cap)
        lookWhenHeld = min(kept + beyondKept + max(every, beyondKept / 4), overflow ? .max : limit)
    }

    /// The slots of the devices that left in one look, and the addresses no device held has
    /// any more.
    struct Departure {
        var slots: [Int] = []
        var addresses: [BDAddr] = []
    }

    /// The devices after the first `kept` not heard since `quietSince` leave, and the next look
    /// is scheduled (`every`: `scheduleLook`). When more than `cap` would still be held after the
    /// first `kept` (more distinct advertisers within the quiet time than the limit,
    /// `limits.advertisers_held`), those heard least recently leave too, down to three quarters
    /// of `cap`, and are counted in `notHeld`.
    mutating func forgetQuiet(quietSince cutoff: Timestamp, kept: Int, every: Int, cap: Int = .max) -> Departure {
        defer { scheduleLook(kept: kept, every: every, cap: cap) }
        guard devices.count > kept else { return Departure() }
        var gone: [Int] = []
        var stay: [Int] = []
        for slot in kept..<devices.count where order[slot] != Self.freeSlot {
            if devices[slot].last.time < cutoff { gone.append(slot) } else { stay.append(slot) }
        }
        if stay.count > cap {
            // The cap: the least recently heard go first (ties: the earlier slot).
            stay.sort { (devices[$0].last.frame, $0) < (devices[$1].last.frame, $1) }
            let over = stay.count - cap / 4 * 3
            gone += stay.prefix(over)
            gone.sort()
            notHeld += over
        }
        guard !gone.isEmpty else { return Departure() }
        for slot in gone { order[slot] = Self.freeSlot }
        freeSlots += gone.reversed()
        left += gone.count

        // The tables that name a device by its slot keep only the devices held (in place: no
        // second copy of a table).
        let order = order
        func isFree(_ slot: Int) -> Bool { order[slot] == Self.freeSlot }
        index.removeAll { isFree($0) }
        payloads.removeAll { isFree(Int($0)) }
        var departure = Departure(slots: gone)
        for slot in gone where firstHeld(of: devices[slot].address) == nil { departure.addresses.append(devices[slot].address) }
        forgetUnusedTraits()
        return departure
    }

    /// The device's slot (`key`: `DeviceTable.key` of address and type), added on its first
    /// report (inlined: a known device is one probe).
    @inline(__always)
    mutating func slot(of key: UInt64, address: BDAddr, addressType: UInt8, at: FrameTime) -> Int {
        let (found, tableSlot) = index.find(key)
        if let found { return found }
        return add(key, tableSlot: tableSlot, at: at)
    }

    private mutating func add(_ key: UInt64, tableSlot: Int, at: FrameTime) -> Int {
        let device = HeldDevice(advertiser: key, first: at)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            devices[slot] = device
            order[slot] = heard
        } else {
            slot = devices.count
            devices.append(device)
            order.append(heard)
        }
        heard += 1
        index.insert(key, index: slot, at: tableSlot)
        return slot
    }

    /// One report of the device at `slot` (`data`: its advertising data, `payload` its
    /// fingerprint; a duplicate in the running session is a payload the device sent before).
    @inline(__always)
    mutating func report(
        _ slot: Int, payload: ScanTracker.Payload, data: UnsafeRawBufferPointer, rssi: Int8, connectable: Bool, isDuplicate: Bool,
        at: FrameTime
    ) {
        let newPayload = !isDuplicate && payloads.insert(UInt64(slot), payload)
        devices[slot].update(rssi: rssi, connectable: connectable, newPayload: newPayload, at: at)
        if newPayload { noteTraits(ADParser.parse([UInt8](data), baseOffset: 0), device: slot) }
    }

    /// A new payload of the device at `slot`: its name (the last one sent), service UUIDs and
    /// companies (each once, in the order first sent), kept with `traits`.
    private mutating func noteTraits(_ ad: ADParseResult, device slot: Int) {
        var t = traits[Int(devices[slot].traits)]
        var changed = false
        if let name = ad.localName, name != t.name {
            t.name = name
            changed = true
        }
        for uuid in ad.serviceUUIDs {
            let s = uuid.compactString
            if !t.serviceUUIDs.contains(s) {
                t.serviceUUIDs.append(s)
                changed = true
            }
        }
        for m in ad.manufacturerData where !t.manufacturers.contains(m.companyID) {
            t.manufacturers.append(m.companyID)
            changed = true
        }
        guard changed else { return }
        if let known = traitsIndex[t] {
            devices[slot].traits = known
        } else {
            let entry = UInt32(traits.count)
            traits.append(t)
            traitsIndex[t] = entry
            devices[slot].traits = entry
            if traits.count >= traitsLimit { forgetUnusedTraits() }
        }
    }

    /// The end of the capture: the lookups for reports to come go (`slot(of:)`, `firstHeld(of:)`
    /// and what uses it answer nothing after this); the devices stay for `inOrder()`.
    mutating func dropLookups() {
        index = DeviceTable()
        payloads = PayloadTable()
    }

    /// The held device of `address` heard first (of any address type), if any.
    func firstHeld(of address: BDAddr) -> Int? {
        var first: Int?
        index.forEachIndex(ofAddress: address.value) { slot in
            if first.map({ order[slot] < order[$0] }) ?? true { first = slot }
        }
        return first
    }

    /// The first report of the device `address` (the first device of that address held).
    func firstReport(of address: BDAddr?) -> FrameTime? {
        address.flatMap { firstHeld(of: $0) }.map { devices[$0].first }
    }

    /// The RSSI of the last advertising report heard from `address` (of any address type, on
    /// any adapter) before now that carried one: the signal strength a link to it started with.
    func lastAdvertisingRSSI(of address: BDAddr) -> RSSIReading? {
        var latest: HeldDevice?
        index.forEachIndex(ofAddress: address.value) { slot in
            guard let at = devices[slot].lastRSSIAt else { return }
            if latest.map({ at.frame > $0.lastRSSIAt?.frame ?? 0 }) ?? true { latest = devices[slot] }
        }
        guard let d = latest, let at = d.lastRSSIAt else { return nil }
        return RSSIReading(dBm: Int(d.lastRSSI), at: at)
    }

    /// `traits` is never made smaller than this.
    static let fewTraits = 64

    /// The distinct traits kept now (at most twice the devices held, or `fewTraits`).
    var traitsKept: Int { traits.count }

    /// Once at least half the traits kept belong to no device held, the others are kept alone
    /// (`traits` follows the devices held, not all the devices heard nor every name one sent).
    /// The next look is due once `traits` holds twice as many as now or as devices are held
    /// (each look costs time in proportion to both).
    private mutating func forgetUnusedTraits() {
        defer { traitsLimit = max(Self.fewTraits, 2 * traits.count, 2 * held) }
        guard traits.count >= Self.fewTraits else { return }
        var used = [Bool](repeating: false, count: traits.count)
        used[0] = true
        var usedCount = 1
        for slot in devices.indices where order[slot] != Self.freeSlot {
            let t = Int(devices[slot].traits)
            if !used[t] {
                used[t] = true
                usedCount += 1
            }
        }
        guard usedCount * 2 <= traits.count else { return }
        var entry = [UInt32](repeating: 0, count: traits.count)
        var keptTraits: [DeviceTraits] = []
        keptTraits.reserveCapacity(usedCount)
        var index: [DeviceTraits: UInt32] = Dictionary(minimumCapacity: usedCount)
        for (i, t) in traits.enumerated() where used[i] {
            entry[i] = UInt32(keptTraits.count)
            index[t] = entry[i]
            keptTraits.append(t)
        }
        traits = keptTraits
        traitsIndex = index
        for slot in devices.indices where order[slot] != Self.freeSlot {
            devices[slot].traits = entry[Int(devices[slot].traits)]
        }
    }

    /// The device at `slot` as the reports read it.
    private func device(at slot: Int) -> Device {
        let held = devices[slot]
        var d = Device(address: held.address, addressType: held.addressType, first: held.first)
        d.reports = held.reports
        d.last = held.last
        d.distinctPayloads = Int(held.distinctPayloads)
        if held.hasRSSI {
            d.rssiMin = held.rssiMin
            d.rssiMax = held.rssiMax
        }
        let t = traits[Int(held.traits)]
        d.name = t.name
        d.serviceUUIDs = t.serviceUUIDs
        d.manufacturers = t.manufacturers
        d.connectable = held.connectable
        return d
    }

    /// The devices held, in the order first heard, and each address's first device among them:
    /// `AnalysisResult.devices` and `firstDeviceOfAddress`.
    func inOrder() -> (devices: [Device], firstOfAddress: [BDAddr: Int]) {
        let slots =
            left == 0
            ? Array(devices.indices)
            : devices.indices.filter { order[$0] != Self.freeSlot }.sorted { order[$0] < order[$1] }
        var inOrder: [Device] = []
        inOrder.reserveCapacity(slots.count)
        var firstOfAddress: [BDAddr: Int] = [:]
        for slot in slots {
            let d = device(at: slot)
            if firstOfAddress[d.address] == nil { firstOfAddress[d.address] = inOrder.count }
            inOrder.append(d)
        }
        return (inOrder, firstOfAddress)
    }
}

/// An advertiser as the scan tracker holds it: the figures of its `Device` in 64 bytes with no
/// allocation of its own (its name, service UUIDs and companies are `AdvertiserTable.traits`, kept
/// once for every device that sends the same). `AdvertiserTable.device(at:)` makes its `Device`.
struct HeldDevice: Sendable {
    /// `DeviceTable.key` of its address and address type.
    var advertiser: UInt64
    var first: FrameTime
    var last: FrameTime
    var reports = 0
    var distinctPayloads: UInt32 = 0
    /// Its entry in `AdvertiserTable.traits` (0: no name, service UUID or company).
    var traits: UInt32 = 0
    /// The least and greatest RSSI reported; `noRSSI` in `rssiMin` until a report gives one (a
    /// report's 127 means "not available" and is never kept).
    var rssiMin = HeldDevice.noRSSI
    var rssiMax = Int8.min
    /// The RSSI of the last report that carried one, and that report's frame (nil: none did).
    var lastRSSI = HeldDevice.noRSSI
    var lastRSSIAt: FrameTime?
    var connectable = false

    static let noRSSI: Int8 = 127

    init(advertiser: UInt64, first: FrameTime) {
        self.advertiser = advertiser
        self.first = first
        self.last = first
    }

    var address: BDAddr { BDAddr(value: advertiser) }
    var addressType: UInt8 { UInt8(truncatingIfNeeded: advertiser >> 48) }
    var hasRSSI: Bool { rssiMin != Self.noRSSI }

    /// One report (`newPayload`: its data is new for the device).
    @inline(__always)
    mutating func update(rssi: Int8, connectable: Bool, newPayload: Bool, at: FrameTime) {
        reports += 1
        last = at
        if rssi != Self.noRSSI {
            lastRSSI = rssi
            lastRSSIAt = at
            rssiMin = min(rssiMin, rssi)
            rssiMax = max(rssiMax, rssi)
        }
        if connectable { self.connectable = true }
        if newPayload { distinctPayloads += 1 }
    }
}

/// What a device's advertising data named: its last name, its service UUIDs and companies
/// (each once, in the order first sent).
struct DeviceTraits: Hashable, Sendable {
    var name: String?
    var serviceUUIDs: [String] = []
    var manufacturers: [UInt16] = []
}
