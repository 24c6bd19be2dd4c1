import ScopeCore

/// One advertising report from LE Advertising Report (subevent 0x02, §7.7.65.2), LE Directed
/// Advertising Report (0x0B, §7.7.65.11) or LE Extended Advertising Report (0x0D,
/// §7.7.65.13) (Core v5.4, Vol 4, Part E), normalised to one shape. Decoding is cheap: no
/// strings are built; AD structures are parsed only when ``ad`` is read.
public struct AdvertisingReport: Sendable, Hashable {
    /// Event_Type as on the wire: the 0x00–0x04 code for legacy reports, the 16-bit bit field
    /// for extended reports.
    public var eventType: UInt16
    /// True for reports from the legacy (0x02) and directed (0x0B) subevents.
    public var isLegacyEvent: Bool
    public var addressType: UInt8
    public var address: BDAddr
    /// RSSI in dBm; 127 means not available.
    public var rssi: Int8
    /// TX power in dBm (extended reports; 127 = not available), nil for legacy reports.
    public var txPower: Int8?
    /// Extended reports only: 1 LE 1M, 3 LE Coded.
    public var primaryPHY: UInt8?
    /// Extended reports only: 0 none, 1 LE 1M, 2 LE 2M, 3 LE Coded.
    public var secondaryPHY: UInt8?
    /// Extended reports only: Advertising SID (0xFF: no ADI field).
    public var sid: UInt8?
    /// Extended reports only: Periodic_Advertising_Interval in 1.25 ms units (0: none).
    public var periodicInterval: UInt16?
    /// Directed and extended reports: the address the advertisement was directed to.
    public var directAddressType: UInt8?
    public var directAddress: BDAddr?
    /// Advertising or scan response data (empty for directed reports). A slice of the event's
    /// parameters, sharing their storage (indices are not zero-based).
    public var data: ArraySlice<UInt8>
    /// Offset of `data[0]` in the record payload.
    public var dataOffset: Int

    public init(
        eventType: UInt16, isLegacyEvent: Bool, addressType: UInt8, address: BDAddr, rssi: Int8,
        txPower: Int8? = nil, primaryPHY: UInt8? = nil, secondaryPHY: UInt8? = nil, sid: UInt8? = nil,
        periodicInterval: UInt16? = nil, directAddressType: UInt8? = nil, directAddress: BDAddr? = nil,
        data: ArraySlice<UInt8> = [], dataOffset: Int = 0
    ) {
        self.eventType = eventType
        self.isLegacyEvent = isLegacyEvent
        self.addressType = addressType
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.sid = sid
        self.periodicInterval = periodicInterval
        self.directAddressType = directAddressType
        self.directAddress = directAddress
        self.data = data
        self.dataOffset = dataOffset
    }

    /// Data_Status of an extended report (bits 5–6 of Event_Type).
    public enum DataStatus: UInt8, Sendable, Hashable, CaseIterable {
        case complete = 0
        case incompleteMoreToCome = 1
        case incompleteTruncated = 2
        /// Value 3 is reserved for future use.
        case reserved = 3
    }

    // MARK: Event type bits (extended: §7.7.65.13)

    static let connectableBit: UInt16 = 0x0001
    static let scannableBit: UInt16 = 0x0002
    static let directedBit: UInt16 = 0x0004
    static let scanResponseBit: UInt16 = 0x0008
    static let legacyBit: UInt16 = 0x0010

    public var isScanResponse: Bool {
        isLegacyEvent ? eventType == 0x04 : eventType & Self.scanResponseBit != 0
    }

    public var isConnectable: Bool {
        isLegacyEvent ? (eventType == 0x00 || eventType == 0x01) : eventType & Self.connectableBit != 0
    }

    public var isScannable: Bool {
        isLegacyEvent ? (eventType == 0x00 || eventType == 0x02) : eventType & Self.scannableBit != 0
    }

    public var isDirected: Bool {
        isLegacyEvent ? eventType == 0x01 : eventType & Self.directedBit != 0
    }

