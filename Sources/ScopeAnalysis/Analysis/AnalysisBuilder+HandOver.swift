import ScopeCore

/// Flat memory on long captures: the ATT detail of closed connections (every ATT PDU, the GATT
/// database, CCCD writes), the scan sessions, and the connection requests, connections, pairings
/// and advertising records are what grows with a capture. The driver of the analysis hands them,
/// a batch at a time, to the rules that can judge part of a capture (`RuleAccumulator` in
/// ScopeRules): closed connections first drop their ATT detail (counts stay); scan sessions
/// after the first `keptScans` leave the scan tracker and only their sums stay
/// (`AnalysisResult.handedOverScans`); settled items after the first `kept` of each list leave too,
/// and only their counts and headline sums stay (`AnalysisResult.handedOver`).
///
/// Captures below the thresholds never hand over anything: their analysis is exactly what
/// `finish()` would give without a hand-over.
extension AnalysisBuilder {
    package struct HandOverPolicy: Sendable {
        /// Hand over once the closed connections hold this many ATT PDUs (40 bytes each)…
        package var attPDUs: Int
        /// …or once this many closed connections hold their detail.
        package var connections: Int
        /// Hand over closed scan sessions this many at a time…
        package var scans: Int
        /// …except the first ones, which stay for the reports' lists (`Report.listLimit`).
        package var keptScans: Int
        /// Connection requests, connections, pairings and advertising records: the first ones of
        /// each list stay (the reports list them)…
        package var kept: Int
        /// …and the settled ones after them are looked for once this many were created.
        package var items: Int
        /// Advertisers: the first `kept` stay (the reports list them); the later ones are looked
        /// at once this many more are held (or a quarter more than were held at the last look)…
        package var devices: Int
        /// …and those not heard for this long leave (`ScanTracker.forgetQuietDevices`): longer
        /// than a resolvable private address lives (15 minutes by default in iOS, Android and
        /// BlueZ).
        package var deviceQuietMicros: Int64
        /// Advertisers held after the first `kept`, at most (`limits.advertisers_held`): past it
        /// the least recently heard leave before they are quiet, counted (a health note says how
        /// many).
        package var heldDevices: Int
        /// Notes and user-logging records kept as markers (`limits.markers`), and the bytes of
        /// each one's text kept (`limits.marker_bytes`); the rest are counted (a health note).
        package var markers: Int
        package var markerBytes: Int
        package init(
            attPDUs: Int = 50_000, connections: Int = 256, scans: Int = 256, keptScans: Int = 1000, kept: Int = 1000, items: Int = 256,
            devices: Int = 4096, deviceQuietMicros: Int64 = 15 * 60 * 1_000_000, heldDevices: Int = 50_000, markers: Int = 1000,
            markerBytes: Int = 512
        ) {
            self.heldDevices = heldDevices
            self.markers = markers
            self.markerBytes = markerBytes
            self.attPDUs = attPDUs
            self.connections = connections
            self.scans = scans
            self.keptScans = keptScans
            self.kept = kept
            self.items = items
            self.devices = devices
            self.deviceQuietMicros = deviceQuietMicros
        }
    }

    /// True when closed connections, scan sessions or settled items should be handed over now.
    package var hasSettledToHandOver: Bool {
        hasConnectionsToHandOver || hasScansToHandOver || hasItemsToHandOver || hasDevicesToLookAt
    }

    var hasDevicesToLookAt: Bool { scans.hasDevicesToLookAt }

    /// `hasSettledToHandOver`, for the frame loop, which asks once a batch of frames: as a mutating
    /// call it reads the builder where it is, where the getter, called on the builder the loop's
    /// closure captures, copied all of it (3.7 KB) every frame (and returning an optional
    /// `SettledBatch` instead copies 2.2 KB).
    package mutating func isDueForHandOver() -> Bool { hasSettledToHandOver }

    /// Connection requests, connections, pairings and advertising records created so far.
    var itemsCreated: Int { links.attempts.created + links.connections.created + pairing.pairings.created + advertising.created }

    var hasItemsToHandOver: Bool { itemsCreated - itemsAtCheck >= handOverPolicy.items }

    var hasConnectionsToHandOver: Bool {
        !links.closedWithDetail.isEmpty
            && (links.closedDetailEvents >= handOverPolicy.attPDUs || links.closedWithDetail.count >= handOverPolicy.connections)
    }

