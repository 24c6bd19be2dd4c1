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
    mutating func scheduleDeviceLook(kept: Int, every: Int) {
        let beyondKept = max(0, heldDevices - kept)
        lookAtDevicesWhenHeld = kept + beyondKept + max(every, beyondKept / 4)
    }

    /// The devices after the first `kept` not heard since `quietSince` leave, and the next look
    /// is scheduled (`every`: `scheduleDeviceLook`); returns how many left.
    @discardableResult
    mutating func forgetQuietDevices(quietSince cutoff: Timestamp, kept: Int, every: Int) -> Int {
        var gone: [Int] = []
        if devices.count > kept {
            for slot in kept..<devices.count where deviceOrder[slot] != Self.freeSlot && devices[slot].last.time < cutoff {
                gone.append(slot)
            }
        }
        defer { scheduleDeviceLook(kept: kept, every: every) }
        guard !gone.isEmpty else { return 0 }
        var goneAddresses: [BDAddr] = []
        goneAddresses.reserveCapacity(gone.count)
        for slot in gone {
            goneAddresses.append(devices[slot].address)
            deviceOrder[slot] = Self.freeSlot
            // Its name, service UUIDs and companies go now, not when the slot is taken again.
            devices[slot] = Device(address: BDAddr(value: 0), addressType: 0, first: devices[slot].first)
        }
        freeSlots += gone.reversed()
        devicesLeft += gone.count

        // The tables that name a device by its slot keep only the devices held.
        let order = deviceOrder
        func left(_ slot: Int) -> Bool { order[slot] == Self.freeSlot }
        var index = DeviceTable()
        for slot in devices.indices where !left(slot) {
            let d = devices[slot]
            let key = DeviceTable.key(address: d.address, type: d.addressType)
            index.insert(key, index: slot, at: index.find(key).slot)
        }
        deviceIndex = index
        devicePayloads.removeAll { left(Int($0)) }
        for r in running.indices {
            running[r].seen.removeAll { left($0) }
            for slot in gone where slot >> 6 < running[r].deviceBits.count {
                running[r].deviceBits[slot >> 6] &= ~(UInt64(1) << UInt64(slot & 63))
            }
        }

        // An address's first device: the earliest held one of that address, if any is; where it
        // was last found goes with its last device held.
        for address in goneAddresses {
            guard let slot = firstDeviceOfAddress[address], left(slot) else { continue }
            firstDeviceOfAddress[address] = nil
            for type in Self.addressTypes {
                guard let other = deviceIndex.find(DeviceTable.key(address: address, type: type)).index else { continue }
                if let earlier = firstDeviceOfAddress[address], order[earlier] < order[other] { continue }
                firstDeviceOfAddress[address] = other
            }
            if firstDeviceOfAddress[address] == nil {
                for adapter in discoveryAdapters { lastDiscovery.removeValue(forKey: AdapterAddress(adapter: adapter, address: address)) }
            }
        }
        return gone.count
    }

    /// Address types an advertising report can name (public, random, public and random identity,
    /// anonymous).
    private static let addressTypes: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0xFF]

    /// The devices held, in the order first heard, and each address's first device among them:
    /// `AnalysisResult.devices` and `firstDeviceOfAddress`.
    func devicesInOrder() -> (devices: [Device], firstOfAddress: [BDAddr: Int]) {
        guard devicesLeft > 0 else { return (devices, firstDeviceOfAddress) }
        let slots = devices.indices.filter { deviceOrder[$0] != Self.freeSlot }.sorted { deviceOrder[$0] < deviceOrder[$1] }
        var position = [Int](repeating: 0, count: devices.count)
        for (p, slot) in slots.enumerated() { position[slot] = p }
        return (slots.map { devices[$0] }, firstDeviceOfAddress.mapValues { position[$0] })
    }
}
