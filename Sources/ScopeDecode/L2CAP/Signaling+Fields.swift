import ScopeCore

// Rendering of signaling PDUs for people (computed on demand, never on the hot path).

extension SignalingPDU {
    /// One line: each command's summary, separated by "; ".
    public var summary: String {
        commands.isEmpty ? "Signaling (no complete command)" : commands.map(\.summary).joined(separator: "; ")
    }

    public var fields: [Field] { commands.map(\.field) }
}

extension SignalingCommand {
    /// "Connection Parameter Update Request (id 3): interval 30.00–50.00 ms, latency 0, timeout 4000 ms".
    public var summary: String {
        let head = "\(code.name ?? named(nil, code.rawValue, digits: 2)) (id \(identifier))"
        let detail = parameters.summary
        return detail.isEmpty ? head : head + ": " + detail
    }

    /// The command as a field tree: code, identifier, length, then its parameters.
    public var field: Field {
        var children = [
            Field("Code", code.description),
            Field("Identifier", Hex.prefixed(identifier, digits: 2)),
            Field("Length", String(length)),
        ]
        children += parameters.fields
        return Field(code.name ?? "Unknown command", code.description, children: children)
    }
}

extension SignalingParameters {
    static func cid(_ v: UInt16) -> String { Hex.prefixed(v, digits: 4) }

    /// 1.25 ms units → "7.50 ms".
    static func interval(_ v: UInt16) -> String {
        let hundredths = Int(v) * 125
        let frac = hundredths % 100
        return "\(hundredths / 100).\(frac < 10 ? "0" : "")\(frac) ms"
    }

    /// Short description of the parameters (no code name).
    public var summary: String {
        let c = SignalingParameters.cid
        let r = SignalingValueNames.render
        switch self {
        case .commandReject(let reason, _):
            return r(reason, SignalingValueNames.rejectReason)
        case .connectionRequest(let psm, let scid):
            return "PSM \(PSM(psm)), SCID \(c(scid))"
        case .connectionResponse(let dcid, let scid, let result, _),
            .createChannelResponse(let dcid, let scid, let result, _):
            return "DCID \(c(dcid)), SCID \(c(scid)), \(r(result, SignalingValueNames.connectionResult))"
        case .configurationRequest(let dcid, let flags, let options):
            return "DCID \(c(dcid))" + (flags & 1 != 0 ? ", continuation" : "")
                + SignalingParameters.optionSummary(options)
        case .configurationResponse(let scid, let flags, let result, let options):
            return "SCID \(c(scid)), \(r(result, SignalingValueNames.configurationResult))"
                + (flags & 1 != 0 ? ", continuation" : "")
                + SignalingParameters.optionSummary(options)
        case .disconnectionRequest(let dcid, let scid), .disconnectionResponse(let dcid, let scid):
            return "DCID \(c(dcid)), SCID \(c(scid))"
        case .echo(let data):
            return data.isEmpty ? "" : "\(data.count) bytes"
        case .informationRequest(let type):
            return r(type, SignalingValueNames.infoType)
        case .informationResponse(let type, let result, _):
            return "\(r(type, SignalingValueNames.infoType)), \(r(result, SignalingValueNames.infoResult))"
        case .createChannelRequest(let psm, let scid, let controller):
            return "PSM \(PSM(psm)), SCID \(c(scid)), Controller ID \(controller)"
        case .moveChannelRequest(let icid, let controller):
            return "ICID \(c(icid)), Controller ID \(controller)"
        case .moveChannelResponse(let icid, let result):
            return "ICID \(c(icid)), \(r(result, SignalingValueNames.moveResult))"
        case .moveChannelConfirmationRequest(let icid, let result):
            return "ICID \(c(icid)), \(r(result, SignalingValueNames.moveConfirmationResult))"
        case .moveChannelConfirmationResponse(let icid):
            return "ICID \(c(icid))"
        case .connectionParameterUpdateRequest(let min, let max, let latency, let timeout):
            return
                "interval \(SignalingParameters.interval(min))–\(SignalingParameters.interval(max)), latency \(latency), timeout \(Int(timeout) * 10) ms"
        case .connectionParameterUpdateResponse(let result):
            return r(result, SignalingValueNames.parameterUpdateResult)
        case .leCreditBasedConnectionRequest(let spsm, let scid, let mtu, let mps, let credits):
            return "SPSM \(PSM(spsm)), SCID \(c(scid)), MTU \(mtu), MPS \(mps), credits \(credits)"
        case .leCreditBasedConnectionResponse(let dcid, let mtu, let mps, let credits, let result):
            return
                "DCID \(c(dcid)), MTU \(mtu), MPS \(mps), credits \(credits), \(r(result, SignalingValueNames.leCreditResult))"
        case .flowControlCreditIndication(let cid, let credits):
            return "CID \(c(cid)), credits \(credits)"
        case .creditBasedConnectionRequest(let spsm, let mtu, let mps, let credits, let cids):
            return
                "SPSM \(PSM(spsm)), MTU \(mtu), MPS \(mps), credits \(credits), SCIDs \(cids.map(c).joined(separator: " "))"
        case .creditBasedConnectionResponse(let mtu, let mps, let credits, let result, let cids):
            return
                "MTU \(mtu), MPS \(mps), credits \(credits), \(r(result, SignalingValueNames.creditBasedResult)), DCIDs \(cids.map(c).joined(separator: " "))"
        case .creditBasedReconfigureRequest(let mtu, let mps, let cids):
            return "MTU \(mtu), MPS \(mps), DCIDs \(cids.map(c).joined(separator: " "))"
        case .creditBasedReconfigureResponse(let result):
            return r(result, SignalingValueNames.reconfigureResult)
        case .raw(let data):
            return data.isEmpty ? "" : Hex.string(data, separator: " ")
        }
    }

