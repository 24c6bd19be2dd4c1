import ScopeCore

/// One advertising report as counted by a scan session (added for reports: density timelines and
/// "reports processed until the connection request").
public struct ScanReportMark: Sendable, Hashable {
    public var at: FrameTime
    public var address: BDAddr
    public var duplicate: Bool
    public init(at: FrameTime, address: BDAddr, duplicate: Bool) {
        self.at = at
        self.address = address
        self.duplicate = duplicate
    }
}
