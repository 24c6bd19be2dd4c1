import ScopeCore

/// Which fields are secrets: of HCI packets by the names their parameter layouts give them (the
/// layouts say where each field is, for printing, typed reading and redaction alike:
/// `HCICommand.spans`/`HCIEvent.spans` mark them `.secret`), of SMP PDUs by offset from the code
/// (Core v5.4 Vol 4 Part E §7, Vol 3 Part H §3).
public enum SecretFields {
    /// Command opcode → the names of its secret parameters.
    static let commands: [UInt16: Set<String>] = [
        0x040B: ["Link Key"],  // Link Key Request Reply
        0x040D: ["PIN Code Length", "PIN Code"],  // PIN Code Request Reply
        0x042E: ["Numeric Value"],  // User Passkey Request Reply
        0x0430: ["C", "R"],  // Remote OOB Data Request Reply
        0x0445: ["C_192", "R_192", "C_256", "R_256"],  // Remote OOB Extended Data Request Reply
        0x0C11: ["Link Key"],  // Write Stored Link Key (each key)
        0x2017: ["Key", "Plaintext Data"],  // LE Encrypt
        0x2019: ["Random Number", "Encrypted Diversifier", "Long Term Key"],  // LE Enable Encryption
        0x201A: ["Long Term Key"],  // LE Long Term Key Request Reply
        0x2026: ["Key X Coordinate", "Key Y Coordinate"],  // LE Generate DHKey: the remote public key
        0x205E: ["Key X Coordinate", "Key Y Coordinate"],  // LE Generate DHKey v2
        0x2027: ["Peer IRK", "Local IRK"],  // LE Add Device To Resolving List
    ]
    /// Event code → the names of its secret parameters.
    static let events: [UInt8: Set<String>] = [
        0x15: ["Link Key"],  // Return Link Keys (each key)
        0x18: ["Link Key"],  // Link Key Notification
        0x33: ["Numeric Value"],  // User Confirmation Request
        0x3B: ["Passkey"],  // User Passkey Notification
    ]
    /// LE Meta subevent → the names of its secret parameters.
    static let subevents: [UInt8: Set<String>] = [
        0x05: ["Random Number", "Encrypted Diversifier"],  // LE Long Term Key Request
        0x08: ["Key X Coordinate", "Key Y Coordinate"],  // LE Read Local P-256 Public Key Complete
        0x09: ["DH Key"],  // LE Generate DHKey Complete
    ]
    /// Command Complete: the answered opcode → the names of its secret return parameters.
    static let returns: [UInt16: Set<String>] = [
        0x0C57: ["C", "R"],  // Read Local OOB Data
        0x0C7D: ["C_192", "R_192", "C_256", "R_256"],  // Read Local OOB Extended Data
        0x2017: ["Encrypted Data"],  // LE Encrypt
        0x2018: ["Random Number"],  // LE Rand
    ]

    /// Secret ranges of an SMP PDU by its code.
    public static func smp(code: UInt8) -> [Range<Int>] {
        switch code {
        case 0x03, 0x04: return [1..<17]  // Pairing Confirm, Pairing Random
        case 0x06: return [1..<17]  // Encryption Information: LTK
        case 0x07: return [1..<11]  // Central Identification: EDIV, Rand
        case 0x08: return [1..<17]  // Identity Information: IRK
        case 0x0A: return [1..<17]  // Signing Information: CSRK
        case 0x0C: return [1..<65]  // Pairing Public Key
        case 0x0D: return [1..<17]  // Pairing DHKey Check
        default: return []
        }
    }
}

/// Device names: where they sit inside name fields and advertising data, and their keyed
/// same-length replacement.
enum NameFields {
    /// The name inside a name field: up to the first NUL; nil when empty.
    static func cStringRange(_ p: [UInt8], _ range: Range<Int>) -> Range<Int>? {
        let range = range.clamped(to: 0..<p.count)
        let end = p[range].firstIndex(of: 0) ?? range.upperBound
        return end > range.lowerBound ? range.lowerBound..<end : nil
    }

    /// The Shortened/Complete Local Name values (AD types 0x08, 0x09) of the AD structures in
    /// `range`, each up to its first NUL (vpuhoff's BK300 pads "BK300" with 15 NULs: the name
    /// learned must be the 5 bytes found elsewhere in the capture).
    static func adNameRanges(_ p: [UInt8], _ range: Range<Int>) -> [Range<Int>] {
        var out: [Range<Int>] = []
        let end = min(range.upperBound, p.count)
        var i = range.lowerBound
        while i < end {
            let length = Int(p[i])
            guard length > 0, i + 1 + length <= end else { break }
            if (p[i + 1] == 0x08 || p[i + 1] == 0x09) && length > 1, let name = cStringRange(p, (i + 2)..<(i + 1 + length)) {
                out.append(name)
            }
            i += 1 + length
        }
        return out
    }

    /// "dev-" and keyed letters, same length; the same name always gets the same replacement.
    static func replace(_ p: inout [UInt8], _ range: Range<Int>, prf: SipHash24) {
        var h = prf.hash(Array(p[range]) + [0x4E])
        let prefix = Array("dev-".utf8)
        for (k, i) in range.enumerated() {
            if k < prefix.count && range.count > prefix.count + 1 {
                p[i] = prefix[k]
            } else {
                p[i] = 0x61 + UInt8(h % 26)
                h = h / 26 == 0 ? prf.hash([UInt8(k & 0xFF)]) : h / 26
            }
        }
    }
}