    /// For extended reports, whether the advertiser used legacy PDUs.
    public var usesLegacyPDU: Bool { isLegacyEvent || eventType & Self.legacyBit != 0 }

    /// Always `.complete` for legacy reports.
    public var dataStatus: DataStatus {
        guard !isLegacyEvent else { return .complete }
        return DataStatus(rawValue: UInt8(truncatingIfNeeded: (eventType >> 5) & 0x3)) ?? .reserved
    }

    /// The AD structures in ``data``; malformations carry record-payload offsets.
    public var ad: ADParseResult { ADParser.parse(Array(data), baseOffset: dataOffset) }

    /// "ADV_IND", "SCAN_RSP", … for legacy reports and for extended reports of legacy PDUs;
    /// otherwise the set bits ("Connectable, Scannable") and the data status.
    public var eventTypeName: String {
        if isLegacyEvent {
            return HCIValueTables.legacyReportEventType[UInt64(eventType)] ?? "Unknown (\(Hex.prefixed(eventType, digits: 2)))"
        }
        return Self.extendedEventTypeName(eventType)
    }

    /// Names an extended Event_Type. Legacy-PDU combinations follow the table in Core v5.4,
    /// Vol 4, Part E, §7.7.65.13: 0x13 ADV_IND, 0x15 ADV_DIRECT_IND, 0x12 ADV_SCAN_IND,
    /// 0x10 ADV_NONCONN_IND, 0x1B SCAN_RSP to an ADV_IND, 0x1A SCAN_RSP to an ADV_SCAN_IND.
    public static func extendedEventTypeName(_ eventType: UInt16) -> String {
        switch eventType {
        case 0x13: return "ADV_IND"
        case 0x15: return "ADV_DIRECT_IND"
        case 0x12: return "ADV_SCAN_IND"
        case 0x10: return "ADV_NONCONN_IND"
        case 0x1B: return "SCAN_RSP to an ADV_IND"
        case 0x1A: return "SCAN_RSP to an ADV_SCAN_IND"
        default: break
        }
        var parts: [String] = []
        if eventType & connectableBit != 0 { parts.append("Connectable") }
        if eventType & scannableBit != 0 { parts.append("Scannable") }
        if eventType & directedBit != 0 { parts.append("Directed") }
        if eventType & scanResponseBit != 0 { parts.append("Scan Response") }
        if eventType & legacyBit != 0 { parts.append("Legacy") }
        if parts.isEmpty { parts.append("Non-connectable, non-scannable") }
        switch (eventType >> 5) & 0x3 {
        case 0: parts.append("Complete")
        case 1: parts.append("Incomplete, more data to come")
        case 2: parts.append("Incomplete, truncated")
        default: parts.append("Reserved data status")
        }
        let reserved = eventType & 0xFF80
        if reserved != 0 { parts.append("RFU bits \(Hex.prefixed(reserved, digits: 4))") }
        return parts.joined(separator: ", ")
    }
}

/// The reports of one advertising-report event, in order.
///
/// Most events carry one report that fills their parameters exactly. Such an event keeps no
/// array (an allocation and a free per event): its report is read from the event's bytes when
/// asked for, with one length check (``AdvertisingReport/single(subevent:_:baseOffset:)``). Any
/// other event's reports were decoded field by field into an array.
public struct AdvertisingReports: RandomAccessCollection, Sendable, Hashable {
    /// One report filling these subevent parameters (Num_Reports first), read on demand.
    @usableFromInline let one: OneReport?
    /// The reports decoded field by field (empty when ``one`` is set).
    @usableFromInline let decoded: [AdvertisingReport]

    @usableFromInline struct OneReport: Sendable {
        @usableFromInline let subevent: LESubevent
        @usableFromInline let bytes: ArraySlice<UInt8>
        @usableFromInline let baseOffset: Int

        @inlinable init(subevent: LESubevent, bytes: ArraySlice<UInt8>, baseOffset: Int) {
            self.subevent = subevent
            self.bytes = bytes
            self.baseOffset = baseOffset
        }

