/// Elements in the order their keys first came, each found by its key: an array beside a
/// dictionary of positions, so an element is looked up once and changed in place (a dictionary of
/// values would copy a value out and back, and give no order).
package struct KeyedList<Key: Hashable, Element> {
    /// In the order their keys first came.
    package var elements: [Element] = []
    private var positions: [Key: Int] = [:]

    package init() {}

    /// The position of `key`'s element in ``elements``, `make()` appended first when the key is new.
    package mutating func position(of key: Key, orAppend make: () -> Element) -> Int {
        if let known = positions[key] { return known }
        let i = elements.count
        positions[key] = i
        elements.append(make())
        return i
    }

    /// The keys, in no particular order; ``position(of:)`` finds each one's element.
    package var keys: Dictionary<Key, Int>.Keys { positions.keys }

    package func position(of key: Key) -> Int? { positions[key] }
}

extension KeyedList: Sendable where Key: Sendable, Element: Sendable {}
