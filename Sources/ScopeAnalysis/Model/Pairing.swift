import ScopeCore

/// One SMP pairing exchange and its outcome (RULES.md "Pairing").
public struct Pairing: Sendable {
    public enum Method: String, Sendable, Hashable {
        case justWorks = "Just Works", passkeyEntry = "Passkey Entry", numericComparison = "Numeric Comparison"
        case outOfBand = "OOB", unknown = "unknown"
    }
    public enum Result: String, Sendable, Hashable { case success, failed, incomplete }

    public struct Features: Sendable, Hashable {
        public var ioCapability: UInt8
        public var oobDataPresent: Bool
        public var authReq: UInt8
        public var maxKeySize: UInt8
        public var initiatorKeys: UInt8
        public var responderKeys: UInt8
        public init(ioCapability: UInt8, oobDataPresent: Bool, authReq: UInt8, maxKeySize: UInt8, initiatorKeys: UInt8, responderKeys: UInt8) {
            self.ioCapability = ioCapability
            self.oobDataPresent = oobDataPresent
            self.authReq = authReq
            self.maxKeySize = maxKeySize
            self.initiatorKeys = initiatorKeys
            self.responderKeys = responderKeys
        }
        public var bonding: Bool { authReq & 0x03 == 0x01 }
        public var mitm: Bool { authReq & 0x04 != 0 }
        public var secureConnections: Bool { authReq & 0x08 != 0 }
    }

    public var connection: ConnectionID
    public var securityRequest: FrameTime?
    public var request: FrameTime
    public var initiatedBy: Side
    public var response: FrameTime?
    public var initiator: Features?
    public var responder: Features?
    public var method: Method = .unknown
    public var secureConnections = false
    public var result: Result = .incomplete
    /// SMP Pairing Failed reason or failing encryption status.
    public var reason: UInt8?
    public var failed: FrameTime?
    public var failedSentBy: Side?
    public var encryption: FrameTime?
    /// The Encryption Change (or Key Refresh) with status 0x08 Connection Timeout that cut the
    /// pairing off: the link was lost, the pairing stays incomplete.
    public var linkLost: FrameTime?
    /// The Pairing Request of an earlier successful pairing with bonding with the same peer in
    /// this capture: the bond was deleted on one side and made again.
    public var repeatsBond: FrameTime?

    public init(connection: ConnectionID, request: FrameTime, initiatedBy: Side) {
        self.connection = connection
        self.request = request
        self.initiatedBy = initiatedBy
    }
}