        @inlinable var report: AdvertisingReport {
            // Checked when the event was decoded; the placeholder is never used.
            AdvertisingReport.single(subevent: subevent, bytes, baseOffset: baseOffset) ?? .placeholder
        }
    }

    public init() {
        self.init([])
    }

    @inlinable @inline(__always) public init(_ reports: [AdvertisingReport]) {
        one = nil
        decoded = reports
    }

    /// The report of `bytes`, known to satisfy ``AdvertisingReport/isSingle(subevent:_:)``.
    @inlinable @inline(__always) init(single subevent: LESubevent, _ bytes: ArraySlice<UInt8>, baseOffset: Int) {
        one = OneReport(subevent: subevent, bytes: bytes, baseOffset: baseOffset)
        decoded = []
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable @inline(__always) public var endIndex: Int { one == nil ? decoded.count : 1 }

    @inlinable public subscript(position: Int) -> AdvertisingReport {
        if let one {
            precondition(position == 0, "index out of range")
            return one.report
        }
        return decoded[position]
    }

    /// Lends the reports as contiguous memory, to read them in place.
    @inlinable
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<AdvertisingReport>) throws -> R) rethrows -> R {
        if let one {
            return try withUnsafePointer(to: one.report) { try body(UnsafeBufferPointer(start: $0, count: 1)) }
        }
        return try decoded.withUnsafeBufferPointer(body)
    }

    /// Equal when they hold equal reports, however they are stored.
    public static func == (a: AdvertisingReports, b: AdvertisingReports) -> Bool { a.elementsEqual(b) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for r in self { hasher.combine(r) }
    }
}

/// What scan analysis reads of one report — who sent it, how, and its data — without building an
/// ``AdvertisingReport``: that struct's optionals and slice cost a dozen field copies, a retain and
/// a release per report, and half the frames of a long scan are reports. The data is borrowed
/// from the event: valid only inside ``AdvertisingReports/forEachEssentials(_:)``'s closure.
public struct AdvertisingReportEssentials {
    /// Event_Type as on the wire (see ``AdvertisingReport/eventType``).
    public let eventType: UInt16
    /// True for reports from the legacy (0x02) and directed (0x0B) subevents.
    public let isLegacyEvent: Bool
    public let addressType: UInt8
    public let address: BDAddr
    /// RSSI in dBm; 127 means not available.
    public let rssi: Int8
    /// Extended reports: Advertising SID (0xFF: no ADI field). Meaningless for legacy reports.
    public let sid: UInt8
    /// Advertising or scan response data, borrowed (empty for directed reports).
    public let data: UnsafeRawBufferPointer

    @inlinable init(
        eventType: UInt16, isLegacyEvent: Bool, addressType: UInt8, address: BDAddr, rssi: Int8, sid: UInt8,
        data: UnsafeRawBufferPointer
    ) {
        self.eventType = eventType
        self.isLegacyEvent = isLegacyEvent
        self.addressType = addressType
        self.address = address
        self.rssi = rssi
        self.sid = sid
        self.data = data
    }

    /// As ``AdvertisingReport/isConnectable`` (extended: bit 0 of Event_Type).
    @inlinable public var isConnectable: Bool {
        isLegacyEvent ? (eventType == 0x00 || eventType == 0x01) : eventType & 0x0001 != 0
    }
}

extension AdvertisingReports {
    /// Calls `body` with each report's essentials, in order. A one-report event is read straight
    /// from its bytes (the layout ``AdvertisingReport/single(subevent:_:baseOffset:)`` reads);
    /// other events' decoded reports lend their fields and data. (Inlinable: specialised into
    /// the caller, its closures inlined, instead of two indirect calls per report.)
    @inlinable public func forEachEssentials(_ body: (AdvertisingReportEssentials) -> Void) {
        guard let one else {
            Self.forEachEssentials(decoded, body)
            return
        }
        one.bytes.withUnsafeBytes { b in Self.forEachEssentials(single: one.subevent, b, body) }
    }

