/// A value kept behind one reference and copied only when it is changed while shared (the
/// standard library's arrays work this way): a struct that holds many references (arrays,
/// dictionaries) copies with one retain and one release instead of one per reference.
/// `Connection` keeps its lists this way: the rules read each connection by value, and each of
/// those copies cost fifteen atomic retains and fifteen releases (docs/PERFORMANCE.md).
struct CopyOnWrite<Value: Sendable>: @unchecked Sendable {
    // (Unchecked: the box is shared only while nobody changes it; a change to a shared box
    // copies it first, so no two values ever see each other's changes.)
    private final class Box: @unchecked Sendable {
        // (Unchecked exclusivity: the box is reached only through `value`, which never lends it
        // twice at once; checked, every read of a connection's list would pay a dynamic check.)
        @exclusivity(unchecked) var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box

    init(_ value: Value) { box = Box(value) }

    var value: Value {
        _read { yield box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }
}
