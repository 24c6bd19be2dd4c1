import ScopeCore

/// The one interpreter for ``ParamField`` layouts.
public enum ParamLayout {
    /// Fields and malformations decoded from one parameter block.
    public struct Result: Sendable, Hashable {
        public var fields: [Field]
        public var malformed: [Malformation]
    }

    /// Decodes `bytes` (whose first byte sits at `baseOffset` in the record payload) following
    /// `layout`. Never traps. When the bytes run out, the fields decoded so far are kept (arrays
    /// keep their complete elements and the partial one) and a malformation names the
    /// parameter and offset; bytes left over after the layout become "N trailing bytes".
    public static func decode(
        _ layout: [ParamField], _ bytes: ArraySlice<UInt8>, baseOffset: Int, layer: Layer = .hci
    ) -> Result {
        var walker = Walker(ByteReader(bytes, layer: layer, baseOffset: baseOffset), build: true)
        var out: [Field] = []
        walker.walk(layout, into: &out)
        walker.finish(into: &out)
        return Result(fields: out, malformed: walker.malformed)
    }

    /// The malformations `decode` would report, without building any strings (cheap path).
    public static func validate(
        _ layout: [ParamField], _ bytes: ArraySlice<UInt8>, baseOffset: Int, layer: Layer = .hci
    ) -> [Malformation] {
        if fitsExactly(layout, bytes) { return [] }
        var walker = Walker(ByteReader(bytes, layer: layer, baseOffset: baseOffset), build: false)
        var out: [Field] = []
        walker.walk(layout, into: &out)
        walker.finish(into: &out)
        return walker.malformed
    }

    /// Every `.peer` address the layout names, in wire order (cheap path).
    public static func peerAddresses(_ layout: [ParamField], _ bytes: ArraySlice<UInt8>) -> [BDAddr] {
        var walker = Walker(ByteReader(bytes, layer: .hci), build: false)
        walker.collectPeers = true
        var out: [Field] = []
        walker.walk(layout, into: &out)
        return walker.peers
    }

    /// Offset of the first `.handle`-rendered parameter when every parameter before it has a
    /// fixed size (nil otherwise): where an event names "its" connection.
    static func handleOffset(_ layout: [ParamField]) -> Int? {
        var offset = 0
        for field in layout {
            if case .u16(_, .handle) = field { return offset }
            guard let size = field.fixedSize else { return nil }
            offset += size
        }
        return nil
    }

    /// True when `bytes` are exactly what `layout` describes, so that the walker would find
    /// nothing to report. Decided without the walker for the common shapes: fixed-size
    /// integers, addresses and byte runs, then at most `.data`/`.array` parts whose length or
    /// count is an earlier top-level integer, and an optional final `.rest`. False means "not
    /// decided here" (the walker then runs and reports what is wrong, if anything).
    static func fitsExactly(_ layout: [ParamField], _ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = 0
        let count = bytes.count
        for (index, field) in layout.enumerated() {
            switch field {
            case .u8, .u16, .u24, .u32, .u64, .address, .bytes:
                offset += field.fixedSize!
            case .data(_, let lengthName, _):
                guard let length = topLevelValue(lengthName, in: layout, before: index, bytes),
                    length <= UInt64(count)
                else { return false }
                offset += Int(length)
            case .array(_, let countSource, let element):
                let n: Int
                switch countSource {
                case .field(let name):
                    guard let v = topLevelValue(name, in: layout, before: index, bytes) else { return false }
                    n = Int(clamping: v)
                case .bitsIn(let name):
                    guard let v = topLevelValue(name, in: layout, before: index, bytes) else { return false }
                    n = v.nonzeroBitCount
                }
                var size = 0
                for e in element {
                    switch e {
                    case .u8, .u16, .u24, .u32, .u64, .address, .bytes: size += e.fixedSize!
                    default: return false
                    }
                    // An element integer named like a later length or count would change what
                    // the walker reads: leave such layouts to it.
                    if layout[(index + 1)...].contains(where: { $0.refersTo(e.name) }) { return false }
                }
                let (total, overflow) = n.multipliedReportingOverflow(by: size)
                guard !overflow, total <= count else { return false }
                offset += total
            case .rest:
                // Takes whatever is left: fine as long as the fields before it are all there.
                return index == layout.count - 1 && offset <= count
            case .padded, .variant:
                // Can report a length beyond its size even when the bytes fit, or depends on
                // the variant chosen: the walker decides.
                return false
            }
            guard offset <= count else { return false }
        }
        return offset == count
    }

