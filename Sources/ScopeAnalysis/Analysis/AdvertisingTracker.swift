import ScopeCore
import ScopeDecode

/// Advertising the local host set up: the advertising data commands and the spans a set was
/// enabled, with what a span needs of the connections (the first one up at its start, the first
/// peripheral-role one while it was enabled). Fed by the advertising commands' answers and the connection
/// events; owned by `AnalysisBuilder`.
struct AdvertisingTracker: Sendable {
    private(set) var dataCommands = HeldList<AdvertisingDataCommand, Int>()
    private(set) var spans = HeldList<AdvertisingSpan, Int>()
    /// What the controller said of advertising (supported states, maximum data length); its
    /// record lists stay empty (the records are `dataCommands` and `spans`), so a batch handed
    /// over carries it as it is.
    private(set) var controller = AdvertisingActivity()
    /// The host set advertising data, parameters or enabled advertising.
    private(set) var seen = false
    private var legacyAdvertisingParameters: [AdapterIndex: AdvertisingSetup] = [:]
    private var extendedAdvertisingParameters: [SetKey: AdvertisingSetup] = [:]
    /// The enabled span of each set (its id).
    private(set) var openSpans: [SetKey: Int] = [:]
    /// Enabled spans (ids) no peripheral-role connection reached yet.
    private var spansAwaitingArrival: [Int] = []
    /// Data commands and spans (ids) settled since the last hand-over: a command when answered
    /// or replaced, a span when it stops.
    private var settledData: [Int] = []
    private var settledSpans: [Int] = []
    /// The last connections that went down (for spans whose enable was answered after).
    private var recentCloses: [AdvertisingSpan.SpanConnection] = []
    /// Extended advertising data assembled so far, per set and kind.
    private var assembling: [DataKey: Int] = [:]
    /// The last advertising data commands per set.
    private(set) var advertisingData: [UInt8?: [RecentData]] = [:]
    /// The sets that are Android multi-advertising instances (their handle is the instance).
    private var multiAdvertisingInstances: Set<SetKey> = []

    struct SetKey: Hashable, Sendable {
        var adapter: AdapterIndex
        /// nil: legacy advertising.
        var handle: UInt8?

        /// Looked up for every advertising command: hashed with `fastHash` rather than SipHash
        /// (handle nil and each handle 0–255 are distinct words).
        private var word: UInt64 { UInt64(adapter) << 16 | (handle.map { UInt64($0) } ?? 0x100) }
        func hash(into hasher: inout Hasher) { hasher.combine(word) }
        func _rawHashValue(seed: Int) -> Int { fastHash(word, seed: seed) }
    }
}

extension AdvertisingTracker {
    /// LE Set Advertising Data / Scan Response Data sent.
    mutating func legacyAdvertisingDataCommand(_ d: LESetAdvertisingData, name: String, adapter: AdapterIndex, at: FrameTime, actors: ActorTracker) {
        seen = true
        dataCommandAdded(
            AdvertisingDataCommand(
                at: at, complete: nil, command: name, advertisingHandle: nil,
                kind: d.scanResponse ? .scanResponse : .advertising, legacyPDUs: true, operation: nil,
                length: d.length, fragmentLength: d.data.count, data: Array(d.data), status: nil), adapter: adapter, actors: actors)
    }

    /// LE Set Extended Advertising Data / Scan Response Data sent.
    mutating func extendedAdvertisingDataCommand(
        _ d: LESetExtendedAdvertisingData, name: String, adapter: AdapterIndex, at: FrameTime, actors: ActorTracker
    ) {
        seen = true
        let legacy = extendedAdvertisingParameters[SetKey(adapter: adapter, handle: d.advertisingHandle)]?.legacyPDUs ?? false
        dataCommandAdded(
            AdvertisingDataCommand(
                at: at, complete: nil, command: name, advertisingHandle: d.advertisingHandle,
                kind: d.scanResponse ? .scanResponse : .advertising, legacyPDUs: legacy,
                operation: d.operation, length: d.length, fragmentLength: d.data.count, data: Array(d.data), status: nil),
            adapter: adapter, actors: actors)
    }

