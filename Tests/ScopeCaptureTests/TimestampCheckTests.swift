import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

@Suite struct TimestampCheckTests {
    /// A file dated up to 378 days after the reference time is flagged with the epoch skew.
    @Test func futureTimestampsNameTheEpochSkew() throws {
        let path = Fixtures.url("btsnoop/h4.btsnoop").path
        // 2025-01-01 00:00:00 UTC; the fixture is from 2025-03-11.
        let options = CaptureReader.Options(referenceTime: Timestamp(microseconds: 1_735_689_600_000_000))
        var reader = try CaptureReader.open(path: path, options: options)
        while reader.next() != nil {}
        #expect(reader.diagnostics.map { String($0.description.dropFirst(path.count)) } == [
            ": frame 1, offset 16 (0x10): warning: timestamp 2025-03-11 09:02:17.418233 UTC is later than the reference time "
                + "2025-01-01 00:00:00.000000 UTC; shifted by 378 days (32,659,200 s) it would be plausible: a writer counting "
                + "btsnoop time from 0001-01-01 is off by exactly that (FORMATS.md §1)",
            ": warning: 24 records have timestamps after the reference time",
        ])
        // The hint fits, so the first is an epoch skew (what the analysis acts on), the count not.
        #expect(reader.diagnostics.map(\.code) == [.epochSkew, .futureTimestamp])
        // With "now" as reference nothing is said.
        var calm = try CaptureReader.open(path: path, options: .init(referenceTime: Timestamp(microseconds: 1_795_000_000_000_000)))
        while calm.next() != nil {}
        #expect(calm.diagnostics.isEmpty)
    }

    /// A ±378-day jump is coded `.epochSkew`: the analysis reads the code, not "378 days".
    @Test func theEpochSkewJumpIsCoded() throws {
        var reader = try CaptureReader.open(path: Fixtures.url("bad/epoch-skew.btsnoop").path)
        while reader.next() != nil {}
        #expect(reader.diagnostics.map(\.code) == [.epochSkew])
        #expect(reader.diagnostics.first?.frame == 4)
    }

    /// mauricelam btsnoop_btmon.log (btmon, 2001) has 32 small backward steps from one record to
    /// the next, but only 2 within one controller index (frames 142 and later; counted with a
    /// Python loop over the record headers): the monitor interleaves controllers and the global
    /// index 0xFFFF, whose records are stamped independently, so order is checked per index.
    @Test func backwardStepsAreReportedUpToALimitThenCounted() throws {
        guard let url = Fixtures.corpus("real/mauricelam__btsnoop-rs__btsnoop_btmon.log"),
              FileManager.default.fileExists(atPath: url.path) else { return }
        var reader = try CaptureReader.open(path: url.path, options: .init(backwardStepsReported: 1))
        while reader.next() != nil {}
        let messages = reader.diagnostics.map(\.message)
        #expect(messages.count == 2)
        #expect(reader.diagnostics.first?.frame == 142)
        #expect(messages.last == "timestamps go backwards 2 times in all (1 reported individually)")
        #expect(reader.diagnostics.map(\.code) == [.timestampBackwards, .timestampBackwards])
        #expect(reader.summary.warnings == 2)
        #expect(reader.summary.exitClass == .ok)
    }

    @Test func diagnosticsBeyondTheLimitAreCountedNotKept() throws {
        guard let url = Fixtures.corpus("real/mauricelam__btsnoop-rs__btsnoop_btmon.log"),
              FileManager.default.fileExists(atPath: url.path) else { return }
        var reader = try CaptureReader.open(path: url.path, options: .init(diagnosticLimit: 1))
        while reader.next() != nil {}
        #expect(reader.diagnostics.count == 1)
        let drained = reader.drainDiagnostics()
        #expect(drained.count == 2)
        #expect(drained.last?.message.hasSuffix("not kept (limit 1)") == true)
        #expect(reader.drainDiagnostics().isEmpty)
        #expect(reader.summary.warnings == 2)  // both backward steps
    }
}
