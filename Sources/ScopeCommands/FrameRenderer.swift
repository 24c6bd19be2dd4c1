import ScopeCore
import ScopeDecode

/// Renders decoded frames as btmon-style text: one header line per frame and, when verbose,
/// the decoded fields indented beneath.
struct FrameTextRenderer {
    var verbose: Bool
    var firstTimestamp: Timestamp?

    mutating func render(_ frame: DecodedFrame, into out: inout String) {
        let r = frame.record
        let start = firstTimestamp ?? r.timestamp
        if firstTimestamp == nil { firstTimestamp = r.timestamp }
        let relative = formatSeconds(r.timestamp.microseconds(since: start))
        let adapter = r.adapter == .noController ? "     " : pad("hci\(r.adapter)", 5)
        out += pad(String(r.frame), 7, left: true)
        out += " "
        out += pad(relative, 12, left: true)
        out += " "
        out += adapter
        out += " "
        out += r.direction.arrow
        out += " "
        out += FrameSummary.line(frame)
        out += "\n"
        guard verbose else { return }
        for field in FrameSummary.fields(frame) { append(field, depth: 1, into: &out) }
        for m in frame.allMalformations {
            out += String(repeating: "  ", count: 4) + "! malformed \(m.layer.rawValue) at offset \(m.offset): \(m.message)\n"
        }
    }

    private func append(_ field: Field, depth: Int, into out: inout String) {
        out += String(repeating: "  ", count: depth + 3)
        out += field.value.isEmpty ? field.name : field.name + ": " + field.value
        out += "\n"
        for child in field.children { append(child, depth: depth + 1, into: &out) }
    }

    private func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return left ? fill + s : s + fill
    }
}

/// One-line and field renderings of a whole frame, shared by text output and filters.
enum FrameSummary {
    static func line(_ frame: DecodedFrame) -> String {
        let r = frame.record
        var s: String
        switch frame.packet {
        case .command(let c):
            s = "HCI Command: " + c.summary
        case .event(let e):
            s = "HCI Event: " + e.summary
            if let m = frame.commandMatch { s += " (answers #\(m.commandFrame), \(formatMillis(m.latencyMicros)))" }
        case .acl(let h):
            s = "ACL Data " + (r.direction == .received ? "RX" : "TX") + ": " + (h?.summary ?? "len \(r.payload.count)")
        case .vendorDebugACL(let h):
            s = "ACL Data (controller debug): " + (h?.summary ?? "len \(r.payload.count)")
        case .sco(let h):
            s = "SCO Data: " + (h?.summary ?? "len \(r.payload.count)")
        case .iso(let h):
            s = "ISO Data: " + (h?.summary ?? "len \(r.payload.count)")
        case .monitor(let m):
            let text = m.summary
            s = r.kind.name + (text.isEmpty ? "" : ": " + text)
        case .none:
            s = r.kind.name
        }
        for p in frame.pdus { s += " │ " + pduSummary(p) }
        if r.isTruncated { s += " [truncated \(r.payload.count)/\(r.originalLength)]" }
        if !frame.allMalformations.isEmpty { s += " [malformed]" }
        return s
    }

    static func pduSummary(_ p: DecodedPDU) -> String {
        switch p.upper {
        case .att(let att, let annotation):
            var s = "ATT: " + att.summary
            if let name = annotation?.handleName { s += " (\(name))" }
            return s
        case .smp(let smp): return "SMP: " + smp.summary
        case .signaling(let sig): return "L2CAP: " + sig.summary
        case .other: return "L2CAP: CID \(Hex.prefixed(p.pdu.cid, digits: 4)) len \(p.pdu.payload.count)"
        }
    }

    static func fields(_ frame: DecodedFrame) -> [Field] {
        var out: [Field]
        switch frame.packet {
        case .command(let c): out = c.fields
        case .event(let e): out = e.fields
        case .monitor(let m): out = m.fields
        case .acl, .vendorDebugACL, .sco, .iso, .none:
            out = frame.pdus.isEmpty ? [Field("Data", Hex.string(frame.record.payload.dropFirst(4), separator: " "))] : []
        }
        for p in frame.pdus {
            var children: [Field]
            switch p.upper {
            case .att(let att, let annotation): children = att.fields + (annotation?.fields ?? [])
            case .smp(let smp): children = smp.fields
            case .signaling(let sig): children = sig.fields
            case .other: children = [Field("Data", Hex.string(p.pdu.payload, separator: " "))]
            }
            let frames = p.pdu.isReassembled ? " reassembled from frames " + p.pdu.fragments.map(String.init).joined(separator: ",") : ""
            out.append(Field("L2CAP", "CID \(Hex.prefixed(p.pdu.cid, digits: 4)) len \(p.pdu.payload.count)\(frames)", children: [Field(pduSummary(p), "", children: children)]))
        }
        return out
    }

