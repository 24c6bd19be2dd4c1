import ScopeCore

/// Where one parameter sits in a record payload, and what kind of content it holds: what the
/// redactor needs to know of a layout (every address, every name, every run it cannot vouch for).
public struct FieldSpan: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// A BD_ADDR (little-endian); `random` when an Address_Type before it says so (nil: not stated).
        case address(AddressRole, random: Bool?)
        /// A device name (UTF-8 up to the first NUL): Local_Name, Remote_Name, a paired device's name.
        case name
        /// Advertising data, scan response data or EIR: AD structures.
        case advertisingData
        /// Typed bytes of a described parameter (channel maps, UUIDs, codec ids): kept.
        case bytes
        /// Free text (notes, logs, process names): kept, with addresses and known names in it replaced.
        case text
        /// A key or other secret: always zeroed.
        case secret
        /// Bytes whose layout is not described (unknown records, vendor parameters, trailing
        /// bytes): they may hold anything, so the redactor zeroes them unless asked to keep them.
        case opaque
    }

    public var range: Range<Int>
    public var kind: Kind

    public init(_ range: Range<Int>, _ kind: Kind) {
        self.range = range
        self.kind = kind
    }
}

extension BytesRender {
    var spanKind: FieldSpan.Kind {
        switch self {
        case .hex: return .bytes
        case .text: return .name
        case .advertisingData: return .advertisingData
        }
    }
}

extension ParamLayout {
    /// The spans of `bytes` (a slice of a record payload whose first byte sits at `baseOffset`)
    /// as `layout` describes them, in wire order, followed by one `.opaque` span for whatever
    /// the layout does not account for (trailing bytes, or everything after the point where the
    /// bytes ran out). Offsets are record payload offsets. Never traps.
    /// Parameters named in `secretNames` (integers included) are `.secret` spans.
    public static func spans(
        _ layout: [ParamField], _ bytes: ArraySlice<UInt8>, baseOffset: Int, secretNames: Set<String> = []
    ) -> [FieldSpan] {
        var walker = Walker(ByteReader(bytes, layer: .hci, baseOffset: baseOffset), build: false)
        walker.collectSpans = true
        walker.secretNames = secretNames
        var out: [Field] = []
        walker.walk(layout, into: &out)
        var spans = walker.spans
        let end = baseOffset + bytes.count
        if walker.reader.offset < end { spans.append(FieldSpan(walker.reader.offset..<end, .opaque)) }
        return spans
    }
}
