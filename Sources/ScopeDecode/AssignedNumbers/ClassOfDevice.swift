import ScopeCore

/// Class of Device (Assigned Numbers §2.8; Core v5.4, Vol 2, Part B, §6.5.1.4): 24 bits,
/// little-endian on the wire (3 octets).
///
///     23            13 12        8 7          2 1  0
///     | major service | major dev | minor dev | 00 |
///
/// Decoded here: the major service class bits and the major device class. The minor device
/// class, whose meaning depends on the major class, is kept as a number.
public struct ClassOfDevice: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 24-bit value (bits 24–31 are always zero).
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue & 0xFF_FFFF }

    /// From the 3 wire octets; nil unless there are exactly 3.
    public init?(littleEndian bytes: [UInt8]) {
        guard bytes.count == 3 else { return nil }
        self.init(rawValue: UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16)
    }

    /// Bits 12–8.
    public var majorDeviceClass: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 8) & 0x1F }
    /// Bits 7–2.
    public var minorDeviceClass: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 2) & 0x3F }
    /// Bits 1–0 (the format type, 0b00 in every assigned format).
    public var formatType: UInt8 { UInt8(truncatingIfNeeded: rawValue) & 0x03 }

    /// Name of the major device class, or nil for a reserved value (Assigned Numbers §2.8.2).
    public var majorDeviceClassName: String? {
        switch majorDeviceClass {
        case 0x00: "Miscellaneous"
        case 0x01: "Computer (desktop, notebook, PDA, organizer, ...)"
        case 0x02: "Phone (cellular, cordless, pay phone, modem, ...)"
        case 0x03: "LAN/Network Access Point"
        case 0x04: "Audio/Video (headset, speaker, stereo, video display, VCR, ...)"
        case 0x05: "Peripheral (mouse, joystick, keyboard, ...)"
        case 0x06: "Imaging (printer, scanner, camera, display, ...)"
        case 0x07: "Wearable"
        case 0x08: "Toy"
        case 0x09: "Health"
        case 0x1F: "Uncategorized (device code not specified)"
        default: nil
        }
    }

    /// Major service class bits (Assigned Numbers §2.8.1), bit number and name.
    public static let majorServiceClasses: [(bit: Int, name: String)] = [
        (13, "Limited Discoverable Mode"),
        (14, "LE audio"),
        (16, "Positioning (Location identification)"),
        (17, "Networking (LAN, Ad hoc, ...)"),
        (18, "Rendering (Printing, Speakers, ...)"),
        (19, "Capturing (Scanner, Microphone, ...)"),
        (20, "Object Transfer (v-Inbox, v-Folder, ...)"),
        (21, "Audio (Speaker, Microphone, Headset service, ...)"),
        (22, "Telephony (Cordless telephony, Modem, Headset service, ...)"),
        (23, "Information (WEB-server, WAP-server, ...)"),
    ]

    /// Names of the major service class bits that are set, lowest bit first.
    public var majorServiceClassNames: [String] {
        Self.majorServiceClasses.filter { rawValue & (1 << UInt32($0.bit)) != 0 }.map(\.name)
    }

    /// Set bits 13–23 that have no name (bit 15 is reserved).
    public var reservedServiceBits: UInt32 {
        let named = Self.majorServiceClasses.reduce(UInt32(0)) { $0 | 1 << UInt32($1.bit) }
        return rawValue & 0xFF_E000 & ~named
    }

    /// "0x5a020c"
    public var description: String { Hex.prefixed(rawValue, digits: 6) }
}
