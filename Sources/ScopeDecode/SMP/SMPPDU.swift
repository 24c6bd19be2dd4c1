import ScopeCore

/// Pairing Request/Response features (Core v5.4, Vol 3, Part H, §3.5.1–§3.5.2).
public struct SMPPairingFeatures: Hashable, Sendable {
    public var ioCapability: SMPIOCapability
    /// 0x00 OOB authentication data not present, 0x01 present.
    public var oobDataFlag: UInt8
    public var authReq: SMPAuthReq
    /// 7–16.
    public var maxEncryptionKeySize: UInt8
    public var initiatorKeyDistribution: SMPKeyDistribution
    public var responderKeyDistribution: SMPKeyDistribution

    public init(
        ioCapability: SMPIOCapability, oobDataFlag: UInt8, authReq: SMPAuthReq, maxEncryptionKeySize: UInt8,
        initiatorKeyDistribution: SMPKeyDistribution, responderKeyDistribution: SMPKeyDistribution
    ) {
        self.ioCapability = ioCapability
        self.oobDataFlag = oobDataFlag
        self.authReq = authReq
        self.maxEncryptionKeySize = maxEncryptionKeySize
        self.initiatorKeyDistribution = initiatorKeyDistribution
        self.responderKeyDistribution = responderKeyDistribution
    }
}

/// The typed parameters of an SMP command (§3.5–§3.6). 16-byte values are kept in wire order
/// (least significant byte first), as btmon and tshark show them.
public enum SMPParameters: Sendable, Hashable {
    /// Pairing Request (0x01) / Pairing Response (0x02).
    case pairingFeatures(SMPPairingFeatures)
    /// Pairing Confirm (0x03): Mconfirm/Sconfirm.
    case confirm([UInt8])
    /// Pairing Random (0x04): Mrand/Srand.
    case random([UInt8])
    /// Pairing Failed (0x05).
    case pairingFailed(SMPPairingFailedReason)
    /// Encryption Information (0x06): LTK.
    case encryptionInformation(ltk: [UInt8])
    /// Central Identification (0x07): EDIV and Rand.
    case centralIdentification(ediv: UInt16, rand: UInt64)
    /// Identity Information (0x08): IRK.
    case identityInformation(irk: [UInt8])
    /// Identity Address Information (0x09): 0x00 public, 0x01 static random.
    case identityAddressInformation(addressType: UInt8, address: BDAddr)
    /// Signing Information (0x0A): CSRK.
    case signingInformation(csrk: [UInt8])
    /// Security Request (0x0B).
    case securityRequest(SMPAuthReq)
    /// Pairing Public Key (0x0C): X and Y, 32 bytes each.
    case publicKey(x: [UInt8], y: [UInt8])
    /// Pairing DHKey Check (0x0D): Ea/Eb.
    case dhKeyCheck([UInt8])
    /// Pairing Keypress Notification (0x0E).
    case keypress(SMPKeypressType)
    /// Unknown code or too short: the bytes after the code.
    case raw([UInt8])
}

/// One Security Manager Protocol PDU (L2CAP CID 0x0006 on LE, 0x0007 on BR/EDR; Core v5.4,
/// Vol 3, Part H, §3.3). Every SMP command has a fixed size; shorter PDUs are malformed, longer
/// ones have their trailing bytes reported.
public struct SMPPDU: Sendable, Hashable {
    public var code: SMPCode
    public var parameters: SMPParameters
    public var malformed: [Malformation]
    public var baseOffset: Int

    public init(code: SMPCode, parameters: SMPParameters, malformed: [Malformation] = [], baseOffset: Int = 0) {
        self.code = code
        self.parameters = parameters
        self.malformed = malformed
        self.baseOffset = baseOffset
    }

    /// The pairing features of a Pairing Request/Response.
    public var pairingFeatures: SMPPairingFeatures? {
        if case .pairingFeatures(let f) = parameters { return f }
        return nil
    }

    /// The reason of a Pairing Failed.
    public var failureReason: SMPPairingFailedReason? {
        if case .pairingFailed(let r) = parameters { return r }
        return nil
    }

    /// The AuthReq of a Pairing Request/Response or Security Request.
    public var authReq: SMPAuthReq? {
        switch parameters {
        case .pairingFeatures(let f): return f.authReq
        case .securityRequest(let a): return a
        default: return nil
        }
    }

