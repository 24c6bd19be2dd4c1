import ScopeCore

/// Removes secrets from capture records, pseudonymises Bluetooth addresses and replaces device
/// names, editing bytes in place so every record keeps its length (and every format round-trips).
///
/// Every record of every kind goes through it. What each byte is comes from ``RecordFields``:
/// HCI commands and events and MGMT traffic through their parameter layouts (every address
/// field, local ones included: LE Set Random Address, LE Set Advertising Set Random Address,
/// every report, connection, sync, CIS and BIG event that has one), monitor index records,
/// PacketLogger paired-device records; notes and logs are free text; runs whose layout is not
/// described (vendor commands and events, unknown records, PacketLogger LMP and unknown config
/// records, trailing bytes) are opaque and zeroed unless ``Options/keepUnknown``.
///
/// Two passes over the capture: ``learn(_:)`` every record first (it collects the addresses the
/// capture names, also written as text in notes and logs, and the device names), then
/// ``redact(_:)`` each record. Every occurrence of a learned address anywhere in a record, in
/// either byte order or as text ("AA:BB:CC:DD:EE:FF"), becomes its pseudonym, and every
/// occurrence of a learned name of 4 bytes or more its replacement: also inside advertising
/// data, GATT values and notes.
///
/// Secrets are overwritten with zeros: link keys, LTKs, IRKs, CSRKs, EDIV/Rand, passkeys and
/// numeric comparison values, PIN codes, OOB data, P-256 public keys and DHKeys, in HCI
/// commands/events (``SecretFields``), SMP PDUs (also when fragmented over several ACL packets),
/// MGMT commands/events of the Linux monitor's control channel and PacketLogger paired-device
/// records.
public struct Redactor: Sendable {
    public struct Options: Sendable {
        /// 16-byte key of the address mapping.
        public var key: [UInt8]
        /// Keep the OUI (3 most significant bytes) of addresses not seen as random.
        public var keepOUI = false
        /// Replace device names (names in advertising data and EIR, Remote/Local Name, MGMT
        /// names, PacketLogger paired devices, and wherever else they occur).
        public var names = true
        /// Keep bytes whose layout is not described instead of zeroing them (learned addresses
        /// and names in them are still replaced).
        public var keepUnknown = false

        public init(key: [UInt8], keepOUI: Bool = false, names: Bool = true, keepUnknown: Bool = false) {
            self.key = key
            self.keepOUI = keepOUI
            self.names = names
            self.keepUnknown = keepUnknown
        }
    }

    public struct Statistics: Sendable, Hashable {
        public var addresses = 0
        public var addressOccurrences = 0
        public var secretFields = 0
        public var names = 0
        /// Records with opaque bytes zeroed, and how many bytes.
        public var opaqueRecords = 0
        public var opaqueBytes = 0
        public init() {}
    }

    private let options: Options
    private let prf: SipHash24
    /// Learned addresses (wire byte order) and their pseudonyms.
    private var mapping: [BDAddr: BDAddr] = [:]
    /// The same, byte-reversed (addresses written most significant byte first).
    private var reversed: [BDAddr: BDAddr] = [:]
    private var randomAddresses: Set<BDAddr> = []
    /// Learned names of 4 bytes or more, by their first 4 bytes (longest first).
    private var learnedNames: Set<[UInt8]> = []
    private var namesByPrefix: [UInt32: [[UInt8]]] = [:]
    /// Each pass follows ACL fragments as the decoder does (an SMP PDU split over several
    /// records: its identity in pass 1, its secrets in pass 2).
    private var reassembler = L2CAPReassembler()
    public private(set) var statistics = Statistics()

    public init(options: Options) {
        self.options = options
        self.prf = SipHash24(key: options.key)
    }

    /// The pseudonym of `address` (after ``learn(_:)``), or nil when the capture never named it.
    public func pseudonym(of address: BDAddr) -> BDAddr? { mapping[address] }

    /// The device names learned (4 bytes or more).
    public var names: Set<[UInt8]> { learnedNames }

    // MARK: Pass 1