    static func formatMillis(_ micros: Int64) -> String {
        let ms = micros / 1000
        let frac = String(micros.magnitude % 1000)
        return "\(ms).\(String(repeating: "0", count: 3 - frac.count))\(frac) ms"
    }
}

/// JSON Lines: one object per frame with the stable keys documented in docs/JSON.md.
struct FrameJSONRenderer {
    /// Emptied and reused for each frame.
    private var w = JSONWriter()

    mutating func render(_ frame: DecodedFrame, into out: inout String) {
        let r = frame.record
        w.removeAll()
        w.beginObject()
        w.field("frame", r.frame)
        w.field("ts_us", r.timestamp.microseconds)
        w.field("adapter", int: r.adapter)
        switch r.direction {
        case .sent: w.field("dir", "sent")
        case .received: w.field("dir", "received")
        case .unknown: w.null("dir")
        }
        w.field("kind", r.kind.jsonName)
        w.field("len", r.payload.count)
        if r.isTruncated { w.field("orig_len", r.originalLength) }
        switch frame.packet {
        case .command(let c):
            w.field("opcode", int: c.opcode.rawValue)
        case .event(let e):
            w.field("event", int: e.code.rawValue)
            if let sub = e.subevent { w.field("subevent", int: sub.rawValue) }
            if let op = e.commandOpcode { w.field("opcode", int: op.rawValue) }
            if let status = e.status { w.field("status", int: status) }
            if let h = e.handle { w.field("handle", int: h) }
            if let m = frame.commandMatch {
                w.field("command_frame", m.commandFrame)
                w.field("latency_us", m.latencyMicros)
            }
            if !e.advertisingReports.isEmpty { Self.reports(e.advertisingReports, &w) }
        case .acl(let h):
            if let h { w.field("handle", int: h.handle) }
        case .vendorDebugACL(let h):
            if let h { w.field("handle", int: h.handle) }
            w.field("vendor_debug", true)
        case .sco(let h):
            if let h { w.field("handle", int: h.handle) }
        case .iso(let h):
            if let h { w.field("handle", int: h.handle) }
        case .monitor(let m):
            switch m {
            case .note(let text): w.field("text", text)
            case .userLogging(_, let ident, let message): w.field("text", ident + ": " + message)
            default: break
            }
        case .none: break
        }
        if let p = frame.pdus.first {
            w.field("l2cap_cid", int: p.pdu.cid)
            if p.pdu.isReassembled {
                w.beginArray("fragments")
                for f in p.pdu.fragments { w.element(f) }
                w.endArray()
            }
            switch p.upper {
            case .att(let att, let annotation):
                w.beginObject("att")
                w.field("opcode", int: att.opcode.rawValue)
                // The PDU's own handle; else the one its request/indication named (inferred);
                // else the first of the handles it lists (discovery responses, Read Multiple).
                if let h = att.handle {
                    w.field("handle", int: h)
                } else if let h = annotation?.inferredHandle {
                    w.field("handle", int: h)
                    w.field("handle_inferred", true)
                } else if let h = annotation?.requestHandles.first {
                    w.field("handle", int: h)
                    w.field("handle_inferred", true)
                } else if let h = att.handles.first {
                    w.field("handle", int: h)
                }
                if let e = att.errorCode { w.field("error", int: e) }
                w.endObject()
            case .smp(let smp):
                w.beginObject("smp")
                w.field("code", int: smp.code.rawValue)
                w.endObject()
            case .signaling, .other: break
            }
        }
        w.field("summary", FrameSummary.line(frame))
        let problems = frame.allMalformations
        if !problems.isEmpty {
            w.beginArray("malformed")
            for m in problems {
                w.beginObject()
                w.field("layer", m.layer.rawValue)
                w.field("offset", m.offset)
                w.field("message", m.message)
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
        out += w.output
        out += "\n"
    }

    private static func reports(_ reports: AdvertisingReports, _ w: inout JSONWriter) {
        w.beginArray("reports")
        for rep in reports {
            w.beginObject()
            w.field("address", rep.address.description)
            w.field("address_type", int: rep.addressType)
            w.field("event_type", int: rep.eventType)
            w.field("rssi", int: rep.rssi)
            w.beginArray("ad")
            for ad in rep.ad.structures {
                w.beginObject()
                w.field("type", int: ad.type)
                w.field("name", ad.name)
                w.field("value", ad.valueDescription)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
    }
}
