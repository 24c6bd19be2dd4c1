import ScopeCore

/// Flat memory on a scan that hears ever new advertisers: a resolvable private address changes
/// every 15 minutes or so, so a scan left running among phones for a day hears a new device for
/// each address each phone uses. Every device after the first `HandOverPolicy.kept` (which the
/// reports list and which stay) leaves the scan tracker once it has not been heard for
/// `HandOverPolicy.deviceQuietMicros`, longer than a private address lives: its record, distinct
/// payloads, slot in the running sessions' duplicate tables and where it was last found go, and
/// only the count stays (`HandedOverItems.devices`). An address heard again after that is a new
/// device: for a rotating address that never happens; a static one that comes back after so
/// long counts twice.
extension ScanTracker {
    /// `deviceOrder` of a slot whose device left.
    static let freeSlot = -1

    /// Devices held now.
    var heldDevices: Int { devicesHeard - devicesLeft }

    /// Whether enough devices came since the last look for quiet ones (`lookAtDevicesWhenHeld`).
    /// Asked after every frame: one comparison.
    @inline(__always)
    var hasDevicesToLookAt: Bool { heldDevices >= lookAtDevicesWhenHeld }

    /// Sets when the devices are looked at next: once `every` more are held after the first
    /// `kept` than after the last look, or a quarter more, whichever is more (each look costs time
    /// in proportion to the devices held).
    /// At the latest once `cap` devices are held after the first `kept`.
    mutating func scheduleDeviceLook(kept: Int, every: Int, cap: Int = .max) {
        let beyondKept = max(0, heldDevices - kept)
        let (limit, overflow) = kept.addingReportingOverflow(cap)
        lookAtDevicesWhenHeld = min(kept + beyondKept + max(every, beyondKept / 4), overflow ? .max : limit)
    }

    /// The devices after the first `kept` not heard since `quietSince` leave, and the next look
    /// is scheduled (`every`: `scheduleDeviceLook`); returns how many left. When more than `cap`
    /// would still be held after the first `kept` (more distinct advertisers within the quiet
    /// time than the limit, `limits.advertisers_held`), those heard least recently leave too,
    /// down to three quarters of `cap`, and are counted in `devicesNotHeld`.
    @discardableResult
    mutating func forgetQuietDevices(quietSince cutoff: Timestamp, kept: Int, every: Int, cap: Int = .max) -> Int {
        defer { scheduleDeviceLook(kept: kept, every: every, cap: cap) }
        guard devices.count > kept else { return 0 }
        var gone: [Int] = []
        var stay: [Int] = []
        for slot in kept..<devices.count where deviceOrder[slot] != Self.freeSlot {
            if devices[slot].last.time < cutoff { gone.append(slot) } else { stay.append(slot) }
        }
        if stay.count > cap {
            // The cap: the least recently heard go first (ties: the earlier slot).
            stay.sort { (devices[$0].last.frame, $0) < (devices[$1].last.frame, $1) }
            let over = stay.count - cap / 4 * 3
            gone += stay.prefix(over)
            gone.sort()
            devicesNotHeld += over
        }
        guard !gone.isEmpty else { return 0 }
        for slot in gone { deviceOrder[slot] = Self.freeSlot }
        freeSlots += gone.reversed()
        devicesLeft += gone.count

        // The tables that name a device by its slot keep only the devices held (in place: no
        // second copy of a table).
        let order = deviceOrder
        func left(_ slot: Int) -> Bool { order[slot] == Self.freeSlot }
        deviceIndex.removeAll { left($0) }
        devicePayloads.removeAll { left(Int($0)) }
        for r in running.indices {
            running[r].seen.removeAll { left($0) }
            for slot in gone where slot >> 6 < running[r].deviceBits.count {
                running[r].deviceBits[slot >> 6] &= ~(UInt64(1) << UInt64(slot & 63))
            }
        }
        // Where an address was last found goes with its last device held.
        for slot in gone {
            let address = devices[slot].address
            guard firstHeldDevice(of: address) == nil else { continue }
            for adapter in discoveryAdapters { lastDiscovery.removeValue(forKey: AdapterAddress(adapter: adapter, address: address)) }
        }
        forgetUnusedTraits()
        return gone.count
    }

    /// The held device of `address` heard first (of any address type), if any.
    func firstHeldDevice(of address: BDAddr) -> Int? {
        var first: Int?
        deviceIndex.forEachIndex(ofAddress: address.value) { slot in
            if first.map({ deviceOrder[slot] < deviceOrder[$0] }) ?? true { first = slot }
        }
        return first
    }

    /// The RSSI of the last advertising report heard from `address` (of any address type, on
    /// any adapter) before now that carried one: the signal strength a link to it started with.
    func lastAdvertisingRSSI(of address: BDAddr) -> RSSIReading? {
        var latest: HeldDevice?
        deviceIndex.forEachIndex(ofAddress: address.value) { slot in
            guard let at = devices[slot].lastRSSIAt else { return }
            if latest.map({ at.frame > $0.lastRSSIAt?.frame ?? 0 }) ?? true { latest = devices[slot] }
        }
        guard let d = latest, let at = d.lastRSSIAt else { return nil }
        return RSSIReading(dBm: Int(d.lastRSSI), at: at)
    }

    /// `traits` is never made smaller than this.
    static let fewTraits = 64

    /// Once at least half the traits kept belong to no device held, the others are kept alone
    /// (`traits` follows the devices held, not all the devices heard nor every name one sent).
    /// The next look is due once `traits` holds twice as many as now or as devices are held
    /// (each look costs time in proportion to both).
    mutating func forgetUnusedTraits() {
        defer { traitsLimit = max(Self.fewTraits, 2 * traits.count, 2 * heldDevices) }
        guard traits.count >= Self.fewTraits else { return }
        var used = [Bool](repeating: false, count: traits.count)
        used[0] = true
        var usedCount = 1
        for slot in devices.indices where deviceOrder[slot] != Self.freeSlot {
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
        for slot in devices.indices where deviceOrder[slot] != Self.freeSlot {
            devices[slot].traits = entry[Int(devices[slot].traits)]
        }
    }

    /// The device at `slot` as the reports read it.
    func device(at slot: Int) -> Device {
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
    func devicesInOrder() -> (devices: [Device], firstOfAddress: [BDAddr: Int]) {
        let slots =
            devicesLeft == 0
            ? Array(devices.indices)
            : devices.indices.filter { deviceOrder[$0] != Self.freeSlot }.sorted { deviceOrder[$0] < deviceOrder[$1] }
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
/// allocation of its own (its name, service UUIDs and companies are `ScanTracker.traits`, kept
/// once for every device that sends the same). `ScanTracker.device(at:)` makes its `Device`.
struct HeldDevice: Sendable {
    /// `DeviceTable.key` of its address and address type.
    var advertiser: UInt64
    var first: FrameTime
    var last: FrameTime
    var reports = 0
    var distinctPayloads: UInt32 = 0
    /// Its entry in `ScanTracker.traits` (0: no name, service UUID or company).
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
