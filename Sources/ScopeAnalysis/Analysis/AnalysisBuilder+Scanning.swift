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
            scanState[index] = ScanTracking()
        } else if let index = activeScan.removeValue(forKey: adapter) {
            result.scans[index].stop = command
            result.scans[index].stopComplete = complete
            result.scans[index].end = command
            result.scans[index].stillRunningAtEnd = false
            scanState[index] = nil
            foldDensity(index)
        }
    }

    func scanIndex(adapter: AdapterIndex, at: FrameTime) -> Int? {
        if let i = activeScan[adapter] { return i }
        return nil
    }

    mutating func advertisingReports(_ event: HCIEvent, adapter: AdapterIndex, at: FrameTime, eventBytes: Int) {
        let reports = event.advertisingReports
        let session = activeScan[adapter]
        var duplicatesInEvent = 0
        var counted = 0
        for report in reports {
            let fragmentKey = FragmentKey(
                adapter: adapter, address: report.address, type: report.addressType, sid: report.isLegacyEvent ? nil : report.sid)
            var data = report.data
            if !report.isLegacyEvent {
                // Extended reports: data status bits 5–6 of Event_Type; 1 = incomplete, more to come.
                let status = (report.eventType >> 5) & 0x03
                if status == 1 {
                    fragments[fragmentKey, default: []] += report.data
                    continue
                }
                if let earlier = fragments.removeValue(forKey: fragmentKey) { data = earlier + report.data }
            }
            counted += 1
            let deviceKey = DeviceKey(address: report.address, type: report.addressType)
            noteDevice(report, data: data, key: deviceKey, at: at)
            guard let s = session else { continue }
            // Mutate in place: copying the session or its tracking per report would copy their
            // collections each time (quadratic on long scans).
            let eventType = report.isLegacyEvent ? report.eventType : report.eventType & ~UInt16(0x60)
            let key = ReportKey(address: report.address, type: report.addressType, eventType: eventType, data: Payload(bytes: data))
            let isDuplicate = !scanState[s, default: ScanTracking()].seen.insert(key).inserted
            scanState[s, default: ScanTracking()].devices.insert(deviceKey)
            result.scans[s].reports += 1
            if result.scans[s].firstReport == nil { result.scans[s].firstReport = at }
            let seenAt = AdapterAddress(adapter: adapter, address: report.address)
            if lastDiscovery[seenAt]?.session != s { lastDiscovery[seenAt] = Discovery(session: s, firstReport: at) }
            result.scans[s].lastReport = at
            result.scans[s].devicesSeen = scanState[s]?.devices.count ?? 0
            result.scans[s].density.add(at: at, duplicate: isDuplicate)
            if isDuplicate {
                result.scans[s].duplicates += 1
                duplicatesInEvent += 1
                if result.scans[s].firstDuplicate == nil { result.scans[s].firstDuplicate = at }
            }
        }
        if let s = session, duplicatesInEvent > 0, counted > 0 {
            // The event's bytes shared equally among the reports it carried.
            result.scans[s].duplicateEventBytes += eventBytes * duplicatesInEvent / counted
        }
    }

    private mutating func noteDevice(_ report: AdvertisingReport, data: [UInt8], key: DeviceKey, at: FrameTime) {
        let index: Int
        if let i = deviceIndex[key] {
            index = i
        } else {
            result.devices.append(Device(address: report.address, addressType: report.addressType, first: at))
            index = result.devices.count - 1
            deviceIndex[key] = index
        }
        var device = result.devices[index]
        device.reports += 1
        device.last = at
        if report.rssi != 127 {
            device.rssiMin = min(device.rssiMin ?? report.rssi, report.rssi)
            device.rssiMax = max(device.rssiMax ?? report.rssi, report.rssi)
        }
        if report.isConnectable { device.connectable = true }
        if devicePayloads[key, default: []].insert(Payload(bytes: data)).inserted {
            device.distinctPayloads += 1
            let ad = ADParser.parse(data, baseOffset: 0)
            if let name = ad.localName { device.name = name }
            for uuid in ad.serviceUUIDs {
                let s = Self.uuidString(uuid)
                if !device.serviceUUIDs.contains(s) { device.serviceUUIDs.append(s) }
            }
            for m in ad.manufacturerData where !device.manufacturers.contains(m.companyID) { device.manufacturers.append(m.companyID) }
        }
        result.devices[index] = device
    }

    /// "180d" for 16-bit UUIDs, the canonical string otherwise (GATTDatabase.Service.uuid).
    static func uuidString(_ uuid: BluetoothUUID) -> String {
        if let u = uuid.uuid16 { return Hex.string([UInt8(u >> 8), UInt8(u & 0xFF)]) }
        return uuid.uuidString
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
        for (_, index) in activeScan {
            result.scans[index].end = end
            result.scans[index].stillRunningAtEnd = true
        }
        activeScan = [:]
    }
}