    public mutating func learn(_ record: CaptureRecord) {
        var found: [(BDAddr, random: Bool?)] = []
        let p = record.payload
        for span in RecordFields.spans(record) where span.range.upperBound <= p.count {
            switch span.kind {
            case .address(_, let random):
                found.append((BDAddr(littleEndian: p[span.range]), random))
            case .name:
                learnName(NameFields.cStringRange(p, span.range).map { Array(p[$0]) } ?? [])
            case .advertisingData:
                for r in NameFields.adNameRanges(p, span.range) { learnName(Array(p[r])) }
            default:
                break
            }
        }
        switch record.kind {
        case .event:
            for r in HCIEvent.decode(p).advertisingReports { found.append((r.address, r.addressType & 1 == 1)) }
        case .acl:
            // Identity Address Information (0x09): address type, address.
            for pdu in aclStep(record).completed where Self.isSMP(pdu.cid) {
                let d = pdu.payload
                guard d.count >= 8, d[d.startIndex] == 0x09 else { continue }
                found.append((BDAddr(littleEndian: d[(d.startIndex + 2)..<(d.startIndex + 8)]), d[d.startIndex + 1] & 1 == 1))
            }
        default: break
        }
        TextAddresses.forEach(in: p, from: Self.headerLength(record)) { _, address, _ in found.append((address, nil)) }
        for (address, random) in found where address.value != 0 && address.value != 0xFFFF_FFFF_FFFF {
            if random == true { randomAddresses.insert(address) }
            if mapping[address] == nil {
                mapping[address] = BDAddr(value: 0)  // assigned in finishLearning
            }
        }
    }

    private mutating func learnName(_ name: [UInt8]) {
        guard name.count >= 4, !learnedNames.contains(name) else { return }
        learnedNames.insert(name)
    }

    /// Assigns pseudonyms once every address is known (so `--keep-oui` sees every type hint).
    public mutating func finishLearning() {
        // Pass 2 follows the fragments again from the first record.
        reassembler = L2CAPReassembler()
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
        for (address, pseudonym) in mapping {
            let key = BDAddr(value: address.value.byteSwapped >> 16)
            if mapping[key] == nil { reversed[key] = BDAddr(value: pseudonym.value.byteSwapped >> 16) }
        }
        for name in learnedNames.sorted(by: { $0.count > $1.count }) {
            namesByPrefix[Self.prefix(name, 0), default: []].append(name)
        }
        statistics.addresses = mapping.count
    }

