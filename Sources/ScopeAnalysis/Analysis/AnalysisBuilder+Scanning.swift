import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    /// LE Set (Extended) Scan Enable answered: a successful enable starts a session at the command
    /// frame; a successful disable stops it there, and its reports run up to this Command Complete.
    mutating func scanEnable(
        _ e: LESetScanEnable, api: HCIAPI, status: UInt8, command: FrameTime, complete: FrameTime,
        adapter: AdapterIndex
    ) {
        guard status == 0 else { return }
        if e.enable {
            guard activeScan[adapter] == nil else { return }
            let phys = scanParameters[adapter] ?? []
            var session = ScanSession(
                adapter: adapter, start: command, end: command, stillRunningAtEnd: true, api: api, active: phys.contains { $0.active },
                phys: phys, filterDuplicates: e.filterDuplicates)
            session.startComplete = complete
            result.scans.append(session)
            noteScanStarted(command, adapter: adapter)
            let ref = HeldRef(id: command.frame, position: result.scans.count - 1)
            activeScan[adapter] = ref
            scanState.append(ScanTracking(adapter: adapter, session: ref))
        } else if var session = activeScan.removeValue(forKey: adapter), let index = result.scans.position(of: &session) {
            let start = session.id
            result.scans[index].stop = command
            result.scans[index].stopComplete = complete
            result.scans[index].end = command
            result.scans[index].stillRunningAtEnd = false
            scanState.removeAll { $0.session.id == start }
            foldDensity(index)
            if index >= retirement.keptScans { closedScans.append(start) }
        }
    }

    /// The position in `result.scans` of the session running on `adapter`.
    mutating func activeScanPosition(_ adapter: AdapterIndex) -> Int? {
        activeScan.position(of: adapter, in: result.scans)
    }

    mutating func advertisingReports(_ reports: AdvertisingReports, adapter: AdapterIndex, at: FrameTime, eventBytes: Int) {
        // The running session on this adapter (as `activeScan[adapter]`); its position, found
        // once per event, is `scanState[slot].session.position` for the reports.
        let slot = scanState.firstIndex { $0.adapter == adapter }
        if let slot, !result.scans.holds(scanState[slot].session) { findRunningScan(slot) }
        var duplicatesInEvent = 0
        var counted = 0
        // Each report's essentials read in place from the event's bytes (no `AdvertisingReport`).
        reports.forEachEssentials { report in
            advertisingReport(report, adapter: adapter, slot: slot, at: at, counted: &counted, duplicates: &duplicatesInEvent)
        }
        if let slot, duplicatesInEvent > 0, counted > 0 {
            // The event's bytes shared equally among the reports it carried.
            result.scans[scanState[slot].session.position].duplicateEventBytes += eventBytes * duplicatesInEvent / counted
        }
    }

    /// Sessions before the running one left: where it is now.
    private mutating func findRunningScan(_ slot: Int) {
        var session = scanState[slot].session
        guard let index = result.scans.position(of: &session) else { return }
        scanState[slot].session.position = index
    }

    /// One report; `slot`: the running session's entry in `scanState`.
    private mutating func advertisingReport(
        _ report: AdvertisingReportEssentials, adapter: AdapterIndex, slot: Int?, at: FrameTime, counted: inout Int,
        duplicates: inout Int
    ) {
        if !report.isLegacyEvent {
            let fragmentKey = FragmentKey(adapter: adapter, address: report.address, type: report.addressType, sid: report.sid)
            // Extended reports: data status bits 5–6 of Event_Type; 1 = incomplete, more to come.
            let status = (report.eventType >> 5) & 0x03
            if status == 1 {
                fragments[fragmentKey, default: []] += report.data
                return
            }
            if !fragments.isEmpty, let earlier = fragments.removeValue(forKey: fragmentKey) {
                (earlier + report.data).withUnsafeBytes { data in
                    countReport(report, data: data, adapter: adapter, slot: slot, at: at, counted: &counted, duplicates: &duplicates)
                }
                return
            }
        }
        countReport(report, data: report.data, adapter: adapter, slot: slot, at: at, counted: &counted, duplicates: &duplicates)
    }

    /// A complete report (`data`: its data, or a reassembled extended report's) counted for its
    /// device and the running session.
    @inline(__always)
    private mutating func countReport(
        _ report: AdvertisingReportEssentials, data: UnsafeRawBufferPointer, adapter: AdapterIndex, slot: Int?, at: FrameTime,
        counted: inout Int, duplicates: inout Int
    ) {
        let address = report.address
        let addressType = report.addressType
        let eventType = report.eventType
        counted += 1
        // The payload's fingerprint once, for the device's and the session's sets.
        let payload = Payload(bytes: data)
        let device = indexOfDevice(address: address, addressType: addressType, at: at)
        var isDuplicate = false
        if let slot {
            let s = scanState[slot].session.position
            // Mutate in place: copying the session or its tracking per report would copy their
            // collections each time (quadratic on long scans).
            let reportType = report.isLegacyEvent ? eventType : eventType & ~UInt16(0x60)
            let (duplicate, newDevice, devicesSeen) = Self.track(
                device: device, eventType: reportType, payload: payload, in: &scanState[slot])
            isDuplicate = duplicate
            Self.noteReport(at: at, isDuplicate: isDuplicate, devicesSeen: devicesSeen, in: &result.scans[s])
            if isDuplicate { duplicates += 1 }
            // Only a device's first report in the session can change where its address was found.
            if newDevice {
                let seenAt = AdapterAddress(adapter: adapter, address: address)
                let start = result.scans[s].start.frame
                if lastDiscovery[seenAt]?.scanStart != start { lastDiscovery[seenAt] = Discovery(scanStart: start, firstReport: at) }
            }
        }
        // A duplicate in the session (same advertiser, event type and data) was counted for the
        // device already: its payload is known, no need to look it up again.
        let newPayload = !isDuplicate && devicePayloads.insert(UInt64(device), payload)
        Self.update(
            &result.devices[device], rssi: report.rssi, connectable: report.isConnectable, data: data, newPayload: newPayload,
            at: at)
    }

    /// Whether the device reported this event type and data already in the session, whether it
    /// reports in it for the first time, and how many devices the session has seen.
    @inline(__always)
    private static func track(
        device: Int, eventType: UInt16, payload: Payload, in tracking: inout ScanTracking
    ) -> (Bool, Bool, Int) {
        let isDuplicate = !tracking.seen.insert(UInt64(device) << 16 | UInt64(eventType), payload)
        let newDevice = tracking.noteDevice(device)
        return (isDuplicate, newDevice, tracking.devices)
    }

    private static func noteReport(at: FrameTime, isDuplicate: Bool, devicesSeen: Int, in scan: inout ScanSession) {
        scan.reports += 1
        if scan.firstReport == nil { scan.firstReport = at }
        scan.lastReport = at
        scan.devicesSeen = devicesSeen
        scan.density.add(at: at, duplicate: isDuplicate)
        if isDuplicate {
            scan.duplicates += 1
            if scan.firstDuplicate == nil { scan.firstDuplicate = at }
        }
    }

    /// The device's index in `result.devices`, added on its first report (inlined: a known
    /// device, almost every report, is one probe).
    @inline(__always)
    private mutating func indexOfDevice(address: BDAddr, addressType: UInt8, at: FrameTime) -> Int {
        let key = DeviceTable.key(address: address, type: addressType)
        let (found, slot) = deviceIndex.find(key)
        if let found { return found }
        return addDevice(key, slot: slot, address: address, addressType: addressType, at: at)
    }

    private mutating func addDevice(_ key: UInt64, slot: Int, address: BDAddr, addressType: UInt8, at: FrameTime) -> Int {
        result.devices.append(Device(address: address, addressType: addressType, first: at))
        let index = result.devices.count - 1
        deviceIndex.insert(key, index: index, at: slot)
        return index
    }

    /// In place: copying the device out and back would copy its strings and arrays.
    private static func update(
        _ device: inout Device, rssi: Int8, connectable: Bool, data: UnsafeRawBufferPointer, newPayload: Bool, at: FrameTime
    ) {
        device.reports += 1
        device.last = at
        if rssi != 127 {
            device.rssiMin = min(device.rssiMin ?? rssi, rssi)
            device.rssiMax = max(device.rssiMax ?? rssi, rssi)
        }
        if connectable { device.connectable = true }
        if newPayload {
            device.distinctPayloads += 1
            let ad = ADParser.parse([UInt8](data), baseOffset: 0)
            if let name = ad.localName { device.name = name }
            for uuid in ad.serviceUUIDs {
                let s = uuid.compactString
                if !device.serviceUUIDs.contains(s) { device.serviceUUIDs.append(s) }
            }
            for m in ad.manufacturerData where !device.manufacturers.contains(m.companyID) { device.manufacturers.append(m.companyID) }
        }
    }

    /// Long captures: a closed session's density joins its adapter's capture-wide density once
    /// there are more than `AnalysisResult.foldDensityAfterSessions` sessions (memory stays flat).
    mutating func foldDensity(_ index: Int) {
        guard index >= AnalysisResult.foldDensityAfterSessions else { return }
        let adapter = result.scans[index].adapter
        var folded = result.foldedScanDensity.removeValue(forKey: adapter) ?? ReportDensity(limit: AnalysisResult.capturedDensityBuckets)
        folded.absorb(result.scans[index].density)
        result.foldedScanDensity[adapter] = folded
        result.scans[index].density = ReportDensity()
    }

    mutating func finishScans(end: FrameTime?) {
        guard let end else { return }
        for (_, var session) in activeScan {
            guard let index = result.scans.position(of: &session) else { continue }
            result.scans[index].end = end
            result.scans[index].stillRunningAtEnd = true
        }
        activeScan = [:]
        scanState = []
    }
}
