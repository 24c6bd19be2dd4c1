import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeRules
import ScopeTestSupport
import Testing

/// Every rule has a capture that makes it fire and one where it passes, twice over: in the
/// project's own Bumble-generated captures (`own/…`, captures/scenarios, always present; made by
/// Scripts/gen-scenarios.py, described in captures/scenarios/README.md), and in the real corpus
/// wherever a real capture shows the case (`real/…`, run when HCISCOPE_CORPUS names it).
@Suite("Rule coverage on real and generated captures")
struct RuleCoverageTests {
    struct Case: Sendable, CustomStringConvertible {
        var rule: String
        var capture: String
        var status: RuleStatus
        var description: String { "\(rule) \(status.rawValue) on \(capture)" }

        /// `own/x` is captures/scenarios/x in this repository; anything else is in the corpus.
        var url: URL? {
            if capture.hasPrefix("own/") { return Fixtures.project("scenarios/" + capture.dropFirst(4)) }
            return Fixtures.corpus(capture)
        }
    }

    /// The project's own: every rule violated and passed.
    static let ownCases: [Case] = [
        ("scan.left-running", "scan.left-running-fires", "gatt.polling-fires"),
        ("scan.duplicates-allowed", "scan.duplicates-allowed-fires", "gatt.polling-fires"),
        ("scan.restart-throttled", "scan.restart-throttled-fires", "scan.restart-throttled-passes"),
        ("gatt.discover-all-services", "gatt.discover-all-fires", "gatt.polling-fires"),
        ("gatt.discover-all-characteristics", "gatt.discover-all-fires", "conn.subscriptions-left-on-fires"),
        ("gatt.polling", "gatt.polling-fires", "security.insufficient-auth-passes"),
        ("conn.idle-before-disconnect", "gatt.discover-all-fires", "gatt.polling-fires"),
        ("conn.left-open", "conn.left-open-fires", "conn.left-open-busy"),
        ("conn.link-lost", "conn.link-lost-fires", "gatt.polling-fires"),
        ("conn.subscriptions-left-on", "conn.subscriptions-left-on-bonded-fires", "security.repeated-pairing-passes"),
        ("conn.reconnect-by-scan", "conn.reconnect-by-scan-fires", "conn.reconnect-by-scan-passes"),
        ("conn.attempt-unbounded", "conn.attempt-unbounded-fires", "scan.duplicates-allowed-info"),
        ("adv.payload-budget", "adv.payload-budget-fires", "adv.without-need-passes"),
        ("adv.without-need", "adv.without-need-fires", "adv.without-need-passes"),
        ("security.insufficient-auth", "security.pairing-failed-fires", "security.insufficient-auth-passes"),
        ("security.legacy-pairing", "security.legacy-pairing-fires", "security.insufficient-auth-passes"),
        ("security.unauthenticated-pairing", "security.unauthenticated-pairing-fires", "security.legacy-pairing-fires"),
        ("security.pairing-failed", "security.pairing-failed-fires", "security.insufficient-auth-passes"),
        ("security.repeated-pairing", "security.repeated-pairing-fires", "security.repeated-pairing-passes"),
        ("att.small-writes", "att.small-writes-fires", "att.acknowledged-bulk-fires"),
        ("att.acknowledged-bulk", "att.acknowledged-bulk-fires", "att.small-writes-fires"),
    ].flatMap { rule, fires, passes in
        [Case(rule: rule, capture: "own/\(fires).btsnoop", status: .violated),
         Case(rule: rule, capture: "own/\(passes).btsnoop", status: .passed)]
    }

