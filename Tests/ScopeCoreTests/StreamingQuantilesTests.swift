import Testing

@testable import ScopeCore

/// `StreamingQuantiles`: exact up to its limit, then within 0.05 % in bounded memory.
@Suite("StreamingQuantiles")
struct StreamingQuantilesTests {
    /// The exact median up to the limit (the mean of the middle two for an even count); past it,
    /// within 0.05 % of the exact one, on gaps spread over six orders of magnitude.
    @Test func median() {
        var m = StreamingQuantiles()
        #expect(m.median == nil)
        for v: Int64 in [300, 100, 200, 400] { m.add(v) }
        #expect(m.isExact && m.median == 250)
        var values: [Int64] = []
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<(3 * StreamingQuantiles.exactLimit + 1) {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Int64(x >> 44))  // up to about 1.05 s
        }
        var streamed = StreamingQuantiles()
        for v in values { streamed.add(v) }
        let exact = values.sorted()[values.count / 2]
        #expect(!streamed.isExact)
        let estimate = streamed.median ?? 0
        #expect(abs(Double(estimate - exact)) <= Double(exact) * 0.0005 + 1)
        for v: Int64 in [0, 1, 2047, 2048, 4095, 1_000_000, Int64(1) << 40] {
            let mid = StreamingQuantiles.value(StreamingQuantiles.key(v))
            #expect(abs(Double(mid - v)) <= Double(v) / 2048 + 0.5)
        }
    }

    /// Nearest-rank percentiles: each a value the stream has.
    @Test func nearestRank() {
        var q = StreamingQuantiles()
        for v: Int64 in [5, 1, 4, 2, 3] { q.add(v) }
        #expect(q.nearestRank(50) == 3 && q.nearestRank(90) == 5 && q.nearestRank(1) == 1)
    }
}
