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
        #expect(left.findings.allSatisfy { $0.platform == .android && $0.message.contains("BluetoothLeScanner") })
    }

    /// No platform named (an Android log with no marker): every session with the filter off is
    /// judged as before, advice for every platform (iOS first).
    @Test func unknownPlatformKeepsEveryFinding() throws {
        guard let v = try verdict("danisla__iot-bed__btsnoop_hci.log", "scan.duplicates-allowed") else { return }
        #expect(v.platformShare == nil)
        #expect(v.findings.count == 2)
        #expect(v.findings.allSatisfy { $0.platform == nil && $0.message.contains("CBCentralManagerScanOptionAllowDuplicatesKey") })
    }

    /// An accept-list connection request left pending (frame-level: no peer in the request):
    /// on Android (likely) the app's autoConnect, graded info; chosen as iOS, bluetoothd's
    /// background reconnection, counted and not a finding.
    @Test func acceptListConnectIsAttributed() throws {
        guard let android = try verdict("bbmp__AndroidPad__btsnoop_hci.cfa", "conn.attempt-unbounded") else { return }
        #expect(android.findings.count == 1)
        #expect(android.findings.allSatisfy { $0.severity == .info && $0.platform == .android })
        let ios = try #require(try verdict("bbmp__AndroidPad__btsnoop_hci.cfa", "conn.attempt-unbounded", platform: .ios))
        #expect(ios.findings.isEmpty)
        #expect(ios.platformShare?.platform == .ios)
        #expect(ios.platformShare?.count == 1)
    }
}