    static func optionSummary(_ options: [L2CAPConfigurationOption]) -> String {
        guard !options.isEmpty else { return "" }
        return ", options: "
            + options.map { o in
                if o.type == 0x01, o.data.count == 2 { return "MTU \(Int(o.data[0]) | Int(o.data[1]) << 8)" }
                return o.name ?? named(nil, o.rawType, digits: 2)
            }.joined(separator: ", ")
    }

    /// The parameters as fields.
    public var fields: [Field] {
        let c = SignalingParameters.cid
        let r = SignalingValueNames.render
        switch self {
        case .commandReject(let reason, let data):
            var out = [Field("Reason", r(reason, SignalingValueNames.rejectReason))]
            if reason == 0x0001, data.count == 2 {
                out.append(Field("Actual Signaling MTU", String(Int(data[0]) | Int(data[1]) << 8)))
            } else if reason == 0x0002, data.count == 4 {
                out.append(Field("Local Endpoint", c(UInt16(data[0]) | UInt16(data[1]) << 8)))
                out.append(Field("Remote Endpoint", c(UInt16(data[2]) | UInt16(data[3]) << 8)))
            } else if !data.isEmpty {
                out.append(Field("Data", Hex.string(data, separator: " ")))
            }
            return out
        case .connectionRequest(let psm, let scid):
            return [Field("PSM", PSM(psm).description), Field("Source CID", c(scid))]
        case .connectionResponse(let dcid, let scid, let result, let status),
            .createChannelResponse(let dcid, let scid, let result, let status):
            return [
                Field("Destination CID", c(dcid)), Field("Source CID", c(scid)),
                Field("Result", r(result, SignalingValueNames.connectionResult)),
                Field("Status", r(status, SignalingValueNames.connectionStatus)),
            ]
        case .configurationRequest(let dcid, let flags, let options):
            return [Field("Destination CID", c(dcid)), SignalingParameters.flagsField(flags)]
                + options.map(SignalingParameters.optionField)
        case .configurationResponse(let scid, let flags, let result, let options):
            return [
                Field("Source CID", c(scid)), SignalingParameters.flagsField(flags),
                Field("Result", r(result, SignalingValueNames.configurationResult)),
            ] + options.map(SignalingParameters.optionField)
        case .disconnectionRequest(let dcid, let scid), .disconnectionResponse(let dcid, let scid):
            return [Field("Destination CID", c(dcid)), Field("Source CID", c(scid))]
        case .echo(let data):
            return data.isEmpty ? [] : [Field("Data", Hex.string(data, separator: " "))]
        case .informationRequest(let type):
            return [Field("InfoType", r(type, SignalingValueNames.infoType))]
        case .informationResponse(let type, let result, let data):
            return [
                Field("InfoType", r(type, SignalingValueNames.infoType)),
                Field("Result", r(result, SignalingValueNames.infoResult)),
            ]
                + SignalingParameters.infoData(type: type, data: data)
        case .createChannelRequest(let psm, let scid, let controller):
            return [
                Field("PSM", PSM(psm).description), Field("Source CID", c(scid)),
                Field("Controller ID", String(controller)),
            ]
        case .moveChannelRequest(let icid, let controller):
            return [Field("Initiator CID", c(icid)), Field("Destination Controller ID", String(controller))]
        case .moveChannelResponse(let icid, let result):
            return [Field("Initiator CID", c(icid)), Field("Result", r(result, SignalingValueNames.moveResult))]
        case .moveChannelConfirmationRequest(let icid, let result):
            return [
                Field("Initiator CID", c(icid)), Field("Result", r(result, SignalingValueNames.moveConfirmationResult)),
            ]
        case .moveChannelConfirmationResponse(let icid):
            return [Field("Initiator CID", c(icid))]
        case .connectionParameterUpdateRequest(let min, let max, let latency, let timeout):
            return [
                Field("Interval Min", "\(min) (\(SignalingParameters.interval(min)))"),
                Field("Interval Max", "\(max) (\(SignalingParameters.interval(max)))"),
                Field("Latency", "\(latency) connection events"),
                Field("Timeout Multiplier", "\(timeout) (\(Int(timeout) * 10) ms)"),
            ]
        case .connectionParameterUpdateResponse(let result):
            return [Field("Result", r(result, SignalingValueNames.parameterUpdateResult))]
        case .leCreditBasedConnectionRequest(let spsm, let scid, let mtu, let mps, let credits):
            return [
                Field("SPSM", PSM(spsm).description), Field("Source CID", c(scid)), Field("MTU", String(mtu)),
                Field("MPS", String(mps)), Field("Initial Credits", String(credits)),
            ]
        case .leCreditBasedConnectionResponse(let dcid, let mtu, let mps, let credits, let result):
            return [
                Field("Destination CID", c(dcid)), Field("MTU", String(mtu)), Field("MPS", String(mps)),
                Field("Initial Credits", String(credits)),
                Field("Result", r(result, SignalingValueNames.leCreditResult)),
            ]
        case .flowControlCreditIndication(let cid, let credits):
            return [Field("CID", c(cid)), Field("Credits", String(credits))]
        case .creditBasedConnectionRequest(let spsm, let mtu, let mps, let credits, let cids):
            return [
                Field("SPSM", PSM(spsm).description), Field("MTU", String(mtu)), Field("MPS", String(mps)),
                Field("Initial Credits", String(credits)),
            ] + cids.map { Field("Source CID", c($0)) }
        case .creditBasedConnectionResponse(let mtu, let mps, let credits, let result, let cids):
            return [
                Field("MTU", String(mtu)), Field("MPS", String(mps)), Field("Initial Credits", String(credits)),
                Field("Result", r(result, SignalingValueNames.creditBasedResult)),
            ] + cids.map { Field("Destination CID", c($0)) }
        case .creditBasedReconfigureRequest(let mtu, let mps, let cids):
            return [Field("MTU", String(mtu)), Field("MPS", String(mps))] + cids.map { Field("Destination CID", c($0)) }
        case .creditBasedReconfigureResponse(let result):
            return [Field("Result", r(result, SignalingValueNames.reconfigureResult))]
        case .raw(let data):
            return data.isEmpty ? [] : [Field("Data", Hex.string(data, separator: " "))]
        }
    }

