import ScopeAnalysis
import ScopeCore

/// The radio-time model of RULES.md. Every figure it produces is an estimate and carries the
/// inputs it was computed from, so reports can print them next to the word "estimated".
package enum RadioModel {
    /// Empty connection event: two 80 µs empty PDUs and one 150 µs inter-frame space.
    package static let emptyEventMicros: Int64 = 2 * 80 + 150
    /// Mean advDelay added to every advertising interval.
    package static let meanAdvDelayMicros: Int64 = 2_500
    /// Preamble 1 + access address 4 + header 2 + AdvA 6 + CRC 3.
    package static let legacyAdvOverheadBytes = 16
    package static let advertisingChannels = 3

    package struct ConnectionEstimate: Sendable, Hashable {
        package var events: Int64
        package var intervalMicros: Int64
        package var dataBytes: Int64
        package var microsPerByte: Int64
        package var airtimeMicros: Int64
    }

    package struct AdvertisingEstimate: Sendable, Hashable {
        package var dataLength: Int
        package var intervalMicros: Int64
        package var perEventMicros: Int64
        package var events: Int64
        package var airtimeMicros: Int64
    }

    /// Scan radio-on time: duration × Σ window/interval, capped at the duration (ScanPHY.radioOnMicros).
    package static func scan(durationMicros: Int64, phys: [ScanPHY]) -> Int64 {
        ScanPHY.radioOnMicros(durationMicros: durationMicros, phys: phys)
    }

    /// Connection events × empty-event cost + ATT bytes (value + 3 ATT + 4 L2CAP) at the PHY's rate.
    package static func connection(_ c: Connection, lifetimeMicros: Int64?) -> ConnectionEstimate? {
        guard let lifetime = lifetimeMicros, let interval = c.parameterUpdates.last?.intervalMicros ?? c.intervalMicros,
            interval > 0, lifetime >= 0
        else { return nil }
        let events = lifetime / interval
        let bytes = c.attAirBytes
        let perByte: Int64 = (c.phyUpdates.last?.tx == 2) ? 4 : 8
        let (a, o1) = events.multipliedReportingOverflow(by: emptyEventMicros)
        let (b, o2) = bytes.multipliedReportingOverflow(by: perByte)
        guard !o1, !o2 else { return nil }
        return ConnectionEstimate(events: events, intervalMicros: interval, dataBytes: bytes, microsPerByte: perByte,
                                  airtimeMicros: a &+ b)
    }

    /// Legacy advertising on 1M: (16 + data) bytes × 8 µs × 3 channels per event; events every
    /// interval + 2.5 ms.
    package static func advertising(dataLength: Int, intervalMicros: Int64?, enabledMicros: Int64) -> AdvertisingEstimate? {
        guard let interval = intervalMicros, interval > 0, enabledMicros >= 0 else { return nil }
        let perEvent = Int64(advertisingChannels * (legacyAdvOverheadBytes + max(0, dataLength)) * 8)
        let events = enabledMicros / (interval + meanAdvDelayMicros)
        return AdvertisingEstimate(dataLength: dataLength, intervalMicros: interval, perEventMicros: perEvent,
                                   events: events, airtimeMicros: events &* perEvent)
    }
}
