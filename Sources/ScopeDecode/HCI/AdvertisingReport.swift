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
    /// code (``AdvertisingReport/isSingle(subevent:_:)`` held when the event was decoded; the
    /// reading checks the bounds again, so that a mismatch can never read out of them).
    @inlinable @inline(__always)
    static func forEachEssentials(
        single subevent: LESubevent, _ b: UnsafeRawBufferPointer, _ body: (AdvertisingReportEssentials) -> Void
    ) {
        guard AdvertisingReport.fillsExactly(subevent: subevent, b) else { return }
        let parsed: AdvertisingReport.Fields?
        switch subevent {
        case .extendedAdvertisingReport: parsed = AdvertisingReport.parseExtended(b, at: 1, essentials: true)
        case .advertisingReport: parsed = AdvertisingReport.parseLegacy(b, at: 1)
        default: return
        }
        guard let f = parsed else { return }
        body(
            AdvertisingReportEssentials(
                eventType: f.eventType, isLegacyEvent: subevent != .extendedAdvertisingReport, addressType: f.addressType,
                address: f.address, rssi: f.rssi, sid: f.sid, data: UnsafeRawBufferPointer(rebasing: b[f.data])))
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

    /// ``decode(subevent:_:baseOffset:)`` report by report, for any event: each report read by
    /// ``parse(_:_:at:)``.
    static func fieldByField(
        subevent: LESubevent, _ bytes: ArraySlice<UInt8>, baseOffset: Int
    ) -> (reports: [AdvertisingReport], malformed: [Malformation]) {
        guard let kind = Kind(subevent) else { return ([], []) }
        return bytes.withUnsafeBytes { b in
            guard b.count >= 1 else {
                let e = DecodeError(.truncated(needed: 1, available: 0), offset: baseOffset, layer: .hci)
                return ([], [Malformation(layer: .hci, offset: e.offset, message: "Num Reports: \(e.message)")])
            }
            let count = Int(b[0])
            var reports: [AdvertisingReport] = []
            reports.reserveCapacity(count)
            var o = 1
            for index in 0..<count {
                guard let f = parse(kind, b, at: o) else {
                    let (at, needed, available) = shortfall(kind, b, at: o)
                    let e = DecodeError(.truncated(needed: needed, available: available), offset: baseOffset + at, layer: .hci)
                    return (reports, [Malformation(layer: .hci, offset: e.offset, message: "report \(index + 1) of \(count): \(e.message)")])
                }
                reports.append(AdvertisingReport(kind, f, bytes: bytes, baseOffset: baseOffset))
                o = f.end
            }
            if o < b.count {
                let n = b.count - o
                return (reports, [Malformation(layer: .hci, offset: baseOffset + o, message: "\(n) trailing byte\(n == 1 ? "" : "s")")])
            }
            return (reports, [])
        }
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
        guard isSingle(subevent: subevent, bytes), let kind = Kind(subevent) else { return nil }
        guard let f = bytes.withUnsafeBytes({ parse(kind, $0, at: 1) }) else { return nil }
        return AdvertisingReport(kind, f, bytes: bytes, baseOffset: baseOffset)
    }

    /// The report `f` read from `bytes` (the subevent parameters at `baseOffset`).
    init(_ kind: Kind, _ f: Fields, bytes: ArraySlice<UInt8>, baseOffset: Int) {
        let start = bytes.startIndex
        self.init(
            eventType: f.eventType, isLegacyEvent: kind != .extended, addressType: f.addressType, address: f.address, rssi: f.rssi,
            txPower: kind == .extended ? f.txPower : nil, primaryPHY: kind == .extended ? f.primaryPHY : nil,
            secondaryPHY: kind == .extended ? f.secondaryPHY : nil, sid: kind == .extended ? f.sid : nil,
            periodicInterval: kind == .extended ? f.periodicInterval : nil,
            directAddressType: kind == .legacy ? nil : f.directAddressType, directAddress: kind == .legacy ? nil : f.directAddress,
            data: bytes[(start + f.data.lowerBound)..<(start + f.data.upperBound)], dataOffset: baseOffset + f.data.lowerBound)
    }
}

// MARK: - The one reading of a report

