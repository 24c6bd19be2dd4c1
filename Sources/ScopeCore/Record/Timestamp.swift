/// A point in time as integer microseconds since the Unix epoch (may be negative: real files
/// exist whose clocks decode to before 1970). No floating point anywhere.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64
    public init(microseconds: Int64) { self.microseconds = microseconds }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }

    /// Microseconds from `earlier` to this time, saturating at the Int64 bounds (a reader
    /// delivers an unconvertible timestamp as .min or .max; arithmetic on it must not trap).
    public func microseconds(since earlier: Timestamp) -> Int64 {
        let (d, overflow) = microseconds.subtractingReportingOverflow(earlier.microseconds)
        return overflow ? (microseconds < earlier.microseconds ? .min : .max) : d
    }

    /// Seconds and the microsecond remainder (remainder always 0...999_999).
    public var secondsAndMicros: (seconds: Int64, micros: Int64) {
        let (q, r) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return r < 0 ? (q - 1, r + 1_000_000) : (q, r)
    }

    /// The civil date in UTC (proleptic Gregorian), for plausibility checks and display.
    public var utc: (year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int, micro: Int) {
        let (secs, micro) = secondsAndMicros
        var days = secs / 86_400
        var rem = secs % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        // Howard Hinnant's days_from_civil inverse.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (y, Int(m), Int(d), Int(rem / 3600), Int(rem % 3600 / 60), Int(rem % 60), Int(micro))
    }

    /// "2025-03-11 09:02:17.418233" (UTC).
    public var description: String {
        let t = utc
        func p(_ v: Int, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(t.year)-\(p(t.month, 2))-\(p(t.day, 2)) \(p(t.hour, 2)):\(p(t.minute, 2)):\(p(t.second, 2)).\(p(t.micro, 6))"
    }

    /// A plausible capture date: 1990 to 2100. Anything else is worth a diagnostic.
    public var isPlausible: Bool {
        microseconds >= 631_152_000_000_000 && microseconds < 4_102_444_800_000_000
    }
}

/// Formats a microsecond duration as seconds with 6 decimals, e.g. "12.000345".
public func formatSeconds(_ micros: Int64) -> String {
    let sign = micros < 0 ? "-" : ""
    let m = micros.magnitude
    let frac = String(m % 1_000_000)
    return sign + String(m / 1_000_000) + "." + String(repeating: "0", count: 6 - frac.count) + frac
}

/// A span of time for people: "8 d 19 h 35 min", "2 h 5 min", "3 min 12 s" (whole units, the
/// smallest one cut, not rounded). Spans under a minute have no such form (nil): reports give
/// them in milliseconds.
public enum ReadableSpan {
    public static func text(_ micros: Int64) -> String? {
        let seconds = micros.magnitude / 1_000_000
        let minutes = seconds / 60, hours = minutes / 60, days = hours / 24
        if days > 0 { return "\(days) d \(hours % 24) h \(minutes % 60) min" }
        if hours > 0 { return "\(hours) h \(minutes % 60) min" }
        if minutes > 0 { return "\(minutes) min \(seconds % 60) s" }
        return nil
    }
}

/// A duration for people, with the precision that matters at its size: "523 ms", "1.25 s",
/// "12.3 s", "12 min 5 s", "3 h 2 min", "2 d 3 h 10 min". Times past 10 s are never given in
/// milliseconds (a figure like "58851753.685 ms" is unreadable).
public enum ReadableDuration {
    public static func text(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let m = micros.magnitude
        if m < 1_000_000 {
            // Milliseconds, to the microsecond below 10 ms, else to the nearest millisecond.
            if m < 10_000 { return sign + decimal(m, unit: 1_000, places: 3) + " ms" }
            if m < 999_500 { return sign + "\((m + 500) / 1_000) ms" }
        }
        if m < 10_000_000 { return sign + decimal(m, unit: 1_000_000, places: 2) + " s" }
        if m < 60_000_000 { return sign + decimal(m, unit: 1_000_000, places: 1) + " s" }
        return sign + (ReadableSpan.text(Int64(clamping: m)) ?? "")
    }

    /// `value / unit` with at most `places` decimals, trailing zeros dropped ("1.25", "12.3", "4").
    static func decimal(_ value: UInt64, unit: UInt64, places: Int) -> String {
        var scale: UInt64 = 1
        for _ in 0..<places { scale *= 10 }
        // Rounded to `places` decimals.
        let scaled = (value * scale + unit / 2) / unit
        let whole = scaled / scale
        var frac = scaled % scale
        guard frac != 0 else { return "\(whole)" }
        var digits = places
        while frac % 10 == 0 {
            frac /= 10
            digits -= 1
        }
        let fracText = String(frac)
        return "\(whole)." + String(repeating: "0", count: digits - fracText.count) + fracText
    }
}
