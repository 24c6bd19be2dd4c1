import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

/// Every scenario truth file — the project's own (captures/scenarios) and the corpus's: the
/// analysis agrees with `expected_metrics` (counts exactly, times within 1 ms of the truth's
/// milliseconds relative to frame 1). The project's truth files are `partial`: they state what
/// Scripts/scenario_truth.py derives on its own, and only that is compared.
@Suite struct ScenarioTruthTests {
    @Test("scenario metrics agree with the truth file", arguments: ScenarioTruth.all)
    func scenario(_ file: ScenarioTruth) throws {
        let truth = try file.load()
        let capture = try #require(truth["capture"] as? String)
        let expected = try #require(truth["expected_metrics"] as? [String: Any])
        let result = try AnalysisBuilder.analyze(path: file.directory.appendingPathComponent(capture).path)
        var check = TruthCheck(origin: result.origin, partial: expected["partial"] as? Bool ?? false)
        check.compare(expected, result)
        #expect(check.problems.isEmpty, Comment(rawValue: "\(file):\n" + check.problems.joined(separator: "\n")))
    }

    @Test func theProjectShipsItsOwnScenarios() {
        #expect(ScenarioTruth.own.count >= 26)
    }
}

/// Collects every disagreement with a truth file as one line.
struct TruthCheck {
    let origin: Timestamp
    /// Keys the truth does not state are not compared (the project's own truth files).
    var partial = false
    var problems: [String] = []

    func ms(_ t: FrameTime?) -> Double? { t.map { Double($0.time.microseconds - origin.microseconds) / 1000 } }
    func ms(_ micros: Int64?) -> Double? { micros.map { Double($0) / 1000 } }

    mutating func same<T: Equatable>(_ what: String, _ truth: T?, _ mine: T?) {
        if partial && truth == nil { return }
        if truth != mine { problems.append("\(what): truth \(truth.map { "\($0)" } ?? "nil"), analysis \(mine.map { "\($0)" } ?? "nil")") }
    }

    mutating func time(_ what: String, _ truth: Any?, _ mine: Double?) {
        let t = truth as? Double
        if partial && t == nil { return }
        switch (t, mine) {
        case (nil, nil): return
        case (let a?, let b?) where abs(a - b) <= 1.0: return
        default: problems.append("\(what): truth \(t.map { "\($0)" } ?? "nil") ms, analysis \(mine.map { "\($0)" } ?? "nil") ms")
        }
    }

    /// "0x16 Connection Terminated By Local Host" → 0x16.
    static func code(_ any: Any?) -> Int? {
        guard let s = any as? String, s.hasPrefix("0x") else { return nil }
        return Int(s.dropFirst(2).prefix { $0.isHexDigit }, radix: 16)
    }

    /// "3 NoInputNoOutput" → 3.
    static func leadingInt(_ any: Any?) -> Int? {
        guard let s = any as? String else { return nil }
        return Int(s.prefix { $0.isNumber })
    }

    mutating func compare(_ expected: [String: Any], _ r: AnalysisResult) {
        if let capture = expected["capture"] as? [String: Any] {
            same("capture.frames", capture["frames"] as? Int, r.capture.frames)
            time("capture.last_frame_ms", capture["last_frame_ms"], r.capture.lastTimestamp.map { Double($0.microseconds - origin.microseconds) / 1000 })
        }
        compareScans(expected["scan_sessions"] as? [[String: Any]] ?? [], r)
        compareAttempts(expected["connection_attempts"] as? [[String: Any]] ?? [], r)
        compareConnections(expected["connections"] as? [[String: Any]] ?? [], r)
        comparePairings(expected["pairings"] as? [[String: Any]] ?? [], r)
        if !partial || expected["advertising"] != nil { compareAdvertising(expected["advertising"] as? [String: Any], r) }
    }

