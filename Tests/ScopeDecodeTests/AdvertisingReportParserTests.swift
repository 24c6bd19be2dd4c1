import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// Advertising reports, the commonest event, are read by one parser per report layout
/// (`AdvertisingReport.parseLegacy`, `parseDirected`, `parseExtended`), behind every path: the
/// event's one report read in place for the scan analysis, the report built for `show`, an
/// event's reports decoded one by one. The parser follows the declaration of the three layouts
/// (the `Report` arrays of LE subevents 0x02, 0x0B, 0x0D in HCIEvent+Table.swift, which the
/// generic layout interpreter prints from); these tests hold it to that declaration on every report
/// of every capture, and fail if a second decoder of reports appears. (`Scripts/conformance.py`
/// compares each report's address, address type, event type and RSSI with tshark's.)
@Suite("Advertising report parser")
struct AdvertisingReportParserTests {
    static let kinds: [(AdvertisingReport.Kind, LESubevent)] = [
        (.legacy, .advertisingReport), (.directed, .directedAdvertisingReport), (.extended, .extendedAdvertisingReport),
    ]

    /// The report element of a subevent's layout row.
    static func element(_ subevent: LESubevent) -> [ParamField]? {
        for field in HCIEvent.leLayouts[subevent.rawValue]?.parameters ?? [] {
            if case .array("Report", _, let element) = field { return element }
        }
        return nil
    }

    /// The parser's fixed fields are the layout row's fields before Data (and, for legacy
    /// reports, RSSI after it), with the same names and sizes.
    @Test(arguments: [0, 1, 2])
    func fixedFieldsFollowTheLayoutRow(_ index: Int) throws {
        let (kind, subevent) = Self.kinds[index]
        let element = try #require(Self.element(subevent))
        let fixed = element.prefix { $0.fixedSize != nil }.map { ($0.name, $0.fixedSize ?? 0) }
        let parser = AdvertisingReport.Kind.fixedFields(kind)
        #expect(fixed.map(\.0) == parser.map(\.name))
        #expect(fixed.map(\.1) == parser.map(\.size))
        #expect(kind.fixedSize == parser.map(\.size).reduce(0, +))
        switch kind {
        case .legacy:
            #expect(element.count == fixed.count + 2)
            if case .data("Data", "Data Length", _)? = element.dropFirst(fixed.count).first {} else { Issue.record("no Data after the fixed fields") }
            #expect(element.last.map { $0.name == "RSSI" && $0.fixedSize == 1 } == true)
        case .extended:
            #expect(element.count == fixed.count + 1)
            if case .data("Data", "Data Length", _)? = element.last {} else { Issue.record("no Data after the fixed fields") }
        case .directed:
            #expect(element.count == fixed.count)
        }
    }

    /// The value of the first "0x…" in a rendered field ("ADV_IND (0x00)", "0x0013 (ADV_IND)").
    static func hex(_ s: String?) -> UInt64? {
        guard let s, let r = s.range(of: "0x") else { return nil }
        return UInt64(s[r.upperBound...].prefix { $0.isHexDigit }, radix: 16)
    }

