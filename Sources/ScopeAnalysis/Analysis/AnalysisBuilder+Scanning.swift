import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    /// LE Set (Extended) Scan Enable answered: a successful enable starts a session at the command
    /// frame; a successful disable stops it there, and its reports run up to this Command Complete.
    mutating func scanEnable(
        _ e: (enable: Bool, filterDuplicates: UInt8), api: HCIAPI, status: UInt8, command: FrameTime, complete: FrameTime,
        adapter: AdapterIndex
    ) {
        guard status == 0 else { return }
        if e.enable {
            guard activeScan[adapter] == nil else { return }
            let params = scanParameters[adapter] ?? HCIFacts.ScanParameters(phys: [])
            var session = ScanSession(
                adapter: adapter, start: command, end: command, stillRunningAtEnd: true, api: api, active: params.active,
                phys: params.phys, filterDuplicates: e.filterDuplicates)
            session.startComplete = complete
            result.scans.append(session)
            let index = result.scans.count - 1
            activeScan[adapter] = index
            scanState.append(ScanTracking(adapter: adapter, index: index))
        } else if let index = activeScan.removeValue(forKey: adapter) {
            result.scans[index].stop = command
            result.scans[index].stopComplete = complete
            result.scans[index].end = command
            result.scans[index].stillRunningAtEnd = false
            scanState.removeAll { $0.index == index }
        }
    }

    func scanIndex(adapter: AdapterIndex, at: FrameTime) -> Int? {
        if let i = activeScan[adapter] { return i }
        return nil
    }

    mutating func advertisingReports(_ event: HCIEvent, adapter: AdapterIndex, at: FrameTime, eventBytes: Int) {
        // The running session on this adapter (as `activeScan[adapter]`).
        let slot = scanState.firstIndex { $0.adapter == adapter }
        var duplicatesInEvent = 0
        var counted = 0
        event.advertisingReports.withUnsafeBufferPointer { reports in
            // Each report borrowed from the buffer, not copied.
            for r in reports.indices {
                advertisingReport(reports[r], adapter: adapter, slot: slot, at: at, counted: &counted, duplicates: &duplicatesInEvent)
            }
        }
        if let slot, duplicatesInEvent > 0, counted > 0 {
            // The event's bytes shared equally among the reports it carried.
            result.scans[scanState[slot].index].duplicateEventBytes += eventBytes * duplicatesInEvent / counted
        }
    }

    /// One report; `slot`: the running session's entry in `scanState`.
    private mutating func advertisingReport(
        _ report: AdvertisingReport, adapter: AdapterIndex, slot: Int?, at: FrameTime, counted: inout Int, duplicates: inout Int
    ) {
        var data = report.data
        if !report.isLegacyEvent {
            let fragmentKey = FragmentKey(adapter: adapter, address: report.address, type: report.addressType, sid: report.sid)
            // Extended reports: data status bits 5–6 of Event_Type; 1 = incomplete, more to come.
            let status = (report.eventType >> 5) & 0x03
            if status == 1 {
                fragments[fragmentKey, default: []] += report.data
                return
            }
            if !fragments.isEmpty, let earlier = fragments.removeValue(forKey: fragmentKey) { data = earlier + report.data }
        }
        counted += 1
        // The payload's fingerprint once, for the device's and the session's sets.
        let payload = Payload(bytes: data)
        let device = noteDevice(report, data: data, payload: payload, at: at)
        guard let slot else { return }
        let s = scanState[slot].index
        // Mutate in place: copying the session or its tracking per report would copy their
        // collections each time (quadratic on long scans).
        let eventType = report.isLegacyEvent ? report.eventType : report.eventType & ~UInt16(0x60)
        let key = ReportKey(address: report.address, type: report.addressType, eventType: eventType, data: payload)
        // A device counts once per session: the first time it reports in it.
        let newInSession = deviceLastSession[device] != s
        if newInSession { deviceLastSession[device] = s }
        let (isDuplicate, devicesSeen) = Self.track(key, newDevice: newInSession, in: &scanState[slot])
        Self.noteReport(
            address: report.address, at: at, isDuplicate: isDuplicate, newDevice: newInSession, devicesSeen: devicesSeen,
            in: &result.scans[s])
        if isDuplicate { duplicates += 1 }
    }

    /// Whether `key` was already reported in the session, and how many devices it has seen.
    private static func track(_ key: ReportKey, newDevice: Bool, in tracking: inout ScanTracking) -> (Bool, Int) {
        let isDuplicate = !tracking.seen.insert(key).inserted
        if newDevice { tracking.devices += 1 }
        return (isDuplicate, tracking.devices)
    }

    private static func noteReport(
        address: BDAddr, at: FrameTime, isDuplicate: Bool, newDevice: Bool, devicesSeen: Int, in scan: inout ScanSession
    ) {
        scan.reports += 1
        if scan.firstReport == nil { scan.firstReport = at }
        // A device already seen in the session has its address's first report set.
        if newDevice, scan.firstReportByDevice[address] == nil { scan.firstReportByDevice[address] = at }
        scan.lastReport = at
        scan.devicesSeen = devicesSeen
        scan.density.add(at: at, duplicate: isDuplicate)
        if isDuplicate {
            scan.duplicates += 1
            if scan.firstDuplicate == nil { scan.firstDuplicate = at }
            scan.duplicatesByDevice[address, default: 0] += 1
        }
    }

    /// Counts the report for its device; returns the device's index in `result.devices`.
    private mutating func noteDevice(_ report: AdvertisingReport, data: [UInt8], payload: Payload, at: FrameTime) -> Int {
        let key = DeviceKey(address: report.address, type: report.addressType)
        let index: Int
        if let i = deviceIndex[key] {
            index = i
        } else {
            result.devices.append(Device(address: report.address, addressType: report.addressType, first: at))
            index = result.devices.count - 1
            deviceIndex[key] = index
            devicePayloads.append([])
            deviceLastSession.append(-1)
        }
        let newPayload = devicePayloads[index].insert(payload).inserted
        Self.update(&result.devices[index], report: report, data: data, newPayload: newPayload, at: at)
        return index
    }

    /// In place: copying the device out and back would copy its strings and arrays.
    private static func update(_ device: inout Device, report: AdvertisingReport, data: [UInt8], newPayload: Bool, at: FrameTime) {
        device.reports += 1
        device.last = at
        if report.rssi != 127 {
            device.rssiMin = min(device.rssiMin ?? report.rssi, report.rssi)
            device.rssiMax = max(device.rssiMax ?? report.rssi, report.rssi)
        }
        if report.isConnectable { device.connectable = true }
        if newPayload {
            device.distinctPayloads += 1
            let ad = ADParser.parse(data, baseOffset: 0)
            if let name = ad.localName { device.name = name }
            for uuid in ad.serviceUUIDs {
                let s = uuidString(uuid)
                if !device.serviceUUIDs.contains(s) { device.serviceUUIDs.append(s) }
            }
            for m in ad.manufacturerData where !device.manufacturers.contains(m.companyID) { device.manufacturers.append(m.companyID) }
        }
    }

    /// "180d" for 16-bit UUIDs, the canonical string otherwise (GATTDatabase.Service.uuid).
    static func uuidString(_ uuid: BluetoothUUID) -> String {
        if let u = uuid.uuid16 { return Hex.string([UInt8(u >> 8), UInt8(u & 0xFF)]) }
        return uuid.uuidString
    }

    mutating func finishScans(end: FrameTime?) {
        guard let end else { return }
        for (_, index) in activeScan {
            result.scans[index].end = end
            result.scans[index].stillRunningAtEnd = true
        }
        activeScan = [:]
        scanState = []
    }
}
