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
public struct AdvPayloadBudget: Rule {
    public static let id = "adv.payload-budget"
    public static let guidance = 8
    public static let defaultSeverity = Severity.error
    public static let summary = "Advertising or scan response data exceeds what the PDU (or the iOS budget) carries"
    public static let defaultThresholds: [String: ThresholdValue] = [
        "legacy_max_bytes": .number(31), "ios_adv_bytes_excluding_flags": .number(28), "ios_scan_rsp_bytes": .number(10),
    ]
    public init() {}

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

    public func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration) -> RuleVerdict {
        guard let adv = analysis.advertising, !adv.dataCommands.isEmpty else {
            return notEvaluated("no advertising or scan response data set by this host (not an advertiser capture)")
        }
        let legacyMax = Int(number("legacy_max_bytes", config))
        let iosAdv = Int(number("ios_adv_bytes_excluding_flags", config))
        let iosRsp = Int(number("ios_scan_rsp_bytes", config))
        let ios = config.profile == .ios
        var findings = FindingList()
        var sizes: [String: [Int]] = [:]
        var order: [String] = []
        // Extended data assembled across fragments, by (handle, kind).
        var pending: [String: Int] = [:]

        for cmd in adv.dataCommands {
            let kindText = cmd.kind == .advertising ? "advertising data" : "scan response data"
            let label = cmd.command + (cmd.advertisingHandle.map { " (set \($0)\(cmd.legacyPDUs ? ", legacy PDUs" : ""))" } ?? "")
            let evidence = [cmd.at.frame, cmd.complete?.frame]
            let statusText = cmd.status.map { $0 == 0 ? "" : ", rejected by the controller with \(Text.hex2($0)) (frame \(cmd.complete?.frame ?? cmd.at.frame))" } ?? ""
            if cmd.legacyPDUs {
                if sizes[label] == nil { order.append(label) }
                sizes[label, default: []].append(cmd.length)
                if cmd.length > legacyMax {
                    findings.append(
                        finding(
                            .error, subject: "\(cmd.command) at frame \(cmd.at.frame)",
                            shows: "\(cmd.command) (frame \(cmd.at.frame)): \(cmd.length) bytes of \(kindText) in legacy advertising PDUs, over \(legacyMax)\(statusText)",
                            cause: "Usually too many service UUIDs, a long local name or manufacturer data passed to startAdvertising(_:) (Android: AdvertiseData over 31 bytes fails with ADVERTISE_FAILED_DATA_TOO_LARGE)",
                            evidence: evidence,
                            fix: "Keep legacy advertising and scan response data within 31 bytes each; move the name to the scan response."))
                } else if ios {
                    let payload = cmd.data.prefix(cmd.length)
                    if cmd.kind == .advertising {
                        let counted = cmd.length - Self.flagsBytes(payload)
                        if counted > iosAdv {
                            findings.append(
                                finding(
                                    .info, subject: "\(cmd.command) at frame \(cmd.at.frame)",
                                    shows: "\(cmd.command) (frame \(cmd.at.frame)): \(counted) bytes of advertising data besides Flags, over the iOS foreground budget of \(iosAdv) bytes",
                                    cause: "An iOS app in the foreground gets \(iosAdv) bytes of advertising data: service UUIDs that don't fit go to the overflow area, visible only to iOS scanners that ask for them",
                                    evidence: evidence,
                                    fix: "Advertise one service UUID and a short name."))
                        }
                    } else if cmd.length > iosRsp {
                        findings.append(
                            finding(
                                .info, subject: "\(cmd.command) at frame \(cmd.at.frame)",
                                shows: "\(cmd.command) (frame \(cmd.at.frame)): \(cmd.length) bytes of scan response data, over the iOS foreground budget of \(iosRsp) bytes of scan response",
                                cause: "iOS puts only the local name (CBAdvertisementDataLocalNameKey) in a scan response of \(iosRsp) bytes; a longer name is truncated",
                                evidence: evidence,
                                fix: "Use a local name of at most 8 characters."))
                    }
                }
                continue
            }
            // Extended (non-legacy) data: assemble fragments (Operation 0 first, 1 intermediate,
            // 2 last, 3 complete, 4 unchanged data).
            let key = "\(cmd.advertisingHandle ?? 0)/\(cmd.kind.rawValue)"
            let op = cmd.operation ?? 3
            let soFar = (op == 0 || op == 3) ? cmd.fragmentLength : (pending[key] ?? 0) + cmd.fragmentLength
            pending[key] = soFar
            if sizes[label] == nil { order.append(label) }
            if op == 2 || op == 3 { sizes[label, default: []].append(soFar) }
            let refused = cmd.status == 0x45 || cmd.status == 0x07
            let tooLong = adv.maxAdvertisingDataLength.map { soFar > $0 } ?? false
            if refused || tooLong {
                let limitText = adv.maxAdvertisingDataLength.map { ", controller maximum \($0) bytes (frame \(adv.maxAdvertisingDataLengthFrame ?? 0))" } ?? ""
                findings.append(
                    finding(
                        .error, subject: "\(cmd.command) at frame \(cmd.at.frame)",
                        shows: "\(cmd.command) (frame \(cmd.at.frame)): \(soFar) bytes of extended \(kindText)\(limitText)\(statusText)",
                        cause: "The advertising set carries more data than this controller accepts (Android: AdvertisingSetParameters with data over BluetoothAdapter.getLeMaximumAdvertisingDataLength())",
                        evidence: evidence + [adv.maxAdvertisingDataLengthFrame],
                        fix: "Check the controller's maximum advertising data length and trim the data."))
            }
        }
        let summary = order.map { label -> String in
            let s = sizes[label] ?? []
            let lo = s.min() ?? 0
            let hi = s.max() ?? 0
            return "\(s.count) x \(label): " + (lo == hi ? "\(lo) bytes" : "\(lo)-\(hi) bytes")
        }.joined(separator: "; ")
        return verdict(
            findings,
            passReason: "all advertising/scan response payloads within budget: " + summary
                + (ios ? " (iOS profile: legacy advertising data excluding Flags <= \(iosAdv) bytes, scan response <= \(iosRsp) bytes)" : ""))
    }
}