    /// The value of the last integer field named `name` among `layout[..<index]`, all of whose
    /// fields must be fixed-size (so its offset is known), read from `bytes`; nil otherwise.
    private static func topLevelValue(_ name: String, in layout: [ParamField], before index: Int, _ bytes: ArraySlice<UInt8>)
        -> UInt64?
    {
        var offset = 0
        var found: (offset: Int, width: Int)?
        for field in layout[..<index] {
            guard let size = field.fixedSize else { return nil }
            switch field {
            case .u8(let n, _), .u16(let n, _), .u24(let n, _), .u32(let n, _), .u64(let n, _):
                if n == name { found = (offset, size) }
            default:
                break
            }
            offset += size
        }
        guard let (at, width) = found, at + width <= bytes.count else { return nil }
        var v: UInt64 = 0
        let start = bytes.startIndex + at
        for k in 0..<width { v |= UInt64(bytes[start + k]) << (8 * UInt64(k)) }
        return v
    }

    /// Whether the layout starts with a Status parameter.
    static func startsWithStatus(_ layout: [ParamField]) -> Bool {
        if case .u8("Status", .status)? = layout.first { return true }
        return false
    }
}

// MARK: - Walker

extension ParamLayout {
    struct Walker {
        var reader: ByteReader
        let build: Bool
        var collectPeers = false
        /// Integer values seen so far, most recent last (for lengths and counts).
        var values: [(String, UInt64)] = []
        var malformed: [Malformation] = []
        var peers: [BDAddr] = []
        var stopped = false
        /// Where each address, text, advertising data and opaque run sits (for the redactor).
        var collectSpans = false
        var spans: [FieldSpan] = []
        /// The last Address_Type-like parameter read (its low bit says random), for the next address.
        var lastAddressType: UInt64?
        /// Parameters collected as `.secret` spans.
        var secretNames: Set<String> = []

        init(_ reader: ByteReader, build: Bool) {
            self.reader = reader
            self.build = build
        }

        func value(_ name: String) -> UInt64 {
            values.last(where: { $0.0 == name })?.1 ?? 0
        }

        mutating func walk(_ layout: [ParamField], into out: inout [Field]) {
            for field in layout {
                if stopped { return }
                do {
                    try one(field, into: &out)
                } catch {
                    stopped = true
                    malformed.append(
                        Malformation(layer: error.layer, offset: error.offset, message: "\(field.name): \(error.message)"))
                }
            }
        }

        mutating func finish(into out: inout [Field]) {
            guard !stopped, reader.remaining > 0 else { return }
            let count = reader.remaining
            let offset = reader.offset
            malformed.append(
                Malformation(
                    layer: reader.layer, offset: offset,
                    message: "\(count) trailing byte\(count == 1 ? "" : "s")"))
            if build {
                out.append(Field("Trailing bytes", Hex.string(reader.readRest(), separator: " ")))
            }
        }

        mutating func integer(_ name: String, _ width: Int, _ render: ParamRender, into out: inout [Field])
            throws(DecodeError)
        {
            let start = reader.offset
            let v: UInt64
            switch width {
            case 1: v = UInt64(try reader.readU8())
            case 2: v = UInt64(try reader.readLE16())
            case 3: v = UInt64(try reader.readLE24())
            case 4: v = UInt64(try reader.readLE32())
            default: v = try reader.readLE64()
            }
            values.append((name, v))
            if collectSpans, case .addressType = render { lastAddressType = v }
            if collectSpans, secretNames.contains(name) { spans.append(FieldSpan(start..<(start + width), .secret)) }
            if build { out.append(Field(name, render.render(v, width: width))) }
        }