    /// Android's vendor multi-advertising Write Advertising / Scan Response Data sent for
    /// `instance` (legacy PDUs: the same 31-byte block as LE Set Advertising Data).
    mutating func multiAdvertisingDataCommand(
        _ d: LESetAdvertisingData, instance: UInt8, name: String, adapter: AdapterIndex, at: FrameTime, actors: ActorTracker
    ) {
        seen = true
        multiAdvertisingInstances.insert(SetKey(adapter: adapter, handle: instance))
        dataCommandAdded(
            AdvertisingDataCommand(
                at: at, complete: nil, command: name, advertisingHandle: instance,
                kind: d.scanResponse ? .scanResponse : .advertising, legacyPDUs: true, operation: nil,
                length: d.length, fragmentLength: d.data.count, data: Array(d.data), status: nil), adapter: adapter, actors: actors)
    }

    /// Android's vendor multi-advertising Set Parameters answered for `instance` (`setup`: when
    /// it succeeded).
    mutating func multiAdvertisingParametersSet(_ setup: AdvertisingSetup?, instance: UInt8, adapter: AdapterIndex) {
        multiAdvertisingInstances.insert(SetKey(adapter: adapter, handle: instance))
        extendedParametersSet(setup, handle: instance, adapter: adapter)
    }

    /// A multi-advertising instance enabled or disabled: it is one from now on (its spans say so).
    mutating func noteMultiAdvertisingInstance(_ instance: UInt8, adapter: AdapterIndex) {
        multiAdvertisingInstances.insert(SetKey(adapter: adapter, handle: instance))
    }

    private mutating func dataCommandAdded(_ command: AdvertisingDataCommand, adapter: AdapterIndex, actors: ActorTracker) {
        dataCommands.append(command)
        noteDataCommand(dataCommands.count - 1, adapter: adapter, actors: actors)
    }

    /// A successful (Extended) Advertising Enable: spans start and stop at the command frame.
    /// `up`: the connections up now (a new span notes the first one up at its start).
    mutating func advertisingEnable(
        _ enable: Bool, handles: [UInt8?], adapter: AdapterIndex, at: FrameTime, up: [AdvertisingSpan.SpanConnection],
        actors: ActorTracker
    ) {
        seen = true
        for handle in handles {
            let key = SetKey(adapter: adapter, handle: handle)
            if enable {
                guard openSpans[key] == nil else { continue }
                let params = handle == nil ? legacyAdvertisingParameters[adapter] : extendedAdvertisingParameters[key]
                openSpans[key] = spans.append(
                    AdvertisingSpan(
                        advertisingHandle: handle,
                        api: handle == nil ? .legacy : multiAdvertisingInstances.contains(key) ? .androidMultiAdvertising : .extended,
                        connectable: params?.connectable ?? true,
                        directed: params?.directed, intervalMicros: params?.intervalMicros, start: at, stop: nil, stoppedBy: "",
                        enabledMicros: 0, connectedWhileEnabledMicros: 0))
                noteSpanStarted(spans.count - 1, up: up, adapter: adapter, actors: actors)
            } else {
                stopSpan(key, at: at, by: "host disabled it")
            }
        }
    }

    mutating func stopSpan(_ key: SetKey, at: FrameTime, by reason: String) {
        guard let i = openSpans.removeValue(forKey: key).flatMap({ spans.position(of: $0) }) else { return }
        spans[i].stop = at
        spans[i].stoppedBy = reason
        spans[i].enabledMicros = at.time.microseconds - spans[i].start.time.microseconds
        if spans[i].firstArrival == nil { spansAwaitingArrival.removeAll { $0 == spans.ids[i] } }
        settledSpans.append(spans.ids[i])
    }

    /// The controller of `adapter` was reset, closed or removed at `at`: every span enabled on it
    /// stops, and its multi-advertising instances are forgotten (a handle used later may be an
    /// extended advertising set).
    mutating func controllerLost(adapter: AdapterIndex, at: FrameTime, by reason: String) {
        // Legacy advertising first, then the sets by handle.
        let keys = openSpans.keys.filter { $0.adapter == adapter }.sorted { ($0.handle.map(Int.init) ?? -1) < ($1.handle.map(Int.init) ?? -1) }
        for key in keys { stopSpan(key, at: at, by: reason) }
        multiAdvertisingInstances = multiAdvertisingInstances.filter { $0.adapter != adapter }
    }

