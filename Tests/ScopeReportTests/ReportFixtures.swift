import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeReport
import ScopeRules
import ScopeTestSupport
import Testing

/// The reporter tests' input: a central's session written as HCI bytes (`SessionScript`) and
/// put through the pipeline every capture takes (`Dissector`, `AnalysisBuilder`, `RuleEngine`).
/// Modelled on the `good_central` scenario's times: an extended scan with duplicates allowed
/// finds a heart-rate strap among a beacon and a scale, the central connects, discovers the
/// strap's GATT database, subscribes to its measurements, pairs (Just Works although both sides
/// could do Numeric Comparison), disconnects with the subscription left on, then advertises.
enum ReportFixtures {
    static let t0: Int64 = 1_741_705_649_175_233

    static let strap = BDAddr("FB:15:C9:74:99:D9") ?? BDAddr(value: 1)
    static let scale = BDAddr("C4:7F:51:0A:22:13") ?? BDAddr(value: 2)
    static let beacon = BDAddr("5D:3A:11:90:BE:02") ?? BDAddr(value: 3)

    /// AD structures (Core Supplement Part A §1): Flags, Complete List of 16-bit Service UUIDs,
    /// Complete Local Name, Manufacturer Specific Data.
    static func flags() -> [UInt8] { [0x02, 0x01, 0x06] }
    static func uuids16(_ uuid: UInt16) -> [UInt8] { [0x03, 0x03, UInt8(uuid & 0xFF), UInt8(uuid >> 8)] }
    static func name(_ text: String) -> [UInt8] { [UInt8(truncatingIfNeeded: text.utf8.count + 1), 0x09] + Array(text.utf8) }
    static func manufacturer(_ company: UInt16, _ data: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: data.count + 3), 0xFF, UInt8(company & 0xFF), UInt8(company >> 8)] + data
    }

    /// The session; `hostile` puts attacker-controlled text where a capture carries it (the strap's
    /// name), cuts three notifications short (as an Android filtered log does) and has the host
    /// set 40 bytes of legacy advertising data, which the controller refuses.
    static func centralScript(strapName: String = "HR Strap 7", hostile: Bool = false) -> SessionScript {
        var s = SessionScript(origin: t0)
        s.at(400)
        s.note("step 1: connect to the strap")
        s.at(401)
        s.extendedScanParameters(active: true, intervalMs: 100, windowMs: 50)
        s.at(402.118)
        s.extendedScanEnable(true, filterDuplicates: false)
        let beaconData = flags() + manufacturer(0x004C, [0x02, 0x15] + [UInt8](repeating: 0xA5, count: 16) + [0x00, 0x01, 0x00, 0x02, 0xC5])
        let strapData = flags() + uuids16(0x180D) + name(strapName)
        let scaleData = flags() + name("Kitchen Scale")
        let plan: [(Double, BDAddr, Int8)] = [
            (420.5, beacon, -88), (431.0, beacon, -90), (455.25, scale, -77), (470.0, beacon, -85), (498.75, beacon, -86),
            (512.0, scale, -80), (530.5, beacon, -89), (560.125, strap, -64), (590.0, beacon, -87), (640.0, strap, -71),
            (671.5, beacon, -90), (701.0, scale, -78),
        ]
        for (ms, peer, rssi) in plan {
            s.at(ms)
            switch peer {
            case beacon: s.extendedAdvertisingReport(beacon, addressType: 0x01, connectable: false, data: beaconData, rssi: rssi)
            case scale: s.extendedAdvertisingReport(scale, addressType: 0x01, data: scaleData, rssi: rssi)
            default: s.extendedAdvertisingReport(strap, addressType: 0x01, legacy: false, data: strapData, rssi: rssi)
            }
        }
        s.at(706.118)
        s.extendedScanEnable(false, filterDuplicates: false)  // answered at 707.118
        s.at(707.556)
        s.createConnection(strap, addressType: 0x01)
        s.at(772.16)
        s.connectionComplete(strap, addressType: 0x01, handle: 0x0001)

        // GATT discovery (Vol 3 Part G §4.4.1, §4.6.1, §4.7.1), the subscription (§4.10) and a read.
        s.at(800)
        s.exchangeMTU(0x0001, client: 247, server: 185)
        s.at(905)
        s.discoverPrimaryServices(0x0001, from: 0x0001)
        s.at(960)
        s.primaryServices(0x0001, [(0x0001, 0x0005, 0x1800), (0x0006, 0x0009, 0x1801), (0x000E, 0x0014, 0x180D)])
        s.at(1010)
        s.discoverPrimaryServices(0x0001, from: 0x0015)
        s.at(1060)
        s.attError(0x0001, request: 0x10, attribute: 0x0015, error: 0x0A)
        s.at(1110)
        s.discoverCharacteristics(0x0001, from: 0x000E, to: 0x0014)
        s.at(1160)
        s.characteristics(0x0001, [(0x0010, 0x10, 0x2A37), (0x0013, 0x02, 0x2A38)])
        s.at(1210)
        s.discoverCharacteristics(0x0001, from: 0x0013, to: 0x0014)
        s.at(1260)
        s.attError(0x0001, request: 0x08, attribute: 0x0013, error: 0x0A)
        s.at(1310)
        s.findInformation(0x0001, from: 0x0011, to: 0x0011, [(0x0011, 0x2902)])
        s.at(1410)
        s.write(0x0001, attribute: 0x0011, [0x01, 0x00])
        s.at(1460)
        s.writeResponse(0x0001)
        s.at(1470)
        s.read(0x0001, attribute: 0x0013)
        s.at(1490)
        s.readResponse(0x0001, [0x01])

        // Heart-rate measurements (Flags, 8-bit value), pairing in between.
        var notified = 0
        func measurement(_ ms: Double, _ bpm: UInt8) {
            s.at(ms)
            s.notification(0x0001, attribute: 0x0010, [0x00, bpm])
            notified += 1
            if hostile && notified <= 3 { s.truncateLast(keeping: 6) }
        }
        measurement(1510, 72)
        s.at(2000)
        s.pairingFeatures(0x0001, response: false, io: 0x04, authReq: 0x09)
        s.at(2080)
        s.pairingFeatures(0x0001, response: true, io: 0x01, authReq: 0x09)
        measurement(2300, 73)
        s.at(2350)
        s.encryptionChange(0x0001)
        for (ms, bpm) in [(2510.0, 74), (3510, 75), (4510, 75), (5510, 76), (6510, 77), (9966.493, 77)] as [(Double, UInt8)] {
            measurement(ms, bpm)
        }
        s.at(10_156.326)
        s.disconnect(0x0001, reason: 0x13)
        s.at(10_166.375)
        s.disconnectionComplete(0x0001, reason: 0x16)

        // Then the central advertises for a while.
        s.at(10_500)
        s.advertisingParameters(connectable: true, intervalMs: 100)
        s.at(10_510)
        if hostile {
            s.advertisingData(flags() + name("Strap Companion") + manufacturer(0x004C, [0x00]), length: 40, status: 0x12)
        } else {
            s.advertisingData(flags() + name("Strap Companion"))
        }
        s.at(10_520)
        s.advertisingEnable(true)
        s.at(12_500)
        s.advertisingEnable(false)
        return s
    }

    static func centralAnalysis(file: String = "good_central.btsnoop", strapName: String = "HR Strap 7", hostile: Bool = false) -> AnalysisResult {
        centralScript(strapName: strapName, hostile: hostile).analysis(file: file)
    }

    static func centralReport() -> Report {
        let analysis = centralAnalysis()
        return Report(analysis: analysis, verdicts: RuleEngine.evaluate(analysis), tool: ToolInfo(version: "0.1.0"),
                      config: ConfigSummary(source: "hciscope.yml", profile: nil, settings: [("scan.left-running.max_s", "30")]))
    }

    /// Strings an attacker controls (device names, file names).
    static let hostile = "<script>alert(\"pwn\")</script> & 'quote' | pipe `tick` *star* ]]> \u{1B}[31mred\u{1B}[0m"

    /// A file name is the attacker's too (and the only hostile text a Markdown report shows: it
    /// lists no device names).
    static let hostileFile = "evil<&>\"'| pipe `tick`.btsnoop"

    static func hostileReport() -> Report {
        let analysis = centralAnalysis(file: hostileFile, strapName: hostile, hostile: true)
        return Report(analysis: analysis, verdicts: RuleEngine.evaluate(analysis), tool: ToolInfo(version: "0.1.0"),
                      config: ConfigSummary(profile: "ios"))
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