        mutating func one(_ field: ParamField, into out: inout [Field]) throws(DecodeError) {
            switch field {
            case .u8(let n, let r): try integer(n, 1, r, into: &out)
            case .u16(let n, let r): try integer(n, 2, r, into: &out)
            case .u24(let n, let r): try integer(n, 3, r, into: &out)
            case .u32(let n, let r): try integer(n, 4, r, into: &out)
            case .u64(let n, let r): try integer(n, 8, r, into: &out)
            case .address(let n, let role):
                let start = reader.offset
                let a = try reader.readAddress()
                if collectSpans {
                    spans.append(FieldSpan(start..<(start + 6), .address(role, random: lastAddressType.map { $0 & 1 == 1 })))
                    lastAddressType = nil
                }
                // 00:00:00:00:00:00 fills address parameters the controller ignores (e.g. when
                // a Filter Accept List is used); it names no device.
                if collectPeers, role == .peer, a.value != 0 { peers.append(a) }
                if build { out.append(Field(n, a.description)) }
            case .bytes(let n, let count, let r):
                let offset = reader.offset
                let b = try reader.readBytes(count)
                if collectSpans { spans.append(FieldSpan(offset..<(offset + count), secretNames.contains(n) ? .secret : r.spanKind)) }
                if build { out.append(r.render(n, b, baseOffset: offset)) }
            case .data(let n, let lengthName, let r):
                let length = Int(clamping: value(lengthName))
                let offset = reader.offset
                let b = try reader.readBytes(length)
                if collectSpans { spans.append(FieldSpan(offset..<(offset + length), secretNames.contains(n) ? .secret : r.spanKind)) }
                if build { out.append(r.render(n, b, baseOffset: offset)) }
            case .padded(let n, let lengthName, let size, let r):
                let offset = reader.offset
                let declared = value(lengthName)
                if declared > UInt64(size) {
                    malformed.append(
                        Malformation(
                            layer: reader.layer, offset: offset,
                            message: "\(lengthName) \(declared) exceeds the \(size)-byte \(n) field"))
                }
                let b = try reader.readBytes(size)
                if collectSpans {
                    // The whole block: bytes past the declared length are padding, but they are
                    // still bytes of the capture (treated as the field's kind).
                    spans.append(FieldSpan(offset..<(offset + size), r.spanKind))
                }
                if build {
                    let used = min(Int(clamping: declared), b.count)
                    out.append(r.render(n, Array(b.prefix(used)), baseOffset: offset))
                }
            case .rest(let n, let r):
                let offset = reader.offset
                let b = reader.readRest()
                if collectSpans {
                    // A hex remainder is a blob whose layout is not described (Set Event Filter's
                    // condition, Loopback Command, vendor parameters): opaque.
                    spans.append(FieldSpan(offset..<(offset + b.count), secretNames.contains(n) ? .secret : r == .hex ? .opaque : r.spanKind))
                }
                if build { out.append(r.render(n, b, baseOffset: offset)) }
            case .array(let n, let countSource, let element):
                let count: Int
                switch countSource {
                case .field(let name): count = Int(clamping: value(name))
                case .bitsIn(let name): count = value(name).nonzeroBitCount
                }
                var items: [Field] = []
                for i in 0..<count {
                    if stopped { break }
                    var children: [Field] = []
                    walk(element, into: &children)
                    if build { items.append(Field("\(n) [\(i)]", "", children: children)) }
                }
                if build { out.append(Field(n, "\(count)", children: items)) }
            case .variant(let n, let selector, let variants):
                let v = value(selector)
                guard let chosen = variants.first(where: { $0.value == v }) else {
                    // Not described: whatever is left may hold anything.
                    let offset = reader.offset
                    let b = reader.readRest()
                    if collectSpans, !b.isEmpty { spans.append(FieldSpan(offset..<(offset + b.count), .opaque)) }
                    if build { out.append(Field(n, "not described (\(Hex.prefixed(v, digits: 2)))" + (b.isEmpty ? "" : ": " + Hex.string(b, separator: " ")))) }
                    return
                }
                var children: [Field] = []
                walk(chosen.fields, into: &children)
                if build { out.append(Field(n, chosen.name, children: children)) }
            }
        }
    }
}

// MARK: - Rendering

extension BytesRender {
    func render(_ name: String, _ bytes: [UInt8], baseOffset: Int) -> Field {
        switch self {
        case .hex:
            return Field(name, bytes.isEmpty ? "(empty)" : Hex.string(bytes, separator: " "))
        case .text:
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return Field(name, "\"" + String(decoding: bytes[..<end], as: UTF8.self) + "\"")
        case .advertisingData:
            let parsed = ADParser.parse(bytes, baseOffset: baseOffset)
            var children = parsed.structures.map { Field($0.name, $0.valueDescription) }
            children += parsed.malformed.map { Field("Malformed", $0.description) }
            let summary = bytes.isEmpty ? "(empty)" : "\(bytes.count) byte\(bytes.count == 1 ? "" : "s"): " + Hex.string(bytes)
            return Field(name, summary, children: children)
        }
    }
}

extension ParamRender {
    /// Microseconds in one unit of `.slots` (0.625 ms), `.connInterval` (1.25 ms), `.tenMillis`.
    static let slotMicros: UInt64 = 625
    static let connIntervalMicros: UInt64 = 1250
    static let tenMillisMicros: UInt64 = 10_000

    /// Microseconds per unit for the renders that are times (nil for the others): what the
    /// typed views convert raw values with.
    public var microsPerUnit: Int64? {
        switch self {
        case .slots: return Int64(Self.slotMicros)
        case .connInterval: return Int64(Self.connIntervalMicros)
        case .tenMillis: return Int64(Self.tenMillisMicros)
        case .units1_28s: return 1_280_000
        case .micros: return 1
        case .seconds: return 1_000_000
        default: return nil
        }
    }

