import ScopeCore
import Testing

@testable import ScopeDecode

/// HCI secrets are named, not placed: `SecretFields` lists the names of each packet's secret
/// parameters and the packet's parameter layout says where they are. A name that is not in its
/// layout (a field renamed, a layout removed) would leave the secret in clear.
@Suite("Secret fields")
struct SecretFieldsTests {
    /// Every field name of `fields`, those inside arrays and variants included.
    static func names(_ fields: [ParamField]) -> Set<String> {
        var out: Set<String> = []
        for f in fields {
            out.insert(f.name)
            switch f {
            case .array(_, _, let inner): out.formUnion(names(inner))
            case .variant(_, _, let variants): for v in variants { out.formUnion(names(v.fields)) }
            default: break
            }
        }
        return out
    }

    @Test func everySecretNameIsAFieldOfItsLayout() throws {
        for (opcode, secrets) in SecretFields.commands {
            let layout = try #require(HCICommand.parameterLayout(opcode), "command \(Hex.prefixed(opcode, digits: 4)) has no layout")
            #expect(secrets.isSubset(of: Self.names(layout)), "command \(Hex.prefixed(opcode, digits: 4)): \(secrets.subtracting(Self.names(layout)))")
        }
        for (opcode, secrets) in SecretFields.returns {
            let layout = try #require(HCICommand.returnLayout(opcode), "command \(Hex.prefixed(opcode, digits: 4)) has no return layout")
            #expect(secrets.isSubset(of: Self.names(layout)), "returns of \(Hex.prefixed(opcode, digits: 4)): \(secrets.subtracting(Self.names(layout)))")
        }
        for (code, secrets) in SecretFields.events {
            let layout = try #require(HCIEvent.layouts[code], "event \(Hex.prefixed(code, digits: 2)) has no layout")
            #expect(secrets.isSubset(of: Self.names(layout.parameters)), "event \(Hex.prefixed(code, digits: 2))")
        }
        for (code, secrets) in SecretFields.subevents {
            let layout = try #require(HCIEvent.leLayouts[code], "LE subevent \(Hex.prefixed(code, digits: 2)) has no layout")
            #expect(secrets.isSubset(of: Self.names(layout.parameters)), "LE subevent \(Hex.prefixed(code, digits: 2))")
        }
    }

    /// Core v5.4 Vol 4 Part E §7.3.8, a Write Stored Link Key of two keys (arrayed parameters
    /// interleaved, §5.2): both link keys are secret spans, both addresses address spans.
    @Test func arrayedKeysAreEachSecret() {
        let a1: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66], a2: [UInt8] = [0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6]
        let k1 = [UInt8](repeating: 0x5A, count: 16), k2 = [UInt8](repeating: 0xC3, count: 16)
        let params: [UInt8] = [2] + a1 + k1 + a2 + k2
        let p: [UInt8] = [0x11, 0x0C, UInt8(params.count)] + params
        let spans = HCICommand.spans(p)
        #expect(spans.filter { $0.kind == .secret }.map(\.range) == [10..<26, 32..<48])
        #expect(spans.filter { if case .address = $0.kind { true } else { false } }.map(\.range) == [4..<10, 26..<32])
    }
}
