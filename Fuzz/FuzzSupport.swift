// Shared by every fuzz target (compiled into each; see Scripts/fuzz.sh).
import ScopeCore
import ScopeDecode

/// Walks a field tree so lazy rendering code runs too.
@inline(never)
func touch(_ fields: [Field]) -> Int {
    var n = 0
    for f in fields { n &+= f.name.utf8.count &+ f.value.utf8.count &+ touch(f.children) }
    return n
}

func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Record kinds a fuzz byte selects for the Dissector stream target.
let fuzzKinds: [RecordKind] = [
    .command, .event, .acl, .acl, .acl, .sco, .iso, .newIndex, .deleteIndex, .openIndex, .closeIndex,
    .indexInfo, .vendorDiagnostic, .systemNote, .userLogging, .controlOpen, .controlClose, .controlCommand,
    .controlEvent, .unknownMonitor(0x42), .unknownH4(9),
]

/// Renders everything a decoded frame offers, as `show -v` would.
@inline(never)
func touch(_ frame: DecodedFrame) -> Int {
    var n = frame.allMalformations.count
    switch frame.packet {
    case .command(let c): n &+= touch(c.fields)
    case .event(let e): n &+= touch(e.fields) &+ e.summary.utf8.count &+ e.addresses.count
    case .acl(let h), .vendorDebugACL(let h): n &+= touch(h?.fields ?? [])
    case .monitor(let m): n &+= touch(m.fields) &+ m.summary.utf8.count
    case .sco, .iso, .none: break
    }
    for p in frame.pdus {
        n &+= touch(p.pdu.fields) &+ p.pdu.summary.utf8.count
        switch p.upper {
        case .att(let a, _): n &+= touch(a.fields)
        case .smp(let s): n &+= touch(s.fields)
        case .signaling(let s): n &+= touch(s.fields)
        case .other: break
        }
    }
    return n
}