    /// Renders `v`, read from `width` bytes.
    func render(_ v: UInt64, width: Int) -> String {
        let digits = width * 2
        let hex = Hex.prefixed(v, digits: digits)
        switch self {
        case .hex: return hex
        case .decimal: return "\(v)"
        case .signed: return "\(Self.signed(v, width: width))"
        case .status: return HCIStatus(rawValue: UInt8(truncatingIfNeeded: v)).description
        case .handle:
            let reserved = v & ~0x0FFF
            return reserved == 0 ? hex : "\(Hex.prefixed(v & 0x0FFF, digits: 4)) (RFU bits \(Hex.prefixed(reserved, digits: 4)))"
        case .slots: return "\(Self.millis(v, microsPerUnit: Self.slotMicros, decimals: 3)) (\(hex))"
        case .connInterval: return "\(Self.millis(v, microsPerUnit: Self.connIntervalMicros, decimals: 2)) (\(hex))"
        case .tenMillis: return "\(Self.millis(v, microsPerUnit: Self.tenMillisMicros, decimals: 0)) (\(hex))"
        case .units1_28s:
            let (ms, overflow) = v.multipliedReportingOverflow(by: 1280)
            if overflow { return hex }
            return "\(ms / 1000).\(Self.pad(ms % 1000 / 10, 2)) s (\(hex))"
        case .micros: return "\(v) µs (\(hex))"
        case .seconds: return "\(v) s (\(hex))"
        case .dBm:
            let s = Self.signed(v, width: width)
            if width == 1 && s == 127 { return "not available (0x7f)" }
            return "\(s) dBm"
        case .phy: return Self.named(HCIValueTables.phy, v, digits: digits)
        case .phyMask: return Self.flagList(HCIValueTables.phyBits, v, digits: digits)
        case .addressType: return Self.named(HCIValueTables.addressType, v, digits: digits)
        case .ownAddressType: return Self.named(HCIValueTables.ownAddressType, v, digits: digits)
        case .companyID:
            return ScopeDecode.named(AssignedNumbers.companyName(UInt16(truncatingIfNeeded: v)), v, digits: 4)
        case .coreVersion: return Self.named(HCIValueTables.coreVersion, v, digits: digits)
        case .opcode: return HCIOpcode(rawValue: UInt16(truncatingIfNeeded: v)).description
        case .extendedAdvertisingEventType:
            return "\(hex) (\(AdvertisingReport.extendedEventTypeName(UInt16(truncatingIfNeeded: v))))"
        case .values(let table): return Self.named(table, v, digits: digits)
        case .flags(let flags): return Self.flagList(flags, v, digits: digits)
        }
    }

    static func signed(_ v: UInt64, width: Int) -> Int64 {
        switch width {
        case 1: return Int64(Int8(truncatingIfNeeded: v))
        case 2: return Int64(Int16(truncatingIfNeeded: v))
        case 4: return Int64(Int32(truncatingIfNeeded: v))
        case 3:
            let raw = Int64(v & 0xFF_FFFF)
            return raw >= 0x80_0000 ? raw - 0x100_0000 : raw
        default: return Int64(bitPattern: v)
        }
    }

    static func pad(_ v: UInt64, _ width: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// `v` units of `microsPerUnit` µs, as milliseconds with `decimals` places (exact: no
    /// floating point).
    static func millis(_ v: UInt64, microsPerUnit: UInt64, decimals: Int) -> String {
        let (micros, overflow) = v.multipliedReportingOverflow(by: microsPerUnit)
        if overflow { return "overflow" }
        let whole = micros / 1000
        guard decimals > 0 else { return "\(whole) ms" }
        var frac = micros % 1000
        for _ in decimals..<3 { frac /= 10 }
        return "\(whole).\(pad(frac, decimals)) ms"
    }

    static func named(_ table: [UInt64: String], _ v: UInt64, digits: Int) -> String {
        "\(table[v] ?? "Unknown") (\(Hex.prefixed(v, digits: digits)))"
    }

    /// "0x05 (LE 1M, LE Coded)"; unnamed set bits are appended as "unknown 0x08".
    static func flagList(_ flags: [ParamFlag], _ v: UInt64, digits: Int) -> String {
        let hex = Hex.prefixed(v, digits: digits)
        var names: [String] = []
        var known: UInt64 = 0
        for flag in flags {
            known |= flag.mask
            if v & flag.mask == flag.mask, flag.mask != 0 { names.append(flag.name) }
        }
        let leftover = v & ~known
        if leftover != 0 { names.append("unknown \(Hex.prefixed(leftover, digits: digits))") }
        return names.isEmpty ? hex : "\(hex) (\(names.joined(separator: ", ")))"
    }
}
