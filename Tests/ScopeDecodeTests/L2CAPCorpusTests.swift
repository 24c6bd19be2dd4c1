import ScopeCore
import ScopeTestSupport
import Testing
@testable import ScopeDecode

/// Whole real captures through the pipeline, checked against tshark's counts.
@Suite("L2CAP corpus")
struct L2CAPCorpusTests {
    // tshark: 4304 ATT PDUs (-Y btatt), 54 SMP PDUs (-Y btsmp), 2 LE signaling; the 0x03A0
    // notifications are reassembled from a 27-byte first fragment + 4-byte continuation.
    @Test func syedLightController() {
        guard let records = L2CAPSnoopFile.read("real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log")
        else { return }
        var p = L2CAPPipeline()
        p.run(records)
        #expect(p.att.count == 4304)
        #expect(p.smp.count == 54)
        #expect(p.signaling.count == 2)
        #expect(p.malformed.isEmpty)
        #expect(p.att.allSatisfy { $0.pdu.malformed.isEmpty })
        #expect(p.smp.allSatisfy { $0.pdu.malformed.isEmpty })
        let reassembled = p.pdus.filter(\.isReassembled)
        #expect(reassembled.first?.fragments == [11, 15])
        // tshark -Y 'bthci_acl.pb_flag==1': 425 continuation fragments, 388 of them on 0x03A0.
        #expect(reassembled.map { $0.fragments.count - 1 }.reduce(0, +) == 425)
        #expect(reassembled.filter { $0.handle == 0x03A0 }.map { $0.fragments.count - 1 }.reduce(0, +) == 388)
        // First pairing attempt on 0x03f3: Request, Response, Public Key ×2, Confirm, Random ×2.
        #expect(p.smp.prefix(7).map(\.pdu.code.rawValue) == [0x01, 0x02, 0x0C, 0x0C, 0x03, 0x04, 0x04])
        #expect(p.smp.filter { $0.pdu.code == .pairingFailed }.map(\.frame) == [48550, 49400, 50661, 50696, 50738])
        // Both MTU exchanges of tshark (12 requests, 12 responses) complete at 517.
        let mtus = p.att.compactMap(\.note?.effectiveMTU)
        #expect(mtus.count == 12)
        #expect(Set(mtus) == [517])
    }

    // tshark: Security Request (0x0b) ×4 from the peer, then Pairing Failed: Pairing Not Supported.
    @Test func androidPadSecurityRequest() {
        guard let records = L2CAPSnoopFile.read("real/bbmp__AndroidPad__btsnoop_hci.cfa") else { return }
        var p = L2CAPPipeline()
        p.run(records)
        #expect(p.smp.map(\.frame) == [484, 7686, 13021, 13107, 13108])
        #expect(
            p.smp.map(\.pdu.code) == [
                .securityRequest, .securityRequest, .securityRequest, .securityRequest, .pairingFailed,
            ])
        #expect(p.smp.last?.pdu.failureReason == .pairingNotSupported)
        #expect(p.att.count == 6427)
    }

    // zabbits: 418 ACL records on handle 0x0EDC (vendor debug); tshark decodes two of them as SMP
    // and two as ATT. Skipping them leaves no ATT/SMP at all, and the BR/EDR signaling (104 PDUs)
    // decodes cleanly.
    @Test func vendorDebugHandleIsNotL2CAP() {
        guard let records = L2CAPSnoopFile.read("real/zabbits__btsnoop__btsnoop_hci.cfa") else { return }
        let debug = records.filter {
            $0.h4Type == 0x02 && ((try? ACLHeader.parse($0.payload))?.isLikelyVendorDebug ?? false)
        }
        #expect(debug.count == 418)
        var p = L2CAPPipeline()
        p.run(records)
        #expect(p.att.isEmpty && p.smp.isEmpty)
        #expect(p.signaling.count == 104)
        #expect(p.signaling.allSatisfy { $0.pdu.malformed.isEmpty })
    }

    // soaresden: ATT over BR/EDR on dynamic CID 0x004e (PSM 0x001f) — tshark shows 1065 ATT PDUs;
    // 14 of them are on the BR/EDR link and need the channel map.
    @Test func attOverBREDRNeedsTheChannelMap() {
        guard let records = L2CAPSnoopFile.read("real/soaresden__IX7TrackerPro__btsnoop_hci.log") else { return }
        var p = L2CAPPipeline()
        p.run(records)
        #expect(p.att.count == 1065)
        #expect(p.att.filter { $0.l2cap.cid != 0x0004 }.count == 14)
        #expect(p.signaling.allSatisfy { $0.pdu.malformed.isEmpty })
    }

    /// Every ACL record of a real capture, cut at every length (as a capture would), through a
    /// reassembler that already holds partial PDUs: reported, never trapped on.
    @Test func truncatedRecordsNeverTrap() {
        guard let records = L2CAPSnoopFile.read("real/danisla__iot-bed__btsnoop_hci.log") else { return }
        var r = L2CAPReassembler()
        var reports = 0
        for rec in records where rec.h4Type == 0x02 {
            for n in stride(from: 0, to: rec.payload.count, by: 3) {
                let s = r.consume(
                    adapter: 0, direction: rec.direction, frame: rec.frame, payload: Array(rec.payload.prefix(n)),
                    capturedTruncated: true)
                reports += s.malformed.count
                for pdu in s.completed where pdu.channel == .att {
                    _ = ATTPDU.decode(pdu.payload, baseOffset: pdu.payloadOffset).summary
                }
            }
        }
        _ = r.finish()
        #expect(reports > 0)
    }
}