extension AdvertisingReport {
    /// The three report layouts (the elements of the `Report` arrays of the LE subevents 0x02,
    /// 0x0B and 0x0D in HCIEvent+Table.swift, which `show` prints from).
    @usableFromInline enum Kind: Sendable, Hashable {
        /// §7.7.65.2: Event_Type u8, Address_Type u8, Address 6, Data_Length u8, Data, RSSI i8.
        case legacy
        /// §7.7.65.11: Event_Type u8, Address_Type u8, Address 6, Direct_Address_Type u8,
        /// Direct_Address 6, RSSI i8.
        case directed
        /// §7.7.65.13: Event_Type u16, Address_Type u8, Address 6, Primary_PHY u8, Secondary_PHY
        /// u8, Advertising_SID u8, TX_Power i8, RSSI i8, Periodic_Advertising_Interval u16,
        /// Direct_Address_Type u8, Direct_Address 6, Data_Length u8, Data.
        case extended

        @inlinable init?(_ subevent: LESubevent) {
            switch subevent {
            case .advertisingReport: self = .legacy
            case .directedAdvertisingReport: self = .directed
            case .extendedAdvertisingReport: self = .extended
            default: return nil
            }
        }

        /// The fixed fields before Data (the whole report for directed reports), in wire order:
        /// their names in the layout row and sizes. Where a report is cut short, the first that
        /// does not fit is the one named.
        static func fixedFields(_ kind: Kind) -> [(name: String, size: Int)] {
            switch kind {
            case .legacy:
                return [("Event Type", 1), ("Address Type", 1), ("Address", 6), ("Data Length", 1)]
            case .directed:
                return [("Event Type", 1), ("Address Type", 1), ("Address", 6), ("Direct Address Type", 1), ("Direct Address", 6), ("RSSI", 1)]
            case .extended:
                return [
                    ("Event Type", 2), ("Address Type", 1), ("Address", 6), ("Primary PHY", 1), ("Secondary PHY", 1),
                    ("Advertising SID", 1), ("TX Power", 1), ("RSSI", 1), ("Periodic Advertising Interval", 2),
                    ("Direct Address Type", 1), ("Direct Address", 6), ("Data Length", 1),
                ]
            }
        }

        /// Bytes of the fixed fields (`fixedFields`' sizes summed; a test checks them against the
        /// layout rows).
        @inlinable var fixedSize: Int {
            switch self {
            case .legacy: return 9
            case .directed: return 16
            case .extended: return 24
            }
        }
    }

    /// One report's fields, read at the offsets ``Kind/fixedFields(_:)`` gives; `data` and `end`
    /// are offsets in the bytes read.
    @usableFromInline struct Fields: Sendable {
        @usableFromInline var eventType: UInt16
        @usableFromInline var addressType: UInt8
        @usableFromInline var address: BDAddr
        @usableFromInline var rssi: Int8
        @usableFromInline var txPower: Int8 = 127
        @usableFromInline var primaryPHY: UInt8 = 0
        @usableFromInline var secondaryPHY: UInt8 = 0
        @usableFromInline var sid: UInt8 = 0xFF
        @usableFromInline var periodicInterval: UInt16 = 0
        @usableFromInline var directAddressType: UInt8 = 0
        @usableFromInline var directAddress = BDAddr(value: 0)
        @usableFromInline var data: Range<Int>
        @usableFromInline var end: Int

        @inlinable init(eventType: UInt16, addressType: UInt8, address: BDAddr, rssi: Int8, data: Range<Int>, end: Int) {
            self.eventType = eventType
            self.addressType = addressType
            self.address = address
            self.rssi = rssi
            self.data = data
            self.end = end
        }
    }

    /// Reads the report of `kind` at `o` in `b`: the one reading of a report, behind every path
    /// (an event's one report read in place, an event's reports decoded one by one). Bounds are
    /// checked once for the fixed fields and once for the data; nothing traps.
    /// `essentials`: read only what ``AdvertisingReportEssentials`` holds (the scan analysis's
    /// path; the other fields keep their defaults).
    @inlinable @inline(__always)
    static func parse(_ kind: Kind, _ b: UnsafeRawBufferPointer, at o: Int, essentials: Bool = false) -> Fields? {
        switch kind {
        case .legacy: return parseLegacy(b, at: o)
        case .directed: return parseDirected(b, at: o)
        case .extended: return parseExtended(b, at: o, essentials: essentials)
        }
    }

