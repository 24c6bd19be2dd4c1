import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeAnalysis

/// A connection request to the Filter Accept List names no peer: which devices it could connect
/// to is what the list held when it was sent. Where the capture tells the whole list (from an HCI
/// Reset or LE Clear Filter Accept List on, every LE Add Device To / Remove Device From Filter
/// Accept List followed), a request that did not connect is an earlier failure of the devices on
/// its list only, not of whatever device the next accept-list request connects to. Frames from
/// tshark 4.0.17 (0x2011 add, 0x2012 remove, 0x2043 LE Extended Create Connection, 0x200e cancel).
@Suite struct AcceptListFailureTests {
    static func attempts(_ file: String) throws -> [FrameNumber: ConnectionAttempt]? {
        guard let url = Fixtures.corpus("real/" + file) else { return nil }  // corpus absent: said once by Fixtures
        let analysis = try AnalysisBuilder.analyze(path: url.path)
        return Dictionary(analysis.attempts.map { ($0.request.frame, $0) }, uniquingKeysWith: { a, _ in a })
    }

    static func addresses(_ texts: [String]) -> [BDAddr] { texts.compactMap(BDAddr.init) }

    /// vpuhoff (Android, BK300): Reset 1; 00:00:00:03:87:3b added 148, request 150 cancelled 152;
    /// ce:1b:85:9c:e8:fb added 157, request 161 pending until the cancel 310; the BK300
    /// (b3:00:69:77:51:08) added 313, request 315 connected 317. Requests 150 and 161 were never
    /// the BK300's: its discovery carries no earlier failure (before: 2, 5.68 s).
    @Test func theStacksRequestsForOtherDevicesAreNoFailuresOfTheApps() throws {
        guard let a = try Self.attempts("vpuhoff__bk300-web-bluetooth-monitor__btsnoop_hci.log.last") else { return }
        #expect(a[150]?.acceptListMembers == Self.addresses(["00:00:00:03:87:3b"]))
        #expect(a[161]?.acceptListMembers == Self.addresses(["00:00:00:03:87:3b", "ce:1b:85:9c:e8:fb"]))
        #expect(a[315]?.acceptListMembers == Self.addresses(["00:00:00:03:87:3b", "ce:1b:85:9c:e8:fb", "b3:00:69:77:51:08"]))
        #expect(a[315]?.outcome == .connected)
        #expect(a[315]?.earlierFailures == nil)
    }

    /// soaresden: 80:e1:26:63:63:45 added 685, request 708 cancelled 1108 (16.4 s); the robot
    /// db:b9:43:c6:53:54 connects from request 1403: 708 is no failure of its.
    @Test func aFailureForAnotherDeviceIsNotCarried() throws {
        guard let a = try Self.attempts("soaresden__IX7TrackerPro__btsnoop_hci.log") else { return }
        #expect(a[708]?.acceptListMembers == Self.addresses(["80:e1:26:63:63:45"]))
        #expect(a[1403]?.earlierFailures == nil)
    }

    /// dandwhelan: Reset 1; 0c:7e:24:38:61:9e and b4:c2:6a:06:c1:ac added 277/279 (and kept);
    /// POWER-0084 (dc:1e:d5:e4:07:1e) added 300, removed 319, added 1196, removed 1215, added
    /// 1918; request 1924 (its link failed to be established): a failure of the three devices',
    /// POWER-0084's among them, carried by its next connecting request, 4193.
    @Test func aFailureForTheSameDeviceIsCarried() throws {
        guard let a = try Self.attempts("dandwhelan__fossibot-bluetooth__btsnoop_hci.log") else { return }
        #expect(a[1924]?.acceptListMembers == Self.addresses(["0c:7e:24:38:61:9e", "b4:c2:6a:06:c1:ac", "dc:1e:d5:e4:07:1e"]))
        #expect(a[4193]?.earlierFailures?.count == 1)
        #expect(a[4193]?.earlierFailures?.firstRequest?.frame == 1924)
    }
}
