import Testing

@testable import ScopeAnalysis

/// The lists trackers hold their items in until they are handed over: removing items keeps the
/// rest in order with their ids, finds them by id afterwards, and keeps the list's storage (the
/// items appended after a hand-over fill it again instead of growing a new array from empty).
@Suite struct HeldListTests {
    static func list(_ count: Int) -> HeldList<String, Int> {
        var list = HeldList<String, Int>()
        for i in 0..<count { list.append("item \(i)") }
        return list
    }

    @Test func removingKeepsTheRestInOrderWithTheirIds() {
        var list = Self.list(10)
        list.remove([0, 3, 4, 9])
        #expect(list.items == ["item 1", "item 2", "item 5", "item 6", "item 7", "item 8"])
        #expect(list.ids == [1, 2, 5, 6, 7, 8])
        #expect(list.created == 10)
        #expect(list.left == 4)
        #expect(list.position(of: 5) == 2)
        #expect(list.position(of: 4) == nil)
        // A reference to an item that moved follows it.
        var ref = HeldRef(id: 7, position: 7)
        #expect(list.position(of: &ref) == 4)
        #expect(ref.position == 4)
        // The next item gets the next creation number.
        #expect(list.append("item 10") == 10)
        #expect(list.ids.last == 10)
    }

    @Test func removingEverythingOrNothing() {
        var all = Self.list(5)
        all.remove(Array(0..<5))
        #expect(all.isEmpty)
        #expect(all.left == 5)
        var none = Self.list(5)
        none.remove([])
        #expect(none.ids == [0, 1, 2, 3, 4])
    }

    @Test func removingKeepsTheStorage() {
        var list = Self.list(1000)
        let capacity = list.items.capacity
        list.remove(Array(stride(from: 0, to: 1000, by: 2)))
        #expect(list.count == 500)
        #expect(list.items.capacity == capacity)
        #expect(list.ids.capacity >= 1000)
        #expect(list.items.first == "item 1")
        #expect(list.items.last == "item 999")
    }
}