    /// Decodes one SMP PDU.
    ///
    /// - Parameters:
    ///   - bytes: the L2CAP payload, code first.
    ///   - baseOffset: offset of the first byte of `bytes` (``L2CAPPDU/payloadOffset``).
    public static func decode(_ bytes: [UInt8], baseOffset: Int) -> SMPPDU {
        decode(bytes[...], baseOffset: baseOffset)
    }

    public static func decode(_ bytes: ArraySlice<UInt8>, baseOffset: Int) -> SMPPDU {
        var reader = ByteReader(bytes, layer: .smp, baseOffset: baseOffset)
        guard let raw = try? reader.readU8() else {
            return SMPPDU(
                code: SMPCode(0), parameters: .raw([]),
                malformed: [Malformation(layer: .smp, offset: baseOffset, message: "empty SMP PDU")],
                baseOffset: baseOffset)
        }
        let code = SMPCode(raw)
        var pdu = SMPPDU(code: code, parameters: .raw(reader.readRest()), baseOffset: baseOffset)
        guard let size = code.pduSize, let name = code.name else { return pdu }
        if bytes.count < size {
            pdu.malformed.append(
                Malformation(
                    layer: .smp, offset: baseOffset + bytes.count,
                    message: "\(name) truncated: \(bytes.count) of \(size) bytes"))
            return pdu
        }
        if bytes.count > size {
            let n = bytes.count - size
            pdu.malformed.append(
                Malformation(
                    layer: .smp, offset: baseOffset + size,
                    message: "\(n) trailing byte\(n == 1 ? "" : "s") after \(name)"))
        }
        // From here the size is checked, so the reads below cannot fail; `try?` keeps the
        // compiler and the no-trap rule both satisfied.
        var r = ByteReader(bytes.dropFirst().prefix(size - 1), layer: .smp, baseOffset: baseOffset + 1)
        let p: SMPParameters?
        switch raw {
        case 0x01, 0x02:
            let b = r.readRest()
            p = .pairingFeatures(
                SMPPairingFeatures(
                    ioCapability: SMPIOCapability(rawValue: b[0]), oobDataFlag: b[1],
                    authReq: SMPAuthReq(rawValue: b[2]),
                    maxEncryptionKeySize: b[3], initiatorKeyDistribution: SMPKeyDistribution(rawValue: b[4]),
                    responderKeyDistribution: SMPKeyDistribution(rawValue: b[5])))
            if b[1] > 0x01 {
                pdu.malformed.append(
                    Malformation(
                        layer: .smp, offset: baseOffset + 2,
                        message: "OOB data flag \(Hex.prefixed(b[1], digits: 2)) is reserved"))
            }
            if b[3] < 7 || b[3] > 16 {
                pdu.malformed.append(
                    Malformation(
                        layer: .smp, offset: baseOffset + 4,
                        message: "maximum encryption key size \(b[3]) is outside 7–16"))
            }
        case 0x03: p = .confirm(r.readRest())
        case 0x04: p = .random(r.readRest())
        case 0x05: p = (try? r.readU8()).map { .pairingFailed(SMPPairingFailedReason($0)) }
        case 0x06: p = .encryptionInformation(ltk: r.readRest())
        case 0x07:
            if let ediv = try? r.readLE16(), let rand = try? r.readLE64() {
                p = .centralIdentification(ediv: ediv, rand: rand)
            } else {
                p = nil
            }
        case 0x08: p = .identityInformation(irk: r.readRest())
        case 0x09:
            if let type = try? r.readU8(), let address = try? r.readAddress() {
                p = .identityAddressInformation(addressType: type, address: address)
            } else {
                p = nil
            }
        case 0x0A: p = .signingInformation(csrk: r.readRest())
        case 0x0B: p = (try? r.readU8()).map { .securityRequest(SMPAuthReq(rawValue: $0)) }
        case 0x0C:
            if let x = try? r.readBytes(32), let y = try? r.readBytes(32) {
                p = .publicKey(x: x, y: y)
            } else {
                p = nil
            }
        case 0x0D: p = .dhKeyCheck(r.readRest())
        case 0x0E: p = (try? r.readU8()).map { .keypress(SMPKeypressType(rawValue: $0)) }
        default: p = nil
        }
        if let p { pdu.parameters = p }
        return pdu
    }
}
