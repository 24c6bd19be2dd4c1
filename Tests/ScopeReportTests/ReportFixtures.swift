import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeReport
import ScopeRules
import Testing

/// Hand-built analyses modelled on the `good_central` scenario (same frames and times for the
/// connection) with a duplicate-heavy scan and a pairing added, so every section has content.
enum ReportFixtures {
    static let t0: Int64 = 1_741_705_649_175_233

    static func at(_ frame: FrameNumber, _ ms: Double) -> FrameTime {
        FrameTime(frame: frame, time: Timestamp(microseconds: t0 + Int64((ms * 1000).rounded())))
    }

    static let strap = BDAddr("FB:15:C9:74:99:D9")!
    static let scale = BDAddr("C4:7F:51:0A:22:13")!
    static let beacon = BDAddr("5D:3A:11:90:BE:02")!

    static func centralAnalysis(file: String = "good_central.btsnoop", strapName: String = "HR Strap 7") -> AnalysisResult {
        var cap = CaptureInfo(file: file, format: "btsnoop")
        cap.frames = 96
        cap.firstTimestamp = Timestamp(microseconds: t0)
        cap.lastTimestamp = Timestamp(microseconds: t0 + 12_500_000)
        var a = AnalysisResult(capture: cap)

        var s = ScanSession(adapter: 0, start: at(20, 402.118), end: at(38, 707.118), stillRunningAtEnd: false, api: .extended,
                            active: true, phys: [ScanPHY(phy: "1M", active: true, intervalMicros: 100_000, windowMicros: 50_000)],
                            filterDuplicates: 0)
        s.startComplete = at(21, 402.9)
        s.stop = at(38, 707.118)
        s.stopComplete = at(39, 707.4)
        let reportPlan: [(FrameNumber, Double, BDAddr, Bool)] = [
            (22, 420.5, beacon, false), (23, 431.0, beacon, true), (24, 455.25, scale, false), (25, 470.0, beacon, true),
            (26, 498.75, beacon, true), (27, 512.0, scale, true), (28, 530.5, beacon, true), (29, 560.125, strap, false),
            (30, 590.0, beacon, true), (33, 640.0, strap, true), (35, 671.5, beacon, true), (37, 701.0, scale, true),
        ]
        s.reportLog = reportPlan.map { ScanReportMark(at: at($0.0, $0.1), address: $0.2, duplicate: $0.3) }
        s.reports = reportPlan.count
        s.duplicates = reportPlan.filter(\.3).count
        s.duplicateEventBytes = 372
        s.devicesSeen = 3
        s.firstReport = at(22, 420.5)
        s.lastReport = at(37, 701.0)
        s.firstDuplicate = at(23, 431.0)
        a.scans = [s]

        var d1 = Device(address: strap, addressType: 1, first: at(29, 560.125))
        d1.last = at(33, 640.0)
        d1.reports = 2
        d1.distinctPayloads = 1
        d1.rssiMin = -71
        d1.rssiMax = -64
        d1.name = strapName
        d1.serviceUUIDs = ["180d"]
        d1.connectable = true
        var d2 = Device(address: scale, addressType: 1, first: at(24, 455.25))
        d2.last = at(37, 701.0)
        d2.reports = 3
        d2.distinctPayloads = 1
        d2.rssiMin = -80
        d2.rssiMax = -77
        d2.name = "Kitchen Scale"
        d2.connectable = true
        var d3 = Device(address: beacon, addressType: 1, first: at(22, 420.5))
        d3.last = at(35, 671.5)
        d3.reports = 7
        d3.distinctPayloads = 1
        d3.rssiMin = -90
        d3.rssiMax = -85
        d3.manufacturers = [0x004C]
        a.devices = [d1, d2, d3]

        let id = ConnectionID(adapter: 0, handle: 1, generation: 1)
        var attempt = ConnectionAttempt(adapter: 0, request: at(40, 707.556), api: .legacy, peer: strap, peerAddressType: 1,
                                        filterPolicy: 0)
        attempt.complete = at(42, 772.16)
        attempt.status = 0
        attempt.outcome = .connected
        attempt.connection = id
        // Where the analysis found the strap: its first report in the session, and the session up to the request.
        attempt.peerDiscovery = PeerDiscovery(scanStartFrame: 20, firstReport: at(29, 560.125), scan: DiscoveryScan(s, for: attempt))
        a.attempts = [attempt]

        var c = Connection(id: id, role: .central)
        c.peer = strap
        c.peerAddressType = 1
        c.request = at(40, 707.556)
        c.complete = at(42, 772.16)
        c.intervalMicros = 50_000
        c.peripheralLatency = 0
        c.supervisionTimeoutMicros = 5_000_000
        let attPlan: [(FrameNumber, Double, Direction, UInt8, Int)] = [
            (45, 905.0, .sent, 0x06, 2), (46, 960.0, .received, 0x07, 4), (47, 1010.0, .sent, 0x06, 2),
            (48, 1060.0, .received, 0x01, 0), (49, 1110.0, .sent, 0x08, 2), (50, 1160.0, .received, 0x09, 7),
            (51, 1210.0, .sent, 0x08, 2), (52, 1260.0, .received, 0x01, 0), (53, 1310.0, .sent, 0x04, 0),
            (54, 1360.0, .received, 0x05, 4), (58, 1410.0, .sent, 0x12, 2), (59, 1460.0, .received, 0x13, 0),
            (60, 1510.0, .received, 0x1B, 2), (61, 2510.0, .received, 0x1B, 2), (67, 3510.0, .received, 0x1B, 2),
            (68, 4510.0, .received, 0x1B, 2), (69, 5510.0, .received, 0x1B, 2), (70, 6510.0, .received, 0x1B, 2),
            (71, 9966.493, .received, 0x1B, 2), (64, 2300.0, .received, 0x1B, 2), (72, 10_100.0, .sent, 0x12, 2),
            (73, 10_120.0, .received, 0x13, 0),
        ]
        c.att = attPlan.sorted { $0.0 < $1.0 }.map {
            ATTEvent(at: at($0.0, $0.1), direction: $0.2, opcode: $0.3, handle: 0x0010, valueLength: $0.4, mtu: 23)
        }
        c.firstATT = at(45, 905.0)
        c.discoveryEnd = at(54, 1360.0)
        c.firstData = at(60, 1510.0)
        c.lastPayload = at(71, 9966.493)
        c.disconnectCommand = at(74, 10_156.326)
        c.disconnect = at(76, 10_166.375)
        c.disconnectReason = 0x16
        c.disconnectInitiator = .local
        c.encryptionChanges = [EncryptionChange(at: at(66, 2350.0), status: 0, enabled: 1, isKeyRefresh: false)]
        c.localIsGATTClient = true
        c.gatt.services = [GATTDatabase.Service(start: 0x000E, end: 0x0014, uuid: "180d", name: "Heart Rate", isPrimary: true,
                                                learned: at(46, 960.0))]
        c.gatt.characteristics = [GATTDatabase.Characteristic(declarationHandle: 0x000F, valueHandle: 0x0010, properties: 0x10,
                                                               uuid: "2a37", name: "Heart Rate Measurement", serviceStart: 0x000E,
                                                               learned: at(50, 1160.0))]
        a.connections = [c]

        var p = Pairing(connection: id, request: at(62, 2000.0), initiatedBy: .local)
        p.response = at(63, 2080.0)
        p.initiator = Pairing.Features(ioCapability: 3, oobDataPresent: false, authReq: 0x09, maxKeySize: 16, initiatorKeys: 1,
                                       responderKeys: 1)
        p.responder = Pairing.Features(ioCapability: 3, oobDataPresent: false, authReq: 0x09, maxKeySize: 16, initiatorKeys: 1,
                                       responderKeys: 1)
        p.method = .justWorks
        p.secureConnections = true
        p.result = .success
        p.encryption = at(66, 2350.0)
        a.pairings = [p]
        a.markers = [Marker(at: at(19, 400.0), text: "step 1: connect to the strap")]
        return a
    }

