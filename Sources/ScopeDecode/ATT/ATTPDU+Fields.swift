import ScopeCore

// Rendering of ATT PDUs for people (computed on demand).

extension ATTPDU {
    static func h(_ v: UInt16) -> String { Hex.prefixed(v, digits: 4) }
    static func bytes(_ n: Int) -> String { "\(n) byte\(n == 1 ? "" : "s")" }

    /// One line in the spirit of tshark's Info column, e.g.
    /// "Read By Group Type Request, Handles: 0x0001..0xffff, Type: Primary Service (0x2800)".
    public var summary: String {
        let name = opcode.name ?? opcode.description
        let h = ATTPDU.h
        let detail: String
        switch parameters {
        case .none:
            detail = ""
        case .error(let req, let handle, let code):
            return "Error Response - \(code), Handle: \(h(handle)), Request: \(req.name ?? req.description)"
        case .mtu(let mtu):
            detail = (opcode.rawValue == 0x02 ? "Client Rx MTU: " : "Server Rx MTU: ") + String(mtu)
        case .findInformationRequest(let r):
            detail = "Handles: \(r)"
        case .findInformationResponse(_, let entries):
            detail = entries.map { "\(h($0.handle)): \($0.uuid)" }.joined(separator: ", ")
        case .findByTypeValueRequest(let r, let type, let value):
            let v = ATTUUID(littleEndian: value).map(\.description) ?? Hex.string(value)
            detail = "\(ATTUUID(type)), Handles: \(r), Value: \(v)"
        case .findByTypeValueResponse(let ranges):
            detail = ranges.map(\.description).joined(separator: ", ")
        case .typedRange(let r, let type):
            detail = "Handles: \(r), Type: \(type)"
        case .attributeDataList(_, let entries):
            detail =
                "\(entries.count) attribute\(entries.count == 1 ? "" : "s"): "
                + entries.map { h($0.handle) }.joined(separator: ", ")
        case .handle(let handle):
            detail = "Handle: \(h(handle))"
        case .value(let v):
            detail = ATTPDU.bytes(v.count)
        case .handleOffset(let handle, let offset):
            detail = "Handle: \(h(handle)), Offset: \(offset)"
        case .handles(let hs):
            detail = "Handles: " + hs.map(h).joined(separator: " ")
        case .lengthValueList(let values, _):
            detail = "\(values.count) value\(values.count == 1 ? "" : "s")"
        case .handleValue(let handle, let v), .signedWrite(let handle, let v, _):
            detail = "Handle: \(h(handle)), \(ATTPDU.bytes(v.count))"
        case .prepareWrite(let handle, let offset, let v):
            detail = "Handle: \(h(handle)), Offset: \(offset), \(ATTPDU.bytes(v.count))"
        case .executeWrite(let flags):
            detail = ATTPDU.executeFlagsName(flags)
        case .handleValueList(let list):
            detail = "Handles: " + list.map { h($0.handle) }.joined(separator: " ")
        case .raw(let b):
            detail = b.isEmpty ? "" : ATTPDU.bytes(b.count)
        }
        return detail.isEmpty ? name : name + ", " + detail
    }

    static func executeFlagsName(_ flags: UInt8) -> String {
        switch flags {
        case 0x00: return "Cancel all prepared writes (0x00)"
        case 0x01: return "Immediately write all pending prepared values (0x01)"
        default: return named(nil, flags, digits: 2)
        }
    }

    static func valueField(_ name: String, _ v: [UInt8]) -> Field {
        valueField(name, v[...])
    }

    static func valueField(_ name: String, _ v: ArraySlice<UInt8>) -> Field {
        Field(name, v.isEmpty ? "(empty)" : Hex.string(v, separator: " "))
    }

