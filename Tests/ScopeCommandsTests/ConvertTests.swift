import Foundation
import ScopeCapture
import ScopeCommands
import ScopeCore
import ScopeTestSupport
import Testing

@Suite("hciscope convert")
struct ConvertTests {
    func records(_ path: String) throws -> [CaptureRecord] {
        var reader = try CaptureReader.open(path: path)
        var out: [CaptureRecord] = []
        while let r = reader.next() { out.append(r) }
        return out
    }

    func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hciscope-convert-\(UUID().uuidString)-\(name)").path
    }

    @Test func monitorCaptureToPcapAndBack() throws {
        let pcap = temporary("sample.pcap")
        defer { try? FileManager.default.removeItem(atPath: pcap) }
        let r = try convert([shippedSample, pcap])
        #expect(r.status == 0)
        #expect(r.err.contains("pcap-254"))
        #expect(try records(pcap) == records(shippedSample))
        let attributes = try FileManager.default.attributesOfItem(atPath: pcap)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func monitorRecordsThatH4CannotHoldAreReported() throws {
        let out = temporary("sample.log")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try convert(["--format", "btsnoop-1002", shippedSample, out])
        #expect(r.status == 0)
        #expect(r.err.contains("skipped"))
        let hci = try records(shippedSample).filter(\.kind.isHCI)
        let back = try records(out)
        #expect(back.count == hci.count)
        #expect(zip(back, hci).allSatisfy { $0.payload == $1.payload && $0.kind == $1.kind && $0.timestamp == $1.timestamp })
    }

    @Test func unknownExtensionNeedsFormat() throws {
        #expect(throws: (any Error).self) { _ = try convert([shippedSample, temporary("x.unknown")]) }
    }
}