    static func flagsField(_ flags: UInt16) -> Field {
        Field("Flags", Hex.prefixed(flags, digits: 4), children: [Field("Continuation", flags & 1 != 0 ? "Yes" : "No")])
    }

    static func le16(_ d: [UInt8], _ i: Int) -> Int { Int(d[i]) | Int(d[i + 1]) << 8 }
    static func le32(_ d: [UInt8], _ i: Int) -> UInt32 {
        UInt32(d[i]) | UInt32(d[i + 1]) << 8 | UInt32(d[i + 2]) << 16 | UInt32(d[i + 3]) << 24
    }

    static func infoData(type: UInt16, data: [UInt8]) -> [Field] {
        switch (type, data.count) {
        case (0x0001, 2):
            return [Field("Connectionless MTU", String(le16(data, 0)))]
        case (0x0002, 4):
            let mask = le32(data, 0)
            var children: [Field] = []
            var known: UInt32 = 0
            for (bit, name) in SignalingValueNames.extendedFeatures {
                known |= 1 << UInt32(bit)
                if mask & (1 << UInt32(bit)) != 0 { children.append(Field(name, "Yes")) }
            }
            if mask & ~known != 0 { children.append(Field("Other bits", Hex.prefixed(mask & ~known, digits: 8))) }
            return [Field("Extended Features", Hex.prefixed(mask, digits: 8), children: children)]
        case (0x0003, 8):
            var children: [Field] = []
            for i in 0..<64 where data[i / 8] & (1 << UInt8(i % 8)) != 0 {
                children.append(Field("CID", ChannelID(UInt16(i)).description))
            }
            return [Field("Fixed Channels", Hex.string(data.reversed()), children: children)]
        default:
            return data.isEmpty ? [] : [Field("Data", Hex.string(data, separator: " "))]
        }
    }

