import ScopeCore

// Rendering of SMP PDUs for people (computed on demand).

extension SMPPDU {
    static func hex(_ b: [UInt8]) -> String { Hex.string(b) }

    static func oobName(_ flag: UInt8) -> String {
        switch flag {
        case 0x00: return "OOB Authentication data not present (0x00)"
        case 0x01: return "OOB Authentication data from remote device present (0x01)"
        default: return named(nil, flag, digits: 2)
        }
    }

    static func addressTypeName(_ t: UInt8) -> String {
        switch t {
        case 0x00: return "Public Device Address (0x00)"
        case 0x01: return "Static Random Device Address (0x01)"
        default: return named(nil, t, digits: 2)
        }
    }

    /// "Pairing Request: KeyboardDisplay, Bonding, MITM, SC, CT2, key size 16, initiator keys
    /// EncKey, IdKey, SignKey, LinkKey, responder keys EncKey, IdKey, SignKey, LinkKey".
    public var summary: String {
        let name = code.name ?? code.description
        switch parameters {
        case .pairingFeatures(let f):
            return
                "\(name): \(f.ioCapability.name ?? f.ioCapability.description), \(f.authReq), key size \(f.maxEncryptionKeySize)"
                + (f.oobDataFlag == 1 ? ", OOB data present" : "")
                + ", initiator keys \(f.initiatorKeyDistribution), responder keys \(f.responderKeyDistribution)"
        case .pairingFailed(let reason):
            return "\(name): \(reason)"
        case .securityRequest(let a):
            return "\(name): \(a)"
        case .identityAddressInformation(let type, let address):
            return "\(name): \(address) (\(type == 0 ? "public" : type == 1 ? "static random" : "type \(type)"))"
        case .centralIdentification(let ediv, let rand):
            return "\(name): EDIV \(Hex.prefixed(ediv, digits: 4)), Rand \(Hex.prefixed(rand, digits: 16))"
        case .keypress(let t):
            return "\(name): \(t)"
        default:
            return name
        }
    }

    public var fields: [Field] {
        var out = [Field("Code", code.description)]
        switch parameters {
        case .pairingFeatures(let f):
            let a = f.authReq
            out += [
                Field("IO Capability", f.ioCapability.description),
                Field("OOB Data Flag", SMPPDU.oobName(f.oobDataFlag)),
                SMPPDU.authReqField(a),
                Field("Max Encryption Key Size", String(f.maxEncryptionKeySize)),
                SMPPDU.keyField("Initiator Key Distribution", f.initiatorKeyDistribution),
                SMPPDU.keyField("Responder Key Distribution", f.responderKeyDistribution),
            ]
        case .confirm(let v): out.append(Field("Confirm Value", SMPPDU.hex(v)))
        case .random(let v): out.append(Field("Random Value", SMPPDU.hex(v)))
        case .pairingFailed(let r): out.append(Field("Reason", r.description))
        case .encryptionInformation(let ltk): out.append(Field("Long Term Key", SMPPDU.hex(ltk)))
        case .centralIdentification(let ediv, let rand):
            out += [Field("EDIV", Hex.prefixed(ediv, digits: 4)), Field("Rand", Hex.prefixed(rand, digits: 16))]
        case .identityInformation(let irk): out.append(Field("Identity Resolving Key", SMPPDU.hex(irk)))
        case .identityAddressInformation(let type, let address):
            out += [Field("Address Type", SMPPDU.addressTypeName(type)), Field("BD_ADDR", address.description)]
        case .signingInformation(let csrk): out.append(Field("Signature Key", SMPPDU.hex(csrk)))
        case .securityRequest(let a): out.append(SMPPDU.authReqField(a))
        case .publicKey(let x, let y):
            out += [Field("Public Key X", SMPPDU.hex(x)), Field("Public Key Y", SMPPDU.hex(y))]
        case .dhKeyCheck(let v): out.append(Field("DHKey Check", SMPPDU.hex(v)))
        case .keypress(let t): out.append(Field("Notification Type", t.description))
        case .raw(let b): if !b.isEmpty { out.append(Field("Data", Hex.string(b, separator: " "))) }
        }
        return out
    }

    static func yes(_ b: Bool) -> String { b ? "True" : "False" }

    static func authReqField(_ a: SMPAuthReq) -> Field {
        var children = [
            Field("Bonding Flags", "\(a.bondingName) (\(a.bondingFlags))"),
            Field("MITM", yes(a.mitm)),
            Field("Secure Connections", yes(a.secureConnections)),
            Field("Keypress", yes(a.keypress)),
            Field("CT2", yes(a.ct2)),
        ]
        if a.reservedBits != 0 { children.append(Field("Reserved", Hex.prefixed(a.rawValue & 0xC0, digits: 2))) }
        return Field("AuthReq", "\(Hex.prefixed(a.rawValue, digits: 2)): \(a)", children: children)
    }

    static func keyField(_ name: String, _ k: SMPKeyDistribution) -> Field {
        var children = [
            Field("EncKey", yes(k.encKey)), Field("IdKey", yes(k.idKey)), Field("SignKey", yes(k.signKey)),
            Field("LinkKey", yes(k.linkKey)),
        ]
        if k.reservedMask != 0 { children.append(Field("Reserved", Hex.prefixed(k.reservedMask, digits: 2))) }
        return Field(name, "\(Hex.prefixed(k.rawValue, digits: 2)): \(k)", children: children)
    }
}
