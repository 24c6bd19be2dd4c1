import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeRules
import ScopeTestSupport
import Testing

/// Every rule has a capture that makes it fire and one where it passes — a real capture from
/// ../shared/captures/real wherever one exists (`real/…`, skipped when that corpus is absent).
/// Where no real capture shows the case, the project's own Bumble-generated capture in
/// captures/scenarios stands in (`own/…`, always present; made by Scripts/gen-scenarios.py,
/// described in captures/scenarios/README.md).
@Suite("Rule coverage on real and generated captures")
struct RuleCoverageTests {
    struct Case: Sendable, CustomStringConvertible {
        var rule: String
        var capture: String
        var status: RuleStatus
        var description: String { "\(rule) \(status.rawValue) on \(capture)" }

        /// `own/x` is captures/scenarios/x in this repository; anything else is in ../shared/captures.
        var url: URL? {
            if capture.hasPrefix("own/") {
                return Fixtures.repositoryRoot.appendingPathComponent("captures/scenarios/" + capture.dropFirst(4))
            }
            return Fixtures.corpus(capture)
        }
    }

    static let cases: [Case] = [
        Case(rule: "scan.left-running", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .violated),
        Case(rule: "scan.left-running", capture: "real/danisla__iot-bed__btsnoop_hci.log", status: .passed),
        Case(rule: "scan.duplicates-allowed", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .violated),
        Case(rule: "scan.duplicates-allowed", capture: "real/TheoLestandi__Projet_RP__ble_capture.snoop", status: .passed),
        Case(rule: "gatt.discover-all-services", capture: "real/danisla__iot-bed__btsnoop_hci.log", status: .violated),
        Case(rule: "gatt.discover-all-services", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        Case(rule: "gatt.discover-all-characteristics", capture: "real/danisla__iot-bed__btsnoop_hci.log", status: .violated),
        Case(rule: "gatt.discover-all-characteristics", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        Case(rule: "gatt.polling", capture: "own/gatt.polling-fires.btsnoop", status: .violated),
        Case(rule: "gatt.polling", capture: "real/phlash__blefun__btsnoop_hci.log", status: .passed),
        Case(rule: "conn.idle-before-disconnect", capture: "real/danisla__iot-bed__btsnoop_hci.log", status: .violated),
        Case(rule: "conn.idle-before-disconnect", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        Case(rule: "conn.subscriptions-left-on", capture: "real/mchwalisz__lightsapp-cli__btsnoop_hci.log", status: .violated),
        Case(rule: "conn.subscriptions-left-on", capture: "own/conn.subscriptions-left-on-passes.btsnoop", status: .passed),
        Case(rule: "conn.reconnect-by-scan", capture: "real/mchwalisz__lightsapp-cli__btsnoop_hci.log", status: .violated),
        Case(rule: "conn.reconnect-by-scan", capture: "own/conn.reconnect-by-scan-passes.btsnoop", status: .passed),
        Case(rule: "conn.attempt-unbounded", capture: "real/bbmp__AndroidPad__btsnoop_hci.cfa", status: .violated),
        Case(rule: "conn.attempt-unbounded", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        Case(rule: "adv.payload-budget", capture: "own/adv.payload-budget-fires.btsnoop", status: .violated),
        Case(rule: "adv.payload-budget", capture: "real/crossnite__NovaX-Escooter__btsnoop_hci.log", status: .passed),
        Case(rule: "adv.without-need", capture: "real/cheoljun99__bluetooth-pcap-test__bluetooth.pcap", status: .violated),
        Case(rule: "adv.without-need", capture: "own/adv.without-need-passes.btsnoop", status: .passed),
        Case(rule: "security.insufficient-auth", capture: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", status: .violated),
        Case(rule: "security.insufficient-auth", capture: "own/security.insufficient-auth-passes.btsnoop", status: .passed),
        Case(rule: "security.legacy-pairing", capture: "real/zabbits__btsnoop__btsnoop_hci.cfa", status: .violated),
        Case(rule: "security.legacy-pairing", capture: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", status: .passed),
        Case(rule: "security.unauthenticated-pairing", capture: "own/security.unauthenticated-pairing-fires.btsnoop", status: .violated),
        Case(rule: "security.unauthenticated-pairing", capture: "real/zabbits__btsnoop__btsnoop_hci.cfa", status: .passed),
        Case(rule: "security.pairing-failed", capture: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", status: .violated),
        Case(rule: "security.pairing-failed", capture: "real/havvk__even-g2-smart-classroom__bt3.pklg", status: .passed),
        Case(rule: "att.small-writes", capture: "real/bbmp__AndroidPad__btsnoop_hci.cfa", status: .violated),
        Case(rule: "att.small-writes", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
        Case(rule: "att.acknowledged-bulk", capture: "real/phlash__blefun__btsnoop_hci.log", status: .violated),
        Case(rule: "att.acknowledged-bulk", capture: "real/cnrd__yeelock__btsnoop_hci.log", status: .passed),
    ]

    @Test func everyRuleHasBothCases() {
        for id in RuleRegistry.ids {
            #expect(Self.cases.contains { $0.rule == id && $0.status == .violated }, "\(id) has no firing capture")
            #expect(Self.cases.contains { $0.rule == id && $0.status == .passed }, "\(id) has no passing capture")
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
