import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeAnalysis

/// A connection that stays open holds a bounded record of what it repeats: MTU exchanges,
/// encryption changes, CCCD writes and discovery requests keep their first
/// `BoundedPrefix.capacity` items, the last and exact counts; the folds over them are bounded by
/// the handles, not by the passes.
@Suite("Open connection stays bounded")
struct OpenConnectionBoundTests {
    static let handle: UInt16 = 0x0040

    /// One connection on which the host, `passes` times: exchanges the MTU, discovers the one
    /// service, its characteristic and its CCCD, enables and disables notifications, and the
    /// link is encrypted again; then the host disconnects.
    static func rediscovering(passes: Int) -> (script: SessionScript, firstPass: [String: FrameNumber], lastPass: [String: FrameNumber]) {
        var s = SessionScript()
        let h = handle
        s.at(0)
        s.connectionComplete(BDAddr(value: 0xC0_11_22_33_44_55), addressType: 0x01, handle: h)
        var last: [String: FrameNumber] = [:]
        var first: [String: FrameNumber] = [:]
        for pass in 0..<passes {
            s.at(Double(pass) * 1_000 + 10)
            last["mtu"] = s.exchangeMTU(h, client: 247, server: 185).answer
            last["services"] = s.discoverPrimaryServices(h, from: 0x0001)
            s.primaryServices(h, [(start: 0x0001, end: 0x000F, uuid: 0x180D)])
            last["characteristics"] = s.discoverCharacteristics(h, from: 0x0001, to: 0x000F)
            s.characteristics(h, [(valueHandle: 0x0003, properties: 0x10, uuid: 0x2A37)])
            last["descriptors"] = s.findInformation(h, from: 0x0004, to: 0x000F, [(handle: 0x0004, uuid: 0x2902)]).command
            s.write(h, attribute: 0x0004, [0x01, 0x00])
            s.writeResponse(h)
            last["cccd"] = s.write(h, attribute: 0x0004, [0x00, 0x00])
            s.writeResponse(h)
            last["encryption"] = s.encryptionChange(h)
            if pass == 0 { first = last }
        }
        s.at(Double(passes) * 1_000 + 10)
        s.disconnect(h)
        s.disconnectionComplete(h, reason: 0x16)
        return (s, first, last)
    }

    /// How many items the connection holds in the four records and their folds.
    static func held(_ c: Connection) -> Int {
        let d = c.gatt.discoveryProcedures
        return c.mtuExchanges.kept.count + c.encryptionChanges.kept.count + c.cccdWrites.kept.count
            + d.allPrimaryServices.kept.count + d.primaryServicesByUUID.kept.count + d.includes.kept.count + d.byStart.count
            + c.clientConfiguration.hostWrites.count + c.clientConfiguration.enabledCharacteristics.count
    }

    @Test func tenThousandPassesHoldWhatOneHundredHoldWithExactCounts() throws {
        let passes = 10_000
        let (script, first, last) = Self.rediscovering(passes: passes)
        let c = try #require(script.analysis().connections.first)
        let few = try #require(Self.rediscovering(passes: 100).script.analysis().connections.first)
        let capacity = BoundedPrefix<FrameTime>.capacity

        #expect(Self.held(c) == Self.held(few))
        #expect(Self.held(c) == 4 * capacity + 2 + 2)

        // Every item counted, the first ones and the last kept.
        #expect(c.mtuExchanges.count == 2 * passes && c.mtuExchanges.kept.count == capacity)
        #expect(c.mtuExchanges.last?.frame == last["mtu"])
        #expect(c.encryptionChanges.count == passes && c.encryptionChanges.kept.count == capacity)
        #expect(c.encryptionChanges.last?.at.frame == last["encryption"])
        #expect(c.encryption.succeeded == passes && c.encryption.isEncrypted)
        #expect(c.encryption.lastSuccess?.frame == last["encryption"])
        #expect(c.cccdWrites.count == 2 * passes && c.cccdWrites.kept.count == capacity && !c.cccdWrites.isComplete)
        #expect(c.cccdWrites.last?.at.frame == last["cccd"])
        let d = c.gatt.discoveryProcedures
        #expect(d.allPrimaryServices.count == passes && d.allPrimaryServices.kept.count == capacity)
        #expect(d.allPrimaryServices.last?.request.frame == last["services"])
        #expect(d.primaryServicesByUUID.isEmpty && d.includes.isEmpty)
        // Characteristic and descriptor discovery by starting handle: one tally each, exact.
        #expect(d.byStart.count == 2)
        let chars = d.characteristicRequests(startingIn: 0x0001...0x000F)
        let descs = d.descriptorRequests(startingIn: 0x0001...0x000F)
        #expect(chars.count == passes && descs.count == passes)
        #expect(chars.first?.request.frame == first["characteristics"] && descs.first?.request.frame == first["descriptors"])
        #expect(d.characteristicRequests(startingIn: 0x0010...0xFFFF).count == 0)

        // The folds: the host's CCCD left off before its Disconnect, once enabled; the
        // characteristic whose notifications were enabled.
        let hostWrites = c.clientConfiguration.hostWrites
        #expect(hostWrites.count == 1)
        #expect(hostWrites.first?.latest.handle == 0x0004 && hostWrites.first?.latest.value == 0)
        #expect(hostWrites.first?.latest.at.frame == last["cccd"] && hostWrites.first?.everEnabled == true)
        #expect(c.clientConfiguration.enabledCharacteristics == [0x0003])
        #expect(c.cccdWrites.last?.characteristicValueHandle == 0x0003)

        // The last CCCD write's PDU still finds its write once the connection is complete.
        let lastWrite = try #require(c.att.last { $0.writesClientConfiguration })
        #expect(c.step(lastWrite).clientConfigurationWrite?.at.frame == last["cccd"])
    }
}
