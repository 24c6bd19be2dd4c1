import ScopeCore

/// The items a tracker holds (connection requests, connections, pairings, scan sessions,
/// advertising records) until they leave for the rules (`AnalysisBuilder.handOverSettled()`), each
/// named by an id that stays when items before it leave: its creation number
/// (`append(_:)`), or a scan session's start frame. The ids are the tracker's: the items
/// themselves carry only what the capture says. A list is in id order (items are appended as
/// created and leave without reordering), so the state that refers to an item holds its id and
/// finds its position by binary search over the ids. One exception: scan sessions are appended
/// when their enable is answered, so with two adapters their start frames can be out of order;
/// `HeldRef` lookups and `positions(of:)` then search the list in full.
struct HeldList<Item: Sendable, ID: Comparable & Sendable>: Sendable {
    private(set) var items: [Item] = []
    private(set) var ids: [ID] = []
    /// Items appended so far, held or left.
    private(set) var created = 0

    var count: Int { items.count }
    /// Items appended and since handed over.
    var left: Int { created - items.count }
    var isEmpty: Bool { items.isEmpty }
    var indices: Range<Int> { items.indices }

    subscript(position: Int) -> Item {
        get { items[position] }
        _modify { yield &items[position] }
    }

    mutating func append(_ item: Item, id: ID) {
        items.append(item)
        ids.append(id)
        created += 1
    }

    /// The position of the item with `id`, nil when it has left.
    func position(of id: ID) -> Int? {
        let p = ids.partitionPoint { $0 >= id }
        return p < ids.count && ids[p] == id ? p : nil
    }

    /// The position of the item with `id` in a list that may be out of id order (see above).
    func anyPosition(of id: ID) -> Int? {
        if let p = position(of: id) { return p }
        return ids.firstIndex(of: id)
    }

    /// Whether `ref.position` is still the position of the item `ref` names.
    func holds(_ ref: HeldRef<ID>) -> Bool {
        ref.position < ids.count && ids[ref.position] == ref.id
    }

    /// The position of the item `ref` names: `ref.position` when the item is still there, else
    /// found by its id (and `ref.position` follows).
    func position(of ref: inout HeldRef<ID>) -> Int? {
        if holds(ref) { return ref.position }
        guard let p = anyPosition(of: ref.id) else { return nil }
        ref.position = p
        return p
    }

    /// The positions of the items with `ids` still held, ascending.
    func positions(of ids: some Sequence<ID>) -> [Int] {
        ids.compactMap { anyPosition(of: $0) }.sorted()
    }

    /// Removes the items at `positions` (ascending).
    mutating func remove(_ positions: [Int]) {
        Self.remove(positions, from: &items)
        Self.remove(positions, from: &ids)
    }

    /// Closes the gaps in place: the list keeps its storage, so the items appended after a
    /// hand-over fill it again rather than growing a new array from empty (each growth a copy of
    /// every item, and past 128 KB fresh pages from the kernel: on the durnerj replay that
    /// regrowth was half of the run's page faults).
    private static func remove<T>(_ positions: [Int], from list: inout [T]) {
        guard let first = positions.first else { return }
        var write = first
        var next = 0
        for p in first..<list.count {
            if next < positions.count, positions[next] == p {
                next += 1
            } else {
                list.swapAt(write, p)
                write += 1
            }
        }
        list.removeLast(list.count - write)
    }
}

extension HeldList where ID == Int {
    /// The positions of the settled ids from `kept` on (the first `kept` items stay for the
    /// reports), ascending; `settled` is emptied.
    func positions(of settled: inout [Int], from kept: Int) -> [Int] {
        guard !settled.isEmpty else { return [] }
        let ids = Set(settled.lazy.filter { $0 >= kept })
        settled = []
        return ids.compactMap { position(of: $0) }.sorted()
    }

    /// Appends `item` with the next creation number as its id, and returns the id.
    @discardableResult
    mutating func append(_ item: Item) -> Int {
        let id = created
        append(item, id: id)
        return id
    }
}

/// A held item for the state looked up per frame: its id, and the position where it was last
/// found, tried first (items leave in batches, so the position is almost always still right).
struct HeldRef<ID: Comparable & Sendable>: Sendable {
    var id: ID
    var position: Int
}

extension Dictionary {
    /// The position in `list` of the item that the ref under `key` names, nil when there is no
    /// ref or the item has left; the ref follows the item when it moved.
    mutating func position<Item, ID>(of key: Key, in list: HeldList<Item, ID>) -> Int? where Value == HeldRef<ID> {
        guard var ref = self[key] else { return nil }
        let before = ref.position
        guard let p = list.position(of: &ref) else { return nil }
        if p != before { self[key] = ref }
        return p
    }
}
