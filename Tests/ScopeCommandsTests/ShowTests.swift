import Foundation
import ScopeCommands
import ScopeTestSupport
import Testing

@Suite("hciscope show")
struct ShowTests {
    @Test func textOutputOfTheShippedSample() throws {
        let r = try show([shippedSample])
        #expect(r.status == 0)
        #expect(r.err.isEmpty)
        try assertSnapshot(r.out, named: "show-btvirt.txt")
        #expect(r.out.split(separator: "\n").count == 400)
    }

    @Test func verboseOutputOfThePairing() throws {
        // Frames 284–330 of the sample: extended create connection, SMP pairing, encryption.
        let r = try show(["-v", "--frames", "284-330", shippedSample])
        #expect(r.status == 0)
        try assertSnapshot(r.out, named: "show-btvirt-pairing-verbose.txt")
        #expect(r.out.contains("SMP: Pairing Request"))
        #expect(r.out.contains("IO Capability"))
    }

    @Test func jsonKeysFollowTheDocumentedSchema() throws {
        let r = try show(["--json", shippedSample])
        #expect(r.status == 0)
        let lines = try jsonLines(r.out)
        #expect(lines.count == 400)
        for (i, line) in lines.enumerated() {
            #expect(line["frame"] as? Int == i + 1)
            #expect(line["ts_us"] is Int)
            #expect(line["adapter"] is Int)
            #expect(line.keys.contains("dir"))
            #expect(line["kind"] is String)
        }
        // Frame 3: = New Index (hci0); frame 5: < Reset; frame 9: Command Complete (Reset).
        #expect(lines[2]["kind"] as? String == "new_index")
        #expect(lines[2]["dir"] is NSNull)
        #expect(lines[4]["kind"] as? String == "command")
        #expect(lines[4]["opcode"] as? Int == 0x0C03)
        #expect(lines[4]["dir"] as? String == "sent")
        #expect(lines[8]["event"] as? Int == 0x0E)
        #expect(lines[8]["opcode"] as? Int == 0x0C03)
        #expect(lines[8]["command_frame"] as? Int == 5)
        // Frame 281: LE Extended Advertising Report from 00:aa:01:00:00:00 with company 0x05F1.
        let report = try #require((lines[280]["reports"] as? [[String: Any]])?.first)
        #expect(lines[280]["subevent"] as? Int == 0x0D)
        #expect(report["address"] as? String == "00:aa:01:00:00:00")
        #expect(report["event_type"] as? Int == 0x13)
        let ad = try #require(report["ad"] as? [[String: Any]])
        #expect(ad.map { $0["type"] as? Int } == [0x01, 0xFF])
        #expect((ad[1]["value"] as? String)?.contains("Linux Foundation") == true)
        // Frame 296: SMP Pairing Request sent on handle 0x002a (42).
        #expect(lines[295]["handle"] as? Int == 42)
        #expect(lines[295]["l2cap_cid"] as? Int == 6)
        #expect((lines[295]["smp"] as? [String: Any])?["code"] as? Int == 1)
    }

    @Test func attKeysOnARealGATTSession() throws {
        // The project's own Bumble session: discovery, six reads, disconnect.
        let path = Fixtures.project("scenarios/gatt.polling-fires.btsnoop")
        let lines = try jsonLines(try show(["--json", "--layer", "att", path.path]).out)
        #expect(!lines.isEmpty)
        for line in lines {
            let att = try #require(line["att"] as? [String: Any])
            #expect(att["opcode"] is Int)
            #expect(line["l2cap_cid"] as? Int == 4)
        }
    }

    @Test func filters() throws {
        let frames = try show(["--frames", "5-10", shippedSample]).out.split(separator: "\n")
        #expect(frames.count == 6)
        #expect(frames.first?.hasPrefix("      5 ") == true)
        let smp = try show(["--layer", "smp", shippedSample]).out.split(separator: "\n")
        #expect(!smp.isEmpty && smp.allSatisfy { $0.contains("SMP:") })
        let hci1 = try show(["--adapter", "1", shippedSample]).out.split(separator: "\n")
        #expect(!hci1.isEmpty && hci1.allSatisfy { $0.contains(" hci1 ") })
        let handle = try show(["--handle", "0x2a", "--adapter", "0", shippedSample]).out.split(separator: "\n")
        // Frame 326 (Command Complete of LE Long Term Key Request Reply) names the handle in its return parameters.
        #expect(!handle.isEmpty && handle.allSatisfy { $0.contains("0x002a") || $0.contains("Long Term Key Request Reply") })
        let address = try show(["--address", "00:AA:01:00:00:00", shippedSample]).out
        #expect(address.contains("LE Extended Advertising Report"))
        #expect(address.contains("LE Extended Create Connection"))
        let adv = try show(["--layer", "adv", shippedSample]).out.split(separator: "\n")
        #expect(adv.allSatisfy { $0.contains("Advertising") || $0.contains("Scan") })
        #expect(throws: (any Error).self) { _ = try Show.parse(["--frames", "9-3", shippedSample]) }
        #expect(throws: (any Error).self) { _ = try Show.parse(["--address", "nope", shippedSample]) }
    }

    @Test func exitStatusFollowsWhatCouldBeRead() throws {
        let missing = try show(["/nonexistent/file.btsnoop"])
        #expect(missing.status == 2)
        #expect(missing.err.contains("/nonexistent/file.btsnoop"))
        let readme = try show([Fixtures.repositoryRoot.appendingPathComponent("README.md").path])
        #expect(readme.status == 2)
    }
}

@Suite("hciscope show on broken files")
struct ShowBadInputTests {
    static let cases: [(String, Int32)] = [
        ("bad/wrong-magic.btsnoop", 2), ("bad/truncated-file-header.btsnoop", 2), ("bad/truncated-file-header.pcap", 2),
        ("bad/link-type-272.pcap", 2), ("bad/link-type-256.pcapng", 2),
        ("bad/truncated-last-record.btsnoop", 1), ("bad/truncated-last-record.pcap", 1), ("bad/truncated-last-record.pklg", 1),
        ("bad/oversized-length.btsnoop", 1), ("bad/garbage-between-records.btsnoop", 1),
        ("bad/backwards-timestamp.btsnoop", 0), ("bad/implausible-year.btsnoop", 0),
    ]

    @Test(arguments: cases)
    func statusAndMessage(_ fixture: String, _ expected: Int32) throws {
        let path = Fixtures.url(fixture).path
        let r = try show([path])
        #expect(r.status == expected, "\(fixture): \(r.err)")
        if expected != 0 {
            #expect(r.err.contains(path), "the message names the file")
        }
        if expected == 1 {
            #expect(r.err.contains("offset"), "the message names the offset")
            #expect(!r.out.isEmpty, "records before the problem are still shown")
        }
        if fixture.contains("link-type-272") {
            #expect(r.err.contains("272"))
        }
    }
}