    mutating func compareScans(_ truth: [[String: Any]], _ r: AnalysisResult) {
        same("scan session count", truth.count, r.scans.count)
        for (i, (t, s)) in zip(truth, r.scans).enumerated() {
            let p = "scan[\(i)]"
            same("\(p).start_frame", t["start_frame"] as? Int, s.start.frame)
            same("\(p).start_complete_frame", t["start_complete_frame"] as? Int, s.startComplete?.frame)
            same("\(p).stop_frame", t["stop_frame"] as? Int, s.stop?.frame)
            same("\(p).stop_complete_frame", t["stop_complete_frame"] as? Int, s.stopComplete?.frame)
            time("\(p).start_ms", t["start_ms"], ms(s.start))
            time("\(p).stop_ms", t["stop_ms"], ms(s.stop))
            time("\(p).duration_ms", t["duration_ms"], ms(s.durationMicros))
            same("\(p).still_running", t["still_running_at_end_of_capture"] as? Bool, s.stillRunningAtEnd)
            same("\(p).api", t["api"] as? String, s.api.rawValue)
            same("\(p).scan_type", t["scan_type"] as? String, s.active ? "active" : "passive")
            same("\(p).filter_duplicates", t["filter_duplicates"] as? Bool, s.filterDuplicates != 0)
            same("\(p).reports", t["reports"] as? Int, s.reports)
            same("\(p).duplicates", t["duplicates"] as? Int, s.duplicates)
            same("\(p).devices_seen", t["devices_seen"] as? Int, s.devicesSeen)
            same("\(p).first_report_frame", t["first_report_frame"] as? Int, s.firstReport?.frame)
            same("\(p).last_report_frame", t["last_report_frame"] as? Int, s.lastReport?.frame)
            same("\(p).first_duplicate_frame", t["first_duplicate_frame"] as? Int, s.firstDuplicate?.frame)
            let phys = t["phys"] as? [[String: Any]] ?? []
            if !partial || t["phys"] != nil { same("\(p).phys count", phys.count, s.phys.count) }
            for (tp, sp) in zip(phys, s.phys) {
                same("\(p).phy", tp["phy"] as? String, sp.phy)
                time("\(p).\(sp.phy).interval_ms", tp["interval_ms"], ms(sp.intervalMicros))
                time("\(p).\(sp.phy).window_ms", tp["window_ms"], ms(sp.windowMicros))
                same("\(p).\(sp.phy).scan_type", tp["scan_type"] as? String, sp.active ? "active" : "passive")
            }
        }
    }

    mutating func compareAttempts(_ truth: [[String: Any]], _ r: AnalysisResult) {
        same("attempt count", truth.count, r.attempts.count)
        for (i, (t, a)) in zip(truth, r.attempts).enumerated() {
            let p = "attempt[\(i)]"
            same("\(p).request_frame", t["request_frame"] as? Int, a.request.frame)
            time("\(p).request_ms", t["request_ms"], ms(a.request))
            same("\(p).api", t["api"] as? String, a.api.rawValue)
            same("\(p).peer", t["peer"] as? String, a.peer?.description.uppercased())
            same("\(p).filter_policy", t["filter_policy"] as? Int, Int(a.filterPolicy))
            same("\(p).cancel_frame", t["cancel_frame"] as? Int, a.cancel?.frame)
            time("\(p).cancel_ms", t["cancel_ms"], ms(a.cancel))
            let endOfPending = a.complete?.time ?? r.capture.lastTimestamp ?? a.request.time
            time("\(p).pending_ms", t["pending_ms"], ms(endOfPending.microseconds - a.request.time.microseconds))
            let bound = a.cancel?.time ?? a.complete?.time
            time("\(p).bounded_after_ms", t["bounded_after_ms"], bound.flatMap { ms($0.microseconds - a.request.time.microseconds) })
            same("\(p).complete_frame", t["complete_frame"] as? Int, a.complete?.frame)
            time("\(p).complete_ms", t["complete_ms"], ms(a.complete))
            same("\(p).status", Self.code(t["status"]), a.status.map(Int.init))
            let outcome = a.outcome == .pending ? "still pending at end of capture" : a.outcome.rawValue
            same("\(p).outcome", t["outcome"] as? String, outcome)
        }
    }

