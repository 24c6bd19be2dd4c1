import ScopeCore

/// Removes secrets from capture records and pseudonymises Bluetooth addresses, editing bytes in
/// place so every record keeps its length (and every format round-trips).
///
/// Two passes over the capture: ``learn(_:)`` every record first (it collects the addresses the
/// capture names: HCI parameters, advertising reports, connection events, monitor NEW_INDEX and
/// INDEX_INFO, SMP Identity Address Information, MGMT key events), then ``redact(_:)`` each
/// record. Every occurrence of a learned address anywhere in a record (also inside advertising
/// data, e.g. the LE Bluetooth Device Address AD type, or GATT values) becomes its pseudonym.
///
/// Secrets are overwritten with zeros: link keys, LTKs, IRKs, CSRKs, EDIV/Rand, passkeys and
/// numeric comparison values, PIN codes, OOB data, P-256 public keys and DHKeys, in HCI
/// commands/events (``SecretFields``), SMP PDUs (also when fragmented over several ACL packets)
/// and MGMT commands/events of the Linux monitor's control channel.
public struct Redactor: Sendable {
    public struct Options: Sendable {
        /// 16-byte key of the address mapping.
        public var key: [UInt8]
        /// Keep the OUI (3 most significant bytes) of addresses not seen as random.
        public var keepOUI = false
        /// Replace device names (AD Local Name, Remote Name, Local Name).
        public var names = false

        public init(key: [UInt8], keepOUI: Bool = false, names: Bool = false) {
            self.key = key
            self.keepOUI = keepOUI
            self.names = names
        }
    }

    public struct Statistics: Sendable, Hashable {
        public var addresses = 0
        public var addressOccurrences = 0
        public var secretFields = 0
        public var names = 0
        public init() {}
    }

    private let options: Options
    private let prf: SipHash24
    /// Learned addresses (wire byte order) and their pseudonyms.
    private var mapping: [BDAddr: BDAddr] = [:]
    private var randomAddresses: Set<BDAddr> = []
    private var smp: [SMPStreamKey: SMPStream] = [:]
    public private(set) var statistics = Statistics()

    public init(options: Options) {
        self.options = options
        self.prf = SipHash24(key: options.key)
    }

    /// The pseudonym of `address` (after ``learn(_:)``), or nil when the capture never named it.
    public func pseudonym(of address: BDAddr) -> BDAddr? { mapping[address] }

    // MARK: Pass 1

    public mutating func learn(_ record: CaptureRecord) {
        var found: [(BDAddr, random: Bool?)] = []
        let p = record.payload
        switch record.kind {
        case .command:
            found += HCICommand.decode(p).addresses.map { ($0, nil) }
        case .event:
            let event = HCIEvent.decode(p)
            for r in event.advertisingReports { found.append((r.address, r.addressType & 1 == 1)) }
            found += event.addresses.map { ($0, nil) }
        case .newIndex where p.count >= 8:
            found.append((BDAddr(littleEndian: p[2..<8]), false))
        case .indexInfo where p.count >= 6:
            found.append((BDAddr(littleEndian: p[0..<6]), false))
        case .controlEvent, .controlCommand:
            for range in MGMTSecrets.addressRanges(kind: record.kind, payload: p) {
                found.append((BDAddr(littleEndian: p[range]), nil))
            }
        case .acl:
            if let (code, offset) = SMPStream.singleFragmentPDU(p), code == 0x09, offset + 8 <= p.count {
                found.append((BDAddr(littleEndian: p[(offset + 2)..<(offset + 8)]), p[offset + 1] & 1 == 1))
            }
        default: break
        }
        for (address, random) in found where address.value != 0 && address.value != 0xFFFF_FFFF_FFFF {
            if random == true { randomAddresses.insert(address) }
            if mapping[address] == nil {
                mapping[address] = BDAddr(value: 0)  // assigned in finishLearning
            }
        }
    }

    /// Assigns pseudonyms once every address is known (so `--keep-oui` sees every type hint).
    public mutating func finishLearning() {
        var used: Set<BDAddr> = []
        for address in mapping.keys.sorted() {
            var counter: UInt8 = 0
            var candidate: BDAddr
            repeat {
                candidate = derive(address, counter: counter)
                counter &+= 1
            } while (used.contains(candidate) || mapping[candidate] != nil) && counter != 0
            used.insert(candidate)
            mapping[address] = candidate
        }
        statistics.addresses = mapping.count
    }

    private func derive(_ address: BDAddr, counter: UInt8) -> BDAddr {
        let h = prf.hash(address.littleEndianBytes + [counter]) & 0xFFFF_FFFF_FFFF
        let top2: UInt64 = 0xC000_0000_0000
        if options.keepOUI && !randomAddresses.contains(address) {
            return BDAddr(value: (address.value & 0xFFFF_FF00_0000) | (h & 0xFF_FFFF))
        }
        // Random addresses keep their sub-type bits (static 11, resolvable 01, non-resolvable 00).
        return BDAddr(value: (address.value & top2) | (h & ~top2 & 0xFFFF_FFFF_FFFF))
    }

