import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeAnalysis

/// Android changes its private address every few minutes: the stack disables the scan, sends LE
/// Set Random Address and enables the same scan again, about 10 ms later, with no scan parameters
/// between. Such a start continues the scan before it (`ScanSession.resumesAfterAddressChange`)
/// and is no start of the app's. Frames from tshark 4.0.17 (LE Set Extended Scan Enable 0x2042,
/// LE Set Random Address 0x2005, LE Set Extended Scan Parameters 0x2041).
@Suite struct ScanResumptionTests {
    /// The sessions' starts that resume the session before them, with the address change.
    static func resumptions(_ file: String) throws -> [FrameNumber: ScanResumption]? {
        guard let url = Fixtures.corpus("real/" + file) else { return nil }  // corpus absent: said once by Fixtures
        let analysis = try AnalysisBuilder.analyze(path: url.path)
        var out: [FrameNumber: ScanResumption] = [:]
        for s in analysis.scans { if let r = s.resumesAfterAddressChange { out[s.start.frame] = r } }
        return out
    }

    /// NoahB10: scan disable 2582, LE Set Random Address 2590, scan enable 2592 (14.2 ms): 2592
    /// continues the session of 2326 (parameters 1533/306 set at 2324, so 2326 itself is new).
    @Test func androidAddressRotationResumesTheScan() throws {
        guard let r = try Self.resumptions("NoahB10__MABIP__btsnoop_hci.log") else { return }
        #expect(r == [2592: ScanResumption(continues: 2326, addressChange: 2590)])
    }

    /// cheoljun99 (Samsung, an hour): every 6 min or so the scan is disabled, the address changed
    /// and the scan enabled 7–10 ms later (1658/1660/1665 … 9757/9759/9764). The first such
    /// enable, 574, follows the disable (567) of a scan that ran before the capture began: no
    /// session of the capture's to continue. The scans from 10155 on follow new parameters.
    @Test func everyRotationOfAnHourLongScan() throws {
        guard let r = try Self.resumptions("cheoljun99__bluetooth-pcap-test__bluetooth.pcap") else { return }
        let expected: [FrameNumber: ScanResumption] = [
            1665: ScanResumption(continues: 574, addressChange: 1660), 2632: ScanResumption(continues: 1665, addressChange: 2627),
            3630: ScanResumption(continues: 2632, addressChange: 3625), 4733: ScanResumption(continues: 3630, addressChange: 4728),
            5773: ScanResumption(continues: 4733, addressChange: 5768), 6623: ScanResumption(continues: 5773, addressChange: 6618),
            7588: ScanResumption(continues: 6623, addressChange: 7583), 8651: ScanResumption(continues: 7588, addressChange: 8646),
            9764: ScanResumption(continues: 8651, addressChange: 9759),
        ]
        #expect(r == expected)
    }
}