    /// The decoded reports' essentials, lending their fields and data.
    @inlinable static func forEachEssentials(_ decoded: [AdvertisingReport], _ body: (AdvertisingReportEssentials) -> Void) {
        for r in decoded {
            r.data.withUnsafeBytes { data in
                body(
                    AdvertisingReportEssentials(
                        eventType: r.eventType, isLegacyEvent: r.isLegacyEvent, addressType: r.addressType,
                        address: r.address, rssi: r.rssi, sid: r.sid ?? 0xFF, data: data))
            }
        }
    }

    /// The essentials of the one report filling `b`, the subevent parameters after the subevent
    /// code (``AdvertisingReport/isSingle(subevent:_:)`` held when the event was decoded; checked
    /// again, three compares, so that a mismatch can never read out of bounds).
    @inlinable @inline(__always)
    static func forEachEssentials(
        single subevent: LESubevent, _ b: UnsafeRawBufferPointer, _ body: (AdvertisingReportEssentials) -> Void
    ) {
        guard AdvertisingReport.fillsExactly(subevent: subevent, b) else { return }
        switch subevent {
        case .extendedAdvertisingReport:
            let f = AdvertisingReport.extendedFields(UnsafeRawBufferPointer(rebasing: b[1..<24]))
            body(
                AdvertisingReportEssentials(
                    eventType: f.eventType, isLegacyEvent: false, addressType: f.addressType, address: f.address,
                    rssi: f.rssi, sid: f.sid, data: UnsafeRawBufferPointer(rebasing: b[25...])))
        case .advertisingReport:
            let length = Int(b[9])
            body(
                AdvertisingReportEssentials(
                    eventType: UInt16(b[1]), isLegacyEvent: true, addressType: b[2], address: b.address(at: 3),
                    rssi: Int8(bitPattern: b[10 + length]), sid: 0xFF,
                    data: UnsafeRawBufferPointer(rebasing: b[10..<(10 + length)])))
        default:
            return
        }
    }
}

extension AdvertisingReport {
    /// Stands in where a report is missing (never in decoded output).
    @usableFromInline static var placeholder: AdvertisingReport {
        AdvertisingReport(eventType: 0, isLegacyEvent: true, addressType: 0, address: BDAddr(value: 0), rssi: 0)
    }
}

// MARK: - Decoding

extension AdvertisingReport {
    /// Decodes the reports of one advertising-report subevent. `bytes` are the subevent
    /// parameters after the subevent code (starting with Num_Reports) and sit at `baseOffset`
    /// in the record payload. Reports decoded before an error are kept; a report cut short is
    /// dropped and a malformation names where; bytes after the last report are reported as
    /// trailing. Each report's ``data`` is a slice of `bytes`, not a copy.
    public static func decode(
        subevent: LESubevent, _ bytes: ArraySlice<UInt8>, baseOffset: Int
    ) -> (reports: AdvertisingReports, malformed: [Malformation]) {
        if isSingle(subevent: subevent, bytes) { return (AdvertisingReports(single: subevent, bytes, baseOffset: baseOffset), []) }
        let (reports, malformed) = fieldByField(subevent: subevent, bytes, baseOffset: baseOffset)
        return (AdvertisingReports(reports), malformed)
    }

    /// ``decode(subevent:_:baseOffset:)`` one field at a time, for any event.
    static func fieldByField(
        subevent: LESubevent, _ bytes: ArraySlice<UInt8>, baseOffset: Int
    ) -> (reports: [AdvertisingReport], malformed: [Malformation]) {
        var reader = ByteReader(bytes, layer: .hci, baseOffset: baseOffset)
        var reports: [AdvertisingReport] = []
        var malformed: [Malformation] = []
        let count: Int
        do {
            count = Int(try reader.readU8())
        } catch {
            return ([], [Malformation(layer: .hci, offset: error.offset, message: "Num Reports: \(error.message)")])
        }
        reports.reserveCapacity(count)
        for index in 0..<count {
            do {
                switch subevent {
                case .extendedAdvertisingReport: reports.append(try extended(&reader))
                case .directedAdvertisingReport: reports.append(try directed(&reader))
                default: reports.append(try legacy(&reader))
                }
            } catch {
                let message = "report \(index + 1) of \(count): \(error.message)"
                malformed.append(Malformation(layer: .hci, offset: error.offset, message: message))
                return (reports, malformed)
            }
        }
        if reader.remaining > 0 {
            let n = reader.remaining
            malformed.append(Malformation(layer: .hci, offset: reader.offset, message: "\(n) trailing byte\(n == 1 ? "" : "s")"))
        }
        return (reports, malformed)
    }