    static let allRules = [
        "adv.payload-budget", "adv.without-need", "att.acknowledged-bulk", "att.small-writes", "conn.attempt-unbounded",
        "conn.idle-before-disconnect", "conn.reconnect-by-scan", "conn.subscriptions-left-on", "gatt.discover-all-characteristics",
        "gatt.discover-all-services", "gatt.polling", "scan.duplicates-allowed", "scan.left-running", "security.insufficient-auth",
        "security.legacy-pairing", "security.pairing-failed", "security.unauthenticated-pairing",
    ]

    static func centralVerdicts() -> [RuleVerdict] {
        let violated: [String: [Finding]] = [
            "scan.duplicates-allowed": [
                Finding(rule: "scan.duplicates-allowed", severity: .warning, subject: "scan session at frame 20",
                        message: "Filter_Duplicates off and 9 of 12 reports (75 %) were duplicates. Usually "
                            + "scanForPeripherals(withServices:options:) with CBCentralManagerScanOptionAllowDuplicatesKey.",
                        evidence: [20, 23, 25, 26], recommendation: "Scan without allowing duplicates unless you track RSSI."),
            ],
            "conn.subscriptions-left-on": [
                Finding(rule: "conn.subscriptions-left-on", severity: .info, subject: "connection hci0 handle 0x0001",
                        message: "The host disconnected while notifications on handle 0x0010 were still enabled (CCCD 0x0011 written at frame 58).",
                        evidence: [58, 74], recommendation: "Call setNotifyValue(false, for:) before cancelPeripheralConnection."),
            ],
            "security.unauthenticated-pairing": [
                Finding(rule: "security.unauthenticated-pairing", severity: .info, subject: "pairing at frame 62",
                        message: "Just Works was used although both sides could have done Passkey Entry.", evidence: [62, 63, 66]),
            ],
        ]
        let notEvaluated: [String: String] = [
            "adv.payload-budget": "no advertising data set by the local host",
            "adv.without-need": "the local host never advertised",
            "att.acknowledged-bulk": "no run of 20 Write Requests to one handle",
            "att.small-writes": "no run of 20 writes to one handle",
            "conn.reconnect-by-scan": "no second connection request to an address already connected",
            "gatt.polling": "no ATT Read Request in this capture",
            "security.insufficient-auth": "no ATT error Insufficient Authentication/Encryption",
        ]
        return allRules.map { rule in
            if let f = violated[rule] { return RuleVerdict(rule: rule, status: .violated, reason: "\(f.count) finding(s)", findings: f) }
            if let why = notEvaluated[rule] { return RuleVerdict(rule: rule, status: .notEvaluated, reason: why) }
            return RuleVerdict(rule: rule, status: .passed, reason: "checked against frames 20-76; nothing to report")
        }
    }

