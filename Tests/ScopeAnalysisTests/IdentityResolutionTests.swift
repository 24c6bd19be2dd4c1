import ScopeAnalysis
import ScopeCapture
import ScopeCore
import ScopeDecode
import ScopeTestSupport
import Testing

/// IRKs distributed in SMP resolve resolvable private addresses, so a device that rotates its
/// address is one device.
@Suite("Resolvable private addresses")
struct IdentityResolutionTests {
    /// The shared scenario pairing_just_works.btsnoop distributes the peer's IRK (SMP Identity
    /// Information, received) and identity address. After it, an advertising report from a
    /// resolvable private address made with that IRK (prand 0x5a1b2c, hash = ah(IRK, prand) —
    /// the address a real device would use next) is appended.
    func analyze(resolve: Bool) throws -> (AnalysisResult, BDAddr)? {
        guard let url = Fixtures.corpus("scenarios/pairing_just_works.btsnoop") else { return nil }
        var reader = try CaptureReader.open(path: url.path)
        var dissector = Dissector()
        var builder = AnalysisBuilder(file: url.path, format: reader.format)
        builder.resolvePrivateAddressesEnabled = resolve
        var last: CaptureRecord?
        var peerIRK: [UInt8]?
        while let record = reader.next() {
            let frame = dissector.decode(record)
            for p in frame.pdus {
                if case .smp(let smp) = p.upper, case .identityInformation(let irk) = smp.parameters, record.direction == .received {
                    peerIRK = irk
                }
            }
            builder.consume(frame)
            last = record
        }
        let irk = try #require(peerIRK, "the scenario distributes the peer's IRK")
        let prand: UInt32 = 0x5A1B2C  // top bits 0b01: resolvable
        let hash = try #require(RPAResolver.ah(irk: irk.reversed(), prand: prand))
        let rpa = BDAddr(value: UInt64(prand) << 24 | UInt64(hash))
        let base = try #require(last)
        // LE Advertising Report: 1 report, ADV_IND, random address, no data, RSSI -59.
        let payload: [UInt8] = [0x3E, 12, 0x02, 0x01, 0x00, 0x01] + rpa.littleEndianBytes + [0x00, 0xC5]
        let record = CaptureRecord(
            frame: base.frame + 1, timestamp: Timestamp(microseconds: base.timestamp.microseconds + 1_000_000),
            direction: .received, kind: .event, payload: payload)
        builder.consume(dissector.decode(record))
        return (builder.finish(), rpa)
    }

    @Test func aRotatedAddressResolvesToTheIdentity() throws {
        guard let (result, rpa) = try analyze(resolve: true) else { return }
        let identity = try #require(result.identities.first { $0.distributedBy == .remote })
        #expect(identity.resolvedAddresses == [rpa])
        let device = try #require(result.devices.first { $0.address == rpa })
        #expect(device.identity == identity.address)
    }

    @Test func resolutionCanBeTurnedOff() throws {
        guard let (result, rpa) = try analyze(resolve: false) else { return }
        #expect(result.devices.first { $0.address == rpa }?.identity == nil)
        #expect(result.identities.allSatisfy { $0.resolvedAddresses.isEmpty })
    }
}