    /// Every report of every capture present reads, field for field, as the generic interpreter
    /// reads the layout row.
    @Test func everyReportReadsAsTheLayoutDeclares() throws {
        var reports = 0
        for url in Fixtures.corpusFiles() {
            guard var reader = try? CaptureReader.open(path: url.path) else { continue }
            var dissector = Dissector()
            while let record = reader.next() {
                guard case .event(let e) = dissector.decode(record).packet, let sub = e.subevent,
                    let element = Self.element(sub), e.malformed.isEmpty
                else { continue }
                let layout = try #require(HCIEvent.leLayouts[sub.rawValue]?.parameters)
                let decoded = ParamLayout.decode(layout, e.parameters.dropFirst(), baseOffset: 0)
                guard decoded.malformed.isEmpty, let array = decoded.fields.first(where: { $0.name == "Report" }) else { continue }
                let parsed = Array(e.advertisingReports)
                #expect(parsed.count == array.children.count, "\(url.lastPathComponent) frame \(record.frame)")
                for (r, declared) in zip(parsed, array.children) {
                    func field(_ name: String) -> String? { declared.children.first { $0.name == name }?.value }
                    let at = "\(url.lastPathComponent) frame \(record.frame)"
                    #expect(field("Address") == r.address.description, "\(at)")
                    #expect(Self.hex(field("Address Type")) == UInt64(r.addressType), "\(at)")
                    #expect(Self.hex(field("Event Type")) == UInt64(r.eventType), "\(at)")
                    #expect(field("RSSI") == (r.rssi == 127 ? "not available (0x7f)" : "\(r.rssi) dBm"), "\(at)")
                    if element.contains(where: { $0.name == "Data Length" }) {
                        #expect(field("Data Length") == "\(r.data.count)", "\(at)")
                    }
                    if element.contains(where: { $0.name == "Direct Address" }) {
                        #expect(field("Direct Address") == r.directAddress?.description, "\(at)")
                    }
                    if sub == .extendedAdvertisingReport {
                        #expect(Self.hex(field("Advertising SID")) == r.sid.map(UInt64.init), "\(at)")
                        #expect(Self.hex(field("Primary PHY")) == r.primaryPHY.map(UInt64.init), "\(at)")
                        #expect(Self.hex(field("Secondary PHY")) == r.secondaryPHY.map(UInt64.init), "\(at)")
                        #expect(field("TX Power") == r.txPower.map { $0 == 127 ? "not available (0x7f)" : "\($0) dBm" }, "\(at)")
                    }
                    reports += 1
                }
            }
        }
        #expect(reports > 0)
        print("advertising reports compared with their layout rows: \(reports)")
    }

    /// One parser: reports (and their essentials) are built from parsed fields in
    /// AdvertisingReport.swift alone, and no other source of ScopeDecode reads report bytes.
    @Test func noSecondDecoderOfReports() throws {
        let sources = Fixtures.repositoryRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        var builders: [String: Int] = [:]
        for url in files {
            let text = try String(contentsOf: url, encoding: .utf8)
            let name = url.lastPathComponent
            for pattern in ["AdvertisingReportEssentials(", "AdvertisingReport(eventType:", "isLegacyEvent: true, addressType:",
                            "parseLegacy(", "parseExtended(", "parseDirected("] {
                let n = text.components(separatedBy: pattern).count - 1
                if n > 0 { builders[name, default: 0] += n }
            }
        }
        #expect(Set(builders.keys) == ["AdvertisingReport.swift"], "report decoding outside AdvertisingReport.swift: \(builders)")
        // In that file: the two essentials (decoded reports, the one report in place), the
        // placeholder, the parsers' definitions and their few callers.
        let text = try String(contentsOf: sources.appendingPathComponent("ScopeDecode/HCI/AdvertisingReport.swift"), encoding: .utf8)
        #expect(text.components(separatedBy: "AdvertisingReportEssentials(").count - 1 == 2)
        #expect(text.components(separatedBy: "static func parse").count - 1 == 4)
        #expect(!text.contains("ByteReader"), "the reports are read by the parsers alone")
    }

    /// A report cut short names the field where the bytes ran out, as the layout lists them.
    @Test func shortReportsNameTheField() {
        // Num_Reports 1, Event_Type, Address_Type, 3 bytes of Address.
        let cut = AdvertisingReport.decode(subevent: .advertisingReport, [0x01, 0x00, 0x01, 0xAA, 0xBB, 0xCC], baseOffset: 3)
        #expect(cut.reports.isEmpty)
        #expect(cut.malformed.first?.offset == 6)
        #expect(cut.malformed.first?.message == "report 1 of 1: truncated: needed 6 bytes, 3 available")
        // Data_Length 4 with 2 bytes of data left.
        var bytes: [UInt8] = [0x01, 0x00, 0x00] + [UInt8](repeating: 0x11, count: 6) + [0x04, 0x02, 0x01]
        var d = AdvertisingReport.decode(subevent: .advertisingReport, bytes[...], baseOffset: 0)
        #expect(d.malformed.first?.message == "report 1 of 1: truncated: needed 4 bytes, 2 available")
        #expect(d.malformed.first?.offset == 10)
        // The data is there, the RSSI after it is not.
        bytes = [0x01, 0x00, 0x00] + [UInt8](repeating: 0x11, count: 6) + [0x02, 0x02, 0x01]
        d = AdvertisingReport.decode(subevent: .advertisingReport, bytes[...], baseOffset: 0)
        #expect(d.malformed.first?.message == "report 1 of 1: truncated: needed 1 byte, 0 available")
        #expect(d.malformed.first?.offset == 12)
    }
}