    static func centralReport() -> Report {
        Report(analysis: centralAnalysis(), verdicts: centralVerdicts(), tool: ToolInfo(version: "0.1.0"),
               config: ConfigSummary(source: "hciscope.yml", profile: nil, settings: [("scan.left-running.max_s", "30")]))
    }

    /// Strings an attacker controls (device names, file names) and ones rules may produce.
    static let hostile = "<script>alert(\"pwn\")</script> & 'quote' | pipe `tick` *star* ]]> \u{1B}[31mred\u{1B}[0m"

    static func hostileReport() -> Report {
        var a = centralAnalysis(file: "evil<&>\"'|.btsnoop", strapName: hostile)
        a.capture.health.truncatedACL = 3
        a.capture.health.notes = [.other("note with " + hostile)]
        var v = centralVerdicts()
        v.append(RuleVerdict(rule: "x.hostile", status: .violated, reason: "reason " + hostile, findings: [
            Finding(rule: "x.hostile", severity: .error, subject: "device " + hostile, message: "message " + hostile,
                    evidence: [1, 2, 3, 9], recommendation: "fix " + hostile),
        ]))
        v.append(RuleVerdict(rule: "y.hostile-skip", status: .notEvaluated, reason: "skip " + hostile))
        return Report(analysis: a, verdicts: v, tool: ToolInfo(version: "0.1.0"), config: ConfigSummary(profile: "ios"))
    }
}

/// Compares `text` with `Snapshots/NAME`; `UPDATE_SNAPSHOTS=1` rewrites the file instead.
func assertReportSnapshot(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots/\(name)")
    if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
        Issue.record("snapshot \(name) missing (UPDATE_SNAPSHOTS=1 swift test --filter ScopeReportTests creates it)",
                     sourceLocation: sourceLocation)
        return
    }
    if expected != text {
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let b = text.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDiff = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        Issue.record(
            "snapshot \(name) differs at line \(firstDiff + 1):\n- \(firstDiff < a.count ? a[firstDiff] : "<end>")\n+ \(firstDiff < b.count ? b[firstDiff] : "<end>")\n(UPDATE_SNAPSHOTS=1 swift test regenerates)",
            sourceLocation: sourceLocation)
    }
}
