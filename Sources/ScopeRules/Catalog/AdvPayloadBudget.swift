import ScopeAnalysis
import ScopeCore

/// `adv.payload-budget` — guidance 8: advertising payloads are small.
///
/// Judges the advertising and scan response data the local host set. Legacy advertising PDUs
/// (legacy commands, or an extended set with the legacy-PDU property) carrying more than 31 bytes
/// are an error, even when the controller rejects the command (0x12). With the iOS profile:
/// advertising data other than Flags over 28 bytes, or scan response data over 10 bytes (AD
/// headers included), each judged on its own, are info — the foreground budget of an iOS app
/// (`CBAdvertisementDataLocalNameKey` goes to the scan response; extra service UUIDs to the overflow
/// area). Extended (non-legacy) data is an error only when longer than LE Read Maximum Advertising
/// Data Length (when read) or refused by the controller (0x45 / 0x07); it is never judged against
/// 31 bytes or the iOS budget.
///
/// Usual cause: too many service UUIDs, a long local name or manufacturer data in
/// `startAdvertising(_:)` (Android: `AdvertiseData` over 31 bytes fails with
/// `ADVERTISE_FAILED_DATA_TOO_LARGE`; BlueZ: `LEAdvertisement1` properties).
package struct AdvPayloadBudget: ItemRule {
    package static let id = "adv.payload-budget"
    package static let guidance = 8
    package static let defaultSeverity = Severity.error
    package static let summary = "Advertising or scan response data exceeds what the PDU (or the iOS budget) carries"
    package static let defaultThresholds: [String: ThresholdValue] = [
        "legacy_max_bytes": .number(31), "ios_adv_bytes_excluding_flags": .number(28), "ios_scan_rsp_bytes": .number(10),
    ]
    package init() {}

    /// Bytes of Flags AD structures (length byte included) within `data`.
    static func flagsBytes(_ data: ArraySlice<UInt8>) -> Int {
        var i = data.startIndex
        var total = 0
        while i < data.endIndex {
            let len = Int(data[i])
            if len == 0 { break }
            let typeIndex = i + 1
            if typeIndex < data.endIndex, data[typeIndex] == 0x01 { total += len + 1 }
            i += len + 1
        }
        return total
    }

    struct State: RuleState {
        var findings = FindingTally()
        /// Advertising and scan response data commands judged.
        var commands = 0
        /// Payload sizes per command label.
        var sizes: [String: PayloadSizes] = [:]
        /// Extended data, judged against the controller's maximum length as read by the end of
        /// the capture: per assembled length (-1: refused by the controller, a finding whatever
        /// the maximum), the commands, rendered at the end.
        var extendedData: [Int: FirstByKey<ExtendedData>] = [:]

        /// Sizes of one label's payloads, and where the label appears in the summary: the
        /// commands up to the first whose size was recorded (`candidates`, each key a place in
        /// the summary).
        struct PayloadSizes: Sendable {
            var count = 0
            var min = Int.max
            var max = Int.min
            var firstSized: ItemKey?
            var candidates: [ItemKey] = []
        }

        struct ExtendedData: Sendable {
            var command: String
            var at: FrameNumber
            var complete: FrameNumber?
            var length: Int
            var kindText: String
            var statusText: String
            var attribution: ActorEvidence
        }
    }

    func tally(_ view: ItemView, into t: inout State, config: RuleConfiguration) {
        let legacyMax = Int(number("legacy_max_bytes", config))
        let iosAdv = Int(number("ios_adv_bytes_excluding_flags", config))
        let iosRsp = Int(number("ios_scan_rsp_bytes", config))
        let ios = config.profile == .ios
        let context = PlatformContext(view.platform, config)
        func size(_ label: String, _ k: ItemKey, _ value: Int?) {
            var s = t.sizes[label] ?? State.PayloadSizes()
            // The summary names a label at each command until one records a size, in capture
            // order whatever order the items are tallied in (the batches handed over on the way
            // come before the first items, held to the end): a command before the first sized
            // one so far is a candidate, and the verdict keeps those before the first of all.
            if s.firstSized.map({ k < $0 }) ?? true { s.candidates.append(k) }
            if let value {
                s.count += 1
                s.min = min(s.min, value)
                s.max = max(s.max, value)
                if s.firstSized.map({ k < $0 }) ?? true { s.firstSized = k }
            }
            t.sizes[label] = s
        }

        for (i, cmd) in view.dataCommands.enumerated() {
            t.commands += 1
            let k = key(0, Int(cmd.at.frame), i)
            let kindText = cmd.kind == .advertising ? "advertising data" : "scan response data"
            let label = cmd.command + (cmd.advertisingHandle.map { " (set \($0)\(cmd.legacyPDUs ? ", legacy PDUs" : ""))" } ?? "")
            let evidence = [cmd.at.frame, cmd.complete?.frame]
            let statusText = cmd.status.map { $0 == 0 ? "" : ", rejected by the controller with \(Text.hex2($0)) (frame \(cmd.complete?.frame ?? cmd.at.frame))" } ?? ""
            let actor = context.actor(cmd.attribution)
            if cmd.legacyPDUs {
                size(label, k, cmd.length)
                if cmd.length > legacyMax {
                    t.finding(k, .error, actor: actor) {
                        finding(
                            .error, subject: "\(cmd.command) at frame \(cmd.at.frame)",
                            shows: "\(cmd.command) (frame \(cmd.at.frame)): \(cmd.length) bytes of \(kindText) in legacy advertising PDUs, over \(legacyMax)\(statusText)",
                            cause: "Usually too many service UUIDs, a long local name or manufacturer data passed to startAdvertising(_:) (Android: AdvertiseData over 31 bytes fails with ADVERTISE_FAILED_DATA_TOO_LARGE)",
                            evidence: evidence,
                            fix: "Keep legacy advertising and scan response data within 31 bytes each; move the name to the scan response.",
                            attribution: cmd.attribution, context: context)
                    }
                } else if ios {
                    let payload = cmd.data.prefix(cmd.length)
                    if cmd.kind == .advertising {
                        let counted = cmd.length - Self.flagsBytes(payload)
                        if counted > iosAdv {
                            t.finding(k, .info, actor: actor) {
                                finding(
                                    .info, subject: "\(cmd.command) at frame \(cmd.at.frame)",
                                    shows: "\(cmd.command) (frame \(cmd.at.frame)): \(counted) bytes of advertising data besides Flags, over the iOS foreground budget of \(iosAdv) bytes",
                                    cause: "An iOS app in the foreground gets \(iosAdv) bytes of advertising data: service UUIDs that don't fit go to the overflow area, visible only to iOS scanners that ask for them",
                                    evidence: evidence,
                                    fix: "Advertise one service UUID and a short name.", attribution: cmd.attribution, context: context)
                            }
                        }
                    } else if cmd.length > iosRsp {
                        t.finding(k, .info, actor: actor) {
                            finding(
                                .info, subject: "\(cmd.command) at frame \(cmd.at.frame)",
                                shows: "\(cmd.command) (frame \(cmd.at.frame)): \(cmd.length) bytes of scan response data, over the iOS foreground budget of \(iosRsp) bytes of scan response",
                                cause: "iOS puts only the local name (CBAdvertisementDataLocalNameKey) in a scan response of \(iosRsp) bytes; a longer name is truncated",
                                evidence: evidence,
                                fix: "Use a local name of at most 8 characters.", attribution: cmd.attribution, context: context)
                        }
                    }
                }
                continue
            }
            // Extended (non-legacy) data: assembled from fragments (Operation 1 first, 0
            // intermediate, 2 last, 3 complete, 4 unchanged data) as the analysis recorded it
            // for every extended command.
            let op = cmd.operation ?? 3
            let soFar = cmd.assembledLength ?? cmd.fragmentLength
            size(label, k, op == 2 || op == 3 ? soFar : nil)
            // Judged against the controller's maximum as read by the end (`verdict`).
            let refused = cmd.status == 0x45 || cmd.status == 0x07
            t.extendedData[refused ? -1 : soFar, default: FirstByKey(capacity: FindingList.limit)].insert(k) {
                State.ExtendedData(
                    command: cmd.command, at: cmd.at.frame, complete: cmd.complete?.frame, length: soFar, kindText: kindText, statusText: statusText,
                    attribution: cmd.attribution)
            }
        }
    }

    func verdict(_ t: State, end: ItemView, config: RuleConfiguration) -> RuleVerdict {
        guard t.commands > 0 else {
            return notEvaluated("no advertising or scan response data set by this host (not an advertiser capture)")
        }
        let iosAdv = Int(number("ios_adv_bytes_excluding_flags", config))
        let iosRsp = Int(number("ios_scan_rsp_bytes", config))
        let ios = config.profile == .ios
        let context = PlatformContext(end.platform, config)
        // Extended data refused by the controller or longer than its maximum.
        var all = t
        let maxLength = end.advertising?.maxAdvertisingDataLength
        let maxFrame = end.advertising?.maxAdvertisingDataLengthFrame
        for (length, list) in t.extendedData where length == -1 || maxLength.map({ length > $0 }) ?? false {
            all.findings.add(list, .error) { d in
                let limitText = maxLength.map { ", controller maximum \($0) bytes (frame \(maxFrame ?? 0))" } ?? ""
                return finding(
                    .error, subject: "\(d.command) at frame \(d.at)",
                    shows: "\(d.command) (frame \(d.at)): \(d.length) bytes of extended \(d.kindText)\(limitText)\(d.statusText)",
                    cause: "The advertising set carries more data than this controller accepts (Android: AdvertisingSetParameters with data over BluetoothAdapter.getLeMaximumAdvertisingDataLength())",
                    evidence: [d.at, d.complete, maxFrame],
                    fix: "Check the controller's maximum advertising data length and trim the data.", attribution: d.attribution,
                    context: context)
            }
        }
        // Each label where the summary names it: its commands up to the first with a size.
        var order: [(key: ItemKey, label: String)] = []
        for (label, s) in t.sizes {
            for k in s.candidates where s.firstSized.map({ !($0 < k) }) ?? true { order.append((k, label)) }
        }
        order.sort { $0.key < $1.key }
        let summary = order.map { item -> String in
            let s = t.sizes[item.label] ?? State.PayloadSizes()
            let lo = s.count == 0 ? 0 : s.min
            let hi = s.count == 0 ? 0 : s.max
            return "\(s.count) x \(item.label): " + (lo == hi ? "\(lo) bytes" : "\(lo)-\(hi) bytes")
        }.joined(separator: "; ")
        return verdict(
            all.findingList,
            passReason: "all advertising/scan response payloads within budget: " + summary
                + (ios ? " (iOS profile: legacy advertising data excluding Flags <= \(iosAdv) bytes, scan response <= \(iosRsp) bytes)" : ""))
    }
}
