import Foundation
import ScopeAnalysis
import ScopeRules
import ScopeTestSupport
import Testing

/// What the rules attribute to the platform's own stack, and whose API their advice speaks, on
/// real captures.
@Suite struct PlatformAttributionTests {
    func verdict(_ file: String, _ rule: String, platform: Platform? = nil) throws -> RuleVerdict? {
        guard let url = Fixtures.corpus("real/" + file) else { return nil }
        var config = RuleConfiguration()
        config.platform = platform
        return try RuleEngine.analyze(path: url.path, config: config).verdicts.first { $0.rule == rule }
    }

    /// Android (vendor commands): the stack's short scans with the duplicate filter off are
    /// counted as its own; the one scan the app left on 895 s is judged on its length.
    @Test func androidDuplicateFilterIsTheStacks() throws {
        guard let v = try verdict("cnrd__yeelock__btsnoop_hci.log", "scan.duplicates-allowed") else { return }
        #expect(v.platformShare?.platform == .android)
        #expect(v.platformShare?.count == 8)
        #expect(v.findings.isEmpty)
        let left = try #require(try verdict("cnrd__yeelock__btsnoop_hci.log", "scan.left-running"))
        // The app's (and unknown) findings speak Android's API; the stack's own scans say they are
        // the system's, with nothing to change in the app.
        #expect(left.findings.allSatisfy { $0.platform == .android })
        #expect(left.findings.filter { $0.actor != .os }.allSatisfy { $0.message.contains("BluetoothLeScanner") })
        let os = left.findings.filter { $0.actor == .os }
        #expect(os.allSatisfy { $0.message.contains("The system's own Bluetooth activity on Android, not the app's") })
        #expect(os.allSatisfy { $0.recommendation?.hasPrefix("Nothing to change in the app") == true })
    }

    /// Android, 20-byte Write Commands to 0x002F after the peer's Exchange MTU Request raised
    /// the ATT_MTU to 247 (frames 473, 477; writes 639–6705, tshark): the advice does not blame a
    /// missing `requestMtu()` but the chunk size. Without an exchange (yeelock's writes are
    /// whole commands and pass; the scripted case has none) the documented advice stands.
    @Test func smallWritesAfterAnExchangeBlameTheChunkSize() throws {
        guard let v = try verdict("wangdalian__btsnooper__btsnoop_hci.log", "att.small-writes") else { return }
        let f = try #require(v.findings.first { $0.subject.hasSuffix("handle 0x002f") })
        #expect(f.platform == .android)
        #expect(f.message.contains("raised the ATT_MTU to 247"))
        #expect(!f.message.contains("No `requestMtu()`"))
        #expect(f.message.contains("chunks sized for the default ATT_MTU"))
        #expect(f.recommendation?.hasPrefix("Write chunks of `mtu - 3` bytes") == true)
    }

    /// The phone answered a car key's Security Request (frame 13107) with Pairing Failed, Pairing
    /// Not Supported, 0.539 ms later (frame 13108, tshark): its stack refused, no user was asked,
    /// and the finding says so instead of blaming a declined prompt or a mistyped passkey. A
    /// pairing that failed later keeps the usual cause (Syed-Bipul-Rahman's).
    @Test func aSecurityRequestRefusedAtOnceIsTheStacksAnswer() throws {
        guard let v = try verdict("bbmp__AndroidPad__btsnoop_hci.cfa", "security.pairing-failed") else { return }
        let f = try #require(v.findings.first { $0.subject == "pairing at frame 13107" })
        #expect(f.evidence == [13107, 13108])
        #expect(f.message.contains("Security Request (frame 13107) 0.539 ms after it, before any Pairing Request"))
        #expect(f.message.contains("refused the peripheral's request to pair at once"))
        #expect(!f.message.contains("mistyped"))
        #expect(f.recommendation?.contains("createBond()") == true)
        let other = try #require(try verdict("Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", "security.pairing-failed"))
        #expect(!other.findings.isEmpty)
        #expect(other.findings.allSatisfy { !$0.message.contains("refused the peripheral's request to pair at once") })
    }