    /// The opcode (with its bit fields) followed by the parameters.
    public var fields: [Field] {
        let h = ATTPDU.h
        var out = [
            Field(
                "Opcode", opcode.description,
                children: [
                    Field("Authentication Signature Flag", opcode.hasAuthenticationSignature ? "True" : "False"),
                    Field("Command Flag", opcode.isCommand ? "True" : "False"),
                    Field("Method", Hex.prefixed(opcode.method, digits: 2)),
                ])
        ]
        switch parameters {
        case .none:
            break
        case .error(let req, let handle, let code):
            out += [
                Field("Request Opcode in Error", req.description), Field("Handle in Error", h(handle)),
                Field("Error Code", code.description),
            ]
        case .mtu(let mtu):
            out.append(Field(opcode.rawValue == 0x02 ? "Client Rx MTU" : "Server Rx MTU", String(mtu)))
        case .findInformationRequest(let r):
            out += [Field("Starting Handle", h(r.start)), Field("Ending Handle", h(r.end))]
        case .findInformationResponse(let format, let entries):
            let f =
                format == 1
                ? "16-bit UUIDs (0x01)" : format == 2 ? "128-bit UUIDs (0x02)" : named(nil, format, digits: 2)
            out.append(Field("Format", f))
            out += entries.map { Field("Handle", h($0.handle), children: [Field("UUID", $0.uuid.description)]) }
        case .findByTypeValueRequest(let r, let type, let value):
            out += [
                Field("Starting Handle", h(r.start)), Field("Ending Handle", h(r.end)),
                Field("Attribute Type", ATTUUID(type).description),
                Field(
                    "Attribute Value",
                    ATTUUID(littleEndian: value).map(\.description) ?? Hex.string(value, separator: " ")),
            ]
        case .findByTypeValueResponse(let ranges):
            out += ranges.map {
                Field(
                    "Handles Information", $0.description,
                    children: [
                        Field("Found Attribute Handle", h($0.start)), Field("Group End Handle", h($0.end)),
                    ])
            }
        case .typedRange(let r, let type):
            out += [
                Field("Starting Handle", h(r.start)), Field("Ending Handle", h(r.end)),
                Field(opcode.rawValue == 0x10 ? "Attribute Group Type" : "Attribute Type", type.description),
            ]
        case .attributeDataList(let length, let entries):
            out.append(Field("Length", String(length)))
            out += entries.map { e in
                var children = [Field("Handle", h(e.handle))]
                if let end = e.endGroupHandle { children.append(Field("End Group Handle", h(end))) }
                children.append(ATTPDU.valueField("Value", e.value))
                return Field("Attribute Data", h(e.handle), children: children)
            }
        case .handle(let handle):
            out.append(Field("Handle", h(handle)))
        case .value(let v):
            out.append(ATTPDU.valueField(opcode.rawValue == 0x0F ? "Set Of Values" : "Value", v))
        case .handleOffset(let handle, let offset):
            out += [Field("Handle", h(handle)), Field("Offset", String(offset))]
        case .handles(let hs):
            out += hs.map { Field("Handle", h($0)) }
        case .lengthValueList(let values, let cut):
            for (i, v) in values.enumerated() {
                let last = i == values.count - 1
                out.append(ATTPDU.valueField("Value", v))
                if last && cut { out.append(Field("Note", "last value cut to fit ATT_MTU")) }
            }
        case .handleValue(let handle, let v):
            out += [Field("Handle", h(handle)), ATTPDU.valueField("Value", v)]
        case .signedWrite(let handle, let v, let sig):
            out += [Field("Handle", h(handle)), ATTPDU.valueField("Value", v)]
            if sig.count == ATTPDU.signatureSize {
                let counter = UInt32(sig[0]) | UInt32(sig[1]) << 8 | UInt32(sig[2]) << 16 | UInt32(sig[3]) << 24
                out.append(
                    Field(
                        "Authentication Signature", Hex.string(sig, separator: " "),
                        children: [
                            Field("Sign Counter", String(counter)), Field("MAC", Hex.string(sig[4...], separator: " ")),
                        ]))
            }
        case .prepareWrite(let handle, let offset, let v):
            out += [
                Field("Handle", h(handle)), Field("Offset", String(offset)),
                ATTPDU.valueField("Part Attribute Value", v),
            ]
        case .executeWrite(let flags):
            out.append(Field("Flags", ATTPDU.executeFlagsName(flags)))
        case .handleValueList(let list):
            out += list.map {
                Field(
                    "Handle", h($0.handle),
                    children: [Field("Length", String($0.value.count)), ATTPDU.valueField("Value", $0.value)])
            }
        case .raw(let b):
            if !b.isEmpty { out.append(ATTPDU.valueField("Data", b)) }
        }
        return out
    }
}