    /// Data command `i` was answered, or the command it waits on was replaced: it settles.
    mutating func dataCommandSettled(_ i: Int) {
        settledData.append(dataCommands.ids[i])
    }

    /// The data command sent at `at` will not be answered: a later command of its kind replaced
    /// it while it waited.
    mutating func dataCommandReplaced(sentAt at: FrameTime) {
        guard let i = dataCommands.items.lastIndex(where: { $0.at == at }), dataCommands[i].complete == nil else { return }
        dataCommandSettled(i)
    }

    /// Legacy advertising stops when a connection is created in the peripheral role.
    mutating func connectionStopsLegacyAdvertising(adapter: AdapterIndex, at: FrameTime) {
        stopSpan(SetKey(adapter: adapter, handle: nil), at: at, by: "connection (controller stops legacy advertising)")
    }

    /// A connection in the peripheral role stops the multi-advertising instance it came through
    /// (the controller stops it; Android's stack re-enables it unless the app stopped it, AOSP
    /// `btm_ble_multi_adv_reenable`). Which instance is told only by a vendor event, so the span
    /// stops here only when it is the one connectable instance enabled on the adapter.
    mutating func connectionStopsMultiAdvertising(adapter: AdapterIndex, at: FrameTime) {
        let connectable = openSpans.filter { key, id in
            guard key.adapter == adapter, multiAdvertisingInstances.contains(key), let i = spans.position(of: id) else { return false }
            return spans[i].connectable
        }
        guard connectable.count == 1, let key = connectable.first?.key else { return }
        stopSpan(key, at: at, by: "connection (the controller stops the multi-advertising instance)")
    }

    mutating func advertisingSetTerminated(_ t: LEAdvertisingSetTerminated, adapter: AdapterIndex, at: FrameTime) {
        let reason =
            t.status == 0
            ? "connection (Advertising Set Terminated)"
            : "Advertising Set Terminated (\(HCIStatus(rawValue: t.status).description))"
        stopSpan(SetKey(adapter: adapter, handle: t.advertisingHandle), at: at, by: reason)
    }

    /// `connections`: every connection held at the end.
    mutating func finish(end: FrameTime?, connections: HeldList<Connection, Int>) {
        if let end {
            // Still enabled: no stop frame; enabled time runs to the last frame.
            for (_, id) in openSpans {
                guard let i = spans.position(of: id) else { continue }
                spans[i].stoppedBy = "still enabled at the end of the capture"
                spans[i].enabledMicros = end.time.microseconds - spans[i].start.time.microseconds
            }
            openSpans = [:]
        }
        // Connected-while-enabled: overlap of each span with the connections on its adapter.
        for s in spans.indices {
            let span = spans[s]
            let start = span.start.time.microseconds
            let stop = span.stop?.time.microseconds ?? end?.time.microseconds ?? start
            var total = spans[s].connectedWhileEnabledMicros
            for c in connections.items {
                guard let complete = c.complete else { continue }
                let from = max(start, complete.time.microseconds)
                let to = min(stop, (c.disconnect ?? end)?.time.microseconds ?? stop)
                if to > from { total += to - from }
            }
            spans[s].connectedWhileEnabledMicros = total
        }
    }
    // MARK: Advertising spans and connections

    /// What a new span needs of the connections: the first one up at its start, and a
    /// peripheral-role one completed since.
    mutating func noteSpanStarted(_ i: Int, up: [AdvertisingSpan.SpanConnection], adapter: AdapterIndex, actors: ActorTracker) {
        let start = spans[i].start
        var atStart: AdvertisingSpan.SpanConnection?
        var arrival: FrameTime?
        // In capture order: the connections' completes.
        func consider(_ c: AdvertisingSpan.SpanConnection) {
            if c.complete.frame < start.frame, (c.disconnect?.frame ?? .max) > start.frame,
                c.complete.frame < (atStart?.complete.frame ?? .max)
            {
                atStart = c
            }
            if c.role == .peripheral, c.complete.frame > start.frame, c.complete.frame < (arrival?.frame ?? .max) {
                arrival = c.complete
            }
        }
        for c in up { consider(c) }
        for c in recentCloses { consider(c) }
        spans[i].connectionAtStart = atStart
        spans[i].firstArrival = arrival
        if arrival == nil { spansAwaitingArrival.append(spans.ids[i]) }
        // The data its set advertised at the start.
        let data = advertisingData[spans[i].advertisingHandle]?
            .last { $0.frame <= start.frame && ($0.status ?? 0) == 0 }
        spans[i].dataLength = data?.length
        spans[i].manufacturers = data?.companies ?? []
        spans[i].attribution = actors.advertisingStarted(
            manufacturers: data?.companies ?? [], serviceUUIDs: data?.services ?? [], findHub: data?.findHub ?? false, dataFrame: data?.frame,
            adapter: adapter, at: start)
    }