    /// Links LE rules do not judge are named for what they are: BR/EDR (ethermind's five, each a
    /// Connection Complete, tshark), or links whose setup is not captured and whose transport
    /// nothing shows (TheoLestandi's handle 0x0001: ACL with no connection event).
    @Test func linksNotJudgedByLERulesAreNamed() throws {
        if let v = try verdict("manojshakti77__bluetooth__btsnoop_hci-ethermind.log", "conn.subscriptions-left-on") {
            #expect(v.reason == "no LE connection in this capture (BR/EDR links are not judged by LE rules)")
        }
        if let v = try verdict("TheoLestandi__Projet_RP__capture.snoop", "conn.subscriptions-left-on") {
            #expect(v.reason.contains("1 link(s) whose setup is not captured and whose transport nothing shows"))
            #expect(!v.reason.contains("BR/EDR"))
        }
    }

    /// The peer's findings keep the rule's own words, not the local platform's API: on the iPhone's
    /// capture, the bike discovering the phone's server (frame 46328, Read By Type for
    /// characteristics received from the remote client, tshark) is not `discoverCharacteristics`.
    @Test func thePeersFindingsAreNotSpokenInTheLocalAPI() throws {
        guard let v = try verdict("cagnulein__Bafang-RideSync__bluetoothd-hci-latest.pklg", "gatt.discover-all-characteristics") else { return }
        let peer = v.findings.filter { $0.actor == .peer }
        #expect(!peer.isEmpty)
        #expect(peer.allSatisfy { !$0.message.contains("Usual cause on iOS") && $0.message.contains("The peer (remote GATT client)") })
        #expect(peer.allSatisfy { $0.recommendation?.contains("Other stacks") != true })
    }

    /// No platform named (an Android log with no marker): every session with the filter off that
    /// delivered a report is judged as before, advice for every platform (iOS first). The scan of
    /// frames 3–5 delivered none ("0 of 0 reports are duplicates" was a finding): not judged.
    @Test func unknownPlatformKeepsEveryFinding() throws {
        guard let v = try verdict("danisla__iot-bed__btsnoop_hci.log", "scan.duplicates-allowed") else { return }
        #expect(v.platformShare == nil)
        #expect(v.findings.count == 1)
        #expect(v.findings.first?.subject == "scan session at frame 11")
        #expect(v.findings.allSatisfy { $0.platform == nil && $0.message.contains("CBCentralManagerScanOptionAllowDuplicatesKey") })
    }

    /// An accept-list connection request left pending (frame-level: no peer in the request): on
    /// Android the app's autoConnect, graded info (this log is only suggestively Android, so the
    /// actor stays unknown, still judged); chosen as iOS, bluetoothd's background
    /// reconnection: a finding of the system's (JSON lists it; the report for people sums it).
    @Test func acceptListConnectIsAttributed() throws {
        guard let android = try verdict("bbmp__AndroidPad__btsnoop_hci.cfa", "conn.attempt-unbounded") else { return }
        #expect(android.findings.count == 1)
        #expect(android.findings.allSatisfy { $0.severity == .info && $0.platform == .android && $0.actor == .unknown })
        #expect(android.totalJudged == 1)
        let ios = try #require(try verdict("bbmp__AndroidPad__btsnoop_hci.cfa", "conn.attempt-unbounded", platform: .ios))
        #expect(ios.findings.count == 1)
        #expect(ios.findings.allSatisfy { $0.actor == .os && $0.attribution?.signal == .requestAcceptList })
        #expect(ios.totalJudged == 0)
    }

    /// An Android stack's scans started right after HCI Reset, and those with its parameters, are
    /// the system's: no scan finding blames the app for them (pongbot: reset at frame 1, the
    /// stack's 1168/292-slot scan enabled at frame 147; the 100 %-duty 4800/4800 moment at 141 is
    /// not taken for a profile of the stack's).
    @Test func androidBootScansAreTheSystems() throws {
        guard let url = Fixtures.corpus("real/whoisbe__pongbot-mcp__btsnoop_hci.log.last") else { return }
        let (analysis, verdicts) = try RuleEngine.analyze(path: url.path)
        let full = try #require(analysis.scans.first { $0.start.frame == 141 })
        #expect(full.attribution.signal == .scanNearReset)
        let boot = try #require(analysis.scans.first { $0.start.frame == 147 })
        #expect(boot.attribution.signal == .scanAfterReset)
        #expect(analysis.actor(boot.attribution) == .os)
        let profile = analysis.scans.filter { $0.attribution.signal == .scanStackProfile }
        #expect(!profile.isEmpty)
        for v in verdicts where v.rule.hasPrefix("scan.") {
            let blamed = v.findings.filter { $0.actor.judgedAsApp && $0.evidence.contains(147) }
            #expect(blamed.isEmpty, "\(v.rule): \(blamed.map(\.message))")
        }
    }
}
