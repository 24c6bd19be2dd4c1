import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    /// LE Set Advertising Data / Scan Response Data sent.
    mutating func legacyAdvertisingDataCommand(_ d: LESetAdvertisingData, name: String, at: FrameTime) {
        advertisingSeen = true
        advertising.dataCommands.append(
            AdvertisingDataCommand(
                at: at, complete: nil, command: name, advertisingHandle: nil,
                kind: d.scanResponse ? .scanResponse : .advertising, legacyPDUs: true, operation: nil,
                length: d.length, fragmentLength: d.data.count, data: Array(d.data), status: nil))
        dataCommandAdded()
    }

    /// LE Set Extended Advertising Data / Scan Response Data sent.
    mutating func extendedAdvertisingDataCommand(_ d: LESetExtendedAdvertisingData, name: String, adapter: AdapterIndex, at: FrameTime) {
        advertisingSeen = true
        let legacy = extendedAdvertisingParameters[SetKey(adapter: adapter, handle: d.advertisingHandle)]?.legacyPDUs ?? false
        advertising.dataCommands.append(
            AdvertisingDataCommand(
                at: at, complete: nil, command: name, advertisingHandle: d.advertisingHandle,
                kind: d.scanResponse ? .scanResponse : .advertising, legacyPDUs: legacy,
                operation: d.operation, length: d.length, fragmentLength: d.data.count, data: Array(d.data), status: nil))
        dataCommandAdded()
    }

    private mutating func dataCommandAdded() {
        let i = advertising.dataCommands.count - 1
        advertising.dataCommands[i].ordinal = result.retired.advertisingData + i
        itemsSinceCheck += 1
        noteDataCommand(i)
    }

    /// A successful (Extended) Advertising Enable: spans start and stop at the command frame.
    mutating func advertisingEnable(_ enable: Bool, handles: [UInt8?], adapter: AdapterIndex, at: FrameTime) {
        advertisingSeen = true
        for handle in handles {
            let key = SetKey(adapter: adapter, handle: handle)
            if enable {
                guard openSpans[key] == nil else { continue }
                let params = handle == nil ? legacyAdvertisingParameters[adapter] : extendedAdvertisingParameters[key]
                advertising.spans.append(
                    AdvertisingSpan(
                        advertisingHandle: handle, api: handle == nil ? .legacy : .extended, connectable: params?.connectable ?? true,
                        directed: params?.directed, intervalMicros: params?.intervalMicros, start: at, stop: nil, stoppedBy: "",
                        enabledMicros: 0, connectedWhileEnabledMicros: 0))
                let i = advertising.spans.count - 1
                advertising.spans[i].ordinal = result.retired.advertisingSpans + i
                openSpans[key] = advertising.spans[i].ordinal
                itemsSinceCheck += 1
                noteSpanStarted(i)
            } else {
                stopSpan(key, at: at, by: "host disabled it")
            }
        }
    }

    mutating func stopSpan(_ key: SetKey, at: FrameTime, by reason: String) {
        guard let i = openSpans.removeValue(forKey: key).flatMap({ advertising.spans.position(of: $0) }) else { return }
        advertising.spans[i].stop = at
        advertising.spans[i].stoppedBy = reason
        advertising.spans[i].enabledMicros = at.time.microseconds - advertising.spans[i].start.time.microseconds
    }

    /// Legacy advertising stops when a connection is created in the peripheral role.
    mutating func connectionStopsLegacyAdvertising(adapter: AdapterIndex, at: FrameTime) {
        stopSpan(SetKey(adapter: adapter, handle: nil), at: at, by: "connection (controller stops legacy advertising)")
    }

    mutating func advertisingSetTerminated(_ t: LEAdvertisingSetTerminated, adapter: AdapterIndex, at: FrameTime) {
        let reason =
            t.status == 0
            ? "connection (Advertising Set Terminated)"
            : "Advertising Set Terminated (\(HCIStatus(rawValue: t.status).description))"
        stopSpan(SetKey(adapter: adapter, handle: t.advertisingHandle), at: at, by: reason)
    }

    mutating func finishAdvertising(end: FrameTime?) {
        if let end {
            // Still enabled: no stop frame; enabled time runs to the last frame.
            for (_, ordinal) in openSpans {
                guard let i = advertising.spans.position(of: ordinal) else { continue }
                advertising.spans[i].stoppedBy = "still enabled at the end of the capture"
                advertising.spans[i].enabledMicros = end.time.microseconds - advertising.spans[i].start.time.microseconds
            }
            openSpans = [:]
        }
        // Connected-while-enabled: overlap of each span with the connections on its adapter.
        for s in advertising.spans.indices {
            let span = advertising.spans[s]
            let start = span.start.time.microseconds
            let stop = span.stop?.time.microseconds ?? end?.time.microseconds ?? start
            var total = advertising.spans[s].connectedWhileEnabledMicros
            for c in result.connections {
                guard let complete = c.complete else { continue }
                let from = max(start, complete.time.microseconds)
                let to = min(stop, (c.disconnect ?? end)?.time.microseconds ?? stop)
                if to > from { total += to - from }
            }
            advertising.spans[s].connectedWhileEnabledMicros = total
        }
    }
}

/// What the analysis keeps of a successful (Extended) Set Advertising Parameters, for the spans
/// the set's enable starts.
struct AdvertisingSetup: Sendable, Hashable {
    var intervalMicros: Int64
    var connectable: Bool
    var directed: Bool
    var legacyPDUs: Bool
}
