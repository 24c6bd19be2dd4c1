import ScopeAnalysis
import ScopeCore

/// What the HTML timeline draws: one lane per scanner, device, connection and advertiser, with
/// spans (scan windows, connections, discovery, pairing, advertising) and ticks (reports, ATT PDUs,
/// requests, disconnects). Times in µs relative to frame 1.
package struct Timeline: Sendable {
    package enum SpanKind: String, Sendable { case scan, connection, discovery, pairing, advertising }
    package enum TickKind: String, Sendable { case report, duplicate, att, request, disconnect, marker }

    package struct Span: Sendable {
        package var kind: SpanKind
        package var start: Int64
        package var end: Int64
        package var label: String
        package var frame: FrameNumber
    }
    package struct Tick: Sendable {
        package var kind: TickKind
        package var at: Int64
        package var frame: FrameNumber
    }
    package struct Lane: Sendable {
        package var label: String
        package var spans: [Span] = []
        package var ticks: [Tick] = []
    }

    package var durationMicros: Int64
    package var lanes: [Lane] = []
    /// Devices beyond this many (least reported first) get no lane of their own.
    package static let maxDeviceLanes = 8

    /// No lanes (reports that draw no timeline).
    init(durationMicros: Int64) { self.durationMicros = durationMicros }

    init(analysis a: AnalysisResult, rel: (Timestamp) -> Int64) {
        durationMicros = max(1, (a.capture.lastTimestamp.map(rel)) ?? 1)

        var scanLanes: [AdapterIndex: Lane] = [:]
        for s in a.scans {
            // In place: a lane copied out and back would copy its ticks once per session.
            var lane = scanLanes.removeValue(forKey: s.adapter) ?? Lane(label: "scanning (hci\(s.adapter))")
            let mode = s.active ? "active" : "passive"
            let filter = s.filterDuplicates == 0 ? "duplicates allowed" : "duplicates filtered"
            lane.spans.append(Span(kind: .scan, start: rel(s.start.time), end: rel((s.stop ?? s.end).time),
                                   label: "scan at frame \(s.start.frame): \(mode), \(filter), \(s.reports) reports",
                                   frame: s.start.frame))
            // Bounded density: one tick per non-empty bucket, a duplicate tick when most of it were duplicates.
            for b in s.density.buckets {
                lane.ticks.append(Tick(kind: b.duplicates * 2 > b.reports ? .duplicate : .report, at: rel(s.density.start(of: b)), frame: b.first.frame))
            }
            scanLanes[s.adapter] = lane
        }
        // Sessions beyond the first few hundred: their density, capture-wide.
        for (adapter, density) in a.foldedScanDensity {
            var lane = scanLanes.removeValue(forKey: adapter) ?? Lane(label: "scanning (hci\(adapter))")
            for b in density.buckets {
                lane.ticks.append(Tick(kind: b.duplicates * 2 > b.reports ? .duplicate : .report, at: rel(density.start(of: b)), frame: b.first.frame))
            }
            scanLanes[adapter] = lane
        }
        lanes.append(contentsOf: scanLanes.sorted { $0.key < $1.key }.map(\.value))

        // Devices: every device connected to, then the most reported ones.
        let connectedPeers = Set(a.connections.compactMap(\.peer) + a.attempts.compactMap(\.peer))
        let ranked = a.devices.sorted {
            let ca = connectedPeers.contains($0.address), cb = connectedPeers.contains($1.address)
            if ca != cb { return ca }
            if $0.reports != $1.reports { return $0.reports > $1.reports }
            return $0.address < $1.address
        }
        for d in ranked.prefix(Self.maxDeviceLanes) {
            var lane = Lane(label: d.name.map { "\($0) \(d.address)" } ?? d.address.description)
            lane.ticks.append(Tick(kind: .report, at: rel(d.first.time), frame: d.first.frame))
            if d.last.frame != d.first.frame {
                lane.ticks.append(Tick(kind: .report, at: rel(d.last.time), frame: d.last.frame))
            }
            for attempt in a.attempts where attempt.peer == d.address {
                lane.ticks.append(Tick(kind: .request, at: rel(attempt.request.time), frame: attempt.request.frame))
            }
            lanes.append(lane)
        }

        let end = a.capture.lastTimestamp ?? a.origin
        for c in a.connections {
            // A connection judged and dropped on the way, or followed without holding its PDUs
            // (long captures), has fewer ATT ticks than PDUs: the label says so.
            let undrawn = c.attCount - c.att.count
            var lane = Lane(
                label: "connection \(c.id)" + (c.peer.map { " → \($0)" } ?? "")
                    + (undrawn > 0 ? " (\(undrawn) of \(c.attCount) ATT PDUs not drawn)" : ""))
            let start = c.complete ?? c.att.first?.at ?? c.firstATT ?? c.lastPayload
            if let start {
                lane.spans.append(Span(kind: .connection, start: rel(start.time), end: rel((c.disconnect?.time) ?? end),
                                       label: "\(c.role.rawValue), interval " + (c.intervalMicros.map { Millis.string($0) + " ms" } ?? "?"),
                                       frame: start.frame))
            }
            if let first = c.firstATT, let done = c.discoveryEnd {
                lane.spans.append(Span(kind: .discovery, start: rel(first.time), end: rel(done.time),
                                       label: "GATT discovery", frame: first.frame))
            }
            for p in a.pairings where p.connection == c.id {
                let stop = (p.encryption ?? p.failed)?.time ?? p.request.time
                lane.spans.append(Span(kind: .pairing, start: rel(p.request.time), end: rel(stop),
                                       label: "pairing: \(p.method.rawValue), \(p.result.rawValue)", frame: p.request.frame))
            }
            for e in c.att { lane.ticks.append(Tick(kind: .att, at: rel(e.at.time), frame: e.at.frame)) }
            if let d = c.disconnect { lane.ticks.append(Tick(kind: .disconnect, at: rel(d.time), frame: d.frame)) }
            lanes.append(lane)
        }

        if let adv = a.advertising, !adv.spans.isEmpty {
            var lane = Lane(label: "advertising")
            for s in adv.spans {
                lane.spans.append(Span(kind: .advertising, start: rel(s.start.time), end: rel((s.stop?.time) ?? end),
                                       label: (s.connectable ? "connectable" : "non-connectable") + " advertising",
                                       frame: s.start.frame))
            }
            lanes.append(lane)
        }
        if !a.markers.isEmpty {
            var lane = Lane(label: "markers")
            for m in a.markers { lane.ticks.append(Tick(kind: .marker, at: rel(m.at.time), frame: m.at.frame)) }
            lanes.append(lane)
        }
    }
}
