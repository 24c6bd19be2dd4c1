import ScopeCore

/// What every byte of a capture record is, for the redactor: the spans of its addresses,
/// names, advertising data, free text, secrets and opaque runs, for every record kind of every
/// format. HCI commands and events and MGMT traffic are read through their parameter layouts
/// (so every command or event whose layout has an address field is covered); packet headers
/// are never spans. Bytes outside any span are known not to hold an address or a name
/// (integers, handles, codes).
public enum RecordFields {
    public static func spans(_ record: CaptureRecord) -> [FieldSpan] {
        let p = record.payload
        let all = p.isEmpty ? [] : [FieldSpan(0..<p.count, .opaque)]
        switch record.kind {
        case .command:
            return HCICommand.spans(p)
        case .event:
            return HCIEvent.spans(p)
        case .acl, .sco, .iso:
            // L2CAP and its upper layers are handled by the redactor itself (SMP keys and
            // identity addresses; learned addresses and names anywhere); audio and isochronous
            // data are kept.
            return []
        case .newIndex:
            // type, bus, BD_ADDR, name (the kernel's interface name, "hci0": kept as text).
            return fixed(p, [(2, 6, .address(.local, random: false)), (8, 8, .text)])
        case .indexInfo:
            // BD_ADDR, manufacturer.
            return fixed(p, [(0, 6, .address(.local, random: false)), (6, 2, nil)])
        case .deleteIndex, .openIndex, .closeIndex:
            return all
        case .systemNote, .packetLoggerText(0xF7...0xFC), .packetLoggerText(0xFE):
            return p.isEmpty ? [] : [FieldSpan(0..<p.count, .text)]
        case .packetLoggerText(PacketLoggerConfig.recordType):
            return PacketLoggerConfig.spans(p)
        case .userLogging:
            // priority, ident length, ident and message: text.
            return p.count > 2 ? [FieldSpan(2..<p.count, .text)] : []
        case .controlOpen:
            // cookie, format, then version, revision, flags, ident length, ident (a process name).
            return p.count > 14 ? [FieldSpan(14..<p.count, .text)] : fixed(p, [(0, 14, nil)])
        case .controlClose:
            return fixed(p, [(0, 4, nil)])
        case .controlCommand, .controlEvent:
            return MGMTLayouts.spans(kind: record.kind, p)
        case .vendorDiagnostic, .driver, .socketData, .lmp, .packetLoggerText, .unknownMonitor, .unknownH4, .unknownPacketLogger:
            return all
        }
    }

    /// Spans of a fixed layout of (offset, size, kind) parts (nil kind: an integer); bytes past
    /// the last part are `.opaque`.
    static func fixed(_ p: [UInt8], _ parts: [(Int, Int, FieldSpan.Kind?)]) -> [FieldSpan] {
        var out: [FieldSpan] = []
        var end = 0
        for (offset, size, kind) in parts where offset < p.count {
            let range = offset..<min(p.count, offset + size)
            if let kind { out.append(FieldSpan(range, kind)) }
            end = range.upperBound
        }
        if end < p.count { out.append(FieldSpan(end..<p.count, .opaque)) }
        return out
    }
}
