import ScopeCore

/// Report density of one scan session in bounded memory: reports and duplicates per fixed time
/// bucket from the session's first report. Buckets start 250 ms wide; when a report would need
/// more than `maxBuckets` buckets, neighbours are merged pairwise and the width doubles, so a
/// session of any length keeps at most `maxBuckets` (only non-empty buckets are stored).
package struct ReportDensity: Sendable, Hashable {
    package static let maxBuckets = 200
    package static let initialBucketMicros: Int64 = 250_000

    package struct Bucket: Sendable, Hashable {
        /// Bucket number from `origin` (start = origin + index × bucketMicros).
        package var index: Int
        package var reports: Int
        package var duplicates: Int
        /// First report in the bucket.
        package var first: FrameTime
        package init(index: Int, reports: Int, duplicates: Int, first: FrameTime) {
            self.index = index
            self.reports = reports
            self.duplicates = duplicates
            self.first = first
        }
    }

    /// Time of the session's first report.
    package var origin: Timestamp?
    package var bucketMicros: Int64 = ReportDensity.initialBucketMicros
    /// Non-empty buckets in time order.
    package var buckets: [Bucket] = []
    /// Most buckets kept (`maxBuckets` for a session).
    package var limit = ReportDensity.maxBuckets

    package init() {}

    package init(limit: Int) { self.limit = max(2, limit) }

    /// Start time of a bucket.
    package func start(of bucket: Bucket) -> Timestamp {
        Timestamp(microseconds: (origin?.microseconds ?? 0) &+ Int64(bucket.index) &* bucketMicros)
    }

    @inline(__always)
    package mutating func add(at: FrameTime, duplicate: Bool) {
        add(at: at, reports: 1, duplicates: duplicate ? 1 : 0)
    }

    /// Adds all buckets of `other` (a session's density folded into a capture-wide one).
    package mutating func absorb(_ other: ReportDensity) {
        for b in other.buckets { add(at: FrameTime(frame: b.first.frame, time: other.start(of: b)), reports: b.reports, duplicates: b.duplicates) }
    }

    @inline(__always)
    mutating func add(at: FrameTime, reports: Int, duplicates: Int) {
        // Almost every report lands in the last bucket: counted there in place.
        if let origin, !buckets.isEmpty {
            let n = buckets.count
            // In the last bucket (index L, below `limit`) when the offset from the origin is
            // under (L + 1) × width: a multiplication, not a division per report. An offset
            // below zero (a backwards clock step) joins it too.
            let end = Int64(buckets[n - 1].index &+ 1) &* bucketMicros
            if at.time.microseconds &- origin.microseconds < end {
                buckets.withUnsafeMutableBufferPointer { b in
                    b[n - 1].reports += reports
                    b[n - 1].duplicates += duplicates
                }
                return
            }
        }
        addInNewBucket(at: at, reports: reports, duplicates: duplicates)
    }

    private mutating func addInNewBucket(at: FrameTime, reports: Int, duplicates: Int) {
        let origin = self.origin ?? at.time
        self.origin = origin
        // A backwards clock step lands in the first bucket.
        let offset = max(0, at.time.microseconds &- origin.microseconds)
        var index = Int(offset / bucketMicros)
        while index >= limit {
            merge()
            index = Int(offset / bucketMicros)
        }
        // Reports arrive in frame order; a bucket at or before the last one (clock steps) joins it.
        if let last = buckets.last, index <= last.index {
            buckets[buckets.count - 1].reports += reports
            buckets[buckets.count - 1].duplicates += duplicates
            return
        }
        buckets.append(Bucket(index: index, reports: reports, duplicates: duplicates, first: at))
    }

    private mutating func merge() {
        bucketMicros = bucketMicros &* 2
        var merged: [Bucket] = []
        merged.reserveCapacity(buckets.count)
        for var b in buckets {
            b.index /= 2
            if let last = merged.last, last.index == b.index {
                merged[merged.count - 1].reports += b.reports
                merged[merged.count - 1].duplicates += b.duplicates
            } else {
                merged.append(b)
            }
        }
        buckets = merged
    }
}
