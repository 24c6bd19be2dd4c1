/// 1-based frame number, assigned once by the source that read the record and used everywhere
/// as evidence (the same numbering as Wireshark's `frame.number`).
public typealias FrameNumber = Int

/// Controller index as the Linux monitor names it; ``AdapterIndex.none`` (0xFFFF) for records
/// that belong to no controller. Formats without an index (btsnoop 1001/1002, pcap 187/201,
/// PacketLogger) read as adapter 0.
public typealias AdapterIndex = UInt16

extension AdapterIndex {
    public static let noController: AdapterIndex = 0xFFFF
}

/// The one record type every capture source produces (STYLE B4).
///
/// `payload` holds the packet without any H4 type byte or format pseudo-header: an HCI packet
/// for HCI kinds, the monitor opcode's own structure for monitor kinds, and the record body for
/// PacketLogger text. It may be shorter than `originalLength` (Android filtered logs, snap
/// lengths): both are kept.
public struct CaptureRecord: Sendable, Hashable {
    public var frame: FrameNumber
    public var timestamp: Timestamp
    public var adapter: AdapterIndex
    public var direction: Direction
    public var kind: RecordKind
    /// Length of the packet as it was on the wire (same units as `payload`).
    public var originalLength: Int
    public var payload: [UInt8]
    /// Cumulative drop counter reported by the source (btsnoop), 0 when unknown.
    public var drops: UInt32

    // Inlinable: the capture readers build one per record.
    @inlinable
    public init(
        frame: FrameNumber, timestamp: Timestamp, adapter: AdapterIndex = 0, direction: Direction,
        kind: RecordKind, originalLength: Int? = nil, payload: [UInt8], drops: UInt32 = 0
    ) {
        self.frame = frame
        self.timestamp = timestamp
        self.adapter = adapter
        self.direction = direction
        self.kind = kind
        self.originalLength = originalLength ?? payload.count
        self.payload = payload
        self.drops = drops
    }

    /// True when the source cut the packet short.
    public var isTruncated: Bool { payload.count < originalLength }
}
