import ScopeCore

/// One SMP pairing exchange and its outcome (RULES.md "Pairing").
package struct Pairing: Sendable {
    package enum Method: String, Sendable, Hashable {
        case justWorks = "Just Works", passkeyEntry = "Passkey Entry", numericComparison = "Numeric Comparison"
        case outOfBand = "OOB", unknown = "unknown"
    }
    package enum Result: String, Sendable, Hashable { case success, failed, incomplete }

    package struct Features: Sendable, Hashable {
        package var ioCapability: UInt8
        package var oobDataPresent: Bool
        package var authReq: UInt8
        package var maxKeySize: UInt8
        package var initiatorKeys: UInt8
        package var responderKeys: UInt8
        package init(ioCapability: UInt8, oobDataPresent: Bool, authReq: UInt8, maxKeySize: UInt8, initiatorKeys: UInt8, responderKeys: UInt8) {
            self.ioCapability = ioCapability
            self.oobDataPresent = oobDataPresent
            self.authReq = authReq
            self.maxKeySize = maxKeySize
            self.initiatorKeys = initiatorKeys
            self.responderKeys = responderKeys
        }
        package var bonding: Bool { authReq & 0x03 == 0x01 }
        package var mitm: Bool { authReq & 0x04 != 0 }
        package var secureConnections: Bool { authReq & 0x08 != 0 }
    }

    package var connection: ConnectionID
    package var securityRequest: FrameTime?
    package var request: FrameTime
    package var initiatedBy: Side
    package var response: FrameTime?
    package var initiator: Features?
    package var responder: Features?
    package var method: Method = .unknown
    package var secureConnections = false
    package var result: Result = .incomplete
    /// SMP Pairing Failed reason or failing encryption status.
    package var reason: UInt8?
    package var failed: FrameTime?
    package var failedSentBy: Side?
    package var encryption: FrameTime?
    /// The Encryption Change (or Key Refresh) with status 0x08 Connection Timeout that cut the
    /// pairing off: the link was lost, the pairing stays incomplete.
    package var linkLost: FrameTime?
    /// The Pairing Request of an earlier successful pairing with bonding with the same peer in
    /// this capture: the bond was deleted on one side and made again.
    package var repeatsBond: FrameTime?

    package init(connection: ConnectionID, request: FrameTime, initiatedBy: Side) {
        self.connection = connection
        self.request = request
        self.initiatedBy = initiatedBy
    }
}
