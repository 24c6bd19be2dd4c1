import ScopeCore

extension HCICommand {
    /// The spans of a command record payload's parameters, from the command's parameter layout
    /// (``ParamLayout/spans(_:_:baseOffset:secretNames:)``; the parameters `SecretFields` names
    /// are `.secret`). A command without a described layout (vendor
    /// commands, commands known by name only) is one `.opaque` span; bytes past
    /// Parameter_Total_Length are `.opaque` too. The header (opcode, length) is never a span.
    public static func spans(_ p: [UInt8]) -> [FieldSpan] {
        guard p.count > parametersOffset else { return [] }
        let opcode = UInt16(p[0]) | UInt16(p[1]) << 8
        let end = min(p.count, parametersOffset + Int(p[2]))
        var out: [FieldSpan] = []
        if let layout = parameterLayout(opcode) {
            out = ParamLayout.spans(
                layout, p[parametersOffset..<end], baseOffset: parametersOffset, secretNames: SecretFields.commands[opcode] ?? [])
        } else if end > parametersOffset {
            out = [FieldSpan(parametersOffset..<end, .opaque)]
        }
        if end < p.count { out.append(FieldSpan(end..<p.count, .opaque)) }
        return out
    }
}

extension HCIEvent {
    /// The spans of an event record payload's parameters, from the event's layout (LE Meta:
    /// the subevent's; Command Complete: the answered command's return layout). Events without a
    /// described layout are one `.opaque` span after the header (Command Complete of a command
    /// without a return layout keeps its status byte; vendor return parameters are all opaque);
    /// bytes past Parameter_Total_Length are `.opaque`.
    public static func spans(_ p: [UInt8]) -> [FieldSpan] {
        let base = parametersOffset
        guard p.count > base else { return [] }
        let end = min(p.count, base + Int(p[1]))
        var out: [FieldSpan] = []
        func opaque(from start: Int) { if start < end { out.append(FieldSpan(start..<end, .opaque)) } }
        switch p[0] {
        case HCIEventCode.commandComplete.rawValue:
            // Num_HCI_Command_Packets, Command_Opcode, then the return parameters.
            let returnsAt = base + 3
            guard end > returnsAt else { break }
            let op = HCIOpcode(rawValue: UInt16(p[base + 1]) | UInt16(p[base + 2]) << 8)
            if let returns = HCICommand.returnLayout(op.rawValue) {
                out = ParamLayout.spans(returns, p[returnsAt..<end], baseOffset: returnsAt, secretNames: SecretFields.returns[op.rawValue] ?? [])
            } else if op.isVendor || op == .nop {
                opaque(from: returnsAt)
            } else {
                opaque(from: returnsAt + 1)
            }
        case HCIEventCode.commandStatus.rawValue:
            out = ParamLayout.spans(commandStatusLayout, p[base..<end], baseOffset: base)
        case HCIEventCode.leMeta.rawValue:
            if end > base, let layout = leLayouts[p[base]] {
                out = ParamLayout.spans(
                    layout.parameters, p[(base + 1)..<end], baseOffset: base + 1, secretNames: SecretFields.subevents[p[base]] ?? [])
            } else {
                opaque(from: base + 1)
            }
        default:
            if let layout = layouts[p[0]] {
                out = ParamLayout.spans(layout.parameters, p[base..<end], baseOffset: base, secretNames: SecretFields.events[p[0]] ?? [])
            } else {
                opaque(from: base)
            }
        }
        if end < p.count { out.append(FieldSpan(end..<p.count, .opaque)) }
        return out
    }
}