    var hasScansToHandOver: Bool { !scans.closed.isEmpty && scans.closed.count >= handOverPolicy.scans }

    /// What the rules that can judge part of a capture (`RuleScope`) take now: the closed
    /// connections not handed over yet (and their pairings), when due, and the closed scan
    /// sessions, when due, as a partial result; settled items as they leave
    /// (`handOverSettledItems`). The connections then drop their ATT detail, keeping counts (the
    /// first `kept` stay for the reports; `RuleAccumulator` knows them as judged); the sessions
    /// leave the scan tracker and only their sums stay (`AnalysisResult.handedOverScans`).
    package mutating func handOverSettled() -> SettledBatch {
        var part = AnalysisResult(capture: capture.infoNow)
        if hasConnectionsToHandOver {
            part.connections = links.handOverClosed()
            let ids = Set(part.connections.map(\.id))
            part.pairings = pairing.pairings.items.filter { ids.contains($0.connection) }
        }
        if hasScansToHandOver { part.scans = scans.handOverClosed() }
        var items = SettledItems()
        if hasDevicesToLookAt, let now = lastFrame?.time.microseconds {
            // No rule judges a device: those that leave are only counted.
            scans.forgetQuietDevices(
                quietSince: Timestamp(microseconds: now &- handOverPolicy.deviceQuietMicros), kept: handOverPolicy.kept,
                every: handOverPolicy.devices, cap: handOverPolicy.heldDevices)
        }
        if hasItemsToHandOver {
            itemsAtCheck = itemsCreated
            handOverSettledItems(into: &part, items: &items)
        }
        return SettledBatch(partial: part, items: items)
    }
}

extension AnalysisBuilder {
    /// Settled items after the first `handOverPolicy.kept` of each list leave the trackers for the
    /// rules of `RuleScope.items` (`items`); their counts and headline sums stay in
    /// `result.handedOver`. The trackers note each item as it settles (`settledAttempts`,
    /// `settledConnections`, `settledData`, `settledSpans`, `ReconnectionTracker.settled`): a
    /// connection request answered (or replaced while cancelled) and not kept for the headline's
    /// discovery-cost list, a connection closed by a Disconnection Complete with its ATT detail
    /// judged (its pairings go with it), an advertising data command answered (or replaced), a
    /// span stopped, and every reconnection. Nothing held is searched for them.
    mutating func handOverSettledItems(into part: inout AnalysisResult, items: inout SettledItems) {
        let kept = handOverPolicy.kept
        let now = lastFrame?.time.microseconds ?? 0
        let connections = links.takeSettledConnections(from: kept)
        let attempts = links.takeSettledRequests(from: kept)
        let (data, spans) = advertising.takeSettled(from: kept)
        guard !connections.isEmpty || !attempts.isEmpty || !data.isEmpty || !spans.isEmpty || !reconnections.settled.isEmpty else {
            return
        }
        // The pairings of the connections handed over.
        var pairings: [Int] = []
        if !connections.isEmpty {
            let gone = Set(connections.map { links.connections[$0].id })
            for p in pairing.pairings.indices where gone.contains(pairing.pairings[p].connection) {
                items.contextPairings.append(pairing.pairings[p])
                if pairing.pairings.ids[p] >= kept { pairings.append(p) }
            }
        }

        // What stays of them.
        let goneSpans = Set(spans)
        for p in connections {
            let c = links.connections[p]
            items.connections.append(c)
            handedOver.timing.add(
                c, captureEnd: c.disconnect?.time ?? Timestamp(microseconds: now), summaryOnly: capture.info.origin.summaryOnly)
            advertising.addConnectedTime(of: c, excluding: goneSpans)
        }
        for p in attempts {
            let a = links.attempts[p]
            items.attempts.append(a)
            if let d = a.discovery(deviceFirst: scans.deviceFirst(a.connectedPeer)) { handedOver.discovery.add(d, of: a) }
        }
        items.pairings = pairings.map { pairing.pairings[$0] }
        items.advertisingData = data.map { advertising.dataCommands[$0] }
        items.advertisingSpans = spans.map { advertising.spans[$0] }
        items.reconnections = reconnections.takeSettled()

        // Out of the trackers (the state that refers to held items names them by id: `HeldList`).
        links.removeConnections(connections)
        links.removeRequests(attempts)
        pairing.removePairings(pairings)
        advertising.remove(data: data, spans: spans)
        part.advertising = advertising.controller
    }
}