    private static func prefix(_ bytes: [UInt8], _ i: Int) -> UInt32 {
        UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
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
        // HCI secrets are `.secret` spans of their layouts; SMP secrets sit in L2CAP PDUs.
        var secrets = record.kind == .acl ? smpSecrets(record) : []
        var opaque = 0
        for span in RecordFields.spans(record) {
            let range = span.range.clamped(to: 0..<p.count)
            guard !range.isEmpty else { continue }
            switch span.kind {
            case .address:
                let a = BDAddr(littleEndian: p[range])
                if range.count == 6, let pseudo = mapping[a] {
                    p.replaceSubrange(range, with: pseudo.littleEndianBytes)
                    statistics.addressOccurrences += 1
                }
            case .name where options.names:
                if let r = NameFields.cStringRange(p, range) {
                    NameFields.replace(&p, r, prf: prf)
                    statistics.names += 1
                }
            case .advertisingData where options.names:
                for r in NameFields.adNameRanges(p, range) {
                    NameFields.replace(&p, r, prf: prf)
                    statistics.names += 1
                }
            case .secret:
                secrets.append(range)
            case .opaque where !options.keepUnknown:
                if p[range].contains(where: { $0 != 0 }) {
                    for i in range { p[i] = 0 }
                    opaque += range.count
                }
            default:
                break
            }
        }
        for r in secrets {
            let clamped = r.clamped(to: 0..<p.count)
            guard !clamped.isEmpty else { continue }
            for i in clamped { p[i] = 0 }
            statistics.secretFields += 1
        }
        if opaque > 0 {
            statistics.opaqueRecords += 1
            statistics.opaqueBytes += opaque
        }
        let start = Self.headerLength(record)
        replaceAddresses(&p, from: start)
        replaceTextAddresses(&p, from: start)
        if options.names { replaceNames(&p, from: start) }
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

    /// Placeholder addresses (at most one byte other than 00 and FF: the 00:00:00:00:00:01…
    /// Android puts in the resolving list) are replaced in their fields only: their bytes occur
    /// by chance in integers and lengths, which a search anywhere would corrupt.
    static func isPlaceholder(_ a: BDAddr) -> Bool {
        a.littleEndianBytes.filter { $0 != 0 && $0 != 0xFF }.count <= 1
    }

    /// Replaces every 6-byte window after the headers that is a learned address, in either
    /// byte order (placeholders excepted).
    private mutating func replaceAddresses(_ p: inout [UInt8], from start: Int) {
        guard p.count >= 6, !mapping.isEmpty else { return }
        var i = start
        while i + 6 <= p.count {
            let a = BDAddr(littleEndian: p[i..<(i + 6)])
            if a.value != 0, let pseudo = mapping[a] ?? reversed[a], !Self.isPlaceholder(a) {
                let bytes = pseudo.littleEndianBytes
                for k in 0..<6 { p[i + k] = bytes[k] }
                statistics.addressOccurrences += 1
                i += 6
            } else {
                i += 1
            }
        }
    }

    /// Replaces every learned address written as text ("aa:bb:cc:dd:ee:ff", "AA-BB-…") by its
    /// pseudonym in the same style.
    private mutating func replaceTextAddresses(_ p: inout [UInt8], from start: Int) {
        var edits: [(Int, BDAddr, TextAddresses.Style)] = []
        TextAddresses.forEach(in: p, from: start) { at, address, style in
            if let pseudo = mapping[address] { edits.append((at, pseudo, style)) }
        }
        for (at, pseudo, style) in edits {
            let text = TextAddresses.format(pseudo, style)
            for k in 0..<text.count { p[at + k] = text[k] }
            statistics.addressOccurrences += 1
        }
    }

    /// Replaces every learned name (4 bytes or more) after the headers, longest names first.
    private mutating func replaceNames(_ p: inout [UInt8], from start: Int) {
        guard !namesByPrefix.isEmpty, p.count >= 4 else { return }
        var i = start
        outer: while i + 4 <= p.count {
            if let candidates = namesByPrefix[Self.prefix(p, i)] {
                for name in candidates where i + name.count <= p.count && p[i..<(i + name.count)].elementsEqual(name) {
                    NameFields.replace(&p, i..<(i + name.count), prf: prf)
                    statistics.names += 1
                    i += name.count
                    continue outer
                }
            }
            i += 1
        }
    }

    /// The reassembler's step for an ACL record.
    private mutating func aclStep(_ record: CaptureRecord) -> ACLStep {
        reassembler.consume(
            adapter: record.adapter, direction: record.direction, frame: record.frame, payload: record.payload,
            capturedTruncated: record.isTruncated)
    }

    private static func isSMP(_ cid: UInt16) -> Bool { cid == ChannelID.smp.rawValue || cid == ChannelID.bredrSMP.rawValue }

    /// SMP secrets in this ACL record: the secret fields of the SMP PDU it carries part of
    /// (`SecretFields.smp`, offsets from the code), at the place the reassembler puts the
    /// record's data in the PDU.
    private mutating func smpSecrets(_ record: CaptureRecord) -> [Range<Int>] {
        guard let place = aclStep(record).placement, let cid = place.cid, Self.isSMP(cid), let code = place.firstPayloadByte else { return [] }
        let data = record.payload.count - ACLHeader.size
        let header = L2CAPPDU.basicHeaderSize
        var ranges: [Range<Int>] = []
        for secret in SecretFields.smp(code: code) {
            let lo = max(secret.lowerBound + header, place.offset), hi = min(secret.upperBound + header, place.offset + data)
            if lo < hi { ranges.append((ACLHeader.size + lo - place.offset)..<(ACLHeader.size + hi - place.offset)) }
        }
        return ranges
    }
}
