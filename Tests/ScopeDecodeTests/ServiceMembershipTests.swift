import Foundation
import ScopeCapture
import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

/// Which service holds an attribute handle, on every single-handle ATT PDU of the corpus, against
/// tshark (`ServiceMembershipTsharkExpectations`, the rows where tshark's answer changes per
/// connection and handle).
///
/// The answer is stated once, `service(containing:)` on a list of learned services (ScopeDecode's
/// GATTModel.swift); the decoder's GATT tracker, the analysis's connection record and the rules all
/// ask it. Here it is asked of the decoder's tracker as each frame left it.
@Suite("Service membership against tshark")
struct ServiceMembershipTests {
    struct Row {
        var frame: Int
        var connectionHandle: UInt16
        var opcode: UInt8
        var handle: UInt16
        /// tshark's service UUID: "0x180f", or 32 lowercase hex digits; nil when it names none.
        var service: String?
    }

    /// Where tshark and the tracker differ, and why (read in the frames with tshark 4.0.17 and
    /// `hciscope show -v`). Wireshark's btatt keeps what it learned of handles per adapter, not
    /// per connection (`handle_to_uuid` is keyed by interface, adapter and handle), so it names a
    /// handle after another connection's discovery, or an earlier connection's on the same handle,
    /// and it keeps one database for both sides of a connection; the tracker answers from the
    /// connection's own discovery of the server the PDU is about only.
    static let explained: [String: String] = [
        "Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log#50623":
            "0x0013 lies in the peer's service d0611e78… of 0x000f..0x0013 (0x03F3's Read By Group Type Response, frame 47777); "
            + "tshark uses connection 0x03E8's database",
        "Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log#51226":
            "a Handle Value Indication the phone sent (Service Changed): a handle of the phone's own server, which the peer "
            + "did not discover on 0x000D; tshark names it from the peer's database",
        "dandwhelan__fossibot-bluetooth__btsnoop_hci.log#4542":
            "a Handle Value Indication the phone sent: a handle of the phone's own server, which the peer did not "
            + "discover on 0x0041; tshark names it from the peer's database",
        "havvk__even-g2-smart-classroom__bt3.pklg#321":
            "0x0009 lies in 0x0006..0x0009, the Generic Attribute service found by Find By Type Value (frames 294-295); "
            + "tshark learns no service from a Find By Type Value Response",
        "wangdalian__btsnooper__btsnoop_hci.log#6996":
            "a notification on a connection set up 0.05 s before (frame 6988) with no discovery of its own; tshark uses "
            + "the previous connection's database on handle 0x0003",
    ]

    /// Captures where every difference is of that kind. whoisbe holds four connections at once
    /// (0x0041-0x0044) to devices with different databases: e.g. frame 625, 0x0043's Read By
    /// Group Type Response, lists 0x0001..0x0009 as Generic Access, and tshark names the handle
    /// "Generic Attribute" after 0x0042's discovery in frame 460; frame 637 lists 0x000e..0x0018
    /// as 02f00000-…-fe00 and tshark calls it Device Information, 0x0042's 0x000e (frame 460).
    static let concurrentConnections: Set<String> = ["whoisbe__pongbot-mcp__btsnoop_hci.log.last"]

    static func expectations() -> [String: [Row]] {
        var out: [String: [Row]] = [:]
        for line in ServiceMembershipTsharkExpectations.rows.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 7, let frame = Int(f[1]), let ch = UInt16(f[2].dropFirst(2), radix: 16),
                let opcode = UInt8(f[3].dropFirst(2), radix: 16), let handle = UInt16(f[4].dropFirst(2), radix: 16)
            else { continue }
            let uuid = !f[5].isEmpty ? f[5] : !f[6].isEmpty ? f[6] : nil
            out[f[0], default: []].append(Row(frame: frame, connectionHandle: ch, opcode: opcode, handle: handle, service: uuid))
        }
        return out
    }

    static func tsharkString(_ uuid: ATTUUID) -> String { Tshark.uuidString(uuid) }

    @Test func servicesAgreeWithTshark() throws {
        var compared = 0
        var explainedRows: [String] = []
        var concurrent: [String] = []
        var vendorDebug: [String] = []
        var unexplained: [String] = []
        for (file, rows) in Self.expectations().sorted(by: { $0.key < $1.key }) {
            guard let url = Fixtures.corpus("real/" + file) else { continue }  // corpus absent: said once by Fixtures
            let byFrame = Dictionary(grouping: rows, by: \.frame)
            var reader = try CaptureReader.open(path: url.path)
            var dissector = Dissector(detail: .analysis)
            var seen = Set<Int>()
            while let record = reader.next() {
                let frameNumber = record.frame
                let direction = record.direction
                let frame = dissector.decode(record)
                guard let wanted = byFrame[frameNumber] else { continue }
                seen.insert(frameNumber)
                for row in wanted {
                    compared += 1
                    // The server the PDU is about: the remote device's for what the local host
                    // sent as client, the local device's for what the remote client sent.
                    let side = GATTServerSide(opcode: ATTOpcode(rawValue: row.opcode), direction: direction)
                    let ours = frame.connection.flatMap { dissector.gattTracker($0) }?.server(side).service(containing: row.handle)
                    let answer = ours.map { Self.tsharkString($0.uuid) }
                    guard answer != row.service else { continue }
                    let key = "\(file)#\(row.frame)"
                    let line = "\(key): handle \(Hex.prefixed(row.handle, digits: 4)) on "
                        + "\(Hex.prefixed(row.connectionHandle, digits: 4)): tshark \(row.service ?? "-"), tracker \(answer ?? "-")"
                    if row.connectionHandle == Dissector.vendorDebugHandle {
                        // Android's controller trace data on 0x0EDC, which tshark reads as ATT.
                        vendorDebug.append(line)
                    } else if let why = Self.explained[key] {
                        explainedRows.append(line + " (" + why + ")")
                    } else if Self.concurrentConnections.contains(file) {
                        concurrent.append(line)
                    } else {
                        unexplained.append(line)
                    }
                }
            }
            for row in rows where !seen.contains(row.frame) {
                unexplained.append("\(file)#\(row.frame): tshark shows an ATT PDU to \(Hex.prefixed(row.handle, digits: 4)), the reader no such frame")
            }
        }
        print(
            "ServiceMembershipTests: \(compared) rows compared with tshark, \(compared - explainedRows.count - concurrent.count - vendorDebug.count) "
                + "equal; \(explainedRows.count) differ as explained, \(concurrent.count) on concurrent connections tshark merges, "
                + "\(vendorDebug.count) are 0x0EDC vendor trace data tshark reads as ATT")
        for d in explainedRows + concurrent + vendorDebug { print("  " + d) }
        for d in unexplained { Issue.record("tshark and the tracker differ: \(d)") }
        if Fixtures.corpusRoot != nil { #expect(compared == 316)
            #expect(explainedRows.count == Self.explained.count) }
    }
}
