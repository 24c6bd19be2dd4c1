import ScopeAnalysis
import ScopeCore
import ScopeRules

/// `--format json`: one object per capture, keys in the order of docs/REPORT-SCHEMA.md.
package enum JSONReporter {
    package static func render(_ report: Report) -> String { value(report).rendered() }

    /// The report as a tree (for programs that read it, and for reports inside other reports).
    package static func value(_ r: Report) -> JSONValue {
        var o = JSONObject()
        report(r, into: &o)
        return o.value
    }

    /// The rendering of `value(r).write(chunk:to:)`, written without building the tree.
    package static func write(_ r: Report, chunk: Int = 1 << 16, to sink: (String) -> Void) {
        JSONFieldWriter.write(chunk: chunk, to: sink) { report(r, into: &$0) }
    }

    static func report<O: JSONFields & ~Copyable>(_ r: Report, into o: inout O) {
        o.set("schema_version", Report.schemaVersion)
        o.set("tool", tool(r.tool))
        o.set("config", config(r.config))
        o.set("capture", capture(r.capture))
        o.set("headline", headline(r.headline))
        o.set("scans", objects: r.scans) { scan($0, into: &$1) }
        o.set("devices", objects: r.devices) { device($0, into: &$1) }
        o.set("connection_attempts", objects: r.attempts) { attempt($0, into: &$1) }
        o.set("connections", objects: r.connections) { connection($0, into: &$1) }
        o.set("pairing", objects: r.pairings) { pairing($0, into: &$1) }
        let cut = r.totals.notListed
        if !cut.isEmpty {
            // Lists keep their first Report.listLimit items; this says how many more there are.
            var n = JSONObject()
            for c in cut { n.set(c.key, c.count) }
            o.set("not_listed", n.value)
        }
        if let a = r.advertising {
            o.set("advertising", object: { advertising(a, into: &$0) })
        } else {
            o.set("advertising", .null)
        }
        o.set("findings", objects: r.findings) { finding($0, into: &$1) }
        o.set("rules", .array(r.rules.map { verdict($0, judged: r.judgedStatus($0)) }))
        if let b = r.baseline { o.set("baseline", b.json()) }
        o.set("summary", summary(r))
    }

    static func tool(_ t: ToolInfo) -> JSONValue {
        var o = JSONObject()
        o.set("name", t.name)
        o.set("version", t.version)
        return o.value
    }

    static func config(_ c: ConfigSummary) -> JSONValue {
        var o = JSONObject()
        o.set("source", c.source)
        o.set("profile", c.profile)
        var s = JSONObject()
        for (k, v) in c.settings { s.set(k, v) }
        o.set("settings", s.value)
        return o.value
    }

    /// Containers opened and files merged; null for a bare capture file.
    static func source(_ s: CaptureOrigin) -> JSONValue {
        guard !s.isPlain else { return .null }
        var o = JSONObject()
        o.set("kind", s.kind.rawValue)
        o.set("layers", .array(s.layers.map { .string($0.description) }))
        o.set("members", .array(s.members.map { m in
            var x = JSONObject()
            x.set("name", m.name)
            x.set("format", m.format)
            return x.value
        }))
        o.set("left_out", .array(s.leftOut.map { l in
            var x = JSONObject()
            x.set("name", l.name)
            x.set("reason", l.reason)
            return x.value
        }))
        o.set("summary_only", s.summaryOnly)
        return o.value
    }

    /// `capture.platform`: the stack named, how sure, and every fact behind it.
    static func platform(_ p: HostPlatform) -> JSONValue {
        var o = JSONObject()
        o.set("id", p.kind.rawValue)
        o.set("name", p.kind.name)
        o.set("certain", p.isCertain)
        o.set("weight", p.weight?.rawValue)
        o.set("overridden", p.overridden)
        o.set("detected", p.detected.rawValue)
        o.set("device", p.details.device)
        o.set("os", p.details.os)
        o.set("bluetooth_host", p.details.host)
        o.set("controller", p.details.controller)
        o.set("details_frame", p.details.frame)
        o.set("evidence", .array(p.evidence.map { e in
            var x = JSONObject()
            x.set("fact", e.fact.id)
            x.set("points_to", e.fact.points.kind.rawValue)
            x.set("weight", e.fact.points.weight.rawValue)
            x.set("description", e.fact.description)
            x.set("count", e.count)
            x.set("first_frame", e.firstFrame)
            return x.value
        }))
        return o.value
    }

    static func capture(_ c: CaptureSummary) -> JSONValue {
        var o = JSONObject()
        o.set("file", c.file)
        o.set("format", c.format)
        o.set("frames", c.frames)
        o.set("first_timestamp", c.firstTimestamp.map { $0.description + " UTC" })
        o.set("last_timestamp", c.lastTimestamp.map { $0.description + " UTC" })
        o.set(ms: "duration_ms", c.durationMicros)
        o.set("source", source(c.source))
        o.set("platform", platform(c.platform))
        var h = JSONObject()
        let health = c.health
        h.set("ok", c.healthy)
        h.set("truncated_records", health.truncatedRecords)
        h.set("truncated_acl", health.truncatedACL)
        h.set("att_analysis_incomplete", health.attAnalysisIncomplete)
        h.set("drops", Int(health.drops))
        h.set("backward_timestamps", health.backwardTimestamps)
        h.set("implausible_timestamps", health.implausibleTimestamps)
        h.set("epoch_skew_suspected", health.epochSkewSuspected)
        h.set("unknown_records", health.unknownRecords)
        h.set("malformed_frames", health.malformedFrames)
        h.set("read_errors", health.readErrors)
        h.set("read_warnings", health.readWarnings)
        h.set("handles_without_setup", .array(health.handlesWithoutSetup.map { .int(Int64($0)) }))
        h.set("problems", .array(c.healthProblems.map(JSONValue.string)))
        o.set("health", h.value)
        return o.value
    }

    static func headline(_ h: Headline) -> JSONValue {
        var o = JSONObject()
        var figures = JSONObject()
        for f in h.figures { figures.set(f.key, f.rendered.map(JSONValue.decimal) ?? .null) }
        o.set("figures", figures.value)
        o.set("estimated", .array(h.figures.filter(\.estimated).map { .string($0.key) }))
        o.set("discovery_cost", .array(h.discovery.map { d in
            var c = JSONObject()
            c.set("device", d.device)
            c.set("connection", d.connection)
            c.set("request_frame", d.requestFrame)
            c.set("scan_start_frame", d.scanStartFrame)
            c.set("system_scan_start_frame", d.systemScanStartFrame)
            c.set(ms: "scan_to_request_ms", d.scanToRequestMicros)
            c.set("reports_until_request", d.reportsUntilRequest)
            c.set(ms: "radio_on_ms_estimated", d.radioOnMicros)
            c.set("duty_cycle", d.dutyCycle.map { JSONValue.decimal(Millis.ratio($0)) } ?? .null)
            c.set("duty_cycle_per_phy", object: { q in
                for p in d.phys { q.set(p.phy, JSONValue.decimal(Millis.ratio(p.dutyCycle))) }
            })
            c.set("first_report_frame", d.firstReportFrame)
            c.set(ms: "first_report_to_request_ms", d.firstReportToRequestMicros)
            c.set("failed_attempts", d.failedAttempts)
            c.set(ms: "failed_attempts_ms", d.failedAttemptsMicros)
            c.set("first_request_frame", d.firstRequestFrame ?? d.requestFrame)
            c.set(ms: "first_request_to_request_ms", d.firstRequestMicrosBefore ?? 0)
            c.set("connected_frame", d.connectedFrame)
            return c.value
        }))
        var dup = JSONObject()
        let d = h.duplicates
        dup.set("sessions", d.sessions)
        dup.set("sessions_with_filter_off", d.sessionsWithFilterOff)
        dup.set("reports", d.reports)
        dup.set("duplicates", d.duplicates)
        dup.set("ratio", .decimal(Millis.ratio(d.ratio)))
        dup.set("event_bytes", d.eventBytes)
        dup.set("rate_sessions", d.rateSessions)
        dup.set("rate_per_s_median", d.rateMedian.map { JSONValue.decimal(Millis.ratio($0)) } ?? .null)
        dup.set("rate_per_s_peak", d.ratePeak.map { JSONValue.decimal(Millis.ratio($0)) } ?? .null)
        dup.set("rate_peak_session_frame", d.ratePeakSessionFrame)
        dup.set(ms: "app_full_duty_scan_ms", d.appFullDutyMicros)
        o.set("duplicate_overhead", dup.value)
        o.set("connection_timing", .array(h.connectionTiming.map { t in
            var c = JSONObject()
            c.set("connection", t.connection)
            c.set("peer", t.peer)
            c.set(ms: "setup_ms", t.setupMicros)
            c.set(ms: "accept_list_wait_ms", t.acceptListWaitMicros)
            c.set(ms: "first_att_ms", t.firstATTMicros)
            c.set(ms: "discovery_ms", t.discoveryMicros)
            c.set(ms: "first_data_ms", t.firstDataMicros)
            c.set(ms: "lifetime_ms", t.lifetimeMicros)
            c.set(ms: "idle_tail_ms", t.idleTailMicros)
            return c.value
        }))
        var model = JSONObject()
        model.set("scan", "radio-on = duration × window / interval, summed over PHYs, at most the duration")
        model.set("advertising", "legacy 1M: (1 preamble + 4 access address + 2 header + 6 AdvA + data + 3 CRC) bytes × 8 µs × 3 channels per event; events = enabled time / (interval + 2.5 ms)")
        model.set("connection", "events = lifetime / interval × (2 × 80 µs + 150 µs) + ATT bytes (value + 7) × 8 µs (1M) or 4 µs (2M)")
        o.set("radio_model", model.value)
        return o.value
    }

    static func scan<O: JSONFields & ~Copyable>(_ s: ScanSummary, into o: inout O) {
        o.set("adapter", Int(s.adapter))
        o.set("start_frame", s.startFrame)
        o.set(ms: "start_ms", s.startMicros)
        o.set("stop_frame", s.stopFrame)
        o.set(ms: "stop_ms", s.stopMicros)
        o.set("still_running_at_end", s.stillRunningAtEnd)
        o.set(ms: "duration_ms", s.durationMicros)
        o.set("api", s.api)
        o.set("scan_type", s.active ? "active" : "passive")
        o.set("phys", objects: s.phys) { p, q in
            q.set("phy", p.phy)
            q.set("scan_type", p.active ? "active" : "passive")
            q.set(ms: "interval_ms", p.intervalMicros)
            q.set(ms: "window_ms", p.windowMicros)
            q.set("duty_cycle", .decimal(Millis.ratio(p.dutyCycle)))
        }
        o.set("filter_duplicates", s.filterDuplicates != 0)
        o.set("filter_duplicates_value", Int(s.filterDuplicates))
        o.set("reports", s.reports)
        o.set("reports_per_s", s.perSecond(s.reports).map { JSONValue.decimal(Millis.ratio($0)) } ?? .null)
        o.set("duplicates", s.duplicates)
        o.set("duplicate_ratio", .decimal(Millis.ratio(s.duplicateRatio)))
        o.set("duplicates_per_s", s.perSecond(s.duplicates).map { JSONValue.decimal(Millis.ratio($0)) } ?? .null)
        o.set("duplicate_event_bytes", s.duplicateEventBytes)
        o.set("devices_seen", s.devicesSeen)
        o.set("first_report_frame", s.firstReportFrame)
        o.set("last_report_frame", s.lastReportFrame)
        o.set("first_duplicate_frame", s.firstDuplicateFrame)
        who(s.who.actor, s.who.evidence, into: &o)
        o.set(ms: "radio_on_ms_estimated", s.radioOnMicros)
    }

    static func device<O: JSONFields & ~Copyable>(_ d: DeviceSummary, into o: inout O) {
        o.set("address", d.address)
        o.set("address_type", Int(d.addressType))
        o.set("name", d.name)
        o.set("reports", d.reports)
        o.set("first_frame", d.firstFrame)
        o.set(ms: "first_ms", d.firstMicros)
        o.set("last_frame", d.lastFrame)
        o.set(ms: "last_ms", d.lastMicros)
        o.set("distinct_payloads", d.distinctPayloads)
        o.set("rssi_min", d.rssiMin.map(Int.init))
        o.set("rssi_max", d.rssiMax.map(Int.init))
        o.set("service_uuids", .array(d.serviceUUIDs.map(JSONValue.string)))
        o.set("manufacturers", .array(d.manufacturers.map { .int(Int64($0)) }))
        o.set("connectable", d.connectable)
        o.set("identity", d.identity)
    }

    static func attempt<O: JSONFields & ~Copyable>(_ a: AttemptSummary, into o: inout O) {
        o.set("adapter", Int(a.adapter))
        o.set("request_frame", a.requestFrame)
        o.set(ms: "request_ms", a.requestMicros)
        o.set("api", a.api)
        o.set("peer", a.peer)
        o.set("filter_policy", Int(a.filterPolicy))
        o.set("cancel_frame", a.cancelFrame)
        o.set("complete_frame", a.completeFrame)
        o.set("status", a.status)
        o.set("outcome", a.outcome)
        o.set("lost_with_controller", a.lostWithController?.rawValue)
        o.set("superseded_frame", a.supersededFrame)
        who(a.who.actor, a.who.evidence, into: &o)
        o.set(ms: "pending_ms", a.pendingMicros)
        o.set("connection", a.connection)
    }

    static func connection<O: JSONFields & ~Copyable>(_ c: ConnectionSummary, into o: inout O) {
        o.set("id", c.id)
        o.set("adapter", Int(c.adapter))
        o.set("handle", Int(c.handle))
        o.set("generation", c.generation)
        o.set("role", c.role)
        o.set("peer", c.peer)
        o.set("request_frame", c.requestFrame)
        o.set(ms: "request_ms", c.requestMicros)
        o.set("complete_frame", c.completeFrame)
        o.set(ms: "complete_ms", c.completeMicros)
        o.set("setup_observed", c.setupObserved)
        o.set(ms: "setup_ms", c.setupMicros)
        o.set(ms: "interval_ms", c.intervalMicros)
        o.set("latency", c.latency)
        o.set(ms: "supervision_timeout_ms", c.supervisionTimeoutMicros)
        o.set("parameter_updates", c.parameterUpdates)
        o.set("phy_updates", c.phyUpdates)
        o.set("data_length_changes", c.dataLengthChanges)
        o.set("mtu", c.mtu)
        o.set("encrypted", c.encrypted)
        o.set(ms: "first_att_ms", c.firstATTMicros)
        o.set(ms: "discovery_ms", c.discoveryMicros)
        o.set(ms: "first_data_ms", c.firstDataMicros)
        o.set(ms: "lifetime_ms", c.lifetimeMicros)
        o.set(ms: "idle_tail_ms", c.idleTailMicros)
        o.set("still_connected_at_end", c.stillConnectedAtEnd)
        o.set("disconnect_frame", c.disconnectFrame)
        o.set(ms: "disconnect_ms", c.disconnectMicros)
        o.set("disconnect_reason", c.disconnectReason)
        o.set("disconnect_initiator", c.disconnectInitiator)
        o.set("lost_with_controller", c.lostWithController?.rawValue)
        o.set("link", c.transport == .bredr ? "br_edr" : c.transport == .le ? "le" : "unknown")
        o.set("end", c.end)
        o.set("parameters_set_by", c.parametersSetBy)
        o.set("parameters_set_frame", c.parametersSetFrame)
        o.set("att_pdus", c.attPDUs)
        var att = JSONObject()
        for (name, count) in c.attByOpcode { att.set(name, count) }
        o.set("att_by_opcode", att.value)
        o.set("gatt_services", c.services)
        o.set("gatt_characteristics", c.characteristics)
        if let last = c.rssiReadings.last, let weakest = c.rssiReadings.weakest {
            var r = JSONObject()
            r.set("reads", .int(Int64(c.rssiReadings.count)))
            r.set("last_dbm", .int(Int64(last.dBm)))
            r.set("last_frame", .int(Int64(last.at.frame)))
            r.set("weakest_dbm", .int(Int64(weakest.dBm)))
            r.set("weakest_frame", .int(Int64(weakest.at.frame)))
            o.set("rssi", r.value)
        } else {
            o.set("rssi", .null)
        }
        if let a = c.peerAdvertisingRSSI {
            var r = JSONObject()
            r.set("dbm", .int(Int64(a.dBm)))
            r.set("frame", .int(Int64(a.at.frame)))
            o.set("peer_advertising_rssi", r.value)
        } else {
            o.set("peer_advertising_rssi", .null)
        }
        if let e = c.radioEstimate {
            var r = JSONObject()
            r.set("connection_events", .int(e.events))
            r.set(ms: "interval_ms", e.intervalMicros)
            r.set("att_bytes", .int(e.dataBytes))
            r.set("us_per_byte", .int(e.microsPerByte))
            r.set(ms: "airtime_ms", e.airtimeMicros)
            o.set("radio_estimated", r.value)
        } else {
            o.set("radio_estimated", .null)
        }
        who(c.who.actor, c.who.evidence, into: &o)
    }

    static func pairing<O: JSONFields & ~Copyable>(_ p: PairingSummary, into o: inout O) {
        o.set("connection", p.connection)
        o.set("request_frame", p.requestFrame)
        o.set(ms: "request_ms", p.requestMicros)
        o.set("initiated_by", p.initiatedBy)
        o.set("method", p.method)
        o.set("secure_connections", p.secureConnections)
        o.set("bonding", p.bonding)
        o.set("mitm", p.mitm)
        o.set("initiator_io_capability", p.initiatorIOCapability.map(Int.init))
        o.set("responder_io_capability", p.responderIOCapability.map(Int.init))
        o.set("key_size", p.keySize.map(Int.init))
        o.set("result", p.result)
        o.set("reason", p.reason.map { "0x" + Hex.string([$0]) })
        o.set("failed_frame", p.failedFrame)
        o.set("encryption_frame", p.encryptionFrame)
        pairingPDU(p.initiatorFeatures, key: "request_pdu", into: &o)
        pairingPDU(p.responderFeatures, key: "response_pdu", into: &o)
        o.set("repeats_bond_of_frame", p.repeatsBondFrame)
        o.set("link_lost_frame", p.linkLostFrame)
        o.set(ms: "duration_ms", p.durationMicros)
    }

    private static func pairingPDU<O: JSONFields & ~Copyable>(_ f: PairingSummary.SideFeatures?, key: StaticString, into o: inout O) {
        guard let f else {
            o.set(key, .null)
            return
        }
        var q = JSONObject()
        q.set("sent_by", f.side)
        q.set("frame", f.frame)
        q.set("secure_connections", f.secureConnections)
        q.set("mitm", f.mitm)
        q.set("bonding", f.bonding)
        q.set("max_key_size", Int(f.keySize))
        o.set(key, q.value)
    }

    static func advertising<O: JSONFields & ~Copyable>(_ a: AdvertisingSummary, into o: inout O) {
        o.set("data", objects: a.dataSets) { d, q in
            q.set("frame", d.frame)
            q.set(ms: "at_ms", d.atMicros)
            q.set("command", d.command)
            q.set("handle", d.handle.map(Int.init))
            q.set("kind", d.kind)
            q.set("legacy_pdus", d.legacyPDUs)
            q.set("length", d.length)
            q.set("status", d.status.map(ContractNames.hciStatus))
            who(d.who.actor, d.who.evidence, into: &q)
        }
        o.set("sets", objects: a.spans) { s, q in
            q.set("handle", s.handle.map(Int.init))
            q.set("api", s.api)
            q.set("connectable", s.connectable)
            q.set(ms: "interval_ms", s.intervalMicros)
            q.set("start_frame", s.startFrame)
            q.set(ms: "start_ms", s.startMicros)
            q.set("stop_frame", s.stopFrame)
            q.set(ms: "stop_ms", s.stopMicros)
            q.set("stopped_by", s.stoppedBy)
            q.set(ms: "enabled_ms", s.enabledMicros)
            q.set(ms: "connected_while_enabled_ms", s.connectedWhileEnabledMicros)
            if let e = s.estimate {
                q.set("radio_estimated", object: { r in
                    r.set("data_length", e.dataLength)
                    r.set("events", .int(e.events))
                    r.set("us_per_event", .int(e.perEventMicros))
                    r.set(ms: "airtime_ms", e.airtimeMicros)
                })
            } else {
                q.set("radio_estimated", .null)
            }
            who(s.who.actor, s.who.evidence, into: &q)
        }
        o.set("max_advertising_data_length", a.maxAdvertisingDataLength)
        o.set("supported_states", a.supportedStates.map { "0x" + String($0, radix: 16) })
    }

    /// "actor" and "actor_evidence" of an item or finding (docs/ATTRIBUTION.md).
    static func who<O: JSONFields & ~Copyable>(_ actor: Actor, _ evidence: ActorEvidence?, into o: inout O) {
        o.set("actor", actor.rawValue)
        if let e = evidence {
            o.set("actor_evidence", object: { q in
                q.set("signal", e.signal.rawValue)
                q.set("frame", e.frame)
                q.set("what", e.signal.description)
            })
        } else {
            o.set("actor_evidence", .null)
        }
    }

    static func finding(_ f: Finding) -> JSONValue {
        var o = JSONObject()
        finding(f, into: &o)
        return o.value
    }

    static func finding<O: JSONFields & ~Copyable>(_ f: Finding, into o: inout O) {
        o.set("rule", f.rule)
        o.set("severity", f.severity.rawValue)
        o.set("subject", f.subject)
        o.set("message", f.message)
        o.set("evidence", frames: f.evidence)
        o.set("recommendation", f.recommendation)
        if let p = f.platform { o.set("advice_for", p.rawValue) }
        who(f.actor, f.attribution, into: &o)
    }

    static func verdict(_ v: RuleVerdict, judged: RuleStatus) -> JSONValue {
        var o = JSONObject()
        o.set("rule", v.rule)
        o.set("status", v.status.rawValue)
        o.set("judged_status", judged.rawValue)
        o.set("reason", v.reason)
        o.set("findings", v.totalFindings)
        o.set("findings_judged", v.totalJudged)
        var byActor = JSONObject()
        for (actor, n) in v.findingsByActor.sorted(by: { $0.key < $1.key }) { byActor.set(actor.rawValue, n) }
        o.set("findings_by_actor", byActor.value)
        let omitted = v.omitted.values.reduce(0, +)
        if omitted > 0 {
            o.set("findings_not_listed", omitted)
            o.set("findings_listed_cap", "the first \(FindingList.limit) per severity and side (the app's and unknown; the system's and the peer's) are listed")
        }
        if let share = v.platformShare {
            var p = JSONObject()
            p.set("platform", share.platform.rawValue)
            p.set("count", share.count)
            p.set("what", share.what)
            o.set("attributed_to_platform", p.value)
        }
        return o.value
    }

    static func summary(_ r: Report) -> JSONValue {
        var o = JSONObject()
        o.set("judge", r.judge.rawValue)
        for s in Severity.allCases.reversed() { o.set(s.rawValue + "s", r.findingCount(s)) }
        var all = JSONObject()
        for s in Severity.allCases.reversed() { all.set(s.rawValue + "s", r.findingCountAll(s)) }
        o.set("every_actor", all.value)
        o.set("violated", r.count(.violated))
        o.set("passed", r.count(.passed))
        o.set("not_evaluated", r.count(.notEvaluated))
        return o.value
    }
}
