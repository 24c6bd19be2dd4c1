import Testing

@testable import ScopeAnalysis
@testable import ScopeRules

/// The ATT rules list a connection's findings handle by handle in the order of their
/// "side/handle" texts (`ClientHandle.textOrder`, which compares without making the texts).
@Suite("Client handle order")
struct ClientHandleOrderTests {
    /// The order agrees with comparing the texts, for every pair of a spread of handles (each
    /// number of digits, its edges, and neighbours that share a prefix) on every pair of sides.
    @Test func agreesWithTheTexts() {
        let handles: [UInt16] = [0, 1, 2, 9, 10, 11, 18, 19, 90, 99, 100, 101, 109, 110, 999, 1000, 1001, 1009, 1010, 9999, 10_000, 10_001, 12_345, 65_534, 65_535]
        let keys = [Side.local, .remote, .unknown].flatMap { side in handles.map { ClientHandle(side: side, handle: $0) } }
        for a in keys {
            for b in keys {
                #expect(ClientHandle.textOrder(a, b) == (a.text < b.text), "\(a.text) vs \(b.text)")
            }
        }
        #expect(ClientHandle.inTextOrder(keys).map(\.text) == keys.map(\.text).sorted())
    }
}
