import Foundation
import ScopeCore
import ScopeTestSupport
@testable import ScopeDecode

/// A minimal btsnoop (datalink 1002, H4) reader for the L2CAP/ATT/SMP/GATT corpus tests, so
/// they depend on nothing but the decoder under test. Records keep the H4 type byte apart.
struct L2CAPSnoopRecord {
    var frame: Int
    var direction: Direction
    var h4Type: UInt8
    /// Payload after the H4 byte.
    var payload: [UInt8]
    var originalLength: Int
}

enum L2CAPSnoopFile {
    /// Reads `<corpus>/<relative>` (HCISCOPE_CORPUS); nil when the corpus is absent.
    static func read(_ relative: String) -> [L2CAPSnoopRecord]? {
        guard let url = Fixtures.corpus(relative), let data = try? Data(contentsOf: url) else { return nil }
        let b = [UInt8](data)
        guard b.count >= 16, Array(b[0..<8]) == Array("btsnoop\0".utf8) else { return nil }
        func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        guard be32(12) == 1002 else { return nil }
        var out: [L2CAPSnoopRecord] = []
        var off = 16
        var n = 0
        while off + 24 <= b.count {
            let orig = be32(off)
            let incl = be32(off + 4)
            let flags = be32(off + 8)
            off += 24
            guard incl >= 1, off + incl <= b.count else { break }
            n += 1
            out.append(
                L2CAPSnoopRecord(
                    frame: n, direction: flags & 1 == 1 ? .received : .sent, h4Type: b[off],
                    payload: Array(b[(off + 1)..<(off + incl)]), originalLength: orig - 1))
            off += incl
        }
        return out
    }
}

/// What the ACL → L2CAP → ATT pipeline produced for one ATT PDU, in a shape comparable with
/// `tshark -T fields -e frame.number -e btatt.opcode -e btatt.handle`.
struct L2CAPATTRow: Equatable, CustomStringConvertible {
    var frame: Int
    var opcode: UInt8
    var handles: [UInt16]

    var description: String {
        "\(frame)\t\(Hex.prefixed(opcode, digits: 2))\t"
            + handles.map { Hex.prefixed($0, digits: 4) }.joined(separator: ",")
    }

    /// Parses one tshark line "453\t0x11\t0x0001,0x0006".
    init?(tshark line: Substring) {
        let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard parts.count >= 2, let f = Int(parts[0]), let op = UInt8(parts[1].dropFirst(2), radix: 16) else {
            return nil
        }
        frame = f
        opcode = op
        handles =
            parts.count > 2 ? parts[2].split(separator: ",").compactMap { UInt16($0.dropFirst(2), radix: 16) } : []
    }

    init(frame: Int, opcode: UInt8, handles: [UInt16]) {
        self.frame = frame
        self.opcode = opcode
        self.handles = handles
    }
}

/// Drives reassembler + decoders + GATT trackers over a record list, the way a dissector would:
/// handle 0x0EDC is skipped, Disconnection Complete resets reassembly and starts a new GATT
/// generation.
struct L2CAPPipeline {
    var reassembler = L2CAPReassembler()
    var channels = L2CAPChannelMap()
    var trackers = GATTTrackerSet()
    var generation: [UInt16: Int] = [:]
    var pdus: [L2CAPPDU] = []
    var att: [(pdu: ATTPDU, frame: Int, note: GATTAnnotation?, l2cap: L2CAPPDU)] = []
    var smp: [(pdu: SMPPDU, frame: Int)] = []
    var signaling: [(pdu: SignalingPDU, frame: Int)] = []
    var malformed: [(frame: Int, m: Malformation)] = []

    mutating func run(_ records: [L2CAPSnoopRecord]) {
        for r in records {
            if r.h4Type == 0x04, r.payload.count >= 6, r.payload[0] == 0x05, r.payload[2] == 0x00 {
                let handle = UInt16(r.payload[3]) | UInt16(r.payload[4] & 0x0F) << 8
                for m in reassembler.reset(adapter: 0, handle: handle) { malformed.append((r.frame, m)) }
                channels.reset(adapter: 0, handle: handle)
                generation[handle, default: 0] += 1
                continue
            }
            guard r.h4Type == 0x02 else { continue }
            if let h = try? ACLHeader.parse(r.payload), h.isLikelyVendorDebug { continue }
            let step = reassembler.consume(
                adapter: 0, direction: r.direction, frame: r.frame, payload: r.payload,
                capturedTruncated: r.payload.count < r.originalLength)
            for m in step.malformed { malformed.append((r.frame, m)) }
            for pdu in step.completed {
                pdus.append(pdu)
                var route = pdu.channel
                if pdu.channel.isDynamic,
                    let info = channels.channel(adapter: 0, handle: pdu.handle, direction: pdu.direction, cid: pdu.cid),
                    info.psm == .att, info.mode == .basic
                {
                    route = .att
                }
                switch route {
                case .att:
                    let a = ATTPDU.decode(pdu.payload, baseOffset: pdu.payloadOffset)
                    let key = GATTConnectionKey(
                        adapter: 0, handle: pdu.handle, generation: generation[pdu.handle, default: 0])
                    let note = trackers.observe(a, connection: key, direction: pdu.direction, frame: r.frame)
                    att.append((a, r.frame, note, pdu))
                case .smp:
                    smp.append((SMPPDU.decode(pdu.payload, baseOffset: pdu.payloadOffset), r.frame))
                case .signaling, .leSignaling:
                    let sig = SignalingPDU.decode(pdu.payload, channel: pdu.channel, baseOffset: pdu.payloadOffset)
                    channels.observe(sig, adapter: 0, handle: pdu.handle, direction: pdu.direction, frame: r.frame)
                    signaling.append((sig, r.frame))
                default:
                    break
                }
            }
        }
        for m in reassembler.finish() { malformed.append((records.last?.frame ?? 0, m)) }
    }

    /// Rows comparable with tshark: own handles, else the handles inferred from the request.
    /// tshark also files the Characteristic Value Handle found inside a characteristic
    /// declaration (Read By Type Response for 0x2803) under `btatt.handle`; that handle is GATT
    /// meaning, which the tracker reports as the declaration's `relatedHandle`.
    var rows: [L2CAPATTRow] {
        att.map { e in
            var hs = e.pdu.handles
            if hs.isEmpty, let n = e.note {
                if let h = n.inferredHandle { hs = [h] } else { hs = n.requestHandles }
            }
            if e.pdu.opcode == .readByTypeResponse, let n = e.note {
                let values = Dictionary(
                    n.discovered.filter { $0.kind == .characteristicDeclaration }.map { ($0.handle, $0.relatedHandle) },
                    uniquingKeysWith: { a, _ in a })
                hs = hs.flatMap { h in [h] + ((values[h] ?? nil).map { [$0] } ?? []) }
            }
            return L2CAPATTRow(frame: e.frame, opcode: e.pdu.opcode.rawValue, handles: hs)
        }
    }
}
