import ScopeCore
import ScopeDecode

/// The scan commands, as the builder routes them here when they are answered (the builder's
/// `commandAnswered` names their opcodes): LE Set (Extended)
/// Scan Parameters (and Android's vendor form) set the parameters of the next scans; LE Set
/// (Extended) Scan Enable starts and stops sessions.
extension ScanTracker {
    /// A scan command (LE Set (Extended) Scan Parameters, Android's vendor form, LE Set
    /// (Extended) Scan Enable), sent at `sentAt` and answered at `at` with `status`.
    /// `lastConnectionEvent`: the last connection request, connection or disconnection on the
    /// adapter (a scan enabled within 2 s of one resumes around a connection). Returns who
    /// started the session it started, if any.
    mutating func commandAnswered(
        _ command: HCICommand, sentAt: FrameTime, status: UInt8, adapter: AdapterIndex, at: FrameTime, keptScans: Int,
        lastConnectionEvent: Timestamp?, actors: inout ActorTracker
    ) -> ActorEvidence? {
        switch command.opcode {
        case .leSetScanParameters, .leSetExtendedScanParameters, .androidExtendedScanParameters:
            guard status == 0 else { return nil }
            switch command.typed {
            case .leSetScanParameters(let s)?:
                actors.scanParameters(filterPolicy: s.filterPolicy, adapter: adapter)
                parametersSet(
                    [ScanPHY(phy: "1M", active: s.active, intervalMicros: s.intervalMicros, windowMicros: s.windowMicros)], adapter: adapter)
            case .leSetExtendedScanParameters(let s)?:
                actors.scanParameters(filterPolicy: s.filterPolicy, adapter: adapter)
                parametersSet(
                    s.phys.compactMap { p in
                        Self.scanPHYName(bit: p.bit).map {
                            ScanPHY(phy: $0, active: p.active, intervalMicros: p.intervalMicros, windowMicros: p.windowMicros)
                        }
                    }, adapter: adapter)
            default:
                break
            }
            return nil
        case .leSetScanEnable, .leSetExtendedScanEnable:
            guard case .leSetScanEnable(let e)? = command.typed else { return nil }
            let started = scanEnable(
                e, api: e.extended ? .extended : .legacy, status: status, command: sentAt, complete: at, adapter: adapter,
                keptScans: keptScans, actors: &actors,
                resumesAroundConnection: lastConnectionEvent.map { sentAt.time.microseconds &- $0.microseconds <= 2_000_000 } ?? false)
            return started ? sessions.items.last?.attribution : nil
        default:
            return nil
        }
    }

    /// The scanning PHYs the analysis reports, by their Scanning_PHYs bit (LE 2M cannot scan).
    static func scanPHYName(bit: Int) -> String? {
        switch bit {
        case 0: return "1M"
        case 2: return "Coded"
        default: return nil
        }
    }
}
