import ScopeCore

/// An item the analysis holds in one of its lists (`result.connections`, `result.attempts`,
/// `result.pairings`, `result.scans`, `advertising.spans`, `advertising.dataCommands`) until it
/// leaves with a retirement (`AnalysisBuilder.retireClosed()`), named by an id that stays when
/// items before it leave: its creation number, or a scan session's start frame. Each list is in
/// id order (items are appended as created and leave without reordering), so the state that
/// refers to an item holds its id and finds its position by binary search. One exception: scan
/// sessions are appended when their enable is answered, so with two adapters their start frames
/// can be out of order; `HeldRef` lookups and `positions(of:)` then search the list in full.
protocol HeldItem {
    associatedtype HeldID: Comparable & Sendable
    var heldID: HeldID { get }
}

extension ConnectionAttempt: HeldItem { var heldID: Int { ordinal } }
extension Connection: HeldItem { var heldID: Int { ordinal } }
extension Pairing: HeldItem { var heldID: Int { ordinal } }
extension AdvertisingSpan: HeldItem { var heldID: Int { ordinal } }
extension AdvertisingDataCommand: HeldItem { var heldID: Int { ordinal } }
extension ScanSession: HeldItem { var heldID: FrameNumber { start.frame } }

/// A held item for the state looked up per frame: its id, and the position where it was last
/// found, tried first (items leave in batches, so the position is almost always still right).
struct HeldRef<ID: Comparable & Sendable>: Sendable {
    var id: ID
    var position: Int
}

extension Dictionary {
    /// The position in `list` of the item that the ref under `key` names, nil when there is no
    /// ref or the item has left; the ref follows the item when it moved.
    @inline(__always)
    mutating func position<Item: HeldItem>(of key: Key, in list: [Item]) -> Int? where Value == HeldRef<Item.HeldID> {
        guard var ref = self[key] else { return nil }
        let before = ref.position
        guard let p = list.position(of: &ref) else { return nil }
        if p != before { self[key] = ref }
        return p
    }
}

extension Array where Element: HeldItem {
    /// The position of the item with `id`, nil when it has left. Reads the ids in place (a
    /// closure over the elements, as `partitionPoint`'s, may copy each one it is handed).
    func position(of id: Element.HeldID) -> Int? {
        var lo = 0
        var n = count
        while n > 0 {
            let half = n / 2
            if self[lo + half].heldID >= id {
                n = half
            } else {
                lo += half + 1
                n -= half + 1
            }
        }
        return lo < count && self[lo].heldID == id ? lo : nil
    }

    /// The position of the item with `id` in a list that may be out of id order (see above).
    func anyPosition(of id: Element.HeldID) -> Int? {
        if let p = position(of: id) { return p }
        for p in indices where self[p].heldID == id { return p }
        return nil
    }

    /// Whether `ref.position` is still the position of the item `ref` names.
    @inline(__always)
    func holds(_ ref: HeldRef<Element.HeldID>) -> Bool {
        ref.position < count && self[ref.position].heldID == ref.id
    }

    /// The position of the item `ref` names: `ref.position` when the item is still there, else
    /// found by its id (and `ref.position` follows).
    @inline(__always)
    func position(of ref: inout HeldRef<Element.HeldID>) -> Int? {
        if holds(ref) { return ref.position }
        guard let p = anyPosition(of: ref.id) else { return nil }
        ref.position = p
        return p
    }

    /// The positions of the items with `ids` still held, ascending.
    func positions(of ids: some Sequence<Element.HeldID>) -> [Int] {
        ids.compactMap { anyPosition(of: $0) }.sorted()
    }
}
