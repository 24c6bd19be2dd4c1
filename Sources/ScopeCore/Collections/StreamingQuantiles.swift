/// The quantiles of a stream of integers (durations in microseconds, counts), in memory that does
/// not grow with the stream: exact while it holds at most `exactLimit` values; past that,
/// estimated from a histogram whose buckets are 1/1024 of their values wide (values below 2,048
/// keep a bucket each), so an estimate is within 0.05 % of a value the stream really has near
/// that rank. Ranks are 1-based positions in ascending order.
public struct StreamingQuantiles: Sendable, Hashable {
    public static let exactLimit = 4096
    private var values: [Int64] = []
    /// Count per bucket key (`key(_:)`), once past `exactLimit`.
    private var buckets: [Int64: Int] = [:]
    public private(set) var count = 0
    /// The smallest and largest values (an estimate never lies outside them).
    private var lowest = Int64.max
    private var highest = Int64.min

    public init() {}

    /// The same summary: the same values whatever the order they came in (sessions handed over
    /// early are added before those held to the end).
    public static func == (a: StreamingQuantiles, b: StreamingQuantiles) -> Bool {
        a.count == b.count && a.lowest == b.lowest && a.highest == b.highest && a.buckets == b.buckets
            && (a.values == b.values || a.values.sorted() == b.values.sorted())
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(lowest)
        hasher.combine(highest)
        hasher.combine(buckets)
        hasher.combine(values.reduce(0, &+))
    }

    /// True while every rank is the exact value.
    public var isExact: Bool { buckets.isEmpty }

    public mutating func add(_ value: Int64) {
        count += 1
        lowest = min(lowest, value)
        highest = max(highest, value)
        guard isExact else {
            buckets[Self.key(value), default: 0] += 1
            return
        }
        values.append(value)
        if values.count > Self.exactLimit { spill() }
    }

    private mutating func spill() {
        for v in values { buckets[Self.key(v), default: 0] += 1 }
        values = []
    }

    /// The values at `ranks` (each in 1...count), in the order asked.
    public func values(atRanks ranks: [Int]) -> [Int64] {
        if isExact {
            let s = values.sorted()
            return ranks.map { s[$0 - 1] }
        }
        let keys = buckets.keys.sorted()
        return ranks.map { rank in
            var below = 0
            for key in keys {
                below += buckets[key]!
                if below >= rank { return min(max(Self.value(key), lowest), highest) }
            }
            return highest
        }
    }

    /// Nearest rank: the smallest value with at least `percent` % of the values at or below it
    /// (nil when empty).
    public func nearestRank(_ percent: Int) -> Int64? {
        guard count > 0 else { return nil }
        return values(atRanks: [Self.nearestRank(percent, of: count)])[0]
    }

    /// The rank `nearestRank(_:)` reads.
    public static func nearestRank(_ percent: Int, of count: Int) -> Int {
        max(1, min(count, (percent * count + 99) / 100))
    }

    /// The median as the mean of the middle two for an even count (nil when empty).
    public var median: Int64? {
        guard count > 0 else { return nil }
        if count % 2 == 1 { return values(atRanks: [count / 2 + 1])[0] }
        let v = values(atRanks: [count / 2, count / 2 + 1])
        return (v[0] + v[1]) / 2
    }

    /// Values below 2,048 are their own key; above, the key orders by value and holds the
    /// value's top 11 bits and its magnitude (buckets 1/1024 of their values wide).
    static func key(_ v: Int64) -> Int64 {
        guard v >= 2048 else { return v }
        let e = 63 - v.leadingZeroBitCount
        return Int64(e) << 32 | v >> (e - 10)
    }

    /// The middle of the bucket `key` (the value itself below 2,048).
    static func value(_ key: Int64) -> Int64 {
        guard key >= 2048 else { return key }
        let shift = (key >> 32) - 10
        let lower = (key & 0xFFFF_FFFF) << shift
        return lower + (Int64(1) << shift) / 2
    }
}
