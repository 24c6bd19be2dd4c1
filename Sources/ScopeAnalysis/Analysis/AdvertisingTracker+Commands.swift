import ScopeCore
import ScopeDecode

/// The advertising commands, as the builder routes them here: the data commands count when sent,
/// the others when answered.
extension AdvertisingTracker {
    /// Advertising sets the controller accepted to switch on or off (at the command's frame): the
    /// builder passes it on with the connections open now (`AnalysisBuilder.advertisingEnable`).
    struct EnableAccepted: Sendable {
        var enable: Bool
        /// The sets (nil: legacy advertising).
        var handles: [UInt8?]
    }

    /// The commands that give a set its advertising or scan response data (Android's
    /// multi-advertising command does too, with one of its sub-opcodes).
    static func isDataOpcode(_ opcode: HCIOpcode) -> Bool {
        switch opcode {
        case .leSetAdvertisingData, .leSetScanResponseData, .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData: return true
        default: return false
        }
    }

    /// The opcodes `commandSent` takes.
    static func takesWhenSent(_ opcode: HCIOpcode) -> Bool {
        isDataOpcode(opcode) || opcode == .androidMultiAdvertising
    }

    /// A command sent at `sentAt`, never answered, replaced by a later one of its opcode: a data
    /// command so replaced is settled unanswered.
    mutating func commandReplaced(_ command: HCICommand, sentAt: FrameTime) {
        if Self.setsAdvertisingData(command) { dataCommandReplaced(sentAt: sentAt) }
    }

    /// Whether `command` gives a set its advertising or scan response data.
    private static func setsAdvertisingData(_ command: HCICommand) -> Bool {
        if isDataOpcode(command.opcode) { return true }
        guard command.opcode == .androidMultiAdvertising, case .androidMultiAdvertising(.data)? = command.typed else { return false }
        return true
    }

    /// A command of `takesWhenSent`, sent at `at`.
    mutating func commandSent(_ command: HCICommand, adapter: AdapterIndex, at: FrameTime, actors: ActorTracker) {
        switch command.typed {
        case .leSetAdvertisingData(let d)?:
            legacyAdvertisingDataCommand(d, name: command.opcode.name ?? command.opcode.description, adapter: adapter, at: at, actors: actors)
        case .leSetExtendedAdvertisingData(let d)?:
            extendedAdvertisingDataCommand(d, name: command.opcode.name ?? command.opcode.description, adapter: adapter, at: at, actors: actors)
        case .androidMultiAdvertising(.data(let instance, let d))?:
            multiAdvertisingDataCommand(
                d, instance: instance,
                name: d.scanResponse ? "Android Multi-Advertising Write Scan Response Data" : "Android Multi-Advertising Write Advertising Data",
                adapter: adapter, at: at, actors: actors)
        default:
            // The other data commands (too short for their view) still say advertising is in use;
            // Android's other multi-advertising commands count when answered.
            if command.opcode != .androidMultiAdvertising { noteAdvertisingCommand() }
        }
    }

    /// A command (sent at `sentAt`) answered by `event` with `status` at `at`: what an advertising
    /// command's answer says; the sets to switch on or off, when it enables or disables advertising.
    mutating func commandAnswered(
        _ command: HCICommand, sentAt: FrameTime, event: HCIEvent, status: UInt8, adapter: AdapterIndex, at: FrameTime
    ) -> EnableAccepted? {
        if Self.isDataOpcode(command.opcode) {
            dataCommandAnswered(command: sentAt, status: status, at: at)
            return nil
        }
        switch command.opcode {
        case .leSetAdvertisingParameters:
            if status == 0, case .leSetAdvertisingParameters(let a)? = command.typed {
                legacyParametersSet(
                    AdvertisingSetup(intervalMicros: a.intervalMinMicros, connectable: a.connectable, directed: a.directed, legacyPDUs: true),
                    adapter: adapter)
            } else {
                noteAdvertisingCommand()
            }
        case .leSetExtendedAdvertisingParametersV1, .leSetExtendedAdvertisingParametersV2:
            if status == 0, case .leSetExtendedAdvertisingParameters(let a)? = command.typed {
                extendedParametersSet(
                    AdvertisingSetup(
                        intervalMicros: a.primaryIntervalMinMicros, connectable: a.connectable, directed: a.directed, legacyPDUs: a.legacyPDUs),
                    handle: a.advertisingHandle, adapter: adapter)
            } else {
                noteAdvertisingCommand()
            }
        case .leSetAdvertisingEnable:
            if status == 0, case .leSetAdvertisingEnable(let e)? = command.typed {
                return EnableAccepted(enable: e.enable, handles: [nil])
            }
        case .leSetExtendedAdvertisingEnable:
            if status == 0, case .leSetExtendedAdvertisingEnable(let e)? = command.typed {
                // No set named: every set is disabled.
                if !e.enable && e.sets.isEmpty { return EnableAccepted(enable: false, handles: enabledSets(adapter: adapter)) }
                return EnableAccepted(enable: e.enable, handles: e.sets.map { Optional($0.advertisingHandle) })
            }
        case .androidMultiAdvertising:
            switch command.typed {
            case .androidMultiAdvertising(.parameters(let instance, let a))?:
                multiAdvertisingParametersSet(
                    status == 0
                        ? AdvertisingSetup(intervalMicros: a.intervalMinMicros, connectable: a.connectable, directed: a.directed, legacyPDUs: true)
                        : nil,
                    instance: instance, adapter: adapter)
            case .androidMultiAdvertising(.data)?:
                dataCommandAnswered(command: sentAt, status: status, at: at)
            case .androidMultiAdvertising(.enable(let instance, let enabled))?:
                noteMultiAdvertisingInstance(instance, adapter: adapter)
                if status == 0 { return EnableAccepted(enable: enabled, handles: [instance]) }
            default:
                // Set Random Address (the stack rotates each instance's address): no advertising.
                break
            }
        case .leReadSupportedStates:
            if case .leReadSupportedStates(let s)? = event.typed { supportedStates(s.states, at: at) }
        case .leReadMaximumAdvertisingDataLength:
            if case .leReadMaximumAdvertisingDataLength(let m)? = event.typed { maximumDataLength(m.maxLength, at: at) }
        default:
            break
        }
        return nil
    }
}
