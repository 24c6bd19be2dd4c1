import Foundation
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// The cheaper paths the analysis takes must give what the full decode gives, on real bytes:
/// `Dissector(detail: .analysis)`'s GATT annotations, advertising report events read on demand,
/// and event layouts size-checked without the walker.
@Suite struct DecodeDetailTests {
    /// Commands, events and ACL of a btsnoop 1002 (H4) file as capture records, in order.
    static func records(_ url: URL) -> [CaptureRecord] {
        guard let data = try? Data(contentsOf: url), data.count >= 16 else { return [] }
        let bytes = [UInt8](data)
        guard bytes.starts(with: Array("btsnoop\0".utf8)) else { return [] }
        func be32(_ i: Int) -> Int { Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) }
        guard be32(12) == 1002 else { return [] }
        var out: [CaptureRecord] = []
        var i = 16
        var frame: UInt64 = 0
        while i + 24 <= bytes.count {
            let included = be32(i + 4)
            let flags = be32(i + 8)
            let start = i + 24
            guard start + included <= bytes.count, included > 0 else { break }
            frame += 1
            let payload = Array(bytes[(start + 1)..<(start + included)])
            let kind: RecordKind
            switch bytes[start] {
            case 0x01: kind = .command
            case 0x02: kind = .acl
            case 0x04: kind = .event
            default:
                i = start + included
                continue
            }
            let direction: Direction = flags & 1 == 0 ? .sent : .received
            out.append(
                CaptureRecord(
                    frame: FrameNumber(frame), timestamp: Timestamp(microseconds: 0), direction: direction, kind: kind,
                    payload: payload))
            i = start + included
        }
        return out
    }

    static var btsnoopFiles: [URL] { HCICorpusTests.btsnoopFiles }

    /// Every HCI event of the corpus's btsnoop captures, decoded, in capture order.
    static func forEachCorpusEvent(_ body: (HCIEvent) -> Void) {
        for url in btsnoopFiles {
            for (_, packet) in HCICorpusTests.packets(url) {
                guard case .event(let bytes) = packet else { continue }
                body(HCIEvent.decode(bytes))
            }
        }
    }

    /// What analysis reads of an annotation.
    struct AnalysisPart: Equatable {
        var inferredHandle: UInt16?
        var requestFrame: FrameNumber?
        var requestOpcode: ATTOpcode?
        var clientConfiguration: GATTClientConfiguration?
        var effectiveMTU: Int?
        /// The changes to the GATT database.
        var procedure: GATTDiscoveryKind?
        var clientConfigurationWrite: GATTClientConfigurationWrite?
        var discovered: [GATTAttribute] = []

        init?(_ note: GATTAnnotation?) {
            guard let note else { return nil }
            inferredHandle = note.inferredHandle
            requestFrame = note.requestFrame
            requestOpcode = note.requestOpcode
            clientConfiguration = note.clientConfiguration
            effectiveMTU = note.effectiveMTU
            procedure = note.procedure
            clientConfigurationWrite = note.clientConfigurationWrite
            discovered = note.discovered
            if self == AnalysisPart() { return nil }
        }

        private init() {}
    }

    @Test func analysisAnnotationsCarryWhatDisplayOnesDo() {
        var pdus = 0
        var annotated = 0
        for url in Self.btsnoopFiles {
            var display = Dissector(detail: .display)
            var analysis = Dissector(detail: .analysis)
            for record in Self.records(url) {
                let full = display.decode(record)
                let lean = analysis.decode(record)
                #expect(full.pdus.count == lean.pdus.count)
                for (f, l) in zip(full.pdus, lean.pdus) {
                    guard case .att(let fullPDU, let fullNote) = f.upper, case .att(let leanPDU, let leanNote) = l.upper else {
                        continue
                    }
                    pdus += 1
                    #expect(fullPDU == leanPDU)
                    #expect(AnalysisPart(leanNote) == AnalysisPart(fullNote), "\(url.lastPathComponent) #\(record.frame)")
                    if let leanNote {
                        annotated += 1
                        #expect(leanNote.handleName == nil && leanNote.fields.isEmpty)
                        #expect(leanNote.requestHandles.isEmpty)
                    }
                }
            }
        }
        if Fixtures.corpusRoot != nil {
            #expect(pdus > 1000)
            #expect(annotated > 100)
        } else {
            print("analysisAnnotationsCarryWhatDisplayOnesDo: shared captures absent, skipped")
        }
    }

    @Test func oneReportEventsReadOnDemandEqualFieldByFieldDecode() {
        var single = 0
        var other = 0
        Self.forEachCorpusEvent { event in
            guard let sub = event.subevent,
                sub == .advertisingReport || sub == .extendedAdvertisingReport || sub == .directedAdvertisingReport
            else { return }
            let parameters = event.parameters.dropFirst()
            let (reports, problems) = AdvertisingReport.fieldByField(
                subevent: sub, parameters, baseOffset: HCIEvent.parametersOffset + 1)
            #expect(Array(event.advertisingReports) == reports)
            #expect(event.advertisingReports == AdvertisingReports(reports))
            var inPlace: [AdvertisingReport] = []
            event.advertisingReports.withUnsafeBufferPointer { inPlace = Array($0) }
            #expect(inPlace == reports)
            // What the analysis reads (`forEachEssentials`) equals the full decode, field by field.
            var essentials = 0
            event.advertisingReports.forEachEssentials { e in
                defer { essentials += 1 }
                guard essentials < reports.count else { return }
                let r = reports[essentials]
                #expect(e.eventType == r.eventType && e.isLegacyEvent == r.isLegacyEvent)
                #expect(e.addressType == r.addressType && e.address == r.address && e.rssi == r.rssi)
                #expect(e.isConnectable == r.isConnectable)
                #expect(r.isLegacyEvent || e.sid == (r.sid ?? 0xFF))
                #expect(Array(e.data) == Array(r.data))
            }
            #expect(essentials == reports.count)
            if event.singleReport != nil {
                single += 1
                #expect(reports.count == 1 && problems.isEmpty)
            } else {
                other += 1
            }
        }
        if Fixtures.corpusRoot != nil {
            #expect(single > 1000)
        } else {
            print("oneReportEventsReadOnDemandEqualFieldByFieldDecode: shared captures absent, skipped")
        }
        _ = other
    }

    @Test func numberOfCompletedPacketsHasACountedExactSize() throws {
        let layout = try #require(HCIEvent.layouts[0x13])
        guard case .counted(let fixed, let countAt, let element)? = layout.exactSize else {
            Issue.record("Number Of Completed Packets: \(String(describing: layout.exactSize))")
            return
        }
        #expect(fixed == 1 && countAt == 0 && element == 4)
        // 2 handles: 1 + 2 × 4 bytes; one byte short or over is left to the walker.
        let bytes: [UInt8] = [0x02, 0x40, 0x00, 0x01, 0x00, 0x41, 0x00, 0x02, 0x00]
        #expect(layout.fitsExactly(bytes, bytes.indices))
        #expect(!layout.fitsExactly(bytes, bytes.indices.dropLast()))
        #expect(!layout.fitsExactly(bytes + [0], 0..<(bytes.count + 1)))
        #expect(!layout.fitsExactly([], 0..<0))
    }

    /// Where ``EventLayout/fitsExactly(_:_:)`` says yes, the walker has nothing to report.
    @Test func exactSizeAgreesWithTheWalker() {
        var fits = 0
        Self.forEachCorpusEvent { event in
            let layout: EventLayout?
            let parameters: ArraySlice<UInt8>
            if event.code == .leMeta, let sub = event.subevent {
                layout = HCIEvent.leLayouts[sub.rawValue]
                parameters = event.parameters.dropFirst()
            } else {
                layout = HCIEvent.layouts[event.code.rawValue]
                parameters = event.parameters
            }
            guard let layout, layout.fitsExactly(event.packet, parameters.indices) else { return }
            fits += 1
            #expect(ParamLayout.validate(layout.parameters, parameters, baseOffset: 0).isEmpty)
        }
        for (_, layout) in HCIEvent.layouts {
            // Every layout the general check calls exact by size is one `exactSize` describes or leaves out.
            if case .fixed(let size)? = layout.exactSize {
                let zeros = [UInt8](repeating: 0, count: size)
                #expect(ParamLayout.fitsExactly(layout.parameters, zeros[...]))
            }
        }
        if Fixtures.corpusRoot != nil { #expect(fits > 1000) }
    }

    /// Where a command's ``ParamLayout/ExactSize`` says its parameters fit, the walker has
    /// nothing to report either (commands of the usual size skip validation).
    @Test func commandExactSizeAgreesWithTheWalker() {
        var fits = 0
        for url in Self.btsnoopFiles {
            for (_, packet) in HCICorpusTests.packets(url) {
                guard case .command(let bytes) = packet else { continue }
                let command = HCICommand.decode(bytes)
                guard let layout = HCICommand.parameterLayout(command.opcode.rawValue),
                    HCICommand.exactSize(command.opcode.rawValue)?.fits(command.parameters, command.parameters.indices) == true
                else { continue }
                fits += 1
                #expect(ParamLayout.validate(layout, command.parameters[...], baseOffset: 0).isEmpty)
                #expect(command.malformed.isEmpty)
            }
        }
        if Fixtures.corpusRoot != nil { #expect(fits > 1000) }
    }

    /// Where a command's ``CommandLayout/ReturnShape`` says the return parameters of a Command
    /// Complete fit, the walker has nothing to report either (they skip validation), and the
    /// shape's handle is where the return layout puts it. Command Status, of its fixed size,
    /// skips validation too.
    @Test func returnShapeAgreesWithTheWalker() throws {
        var fits = 0
        var statuses = 0
        Self.forEachCorpusEvent { event in
            if event.code == .commandStatus, event.parameters.count == 4 {
                statuses += 1
                #expect(ParamLayout.validate(HCIEvent.commandStatusLayout, event.parameters, baseOffset: 0).isEmpty)
            }
            guard event.code == .commandComplete, let op = event.commandOpcode,
                let shape = HCICommand.returnShape(op.rawValue), let returns = HCICommand.returnLayout(op.rawValue)
            else { return }
            #expect(shape.handleOffset == ParamLayout.handleOffset(returns))
            guard shape.exactSize?.fits(event.packet, event.returnParameters.indices) == true else { return }
            fits += 1
            #expect(ParamLayout.validate(returns, event.returnParameters, baseOffset: 0).isEmpty)
            #expect(event.malformed.isEmpty)
        }
        if Fixtures.corpusRoot != nil {
            #expect(fits > 1000)
            #expect(statuses > 100)
        }
    }
}