    /// True for the usual event: one legacy or extended report that fills the parameters
    /// exactly (Num_Reports 1, then the report's fixed fields and Data_Length bytes of data).
    static func isSingle(subevent: LESubevent, _ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { fillsExactly(subevent: subevent, $0) }
    }

    /// ``isSingle(subevent:_:)`` on the subevent parameters' memory (also checked where they are
    /// read in place: ``AdvertisingReports/forEachEssentials(_:)``).
    @inlinable @inline(__always)
    static func fillsExactly(subevent: LESubevent, _ b: UnsafeRawBufferPointer) -> Bool {
        guard b.count >= 1, b[0] == 1 else { return false }
        switch subevent {
        case .extendedAdvertisingReport:
            // Num_Reports, 23 bytes of fields, Data_Length, Data.
            return b.count >= 25 && b.count == 25 + Int(b[24])
        case .advertisingReport:
            // Num_Reports, Event_Type, Address_Type, Address, Data_Length, Data, RSSI.
            return b.count >= 11 && b.count == 11 + Int(b[9])
        default:
            return false
        }
    }

    /// The report of an event that ``isSingle(subevent:_:)``, read from memory (no reader); nil
    /// for any other.
    @usableFromInline
    static func single(subevent: LESubevent, _ bytes: ArraySlice<UInt8>, baseOffset: Int) -> AdvertisingReport? {
        guard isSingle(subevent: subevent, bytes) else { return nil }
        let start = bytes.startIndex
        switch subevent {
        case .extendedAdvertisingReport:
            let f = bytes.withUnsafeBytes { b in extendedFields(UnsafeRawBufferPointer(rebasing: b[1..<24])) }
            return AdvertisingReport(
                eventType: f.eventType, isLegacyEvent: false, addressType: f.addressType, address: f.address,
                rssi: f.rssi, txPower: f.txPower, primaryPHY: f.primary, secondaryPHY: f.secondary, sid: f.sid,
                periodicInterval: f.interval, directAddressType: f.directType, directAddress: f.direct,
                data: bytes[(start + 25)...], dataOffset: baseOffset + 25)
        case .advertisingReport:
            let length = Int(bytes[start + 9])
            let address = bytes.withUnsafeBytes { b in b.address(at: 3) }
            return AdvertisingReport(
                eventType: UInt16(bytes[start + 1]), isLegacyEvent: true, addressType: bytes[start + 2], address: address,
                rssi: Int8(bitPattern: bytes[start + 10 + length]), data: bytes[(start + 10)..<(start + 10 + length)],
                dataOffset: baseOffset + 10)
        default:
            return nil
        }
    }

    /// Event_Type u8, Address_Type u8, Address 6, Data_Length u8, Data, RSSI i8 (§7.7.65.2).
    static func legacy(_ r: inout ByteReader) throws(DecodeError) -> AdvertisingReport {
        let eventType: UInt8, addressType: UInt8, address: BDAddr, length: Int
        if r.remaining >= 9 {
            // The fixed part is there: one check for its 9 bytes.
            eventType = r.uncheckedU8()
            addressType = r.uncheckedU8()
            address = r.uncheckedAddress()
            length = Int(r.uncheckedU8())
        } else {
            eventType = try r.readU8()
            addressType = try r.readU8()
            address = try r.readAddress()
            length = Int(try r.readU8())
        }
        let dataOffset = r.offset
        let data = r.unreadBytes.prefix(length)
        try r.skip(length)
        let rssi = try r.readI8()
        return AdvertisingReport(
            eventType: UInt16(eventType), isLegacyEvent: true, addressType: addressType, address: address,
            rssi: rssi, data: data, dataOffset: dataOffset)
    }

