extension RandomAccessCollection {
    /// The index of the first element for which `isAfter` holds, by binary search; `endIndex`
    /// when there is none. `isAfter` must be false for a prefix of the collection and true for
    /// the rest (a sorted list asked "is this at or past the value?").
    @inlinable
    public func partitionPoint(where isAfter: (Element) throws -> Bool) rethrows -> Index {
        var lo = startIndex
        var n = count
        while n > 0 {
            let half = n / 2
            let mid = index(lo, offsetBy: half)
            if try isAfter(self[mid]) {
                n = half
            } else {
                lo = index(after: mid)
                n -= half + 1
            }
        }
        return lo
    }
}
