import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeRules

@Suite struct ConfigurationTests {
    @Test func defaultsMatchRULES() {
        let c = RuleConfiguration()
        #expect(c.profile == nil)
        #expect(c.threshold(rule: "scan.left-running", key: "without_connection_request_s") == .number(30))
        #expect(c.threshold(rule: "gatt.polling", key: "max_median_gap_s") == .number(2))
        #expect(c.threshold(rule: "conn.idle-before-disconnect", key: "supervision_timeout_reason") == .text("0x08"))
        #expect(RuleRegistry.all.count == 21)
        #expect(Set(RuleRegistry.ids).count == 21)
    }

    /// Every rule of the registry is a fold (`ItemRule`), listed once, in `all`'s order.
    @Test func everyRuleIsAFold() {
        #expect(RuleRegistry.folds.map { $0.id } == RuleRegistry.ids)
        #expect(RuleRegistry.folds.count == 21)
    }

    @Test func loadsGoodFile() throws {
        let yaml = """
            # hciscope.yml
            profile: ios
            sensitive_characteristics: [2A37, 0000fff1-0000-1000-8000-00805f9b34fb]
            rules:
              scan.duplicates-allowed:
                enabled: false
              gatt.polling:
                severity: error
                min_reads: 10
            thresholds:
              conn.idle-before-disconnect:
                idle_s: 2.5
            """
        let c = try RuleConfiguration.load(yaml: yaml, file: "hciscope.yml")
        #expect(c.profile == .ios)
        #expect(!c.isEnabled("scan.duplicates-allowed"))
        #expect(c.severityOverrides["gatt.polling"] == .error)
        #expect(c.threshold(rule: "gatt.polling", key: "min_reads") == .number(10))
        #expect(c.threshold(rule: "conn.idle-before-disconnect", key: "idle_s") == .number(2.5))
        #expect(c.isSensitive(uuid: "2a37"))
        let verdicts = RuleEngine.evaluate(SessionScript().analysis(), config: c)
        #expect(verdicts.count == 21)
        #expect(verdicts.first { $0.rule == "scan.duplicates-allowed" }?.reason == "disabled in the configuration")
    }

    @Test func emptyFileIsDefault() throws {
        #expect(try RuleConfiguration.load(yaml: "", file: "x.yml") == RuleConfiguration())
        #expect(try RuleConfiguration.load(yaml: "# nothing\n", file: "x.yml") == RuleConfiguration())
    }

    @Test(arguments: [
        ("profile: ios\ntreshold: 3\n", 2, "unknown key 'treshold'"),
        ("rules:\n  scan.left-runing:\n    enabled: false\n", 2, "unknown key 'scan.left-runing'"),
        ("rules:\n  gatt.polling:\n    min_read: 3\n", 3, "unknown key 'min_read'"),
        ("thresholds:\n  gatt.polling:\n    max_median_gap: 3\n", 3, "unknown key 'max_median_gap'"),
    ])
    func unknownKeysNameKeyAndLine(yaml: String, line: Int, text: String) {
        #expect {
            _ = try RuleConfiguration.load(yaml: yaml, file: "hciscope.yml")
        } throws: { error in
            guard let e = error as? ConfigurationError else { return false }
            return e.line == line && e.message.contains(text) && e.description.hasPrefix("hciscope.yml:\(line):")
        }
    }

    @Test(arguments: [
        ("profile: android\n", 1),
        ("rules:\n  gatt.polling:\n    severity: fatal\n", 3),
        ("rules:\n  gatt.polling:\n    enabled: maybe\n", 3),
        ("rules:\n  gatt.polling:\n    min_reads: many\n", 3),
        ("rules:\n  gatt.polling:\n    min_reads: [1, 2]\n", 3),
        ("sensitive_characteristics:\n  a: b\n", 2),
        ("rules: 3\n", 1),
    ])
    func badValueTypes(yaml: String, line: Int) {
        #expect {
            _ = try RuleConfiguration.load(yaml: yaml, file: "hciscope.yml")
        } throws: { error in
            (error as? ConfigurationError)?.line == line
        }
    }

    @Test func severityOverrideRewritesFindings() {
        var s = SessionScript()
        s.at(100)
        s.scanEnable(true)
        s.at(40_000)
        s.advertisingReport(peerA)
        let r = s.analysis()
        var c = RuleConfiguration()
        c.severityOverrides["scan.left-running"] = .error
        let v = RuleEngine.evaluate(r, config: c).first { $0.rule == "scan.left-running" }
        #expect(v?.findings.first?.severity == .error)
    }

    /// `limits:` (issue 29): every key sets its bound, and values out of range or unknown keys
    /// are errors naming the line.
    @Test func limitsAreRead() throws {
        let c = try RuleConfiguration.load(yaml: """
            limits:
              open_members: 8
              spool_mb: 64
              zstd_window_log: 20
              xz_memory_mb: 16
              decoder_memory_mb: 32
              text_scan_mb: 4
              btsnooz_summary_mb: 2
              archive_members: 500
              advertisers_held: 1000
              markers: 10
              marker_bytes: 64
            """, file: "l.yml")
        #expect(c.limits.capture.openMembers == 8)
        #expect(c.limits.capture.spoolBytes == 64 << 20)
        #expect(c.limits.capture.zstdWindowLog == 20)
        #expect(c.limits.capture.xzMemoryBytes == 16 << 20)
        #expect(c.limits.capture.decoderMemoryBytes == 32 << 20)
        #expect(c.limits.capture.textScanBytes == 4 << 20)
        #expect(c.limits.capture.btsnoozSummaryBytes == 2 << 20)
        #expect(c.limits.capture.archiveMembers == 500)
        let policy = c.limits.applied(to: .init())
        #expect(policy.heldDevices == 1000 && policy.markers == 10 && policy.markerBytes == 64)
        #expect(RuleConfiguration().limits.readerOptions.limits == .init())
        for (yaml, says) in [("limits:\n  open_members: 1\n", "l.yml:2:17: limits.open_members must be a whole number from 2 to 4096"),
                             ("limits:\n  spool: 3\n", "l.yml:2:3: unknown key 'spool' in limits"),
                             ("limits:\n  zstd_window_log: 40\n", "limits.zstd_window_log must be a whole number from 10 to 31")] {
            #expect {
                _ = try RuleConfiguration.load(yaml: yaml, file: "l.yml")
            } throws: { "\($0)".contains(says) }
        }
    }
}
