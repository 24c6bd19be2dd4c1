import ScopeCore
import ScopeDecode

/// The commands and events that concern the links alone, as the builder routes them here. (A
/// connection request, a connection that comes up and one that ends concern the scans, the
/// advertising, the pairings and the reconnections too: the builder carries those.)
extension ConnectionTracker {
    /// The opcodes `commandSent` takes.
    static func takesWhenSent(_ opcode: HCIOpcode) -> Bool {
        switch opcode {
        case .leCreateConnectionCancel, .disconnect, .leConnectionUpdate: return true
        default: return false
        }
    }

    /// A command of `takesWhenSent`, sent at `at`. Returns the position of the connection request
    /// it changed (a cancel), if any.
    mutating func commandSent(_ command: HCICommand, adapter: AdapterIndex, at: FrameTime) -> Int? {
        switch command.typed {
        case .leCreateConnectionCancel?:
            return cancelSent(adapter: adapter, at: at)
        case .disconnect(let d)?:
            disconnectSent(HandleKey(adapter: adapter, handle: d.handle), reason: d.reason, at: at)
        case .leConnectionUpdate(let u)?:
            // The host asks; when it answers the peer's request, the peer asked first.
            parameterUpdateAsked(HandleKey(adapter: adapter, handle: u.handle), by: .local)
        default:
            break
        }
        return nil
    }

    /// LE (Extended) Create Connection, LE Create Connection Cancel, Read RSSI or a change of the
    /// Filter Accept List (the builder's `commandAnswered` names them), sent at `sentAt`, answered by `event` at `at`. Returns
    /// the position of the connection request that changed, if any.
    mutating func commandAnswered(
        _ command: HCICommand, event: HCIEvent, sentAt: FrameTime, status: UInt8, adapter: AdapterIndex, at: FrameTime
    ) -> Int? {
        switch command.opcode {
        case .leCreateConnection, .leExtendedCreateConnectionV1, .leExtendedCreateConnectionV2:
            // Refused (Command Status with an error) or accepted: the request, or the one it
            // displaced, changes.
            if event.code == .commandStatus { return requestStatus(status, request: sentAt, adapter: adapter, at: at) }
        case .leCreateConnectionCancel:
            // The cancel accepted: the pending request is cancelled (its LE Connection Complete
            // with 0x02 should follow; some controllers never send it).
            if status == 0 { cancelAccepted(adapter: adapter) }
        case .readRSSI:
            if case .readRSSI(let r)? = event.typed {
                rssiRead(HandleKey(adapter: adapter, handle: r.handle), RSSIReading(dBm: Int(r.rssi), at: at))
            }
        case .leAddDeviceToFilterAcceptList, .leRemoveDeviceFromFilterAcceptList, .leClearFilterAcceptList:
            guard status == 0 else { break }
            switch command.typed {
            case .leFilterAcceptListDevice(let d)?: acceptListChanged(d.address, added: d.added, adapter: adapter)
            case .leClearFilterAcceptList?: acceptListCleared(adapter: adapter)
            default: break
            }
        default:
            break
        }
        return nil
    }

    /// An event that changes an open link's parameters, PHY or data length, or says the peer asked
    /// for new parameters (the others are passed over).
    mutating func linkEvent(_ event: TypedEvent, adapter: AdapterIndex, at: FrameTime) {
        switch event {
        case .leConnectionUpdateComplete(let u):
            parametersUpdated(
                HandleKey(adapter: adapter, handle: u.handle), status: u.status,
                update: ParameterUpdate(
                    at: at, intervalMicros: u.intervalMicros, peripheralLatency: Int(u.peripheralLatency),
                    supervisionTimeoutMicros: u.supervisionTimeoutMicros))
        case .leRemoteConnectionParameterRequest(let r):
            parameterUpdateAsked(HandleKey(adapter: adapter, handle: r.handle), by: .remote)
        case .lePHYUpdateComplete(let u):
            if u.status == 0 { phyUpdated(HandleKey(adapter: adapter, handle: u.handle), PHYUpdate(at: at, tx: u.txPHY, rx: u.rxPHY)) }
        case .leDataLengthChange(let d):
            dataLengthChanged(
                HandleKey(adapter: adapter, handle: d.handle),
                DataLengthChange(at: at, maxTXOctets: Int(d.maxTXOctets), maxRXOctets: Int(d.maxRXOctets)))
        default:
            break
        }
    }
}