    /// A connection came up: the spans waiting for a peripheral-role arrival.
    mutating func noteConnectionArrived(_ c: Connection, at: FrameTime) {
        guard c.role == .peripheral, !spansAwaitingArrival.isEmpty else { return }
        var waiting: [Int] = []
        for id in spansAwaitingArrival {
            guard let i = spans.position(of: id) else { continue }
            if spans[i].start.frame < at.frame {
                spans[i].firstArrival = at
            } else {
                waiting.append(id)
            }
        }
        spansAwaitingArrival = waiting
    }

    /// A connection went down: spans that started while it was up learn when, and later spans
    /// starting at a frame before this one can still find it (`recentCloses`).
    mutating func noteConnectionDown(_ c: Connection, at: FrameTime) {
        for (_, id) in openSpans {
            guard let i = spans.position(of: id), let complete = c.complete,
                spans[i].connectionAtStart?.complete.frame == complete.frame
            else { continue }
            spans[i].connectionAtStart?.disconnect = at
        }
        guard let complete = c.complete else { return }
        recentCloses.append(AdvertisingSpan.SpanConnection(role: c.role, complete: complete, disconnect: at))
        if recentCloses.count > 16 { recentCloses.removeFirst() }
    }

    /// A data command was sent: its assembled length, and the set's recent data (for the spans).
    mutating func noteDataCommand(_ i: Int, adapter: AdapterIndex, actors: ActorTracker) {
        let cmd = dataCommands[i]
        if !cmd.legacyPDUs {
            let key = DataKey(handle: cmd.advertisingHandle ?? 0, kind: cmd.kind)
            let op = cmd.operation ?? 3
            // Operation (Vol 4 Part E §7.8.54): 0x01 first fragment and 0x03 complete data start
            // the set's data; 0x00 intermediate and 0x02 last fragments add to it.
            let soFar = (op == 1 || op == 3) ? cmd.fragmentLength : (assembling[key] ?? 0) + cmd.fragmentLength
            assembling[key] = soFar
            dataCommands[i].assembledLength = soFar
        }
        // Extended data in fragments: the companies and services of the fragment that starts it
        // (or the whole).
        let parsed = ADParser.parse(cmd.data, baseOffset: 0)
        let companies = parsed.manufacturerData.map(\.companyID)
        let services = (parsed.serviceData.map(\.uuid) + parsed.serviceUUIDs).compactMap(\.uuid16)
        let findHub = parsed.serviceData.contains { $0.uuid.uuid16 == 0xFEAA && ($0.data.first == 0x40 || $0.data.first == 0x41) }
        dataCommands[i].attribution = actors.advertisingStarted(
            manufacturers: companies, serviceUUIDs: services, findHub: findHub, dataFrame: cmd.at.frame, adapter: adapter, at: cmd.at)
        guard cmd.kind == .advertising else { return }
        var list = advertisingData[cmd.advertisingHandle] ?? []
        list.append(
            RecentData(
                id: dataCommands.ids[i], frame: cmd.at.frame, length: cmd.length, status: nil, companies: companies, services: services,
                findHub: findHub))
        if list.count > 8 { list.removeFirst() }
        advertisingData[cmd.advertisingHandle] = list
    }

    /// A data command was answered.
    mutating func noteDataCommandAnswered(_ i: Int) {
        let cmd = dataCommands[i]
        guard cmd.kind == .advertising, var list = advertisingData[cmd.advertisingHandle],
            let k = list.lastIndex(where: { $0.id == dataCommands.ids[i] })
        else { return }
        list[k].status = cmd.status
        advertisingData[cmd.advertisingHandle] = list
    }

