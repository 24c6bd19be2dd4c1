import ScopeCore

// What the typed views (HCICommand.typed, HCIEvent.typed) know of a layout row: where each
// parameter they read sits, found by name in the row once (when a view's table is first used),
// never re-stated as an offset. A renamed or re-typed parameter leaves its slot unresolved, every
// read of it fails (the view is nil), and `TypedViewTables.all` names it for the test.

/// One integer or address parameter's place in a layout row: offset from the start of the
/// parameter block (or of an array element), width, and the time unit its row renders it in.
public struct ParamSlot: Sendable, Hashable {
    /// Offset in bytes; -1 when the name was not found (every read fails).
    public let offset: Int
    public let width: Int
    /// Microseconds per unit when the row renders the parameter as a time (``ParamRender/microsPerUnit``).
    public let microsPerUnit: Int64?

    static let unresolved = ParamSlot(offset: -1, width: 0, microsPerUnit: nil)

    /// The little-endian integer at the slot (of the element starting `base` bytes into
    /// `bytes`), nil when `bytes` are too short (or the slot is unresolved).
    func uint(_ bytes: ArraySlice<UInt8>, at base: Int = 0) -> UInt64? {
        guard offset >= 0, width > 0, base >= 0, base <= bytes.count else { return nil }
        let at = base + offset
        guard bytes.count - at >= width else { return nil }
        let start = bytes.startIndex + at
        var v: UInt64 = 0
        for k in 0..<width { v |= UInt64(bytes[start + k]) << (8 * UInt64(k)) }
        return v
    }

    func u8(_ bytes: ArraySlice<UInt8>, at base: Int = 0) -> UInt8? {
        uint(bytes, at: base).map { UInt8(truncatingIfNeeded: $0) }
    }
    func u16(_ bytes: ArraySlice<UInt8>, at base: Int = 0) -> UInt16? {
        uint(bytes, at: base).map { UInt16(truncatingIfNeeded: $0) }
    }
    /// A connection handle: its 12 significant bits.
    func handle(_ bytes: ArraySlice<UInt8>) -> UInt16? { u16(bytes).map { $0 & 0x0FFF } }

    func address(_ bytes: ArraySlice<UInt8>) -> BDAddr? {
        guard width == 6 else { return nil }
        return uint(bytes).map(BDAddr.init(value:))
    }

    /// The time at the slot in microseconds, by the row's unit.
    func micros(_ bytes: ArraySlice<UInt8>, at base: Int = 0) -> Int64? {
        uint(bytes, at: base).flatMap(micros)
    }

    /// `raw` in microseconds, by the row's unit (nil: the row gives the parameter no time unit).
    public func micros(_ raw: UInt64) -> Int64? {
        guard let unit = microsPerUnit else { return nil }
        let (v, overflow) = Int64(clamping: raw).multipliedReportingOverflow(by: unit)
        return overflow ? nil : v
    }
}

/// A run of bytes whose length an earlier integer states (`.data`), or a fixed block of which
/// that many bytes are used (`.padded`).
struct RunSlot: Sendable {
    let offset: Int
    let length: ParamSlot
    /// The block's size for `.padded` (nil for `.data`).
    let size: Int?

    static let unresolved = RunSlot(offset: -1, length: .unresolved, size: nil)

    /// The stated length and the bytes of it present (at most that many: a lax read, as hosts
    /// trim the padding of a 31-byte block). Nil when the length itself is missing.
    func read(_ bytes: ArraySlice<UInt8>) -> (length: Int, data: ArraySlice<UInt8>)? {
        guard offset >= 0, let n = length.uint(bytes), bytes.count >= offset else { return nil }
        let length = Int(clamping: n)
        let start = bytes.startIndex + offset
        let available = bytes.count - offset
        return (length, bytes[start..<(start + min(length, available))])
    }
}

/// An array of fixed-size elements: where it starts, where its count comes from, and each
/// element's size (the element's own parameters are slots relative to its start).
struct ArraySlot: Sendable {
    let offset: Int
    /// The integer holding the count, or the bit set whose set bits each have one element.
    let count: ParamSlot
    let countsBits: Bool
    let elementSize: Int

    static let unresolved = ArraySlot(offset: -1, count: .unresolved, countsBits: false, elementSize: 0)

    /// How many elements there are, nil when the count is missing or the elements are cut short.
    func count(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard offset >= 0, elementSize > 0, let raw = count.uint(bytes) else { return nil }
        let n = countsBits ? raw.nonzeroBitCount : Int(clamping: raw)
        let (total, overflow) = n.multipliedReportingOverflow(by: elementSize)
        guard !overflow, bytes.count - offset >= total else { return nil }
        return n
    }

    /// Where element `i` starts (for `i` below a `count` that succeeded: no overflow).
    func start(_ i: Int) -> Int { offset + i * elementSize }
}