    mutating func compareConnections(_ truth: [[String: Any]], _ r: AnalysisResult) {
        same("connection count", truth.count, r.connections.count)
        let lastFrame = r.capture.lastTimestamp
        for (i, (t, c)) in zip(truth, r.connections).enumerated() {
            let p = "connection[\(i)]"
            same("\(p).handle", t["handle"] as? Int, Int(c.id.handle))
            same("\(p).role", t["role"] as? String, c.role.rawValue)
            same("\(p).peer", t["peer"] as? String, c.peer?.description.uppercased())
            same("\(p).request_frame", t["request_frame"] as? Int, c.request?.frame)
            same("\(p).complete_frame", t["complete_frame"] as? Int, c.complete?.frame)
            time("\(p).complete_ms", t["complete_ms"], ms(c.complete))
            time("\(p).conn_interval_ms", t["conn_interval_ms"], ms(c.intervalMicros))
            same("\(p).peripheral_latency", t["peripheral_latency"] as? Int, c.peripheralLatency)
            time("\(p).supervision_timeout_ms", (t["supervision_timeout_ms"] as? NSNumber)?.doubleValue, ms(c.supervisionTimeoutMicros))
            same("\(p).disconnect_command_frame", t["disconnect_command_frame"] as? Int, c.disconnectCommand?.frame)
            time("\(p).request_ms", t["request_ms"], ms(c.request))
            time("\(p).disconnect_command_ms", t["disconnect_command_ms"], ms(c.disconnectCommand))
            time("\(p).last_payload_ms", t["last_payload_ms"], ms(c.lastPayload))
            if let request = c.request, let complete = c.complete {
                time("\(p).setup_ms", t["setup_ms"], ms(complete.time.microseconds - request.time.microseconds))
            }
            same("\(p).disconnect_frame", t["disconnect_frame"] as? Int, c.disconnect?.frame)
            time("\(p).disconnect_ms", t["disconnect_ms"], ms(c.disconnect))
            same("\(p).disconnect_reason", Self.code(t["disconnect_reason"]), c.disconnectReason.map(Int.init))
            // The truth names a supervision timeout "link layer (0x08 Connection Timeout)": neither
            // side ended it (`LinkEnd.linkLost`; the initiator is unknown).
            var initiator: String? = c.disconnect == nil ? nil : c.disconnectInitiator.rawValue
            if case .linkLost = c.end { initiator = "link layer (0x08 Connection Timeout)" }
            same("\(p).disconnect_initiator", t["disconnect_initiator"] as? String, initiator)
            same("\(p).still_connected", t["still_connected_at_end_of_capture"] as? Bool, c.disconnect == nil)
            if let complete = c.complete {
                let end = c.disconnect?.time ?? lastFrame ?? complete.time
                time("\(p).lifetime_ms", t["lifetime_ms"], ms(end.microseconds - complete.time.microseconds))
                let from = c.lastPayload?.time ?? complete.time
                time("\(p).idle_tail_ms", t["idle_tail_ms"], ms(end.microseconds - from.microseconds))
            }
            same("\(p).last_payload_frame", t["last_payload_frame"] as? Int, c.lastPayload?.frame)
            same("\(p).mtu", t["mtu"] as? Int, c.mtu)
            // The first exchanges the connection keeps, and how many there were.
            let mtuFrames = t["mtu_exchange_frames"] as? [Int]
            same("\(p).mtu_exchange_frames", mtuFrames.map { Array($0.prefix(BoundedPrefix<FrameTime>.capacity)) }, c.mtuExchanges.kept.map(\.frame))
            same("\(p).mtu_exchange count", mtuFrames?.count, c.mtuExchanges.count)
            same("\(p).att_pdus", t["att_pdus"] as? Int, c.att.count)
            func byName(_ events: [ATTEvent]) -> [String: Int] {
                var out: [String: Int] = [:]
                for e in events { out[ATTOpcode(e.opcode).name ?? "Unknown", default: 0] += 1 }
                return out
            }
            same("\(p).att_by_opcode", t["att_by_opcode"] as? [String: Int], byName(c.att))
            same("\(p).att_sent_by_opcode", t["att_sent_by_opcode"] as? [String: Int], byName(c.att.filter { $0.direction == .sent }))
            same(
                "\(p).att_received_by_opcode", t["att_received_by_opcode"] as? [String: Int],
                byName(c.att.filter { $0.direction == .received }))
            let enc = t["encryption_changes"] as? [[String: Any]] ?? []
            same("\(p).encryption_changes count", enc.count, c.encryptionChanges.count)
            for (te, e) in zip(enc, c.encryptionChanges.kept) {
                same("\(p).encryption.frame", te["frame"] as? Int, e.at.frame)
                same("\(p).encryption.status", Self.code(te["status"]), Int(e.status))
                time("\(p).encryption.ms", te["ms"], ms(e.at))
                same("\(p).encryption.enabled", te["enabled"] as? Bool, e.enabled.map { $0 != 0 })
            }
        }
    }