    /// A legacy report at `o` (``Kind/legacy``).
    @inlinable @inline(__always)
    static func parseLegacy(_ b: UnsafeRawBufferPointer, at o: Int) -> Fields? {
        guard o >= 0, b.count - o >= 9 else { return nil }
        let length = Int(b[o + 8])
        let data = o + 9
        guard b.count - data >= length, b.count - (data + length) >= 1 else { return nil }
        return Fields(
            eventType: UInt16(b[o]), addressType: b[o + 1], address: b.address(at: o + 2), rssi: Int8(bitPattern: b[data + length]),
            data: data..<(data + length), end: data + length + 1)
    }

    /// A directed report at `o` (``Kind/directed``).
    @inlinable @inline(__always)
    static func parseDirected(_ b: UnsafeRawBufferPointer, at o: Int) -> Fields? {
        guard o >= 0, b.count - o >= 16 else { return nil }
        var f = Fields(
            eventType: UInt16(b[o]), addressType: b[o + 1], address: b.address(at: o + 2), rssi: Int8(bitPattern: b[o + 15]),
            data: (o + 16)..<(o + 16), end: o + 16)
        f.directAddressType = b[o + 8]
        f.directAddress = b.address(at: o + 9)
        return f
    }

    /// An extended report at `o` (``Kind/extended``).
    @inlinable @inline(__always)
    static func parseExtended(_ b: UnsafeRawBufferPointer, at o: Int, essentials: Bool) -> Fields? {
        guard o >= 0, b.count - o >= 24 else { return nil }
        let length = Int(b[o + 23])
        let data = o + 24
        guard b.count - data >= length else { return nil }
        var f = Fields(
            eventType: b.le16(at: o), addressType: b[o + 2], address: b.address(at: o + 3), rssi: Int8(bitPattern: b[o + 13]),
            data: data..<(data + length), end: data + length)
        f.sid = b[o + 11]
        if !essentials {
            f.primaryPHY = b[o + 9]
            f.secondaryPHY = b[o + 10]
            f.txPower = Int8(bitPattern: b[o + 12])
            f.periodicInterval = b.le16(at: o + 14)
            f.directAddressType = b[o + 16]
            f.directAddress = b.address(at: o + 17)
        }
        return f
    }

    /// Where the report of `kind` at `o` in `b`, which ``parse(_:_:at:essentials:)`` could not
    /// read, is cut: the first field (of the fixed ones, then Data, then a legacy report's RSSI)
    /// that does not fit, its size and the bytes left there.
    static func shortfall(_ kind: Kind, _ b: UnsafeRawBufferPointer, at o: Int) -> (at: Int, needed: Int, available: Int) {
        let left = max(0, b.count - o)
        var at = 0
        for field in Kind.fixedFields(kind) {
            if left - at < field.size { return (o + at, field.size, left - at) }
            at += field.size
        }
        // The fixed fields are there: the data, or a legacy report's RSSI after it.
        let length = kind == .directed ? 0 : Int(b[o + kind.fixedSize - 1])
        let data = o + kind.fixedSize
        if b.count - data < length { return (data, length, b.count - data) }
        return (data + length, 1, max(0, b.count - (data + length)))
    }
}

extension UnsafeRawBufferPointer {
    /// A little-endian UInt16 at `i` (within bounds). Read byte by byte: unaligned word loads
    /// gained nothing (docs/PERFORMANCE.md).
    @inlinable @inline(__always) func le16(at i: Int) -> UInt16 {
        UInt16(self[i]) | UInt16(self[i + 1]) << 8
    }

    /// A 6-byte little-endian BD_ADDR at `i` (within bounds).
    @inlinable @inline(__always) func address(at i: Int) -> BDAddr {
        var v: UInt64 = 0
        for k in 0..<6 { v |= UInt64(self[i + k]) << (8 * k) }
        return BDAddr(value: v)
    }
}
