import ScopeAnalysis
import ScopeCore
import ScopeDecode
import Testing

/// Scan sessions on two controllers at once: a device counts once per session, however its
/// reports alternate between the controllers.
@Suite struct ScanSessionCountTests {
    @Test func devicesAreCountedPerSessionWithTwoControllersScanning() {
        var dissector = Dissector()
        var builder = AnalysisBuilder(file: "synthetic", format: .btsnoopMonitor)
        let t0: Int64 = 1_700_000_000_000_000
        var frame: FrameNumber = 0
        func record(_ adapter: AdapterIndex, _ kind: RecordKind, _ direction: Direction, _ payload: [UInt8]) -> CaptureRecord {
            frame += 1
            return CaptureRecord(
                frame: frame, timestamp: Timestamp(microseconds: t0 + Int64(frame) * 1000), adapter: adapter, direction: direction,
                kind: kind, payload: payload)
        }
        // LE Set Scan Enable (enable, no duplicate filter) and its Command Complete.
        let enable: [UInt8] = [0x0C, 0x20, 0x02, 0x01, 0x00]
        let complete: [UInt8] = [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]
        // LE Advertising Report: 1 report, ADV_IND, public address, no data, RSSI -59.
        func report(_ address: UInt64) -> [UInt8] {
            [0x3E, 12, 0x02, 0x01, 0x00, 0x00] + BDAddr(value: address).littleEndianBytes + [0x00, 0xC5]
        }
        var records: [CaptureRecord] = []
        for adapter: AdapterIndex in [0, 1] {
            records.append(record(adapter, .command, .sent, enable))
            records.append(record(adapter, .event, .received, complete))
        }
        for (adapter, address) in [(0, 0xA1), (1, 0xA1), (0, 0xA1), (1, 0xB2), (0, 0xA1), (1, 0xA1)] as [(AdapterIndex, UInt64)] {
            records.append(record(adapter, .event, .received, report(address)))
        }
        for r in records { builder.consume(dissector.decode(r)) }
        let result = builder.finish()
        #expect(result.scans.count == 2)
        #expect(result.scans.map(\.reports) == [3, 3])
        #expect(result.scans.map(\.devicesSeen) == [1, 2])
        #expect(result.scans.map(\.duplicates) == [2, 1])
        #expect(result.devices.count == 2)
    }
}
