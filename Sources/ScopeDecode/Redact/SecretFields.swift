import ScopeCore

/// Where secrets sit in HCI packets and SMP PDUs (Core v5.4 Vol 4 Part E §7, Vol 3 Part H §3).
/// Ranges are byte ranges of the record payload (HCI) or of the SMP PDU (code at 0).
public enum SecretFields {
    /// Command opcode → secret ranges within the parameters.
    static let commands: [UInt16: [Range<Int>]] = [
        0x040B: [6..<22],  // Link Key Request Reply: Link_Key
        0x040D: [6..<23],  // PIN Code Request Reply: PIN_Code_Length, PIN_Code
        0x042E: [6..<10],  // User Passkey Request Reply: Numeric_Value
        0x0430: [6..<38],  // Remote OOB Data Request Reply: C, R
        0x0445: [6..<70],  // Remote OOB Extended Data Request Reply: C_192, R_192, C_256, R_256
        0x2017: [0..<32],  // LE Encrypt: Key, Plaintext_Data
        0x2019: [2..<28],  // LE Enable Encryption: Random_Number, Encrypted_Diversifier, Long_Term_Key
        0x201A: [2..<18],  // LE Long Term Key Request Reply: Long_Term_Key
        0x2026: [0..<64],  // LE Generate DHKey: Remote_P-256_Public_Key
        0x205E: [0..<64],  // LE Generate DHKey v2
        0x2027: [7..<39],  // LE Add Device To Resolving List: Peer_IRK, Local_IRK
    ]
    /// Event code → secret ranges within the parameters.
    static let events: [UInt8: [Range<Int>]] = [
        0x18: [6..<22],  // Link Key Notification: Link_Key
        0x3B: [6..<10],  // User Passkey Notification: Passkey
        0x33: [6..<10],  // User Confirmation Request: Numeric_Value
    ]
    /// LE Meta subevent → secret ranges within the parameters (subevent code at 0).
    static let subevents: [UInt8: [Range<Int>]] = [
        0x05: [3..<13],  // LE Long Term Key Request: Random_Number, Encrypted_Diversifier
        0x08: [2..<66],  // LE Read Local P-256 Public Key Complete: Key
        0x09: [2..<34],  // LE Generate DHKey Complete: DH_Key
    ]
    /// Command Complete return parameters (status at 0) → secret ranges.
    static let returns: [UInt16: [Range<Int>]] = [
        0x0C57: [1..<33],  // Read Local OOB Data: C, R
        0x0C7D: [1..<65],  // Read Local OOB Extended Data
        0x2017: [1..<17],  // LE Encrypt: Encrypted_Data
        0x2018: [1..<9],  // LE Rand: Random_Number
    ]

    /// Secret ranges of an HCI command record payload (opcode, length, parameters).
    public static func command(_ p: [UInt8]) -> [Range<Int>] {
        guard p.count >= 3 else { return [] }
        let opcode = UInt16(p[0]) | UInt16(p[1]) << 8
        if opcode == 0x0C11, p.count >= 4 {  // Write Stored Link Key: Num_Keys × (BD_ADDR, Link_Key)
            return (0..<Int(p[3])).map { (4 + $0 * 22 + 6)..<(4 + $0 * 22 + 22) }
        }
        return (commands[opcode] ?? []).map { ($0.lowerBound + 3)..<($0.upperBound + 3) }
    }

    /// Secret ranges of an HCI event record payload (code, length, parameters).
    public static func event(_ p: [UInt8]) -> [Range<Int>] {
        guard p.count >= 3 else { return [] }
        let shift: ([Range<Int>], Int) -> [Range<Int>] = { rs, base in rs.map { ($0.lowerBound + base)..<($0.upperBound + base) } }
        switch p[0] {
        case 0x15:  // Return Link Keys: Num_Keys × (BD_ADDR, Link_Key)
            return (0..<Int(p[2])).map { (3 + $0 * 22 + 6)..<(3 + $0 * 22 + 22) }
        case 0x3E:
            return shift(subevents[p[2]] ?? [], 2)
        case 0x0E where p.count >= 5:
            let opcode = UInt16(p[3]) | UInt16(p[4]) << 8
            return shift(returns[opcode] ?? [], 5)
        default:
            return shift(events[p[0]] ?? [], 2)
        }
    }

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