    static func optionField(_ o: L2CAPConfigurationOption) -> Field {
        let d = o.data
        var children: [Field] = [Field("Hint", o.isHint ? "Yes" : "No"), Field("Length", String(d.count))]
        switch (o.type, d.count) {
        case (0x01, 2):
            children.append(Field("MTU", String(le16(d, 0))))
        case (0x02, 2):
            let v = le16(d, 0)
            children.append(Field("Flush Timeout", v == 0xFFFF ? "Infinite" : "\(v) ms"))
        case (0x03, 22):
            children += [
                Field("Flags", Hex.prefixed(d[0], digits: 2)),
                Field("Service Type", named(SignalingValueNames.serviceType[d[1]], d[1], digits: 2)),
                Field("Token Rate", String(le32(d, 2))), Field("Token Bucket Size", String(le32(d, 6))),
                Field("Peak Bandwidth", String(le32(d, 10))), Field("Latency", String(le32(d, 14))),
                Field("Delay Variation", String(le32(d, 18))),
            ]
        case (0x04, 9):
            children += [
                Field("Mode", named(SignalingValueNames.mode[d[0]], d[0], digits: 2)),
                Field("TxWindow Size", String(d[1])), Field("MaxTransmit", String(d[2])),
                Field("Retransmission Timeout", "\(le16(d, 3)) ms"), Field("Monitor Timeout", "\(le16(d, 5)) ms"),
                Field("Maximum PDU Size", String(le16(d, 7))),
            ]
        case (0x05, 1):
            children.append(
                Field(
                    "FCS Type",
                    d[0] == 0 ? "No FCS (0x00)" : d[0] == 1 ? "16-bit FCS (0x01)" : named(nil, d[0], digits: 2)))
        case (0x06, 16):
            children += [
                Field("Identifier", String(d[0])),
                Field("Service Type", named(SignalingValueNames.serviceType[d[1]], d[1], digits: 2)),
                Field("Maximum SDU Size", String(le16(d, 2))), Field("SDU Inter-arrival Time", String(le32(d, 4))),
                Field("Access Latency", String(le32(d, 8))), Field("Flush Timeout", String(le32(d, 12))),
            ]
        case (0x07, 2):
            children.append(Field("Max Window Size", String(le16(d, 0))))
        default:
            if !d.isEmpty { children.append(Field("Data", Hex.string(d, separator: " "))) }
        }
        return Field("Option", named(o.name, o.rawType, digits: 2), children: children)
    }
}