    /// Event_Type u8, Address_Type u8, Address 6, Direct_Address_Type u8, Direct_Address 6,
    /// RSSI i8 (§7.7.65.11).
    static func directed(_ r: inout ByteReader) throws(DecodeError) -> AdvertisingReport {
        let eventType = try r.readU8()
        let addressType = try r.readU8()
        let address = try r.readAddress()
        let directType = try r.readU8()
        let direct = try r.readAddress()
        let rssi = try r.readI8()
        return AdvertisingReport(
            eventType: UInt16(eventType), isLegacyEvent: true, addressType: addressType, address: address,
            rssi: rssi, directAddressType: directType, directAddress: direct, dataOffset: r.offset)
    }

    /// Event_Type u16, Address_Type u8, Address 6, Primary_PHY u8, Secondary_PHY u8,
    /// Advertising_SID u8, TX_Power i8, RSSI i8, Periodic_Advertising_Interval u16,
    /// Direct_Address_Type u8, Direct_Address 6, Data_Length u8, Data (§7.7.65.13).
    static func extended(_ r: inout ByteReader) throws(DecodeError) -> AdvertisingReport {
        let fixed: ExtendedFields
        let length: Int
        if r.remaining >= 24 {
            // The fixed part before Data is 24 bytes (23 of fields, then Data_Length): read from
            // memory after one check when it is all there.
            fixed = r.withUncheckedBytes(23) { b in extendedFields(b) }
            length = Int(r.uncheckedU8())
        } else {
            // Field by field: a short report's error names the field and offset where it ends.
            fixed = (
                try r.readLE16(), try r.readU8(), try r.readAddress(), try r.readU8(), try r.readU8(), try r.readU8(),
                try r.readI8(), try r.readI8(), try r.readLE16(), try r.readU8(), try r.readAddress()
            )
            length = Int(try r.readU8())
        }
        let dataOffset = r.offset
        let data = r.unreadBytes.prefix(length)
        try r.skip(length)
        return AdvertisingReport(
            eventType: fixed.eventType, isLegacyEvent: false, addressType: fixed.addressType, address: fixed.address,
            rssi: fixed.rssi, txPower: fixed.txPower, primaryPHY: fixed.primary, secondaryPHY: fixed.secondary, sid: fixed.sid,
            periodicInterval: fixed.interval, directAddressType: fixed.directType, directAddress: fixed.direct, data: data,
            dataOffset: dataOffset)
    }

    /// The 23 bytes of an extended report before Data_Length.
    @usableFromInline typealias ExtendedFields = (
        eventType: UInt16, addressType: UInt8, address: BDAddr, primary: UInt8, secondary: UInt8, sid: UInt8,
        txPower: Int8, rssi: Int8, interval: UInt16, directType: UInt8, direct: BDAddr
    )

    /// Reads ``ExtendedFields`` from 23 bytes in memory.
    @inlinable @inline(__always)
    static func extendedFields(_ b: UnsafeRawBufferPointer) -> ExtendedFields {
        (
            b.le16(at: 0), b[2], b.address(at: 3), b[9], b[10], b[11], Int8(bitPattern: b[12]),
            Int8(bitPattern: b[13]), b.le16(at: 14), b[16], b.address(at: 17)
        )
    }
}

extension UnsafeRawBufferPointer {
    /// A little-endian UInt16 at `i` (within bounds).
    @inlinable @inline(__always) func le16(at i: Int) -> UInt16 {
        UInt16(littleEndian: loadUnaligned(fromByteOffset: i, as: UInt16.self))
    }

    /// A 6-byte little-endian BD_ADDR at `i` (within bounds).
    @inlinable @inline(__always) func address(at i: Int) -> BDAddr {
        let low = UInt64(UInt32(littleEndian: loadUnaligned(fromByteOffset: i, as: UInt32.self)))
        let high = UInt64(UInt16(littleEndian: loadUnaligned(fromByteOffset: i + 4, as: UInt16.self)))
        return BDAddr(value: low | high << 32)
    }
}
