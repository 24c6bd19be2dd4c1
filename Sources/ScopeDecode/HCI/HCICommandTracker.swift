import ScopeCore

/// A Command Complete or Command Status matched to the command it answers.
public struct CommandMatch: Sendable, Hashable {
    /// Frame number of the command.
    public var commandFrame: Int
    /// Timestamp of the command (µs).
    public var commandTimestampMicros: Int64
    /// Answer timestamp minus command timestamp (µs). Negative when a capture's clock ran
    /// backwards; saturates instead of overflowing.
    public var latencyMicros: Int64

    public init(commandFrame: Int, commandTimestampMicros: Int64, latencyMicros: Int64) {
        self.commandFrame = commandFrame
        self.commandTimestampMicros = commandTimestampMicros
        self.latencyMicros = latencyMicros
    }
}

/// Matches Command Complete/Command Status events to their commands (Core v5.4, Vol 4, Part E,
/// §4.4 flow control: each command is answered by exactly one of the two). Keyed by
/// (adapter, opcode): the answer names the opcode, and commands on different controllers are
/// independent. When a command is sent again before the first was answered, the newer one is
/// kept (the older one evidently got no answer). Opcode 0x0000 (NOP: Command Complete/Status
/// that only hand out credits) is never tracked or matched. A single-owner value type.
public struct HCICommandTracker: Sendable {
    /// Looked up for every command and every Command Complete/Status: hashed with `fastHash`
    /// rather than SipHash.
    struct Key: Hashable, Sendable {
        let adapter: UInt16
        let opcode: UInt16

        func hash(into hasher: inout Hasher) { hasher.combine(UInt32(adapter) << 16 | UInt32(opcode)) }
        func _rawHashValue(seed: Int) -> Int { fastHash(UInt64(adapter) << 16 | UInt64(opcode), seed: seed) }
    }

    struct Pending: Sendable {
        let frame: Int
        let timestampMicros: Int64
    }

    private var pending: [Key: Pending] = [:]

    public init() {}

    /// Number of commands sent and not yet answered.
    public var outstandingCount: Int { pending.count }

    /// Records a command sent by the host. Returns the command of the same opcode sent earlier on
    /// the adapter and still unanswered, which this one replaces (its `latencyMicros`: the time
    /// until it was replaced), or nil.
    @discardableResult
    public mutating func sent(_ opcode: HCIOpcode, adapter: UInt16, frame: Int, timestampMicros: Int64) -> CommandMatch? {
        guard opcode != .nop else { return nil }
        let replaced = pending.updateValue(Pending(frame: frame, timestampMicros: timestampMicros), forKey: Key(adapter: adapter, opcode: opcode.rawValue))
        return replaced.map { Self.match($0, at: timestampMicros) }
    }

    /// Matches a Command Complete/Status for `opcode`; returns the command's frame and the
    /// latency, or nil when no such command is outstanding (capture started after it, or NOP).
    /// The command is then no longer outstanding.
    public mutating func answered(
        _ opcode: HCIOpcode, adapter: UInt16, frame: Int, timestampMicros: Int64
    ) -> CommandMatch? {
        guard opcode != .nop, let p = pending.removeValue(forKey: Key(adapter: adapter, opcode: opcode.rawValue)) else {
            return nil
        }
        return Self.match(p, at: timestampMicros)
    }

    private static func match(_ p: Pending, at timestampMicros: Int64) -> CommandMatch {
        let (delta, overflow) = timestampMicros.subtractingReportingOverflow(p.timestampMicros)
        let latency = overflow ? (timestampMicros < p.timestampMicros ? Int64.min : Int64.max) : delta
        return CommandMatch(commandFrame: p.frame, commandTimestampMicros: p.timestampMicros, latencyMicros: latency)
    }
}
