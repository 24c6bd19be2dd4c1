import ScopeAnalysis
import ScopeCore

/// `gatt.polling` — guidance 4: subscribe to values that change often instead of polling reads.
///
/// Per characteristic handle read with Read Request on a connection: violated when it is read 5 or
/// more times with a median gap of 2 s or less and notifications/indications were never enabled on
/// it in that connection — warning when its properties allow notify/indicate, info when unknown
/// (not discovered in the capture); no finding when they allow neither.
///
/// Usual cause: a timer calling `readValue(for:)` instead of `setNotifyValue(true, for:)`
/// (Android: `readCharacteristic` in a loop instead of `setCharacteristicNotification` plus the
/// CCCD write; BlueZ: `ReadValue` instead of `StartNotify`).
public struct GATTPolling: Rule {
    public static let id = "gatt.polling"
    public static let guidance = 4
    public static let defaultSeverity = Severity.warning
    public static let summary = "A characteristic is polled with reads instead of notifications"
    public static let scope = RuleScope.connection
    public static let defaultThresholds: [String: ThresholdValue] = ["min_reads": .number(5), "max_median_gap_s": .number(2)]
    public init() {}

    public func evaluate(_ analysis: AnalysisResult, config: RuleConfiguration) -> RuleVerdict {
        let hasReads = analysis.connections.contains { $0.att.contains { $0.opcode == ATTOp.readRequest } }
        guard hasReads else {
            if let r = analysis.attIncompleteReason { return notEvaluated(r) }
            return notEvaluated("no ATT Read Request in this capture")
        }
        let minReads = Int(number("min_reads", config))
        let maxGap = micros("max_median_gap_s", config)
        var findings = FindingList()
        for c in analysis.connections {
            let reads = c.att.filter { $0.opcode == ATTOp.readRequest && $0.handle != nil }
            let byKey = Dictionary(grouping: reads) { "\($0.clientSide.rawValue)/\($0.handle ?? 0)" }
            for key in byKey.keys.sorted() {
                guard let rs = byKey[key], rs.count >= minReads, let first = rs.first, let last = rs.last,
                    let handle = first.handle
                else { continue }
                let gaps = zip(rs.dropFirst(), rs).map { $0.at.time.microseconds - $1.at.time.microseconds }
                guard let med = median(gaps), med <= maxGap else { continue }
                let enabled = c.cccdWrites.contains { $0.characteristicValueHandle == handle && $0.value & 0x0003 != 0 }
                guard !enabled else { continue }
                let ch = c.characteristic(valueHandle: handle)
                let severity: Severity
                let propsText: String
                if let ch {
                    guard ch.properties & 0x30 != 0 else { continue }
                    severity = .warning
                    propsText = "properties \(Text.hex2(ch.properties)) allow notify/indicate (declared in frame \(ch.learned.frame)) -> warning"
                } else {
                    severity = .info
                    propsText = "properties unknown (characteristic not discovered in this capture) -> info"
                }
                let client = first.clientSide
                findings.append(
                    finding(
                        severity, subject: "\(c.label) handle \(Text.hex4(handle))",
                        shows:
                            "handle \(Text.hex4(handle)) read \(rs.count) times by the \(Text.side(client)) client (frames \(first.at.frame)-\(last.at.frame)), median gap \(Text.millis(med)), notifications/indications never enabled on it; \(propsText)",
                        cause:
                            "Usually a timer calling readValue(for:) instead of setNotifyValue(true, for:) (Android: readCharacteristic in a loop instead of setCharacteristicNotification and the CCCD write; BlueZ: ReadValue instead of StartNotify)",
                        evidence: [ch?.learned.frame, first.at.frame, last.at.frame],
                        fix: "Subscribe to the characteristic and react to peripheral(_:didUpdateValueFor:error:)."))
            }
        }
        return verdict(
            findings,
            passReason:
                "no handle read \(minReads) or more times with a median gap of \(Text.seconds(maxGap)) or less without notifications/indications enabled"
        )
    }
}
