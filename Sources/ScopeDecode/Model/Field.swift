import ScopeCore

/// One decoded field for people: a name, its rendered value, and nested fields.
/// Produced on demand (`-v` output), never on the analysis hot path.
public struct Field: Sendable, Hashable {
    public var name: String
    public var value: String
    public var children: [Field]

    public init(_ name: String, _ value: String, children: [Field] = []) {
        self.name = name
        self.value = value
        self.children = children
    }
}

/// A layer that could not be (fully) decoded: where and why. The bytes stay in the record.
public struct Malformation: Sendable, Hashable, CustomStringConvertible {
    public var layer: Layer
    /// Offset within the record payload (for reassembled PDUs: within the reassembled PDU).
    public var offset: Int
    public var message: String

    public init(layer: Layer, offset: Int, message: String) {
        self.layer = layer
        self.offset = offset
        self.message = message
    }

    public init(_ error: DecodeError) {
        self.init(layer: error.layer, offset: error.offset, message: error.message)
    }

    public var description: String { "\(layer.rawValue) at offset \(offset): \(message)" }
}

/// Renders a value as "Name (0x1a)" in the spirit of btmon/Wireshark.
@inlinable
public func named<T: BinaryInteger>(_ name: String?, _ code: T, digits: Int) -> String {
    "\(name ?? "Unknown") (\(Hex.prefixed(code, digits: digits)))"
}
