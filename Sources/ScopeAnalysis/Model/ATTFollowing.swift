import ScopeCore

/// One ATT PDU of a connection as the connection rules follow it: the event, and the CCCD
/// write it made (`Connection.step(_:)`).
package struct ATTStep: Sendable {
    package var event: ATTEvent
    /// The CCCD write recorded at the PDU's frame, when the PDU wrote one.
    package var clientConfigurationWrite: CCCDWrite?
}

extension Connection {
    /// `e` (one of this connection's ATT PDUs) as a step: the same whether it is asked while the
    /// analysis applies the PDU (the CCCD write is then the last one recorded) or once the
    /// connection is complete (one of the first `BoundedPrefix.capacity` writes, or the last;
    /// a later frame's cannot match). Inlined: the analysis asks it for every ATT PDU it
    /// follows, and it reads one field of the connection (through a call, the whole connection
    /// is copied for it).
    @inline(__always)
    package func step(_ e: ATTEvent) -> ATTStep {
        ATTStep(event: e, clientConfigurationWrite: e.writesClientConfiguration ? cccdWrites.write(at: e.at.frame) : nil)
    }
}

extension BoundedPrefix where Element == CCCDWrite {
    /// The write recorded at `frame`: the last, or one of the first kept.
    func write(at frame: FrameNumber) -> CCCDWrite? {
        if let last, last.at.frame == frame { return last }
        let w = kept.partitionPoint { $0.at.frame >= frame }
        return w < kept.count && kept[w].at.frame == frame ? kept[w] : nil
    }
}

/// Follows every connection's ATT PDUs as the analysis applies them (the connection rules'
/// per-connection state, kept by ScopeRules): handed to `AnalysisBuilder.attFollower`, it lets
/// the analysis stop holding every PDU of a connection until it closes. Called on the thread
/// that feeds the builder, in frame order.
package protocol ATTFollower: AnyObject, Sendable {
    func follow(_ step: ATTStep, on connection: ConnectionID)
}