    mutating func comparePairings(_ truth: [[String: Any]], _ r: AnalysisResult) {
        same("pairing count", truth.count, r.pairings.count)
        for (i, (t, pr)) in zip(truth, r.pairings).enumerated() {
            let p = "pairing[\(i)]"
            same("\(p).handle", t["handle"] as? Int, Int(pr.connection.handle))
            same("\(p).request_frame", t["request_frame"] as? Int, pr.request.frame)
            same("\(p).initiated_by", t["initiated_by"] as? String, pr.initiatedBy.rawValue)
            same("\(p).response_frame", t["response_frame"] as? Int, pr.response?.frame)
            let io = t["io_capabilities"] as? [String: Any]
            same("\(p).io.initiator", Self.leadingInt(io?["initiator"]), pr.initiator.map { Int($0.ioCapability) })
            same("\(p).io.responder", Self.leadingInt(io?["responder"]), pr.responder.map { Int($0.ioCapability) })
            same("\(p).method", t["method"] as? String, pr.method == .unknown ? nil : pr.method.rawValue)
            if pr.response != nil {
                same("\(p).secure_connections", t["secure_connections"] as? Bool, pr.secureConnections)
            }
            same("\(p).result", t["result"] as? String, pr.result.rawValue)
            time("\(p).request_ms", t["request_ms"], ms(pr.request))
            let mitm = t["mitm_requested"] as? [String: Any]
            same("\(p).mitm.initiator", mitm?["initiator"] as? Bool, pr.initiator?.mitm)
            same("\(p).mitm.responder", mitm?["responder"] as? Bool, pr.responder?.mitm)
            if pr.response != nil, let i = pr.initiator, let rf = pr.responder {
                same("\(p).bonding", t["bonding"] as? Bool, i.bonding && rf.bonding)
            }
            if pr.result == .success, let end = pr.encryption {
                time("\(p).duration_ms", t["duration_ms"], ms(end.time.microseconds - pr.request.time.microseconds))
            }
            same("\(p).reason", Self.code(t["reason"]), pr.reason.map(Int.init))
            same("\(p).failed_frame", t["failed_frame"] as? Int, pr.failed?.frame)
            same("\(p).failed_sent_by", t["failed_sent_by"] as? String, pr.failedSentBy?.rawValue)
            same("\(p).encryption_frame", t["encryption_frame"] as? Int, pr.result == .success ? pr.encryption?.frame : nil)
        }
    }

    mutating func compareAdvertising(_ truth: [String: Any]?, _ r: AnalysisResult) {
        guard let truth else {
            if let a = r.advertising, !a.dataCommands.isEmpty || !a.spans.isEmpty {
                problems.append("advertising: truth none, analysis \(a.dataCommands.count) data commands, \(a.spans.count) spans")
            }
            return
        }
        guard let a = r.advertising else {
            problems.append("advertising: missing")
            return
        }
        let commands = truth["data_commands"] as? [[String: Any]] ?? []
        same("advertising data command count", commands.count, a.dataCommands.count)
        for (i, (t, d)) in zip(commands, a.dataCommands).enumerated() {
            let p = "adv.data[\(i)]"
            same("\(p).frame", t["frame"] as? Int, d.at.frame)
            same("\(p).complete_frame", t["complete_frame"] as? Int, d.complete?.frame)
            same("\(p).command", t["command"] as? String, d.command)
            same("\(p).set", t["set"].map { "\($0)" }, d.advertisingHandle.map { "\($0)" } ?? "legacy")
            same("\(p).data", t["data"] as? String, d.kind.rawValue)
            same("\(p).legacy_pdus", t["legacy_pdus"] as? Bool, d.legacyPDUs)
            same("\(p).operation", t["operation"] as? Int, d.operation.map(Int.init))
            same("\(p).length", t["length"] as? Int, d.length)
            same("\(p).fragment_length", t["fragment_length"] as? Int, d.fragmentLength)
            same("\(p).status", Self.code(t["status"]), d.status.map(Int.init))
        }
        let spans = truth["spans"] as? [[String: Any]] ?? []
        same("advertising span count", spans.count, a.spans.count)
        for (i, (t, s)) in zip(spans, a.spans).enumerated() {
            let p = "adv.span[\(i)]"
            same("\(p).set", t["set"].map { "\($0)" }, s.advertisingHandle.map { "\($0)" } ?? "legacy")
            same("\(p).api", t["api"] as? String, s.api.rawValue)
            same("\(p).connectable", t["connectable"] as? Bool, s.connectable)
            time("\(p).interval_ms", t["interval_ms"], ms(s.intervalMicros))
            same("\(p).start_frame", t["start_frame"] as? Int, s.start.frame)
            time("\(p).start_ms", t["start_ms"], ms(s.start))
            time("\(p).stop_ms", t["stop_ms"], ms(s.stop))
            same("\(p).stop_frame", t["stop_frame"] as? Int, s.stop?.frame)
            same("\(p).stopped_by", t["stopped_by"] as? String, s.stoppedBy)
            time("\(p).enabled_ms", (t["enabled_ms"] as? NSNumber)?.doubleValue, ms(s.enabledMicros))
            time("\(p).connected_while_enabled_ms", (t["connected_while_enabled_ms"] as? NSNumber)?.doubleValue, ms(s.connectedWhileEnabledMicros))
        }
        same("adv.supported_states_frame", truth["supported_states_frame"] as? Int, a.supportedStatesFrame)
        same("adv.max_advertising_data_length", truth["max_advertising_data_length"] as? Int, a.maxAdvertisingDataLength)
        same("adv.max_advertising_data_length_frame", truth["max_advertising_data_length_frame"] as? Int, a.maxAdvertisingDataLengthFrame)
    }
}
