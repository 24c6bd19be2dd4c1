/// The protocol layer a decode error or diagnostic belongs to.
public enum Layer: String, Sendable, Hashable, Codable, CaseIterable {
    case capture, monitor, hci, acl, sco, iso, l2cap, signaling, att, gatt, smp, ad
}

/// A failure to read wire data: what went wrong, where (absolute byte offset within the
/// record payload, or within the file for capture-level errors) and at which layer.
public struct DecodeError: Error, Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `needed` bytes were required at `offset` but only `available` remained.
        case truncated(needed: Int, available: Int)
        /// The bytes are present but their value is not acceptable.
        case invalid(String)
    }

    public var kind: Kind
    public var offset: Int
    public var layer: Layer

    public init(_ kind: Kind, offset: Int, layer: Layer) {
        self.kind = kind
        self.offset = offset
        self.layer = layer
    }

    public var message: String {
        switch kind {
        case .truncated(let needed, let available):
            return "truncated: needed \(needed) byte\(needed == 1 ? "" : "s"), \(available) available"
        case .invalid(let text):
            return text
        }
    }
}

extension DecodeError: CustomStringConvertible {
    public var description: String { "\(layer.rawValue) at offset \(offset): \(message)" }
}