    // MARK: Pass 2

    public mutating func redact(_ record: CaptureRecord) -> CaptureRecord {
        var out = record
        var p = record.payload
        var secrets: [Range<Int>] = []
        switch record.kind {
        case .command: secrets = SecretFields.command(p)
        case .event: secrets = SecretFields.event(p)
        case .controlEvent, .controlCommand: secrets = MGMTSecrets.secretRanges(kind: record.kind, payload: p)
        case .acl: secrets = smpSecrets(record)
        default: break
        }
        for r in secrets {
            let clamped = r.clamped(to: 0..<p.count)
            guard !clamped.isEmpty else { continue }
            for i in clamped { p[i] = 0 }
            statistics.secretFields += 1
        }
        if options.names { statistics.names += NameFields.redact(kind: record.kind, &p, prf: prf) }
        replaceAddresses(&p, from: Self.headerLength(record))
        out.payload = p
        return out
    }

    /// Packet headers (opcode/code and lengths, ACL and L2CAP headers) never hold an address and
    /// are never rewritten, so a coincidence can never change a length.
    static func headerLength(_ record: CaptureRecord) -> Int {
        switch record.kind {
        case .command: return 3
        case .event: return 2
        case .acl:
            let p = record.payload
            return p.count >= 2 && p[1] >> 4 & 0x3 == 0b01 ? 4 : 8
        case .sco: return 3
        case .iso: return 4
        case .controlEvent, .controlCommand: return 6
        default: return 0
        }
    }

    /// Replaces every 6-byte window after the headers that is a learned address.
    private mutating func replaceAddresses(_ p: inout [UInt8], from start: Int) {
        guard p.count >= 6, !mapping.isEmpty else { return }
        var i = start
        while i + 6 <= p.count {
            let a = BDAddr(littleEndian: p[i..<(i + 6)])
            if a.value != 0, let pseudo = mapping[a] {
                let bytes = pseudo.littleEndianBytes
                for k in 0..<6 { p[i + k] = bytes[k] }
                statistics.addressOccurrences += 1
                i += 6
            } else {
                i += 1
            }
        }
    }

    /// SMP secrets in this ACL fragment, following PDUs fragmented over several ACL packets.
    private mutating func smpSecrets(_ record: CaptureRecord) -> [Range<Int>] {
        let p = record.payload
        guard p.count >= 4 else { return [] }
        let handle = (UInt16(p[0]) | UInt16(p[1]) << 8) & 0x0FFF
        let pb = p[1] >> 4 & 0x3
        let key = SMPStreamKey(adapter: record.adapter, handle: handle, direction: record.direction)
        var ranges: [Range<Int>] = []
        if pb == 0b01 {
            // Continuation: bytes at 4… are PDU bytes from stream.next on.
            guard var stream = smp[key] else { return [] }
            let count = p.count - 4
            for secret in stream.secrets {
                let lo = max(secret.lowerBound, stream.next), hi = min(secret.upperBound, stream.next + count)
                if lo < hi { ranges.append((4 + lo - stream.next)..<(4 + hi - stream.next)) }
            }
            stream.next += count
            smp[key] = stream.next >= stream.length ? nil : stream
            return ranges
        }
        smp[key] = nil
        guard p.count >= 9 else { return [] }
        let length = Int(p[4]) | Int(p[5]) << 8
        let cid = UInt16(p[6]) | UInt16(p[7]) << 8
        guard cid == 0x0006 || cid == 0x0007 else { return [] }
        let secrets = SecretFields.smp(code: p[8])
        for s in secrets where s.lowerBound < p.count - 8 {
            ranges.append((8 + s.lowerBound)..<(8 + min(s.upperBound, p.count - 8)))
        }
        if p.count - 8 < length {
            smp[key] = SMPStream(length: length, next: p.count - 8, secrets: secrets)
        }
        return ranges
    }
}

struct SMPStreamKey: Hashable, Sendable {
    var adapter: AdapterIndex
    var handle: UInt16
    var direction: Direction
}

struct SMPStream: Sendable {
    var length: Int
    /// PDU offset of the next continuation byte.
    var next: Int
    var secrets: [Range<Int>]

    /// (SMP code, payload offset of the code) when `p` is a start fragment on an SMP channel.
    static func singleFragmentPDU(_ p: [UInt8]) -> (UInt8, Int)? {
        guard p.count >= 9, p[1] >> 4 & 0x3 != 0b01 else { return nil }
        let cid = UInt16(p[6]) | UInt16(p[7]) << 8
        guard cid == 0x0006 || cid == 0x0007 else { return nil }
        return (p[8], 8)
    }
}
