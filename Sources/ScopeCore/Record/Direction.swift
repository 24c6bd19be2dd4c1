/// Which way a record travelled across the HCI.
public enum Direction: String, Sendable, Hashable, Codable {
    /// Host → controller (commands, outgoing ACL/SCO/ISO). JSON: "sent".
    case sent
    /// Controller → host (events, incoming ACL/SCO/ISO). JSON: "received".
    case received
    /// Not applicable or not recorded (monitor meta records, H4 files without direction).
    case unknown

    public var arrow: String {
        switch self {
        case .sent: return "<"
        case .received: return ">"
        case .unknown: return "="
        }
    }
}