    struct DataKey: Hashable, Sendable {
        var handle: UInt8
        var kind: AdvertisingDataCommand.DataKind
    }

    struct RecentData: Sendable {
        /// The command's id.
        var id: Int
        var frame: FrameNumber
        var length: Int
        var status: UInt8?
        /// Company identifiers of its manufacturer-specific data.
        var companies: [UInt16] = []
        /// 16-bit UUIDs of its service data and service UUID lists.
        var services: [UInt16] = []
        var findHub = false
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

extension AdvertisingTracker {
    /// The advertising records held, with what the controller said.
    var activity: AdvertisingActivity {
        var a = controller
        a.dataCommands = dataCommands.items
        a.spans = spans.items
        return a
    }

    /// Time connection `c` (handed over now) was up while each span still held was enabled,
    /// except the spans `excluding` (handed over with it) (`finish` adds the connections still held at the end).
    mutating func addConnectedTime(of c: Connection, excluding: Set<Int>) {
        guard let complete = c.complete, let down = c.disconnect else { return }
        for s in spans.indices where !excluding.contains(s) {
            let span = spans[s]
            let from = max(span.start.time.microseconds, complete.time.microseconds)
            let to = min(span.stop?.time.microseconds ?? down.time.microseconds, down.time.microseconds)
            if to > from { spans[s].connectedWhileEnabledMicros += to - from }
        }
    }

    /// The connection requests and advertising records created so far.
    var created: Int { dataCommands.created + spans.created }
}

/// What the controller's answers tell the advertising tracker, and the hand-over of settled items.
extension AdvertisingTracker {
    /// An advertising command too short for its view, or one whose answer carries nothing
    /// else: advertising is in use.
    mutating func noteAdvertisingCommand() { seen = true }

    /// LE Set Advertising Parameters answered (`setup`: its parameters, when it succeeded).
    mutating func legacyParametersSet(_ setup: AdvertisingSetup?, adapter: AdapterIndex) {
        seen = true
        if let setup { legacyAdvertisingParameters[adapter] = setup }
    }

    /// LE Set Extended Advertising Parameters answered (`setup`: when it succeeded).
    mutating func extendedParametersSet(_ setup: AdvertisingSetup?, handle: UInt8, adapter: AdapterIndex) {
        seen = true
        if let setup { extendedAdvertisingParameters[SetKey(adapter: adapter, handle: handle)] = setup }
    }

    /// The advertising data command sent at `command` answered with `status` at `at`.
    mutating func dataCommandAnswered(command: FrameTime, status: UInt8, at: FrameTime) {
        guard let i = dataCommands.items.lastIndex(where: { $0.at == command }) else { return }
        dataCommands[i].complete = at
        dataCommands[i].status = status
        dataCommandSettled(i)
        noteDataCommandAnswered(i)
    }

    /// LE Read Supported States answered.
    mutating func supportedStates(_ states: UInt64, at: FrameTime) {
        controller.supportedStates = states
        controller.supportedStatesFrame = at.frame
    }

    /// LE Read Maximum Advertising Data Length answered.
    mutating func maximumDataLength(_ length: Int, at: FrameTime) {
        controller.maxAdvertisingDataLength = length
        controller.maxAdvertisingDataLengthFrame = at.frame
    }

    /// The handles of the sets enabled on `adapter` (Extended Advertising Enable with no set
    /// disables them all).
    func enabledSets(adapter: AdapterIndex) -> [UInt8?] {
        // (Android's multi-advertising instances are not extended advertising sets.)
        openSpans.keys.filter { $0.adapter == adapter && $0.handle != nil && !multiAdvertisingInstances.contains($0) }.map(\.handle)
    }

    /// The positions of the data commands and spans settled since the last hand-over, from the
    /// `kept`-th on; forgotten here.
    mutating func takeSettled(from kept: Int) -> (data: [Int], spans: [Int]) {
        (dataCommands.positions(of: &settledData, from: kept),
         spans.positions(of: &settledSpans, from: kept))
    }

    /// Drops the data commands and spans at these positions (handed over).
    mutating func remove(data: [Int], spans positions: [Int]) {
        dataCommands.remove(data)
        spans.remove(positions)
    }
}