/// A view's slot table, built once, with the names it looked for and did not find.
struct Built<Table: Sendable>: Sendable {
    let table: Table
    let missing: [String]
    init(_ table: Table, _ missing: [String]) {
        self.table = table
        self.missing = missing
    }
}

/// A layout row's parameters by name, at the offsets the row implies (every parameter before
/// them of fixed size). Lookups that fail are remembered in ``missing``.
struct ParamSlots: Sendable {
    private var fields: [String: (offset: Int, field: ParamField)] = [:]
    private(set) var missing: [String] = []
    /// Names appearing more than once at the top level (a lookup by such a name is ambiguous).
    private(set) var duplicates: Set<String> = []

    /// `base`: where the first parameter of `layout` sits (a variant's parameters follow the
    /// ones before it).
    init(_ layout: [ParamField]?, base: Int = 0) {
        guard let layout else {
            missing = ["(no layout row)"]
            return
        }
        var offset: Int? = base
        var seen: Set<String> = []
        for field in layout {
            if !seen.insert(field.name).inserted { duplicates.insert(field.name) }
            if let at = offset, fields[field.name] == nil { fields[field.name] = (at, field) }
            offset = offset.flatMap { at in field.fixedSize.map { at + $0 } }
        }
    }

    private mutating func find(_ name: String) -> (offset: Int, field: ParamField)? {
        if duplicates.contains(name) {
            missing.append("\(name) (appears twice)")
            return nil
        }
        guard let found = fields[name] else {
            missing.append(name)
            return nil
        }
        return found
    }

    /// An integer parameter.
    mutating func int(_ name: String) -> ParamSlot {
        guard let (offset, field) = find(name) else { return .unresolved }
        switch field {
        case .u8(_, let r): return ParamSlot(offset: offset, width: 1, microsPerUnit: r.microsPerUnit)
        case .u16(_, let r): return ParamSlot(offset: offset, width: 2, microsPerUnit: r.microsPerUnit)
        case .u24(_, let r): return ParamSlot(offset: offset, width: 3, microsPerUnit: r.microsPerUnit)
        case .u32(_, let r): return ParamSlot(offset: offset, width: 4, microsPerUnit: r.microsPerUnit)
        case .u64(_, let r): return ParamSlot(offset: offset, width: 8, microsPerUnit: r.microsPerUnit)
        default:
            missing.append("\(name) (not an integer)")
            return .unresolved
        }
    }

    /// A BD_ADDR parameter.
    mutating func address(_ name: String) -> ParamSlot {
        guard let (offset, field) = find(name) else { return .unresolved }
        guard case .address = field else {
            missing.append("\(name) (not an address)")
            return .unresolved
        }
        return ParamSlot(offset: offset, width: 6, microsPerUnit: nil)
    }

    /// A `.data` or `.padded` run; its length parameter is looked up by the name the row gives.
    mutating func run(_ name: String) -> RunSlot {
        guard let (offset, field) = find(name) else { return .unresolved }
        switch field {
        case .data(_, let lengthName, _): return RunSlot(offset: offset, length: int(lengthName), size: nil)
        case .padded(_, let lengthName, let size, _): return RunSlot(offset: offset, length: int(lengthName), size: size)
        default:
            missing.append("\(name) (not a data run)")
            return .unresolved
        }
    }

    /// An `.array` of fixed-size elements, with its element layout's slots.
    mutating func array(_ name: String) -> (ArraySlot, element: ParamSlots) {
        guard let (offset, field) = find(name) else { return (.unresolved, ParamSlots([])) }
        guard case .array(_, let source, let element) = field else {
            missing.append("\(name) (not an array)")
            return (.unresolved, ParamSlots([]))
        }
        var size = 0
        for e in element {
            guard let s = e.fixedSize else {
                missing.append("\(name) (elements of variable size)")
                return (.unresolved, ParamSlots([]))
            }
            size += s
        }
        let count: ParamSlot
        let bits: Bool
        switch source {
        case .field(let n): (count, bits) = (int(n), false)
        case .bitsIn(let n): (count, bits) = (int(n), true)
        }
        return (ArraySlot(offset: offset, count: count, countsBits: bits, elementSize: size), ParamSlots(element))
    }

    /// The slots of the variant of `name` that `value` selects, at the offsets it sits at (every
    /// parameter before the variant of fixed size).
    mutating func variant(_ name: String, _ value: UInt64) -> ParamSlots {
        guard let (offset, field) = find(name) else { return ParamSlots([]) }
        guard case .variant(_, _, let variants) = field, let chosen = variants.first(where: { $0.value == value }) else {
            missing.append("\(name) (no variant \(value))")
            return ParamSlots([])
        }
        return ParamSlots(chosen.fields, base: offset)
    }

    /// Folds an element's (or another row's) failed lookups into this one's.
    mutating func absorb(_ other: ParamSlots, prefix: String) {
        missing += other.missing.map { "\(prefix): \($0)" }
    }
}
