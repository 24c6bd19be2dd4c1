import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

/// `CaptureReader.reusePayloadBuffers(_:)`: payload arrays given back are refilled instead of
/// allocated, and what is delivered does not change (arrays still referenced elsewhere are not
/// overwritten).
@Suite struct PayloadReuseTests {
    /// Every record of `url`, read plainly.
    static func plainRecords(_ url: URL) throws -> [CaptureRecord] {
        var reader = try CaptureReader.open(path: url.path)
        var records: [CaptureRecord] = []
        while let r = reader.next() { records.append(r) }
        return records
    }

    /// Files the reader reads itself (no container rebuilding them first: Android's on-device
    /// btsnooz records are rebuilt by a container source, which has no spare arrays), and not
    /// through libpcap.
    static var readInPlace: [URL] {
        Corpus.hciFiles.filter { url in
            guard !["pcap", "pcapng"].contains(url.pathExtension),
                  let reader = try? CaptureReader.open(path: url.path) else { return false }
            return reader.origin.layers.isEmpty
        }
    }

    @Test("records read while giving every payload back equal records read plainly", arguments: Corpus.hciFiles)
    func reuseDeliversTheSameRecords(_ url: URL) throws {
        let plain = try Self.plainRecords(url)
        var reader = try CaptureReader.open(path: url.path)
        var reused: [CaptureRecord] = []
        var kept: [ArraySlice<UInt8>] = []
        while let r = reader.next() {
            reused.append(r)
            // Give back a copy of every payload (the record still holds it: copy-on-write must
            // leave it alone), and keep a slice of every third one, as a decoded frame would;
            // give back as well an array only the reader holds, of varying length, full of
            // garbage (refilled next, in place).
            var spares = [r.payload, [UInt8](repeating: 0xEE, count: (r.frame * 7) % 300)]
            if r.frame % 3 == 0, !r.payload.isEmpty { kept.append(r.payload[1...]) }
            reader.reusePayloadBuffers(&spares)
            #expect(spares.isEmpty)
        }
        #expect(reused == plain, "\(url.lastPathComponent)")
        let slices = plain.filter { $0.frame % 3 == 0 && !$0.payload.isEmpty }.map { $0.payload[1...] }
        #expect(kept.elementsEqual(slices, by: ==), "\(url.lastPathComponent)")
        if Corpus.hciFiles.isEmpty { print("reuseDeliversTheSameRecords: shared captures absent, skipped") }
    }

    /// btsnoop and PacketLogger copy each payload out of the reader's buffer into an array given
    /// back: one of the record's length when there is one (below), else, once half of
    /// `SparePayloads.maximum` are kept, one of another length, the shortest.
    @Test func aGivenBackArrayOfAnotherLengthIsRefilledOnceHalfAreKept() throws {
        var refilled = 0
        for url in Self.readInPlace {
            let plain = try Self.plainRecords(url)
            guard plain.count >= 2, plain[1].payload.count > 2 else { continue }
            var reader = try CaptureReader.open(path: url.path)
            let first = reader.next()
            #expect(first == plain[0])
            // Half the most kept, of lengths 2 and (the last one, the shortest) 1.
            var spare: [UInt8] = [0xEE]
            spare.reserveCapacity(70_000)
            let address = spare.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            var spares = (1..<(SparePayloads.maximum / 2)).map { _ in [UInt8](repeating: 0xEE, count: 2) }
            spares.append(spare)
            spare = []
            reader.reusePayloadBuffers(&spares)
            guard let second = reader.next() else {
                Issue.record("\(url.lastPathComponent): no second record")
                continue
            }
            #expect(second == plain[1], "\(url.lastPathComponent)")
            #expect(second.payload.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == address, "\(url.lastPathComponent)")
            refilled += 1
        }
        if Corpus.hciFiles.isEmpty {
            print("aGivenBackArrayOfAnotherLengthIsRefilledOnceHalfAreKept: shared captures absent, skipped")
        } else {
            #expect(refilled > 0)
        }
    }

    /// With fewer kept, a record of a length no spare has gets a new array (the spares grow to
    /// cover the lengths that recur).
    @Test func aRecordOfAnotherLengthGetsANewArrayWhileFewAreKept() throws {
        guard let url = Self.readInPlace.first else {
            print("aRecordOfAnotherLengthGetsANewArrayWhileFewAreKept: shared captures absent, skipped")
            return
        }
        let plain = try Self.plainRecords(url)
        guard plain.count >= 2, plain[1].payload.count > 1 else { return }
        var reader = try CaptureReader.open(path: url.path)
        #expect(reader.next() == plain[0])
        var spare: [UInt8] = [0xEE]
        spare.reserveCapacity(70_000)
        let address = spare.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        var spares = [spare]
        spare = []
        reader.reusePayloadBuffers(&spares)
        let second = reader.next()
        #expect(second == plain[1])
        #expect(second?.payload.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } != address)
        #expect(reader.sparePayloads?.count == 1)
    }

    /// An array given back with exactly the next payload's length is overwritten in place; one
    /// that something else still holds is left alone (copy-on-write).
    @Test func anArrayOfTheSameLengthIsOverwrittenInPlace() throws {
        var checked = 0
        for url in Self.readInPlace {
            let plain = try Self.plainRecords(url)
            guard plain.count >= 3, !plain[1].payload.isEmpty, !plain[2].payload.isEmpty else { continue }
            var reader = try CaptureReader.open(path: url.path)
            #expect(reader.next() == plain[0])
            var unique = [UInt8](repeating: 0xEE, count: plain[1].payload.count)
            let address = unique.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            var spares = [unique]
            unique = []
            reader.reusePayloadBuffers(&spares)
            let second = reader.next()
            #expect(second == plain[1], "\(url.lastPathComponent)")
            #expect(second?.payload.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == address, "\(url.lastPathComponent)")
            let held = [UInt8](repeating: 0xEE, count: plain[2].payload.count)
            spares = [held]
            reader.reusePayloadBuffers(&spares)
            #expect(reader.next() == plain[2], "\(url.lastPathComponent)")
            #expect(held.allSatisfy { $0 == 0xEE }, "\(url.lastPathComponent)")
            checked += 1
        }
        if Corpus.hciFiles.isEmpty {
            print("anArrayOfTheSameLengthIsOverwrittenInPlace: shared captures absent, skipped")
        } else {
            #expect(checked > 0)
        }
    }

    /// pcap and pcapng (read by libpcap) drop what they are given.
    @Test func pcapDropsGivenBackArrays() throws {
        guard let url = Corpus.hciFiles.first(where: { $0.pathExtension == "pcap" || $0.pathExtension == "pcapng" }) else {
            print("pcapDropsGivenBackArrays: shared captures absent, skipped")
            return
        }
        let plain = try Self.plainRecords(url)
        var reader = try CaptureReader.open(path: url.path)
        var count = 0
        while let r = reader.next() {
            #expect(r == plain[count])
            count += 1
            var spares: [[UInt8]] = [[1, 2, 3], r.payload]
            reader.reusePayloadBuffers(&spares)
            #expect(spares.isEmpty)
        }
        #expect(count == plain.count)
    }
}