    /// Real captures wherever one shows the case.
    static let realCases: [Case] = [
        Case(rule: "scan.left-running", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .violated),
        Case(rule: "scan.left-running", capture: "real/danisla__iot-bed__btsnoop_hci.log", status: .passed),
        // yeelock (Android) scans with the filter off only briefly: the stack's setting, counted, not a finding.
        Case(rule: "scan.duplicates-allowed", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        Case(rule: "scan.duplicates-allowed", capture: "real/jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log", status: .violated),
        Case(rule: "scan.duplicates-allowed", capture: "real/TheoLestandi__Projet_RP__ble_capture.snoop", status: .passed),
        Case(rule: "gatt.discover-all-services", capture: "real/danisla__iot-bed__btsnoop_hci.log", status: .violated),
        Case(rule: "gatt.discover-all-services", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        Case(rule: "gatt.discover-all-characteristics", capture: "real/danisla__iot-bed__btsnoop_hci.log", status: .violated),
        Case(rule: "gatt.discover-all-characteristics", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        Case(rule: "gatt.polling", capture: "real/phlash__blefun__btsnoop_hci.log", status: .passed),
        // danisla's link was lost (0x08): a lost link is never "idle before disconnect".
        Case(rule: "conn.idle-before-disconnect", capture: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", status: .violated),
        Case(rule: "conn.idle-before-disconnect", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        // mchwalisz's links are not bonded (a CCCD persists only for bonded peers).
        Case(rule: "conn.subscriptions-left-on", capture: "real/durnerj__PoGo-Plus-BLE__bt_log_plus_pair_2017_12_13.log", status: .violated),
        Case(rule: "conn.reconnect-by-scan", capture: "real/mchwalisz__lightsapp-cli__btsnoop_hci.log", status: .violated),
        Case(rule: "conn.attempt-unbounded", capture: "real/bbmp__AndroidPad__btsnoop_hci.cfa", status: .violated),
        Case(rule: "conn.attempt-unbounded", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        Case(rule: "adv.payload-budget", capture: "real/crossnite__NovaX-Escooter__btsnoop_hci.log", status: .passed),
        Case(rule: "adv.without-need", capture: "real/cheoljun99__bluetooth-pcap-test__bluetooth.pcap", status: .violated),
        Case(rule: "security.insufficient-auth", capture: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", status: .violated),
        // zabbits's SMP runs over BR/EDR (CID 7): not LE pairing. durnerj's peer lacks SC (the peer's finding).
        Case(rule: "security.legacy-pairing", capture: "real/durnerj__PoGo-Plus-BLE__bt_log_plus_pair_2017_12_13.log", status: .violated),
        Case(rule: "security.legacy-pairing", capture: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", status: .passed),
        Case(rule: "security.unauthenticated-pairing", capture: "real/durnerj__PoGo-Plus-BLE__bt_log_plus_pair_2017_12_13.log", status: .passed),
        Case(rule: "security.pairing-failed", capture: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", status: .violated),
        Case(rule: "security.pairing-failed", capture: "real/havvk__even-g2-smart-classroom__bt3.pklg", status: .passed),
        Case(rule: "att.small-writes", capture: "real/bbmp__AndroidPad__btsnoop_hci.cfa", status: .violated),
        Case(rule: "att.small-writes", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        Case(rule: "att.acknowledged-bulk", capture: "real/phlash__blefun__btsnoop_hci.log", status: .violated),
        Case(rule: "att.acknowledged-bulk", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
    ]

    static var cases: [Case] { ownCases + realCases }

    @Test func everyRuleHasBothCasesInTheProjectsOwnCaptures() {
        for id in RuleRegistry.ids {
            #expect(Self.ownCases.contains { $0.rule == id && $0.status == .violated }, "\(id) has no firing capture")
            #expect(Self.ownCases.contains { $0.rule == id && $0.status == .passed }, "\(id) has no passing capture")
        }
    }

    @Test func ownCapturesArePresentAndSmall() throws {
        for c in Self.cases where c.capture.hasPrefix("own/") {
            let url = try #require(c.url)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
            #expect(size > 0 && size < 50_000, "\(url.lastPathComponent): \(size) bytes")
        }
    }

    @Test(arguments: cases)
    func verdict(_ c: Case) throws {
        guard let url = c.url else { return }
        let analysis = try AnalysisBuilder.analyze(path: url.path)
        let verdicts = RuleEngine.evaluate(analysis, config: RuleConfiguration())
        let verdict = try #require(verdicts.first { $0.rule == c.rule })
        #expect(verdict.status == c.status, "\(c): \(verdict.reason)")
        if c.status == .violated {
            #expect(!verdict.findings.isEmpty && verdict.findings.allSatisfy { !$0.evidence.isEmpty })
        }
    }
}
