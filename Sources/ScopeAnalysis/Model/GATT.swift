import ScopeCore
import ScopeDecode

/// One ATT PDU as the analysis keeps it. Stored compactly (40 bytes instead of 64: connections
/// keep one per PDU); the public properties read and write as before.
package struct ATTEvent: Sendable, Hashable {
    package var at: FrameTime
    /// -1 when absent.
    private var requestFrameRaw: Int
    private var valueLengthRaw: UInt32
    private var mtuRaw: UInt16
    private var handleRaw: UInt16
    /// `.sent` when the local host sent it.
    package var direction: Direction
    package var opcode: UInt8
    private var errorCodeRaw: UInt8
    private var requestOpcodeRaw: UInt8
    /// Bit 0: handle present; bit 1: error code present; bit 2: request opcode in error present;
    /// bit 3: `writesClientConfiguration`; bit 4: `startsDiscovery`.
    private var presence: UInt8

    /// The handle the PDU names or (for responses) the request named.
    package var handle: UInt16? {
        get { presence & 1 != 0 ? handleRaw : nil }
        set {
            handleRaw = newValue ?? 0
            presence = newValue == nil ? presence & ~1 : presence | 1
        }
    }
    /// Attribute value bytes carried (writes, reads, notifications).
    package var valueLength: Int {
        get { Int(valueLengthRaw) }
        set { valueLengthRaw = UInt32(clamping: newValue) }
    }
    package var errorCode: UInt8? {
        get { presence & 2 != 0 ? errorCodeRaw : nil }
        set {
            errorCodeRaw = newValue ?? 0
            presence = newValue == nil ? presence & ~2 : presence | 2
        }
    }
    package var requestOpcodeInError: UInt8? {
        get { presence & 4 != 0 ? requestOpcodeRaw : nil }
        set {
            requestOpcodeRaw = newValue ?? 0
            presence = newValue == nil ? presence & ~4 : presence | 4
        }
    }
    /// For responses: the frame of the request.
    package var requestFrame: FrameNumber? {
        get { requestFrameRaw < 0 ? nil : requestFrameRaw }
        set { requestFrameRaw = newValue.map { max(0, $0) } ?? -1 }
    }
    /// The PDU wrote a Client Characteristic Configuration (`Connection.cccdWrites` holds it).
    package var writesClientConfiguration: Bool {
        get { presence & 8 != 0 }
        set { presence = newValue ? presence | 8 : presence & ~8 }
    }
    /// The PDU is the request of a GATT discovery procedure (`GATTServerView.discoveryProcedures`).
    package var startsDiscovery: Bool {
        get { presence & 16 != 0 }
        set { presence = newValue ? presence | 16 : presence & ~16 }
    }
    /// The GATT server the PDU is about (the remote device's for what the local client sent).
    package var server: GATTServerSide { GATTServerSide(opcode: ATTOpcode(opcode), direction: direction) }
    /// ATT_MTU in force when the PDU was sent (ATT_MTU is at most 65535).
    package var mtu: Int {
        get { Int(mtuRaw) }
        set { mtuRaw = UInt16(clamping: newValue) }
    }

    package init(
        at: FrameTime, direction: Direction, opcode: UInt8, handle: UInt16?, valueLength: Int, errorCode: UInt8? = nil,
        requestOpcodeInError: UInt8? = nil, requestFrame: FrameNumber? = nil, mtu: Int
    ) {
        self.at = at
        self.direction = direction
        self.opcode = opcode
        self.handleRaw = handle ?? 0
        self.valueLengthRaw = UInt32(clamping: valueLength)
        self.errorCodeRaw = errorCode ?? 0
        self.requestOpcodeRaw = requestOpcodeInError ?? 0
        self.requestFrameRaw = requestFrame.map { max(0, $0) } ?? -1
        self.mtuRaw = UInt16(clamping: mtu)
        self.presence = (handle != nil ? 1 : 0) | (errorCode != nil ? 2 : 0) | (requestOpcodeInError != nil ? 4 : 0)
    }
}

/// One GATT server of a connection as the rules and reports read it: its database, the
/// decoder's `GATTServerDatabase` learning what the decoder's `GATTTracker` reported it learned
/// (`GATTAnnotation.discovered`, in order, through the same `learn(_:)`: the same attributes and
/// services, by the same rules, with no rules of the analysis's own), and the discovery requests
/// its client sent.
package struct GATTServerView: Sendable {
    /// The server's database.
    package private(set) var database = GATTServerDatabase()
    /// Discovery requests (Read By Group Type, Find By Type Value, Read By Type for 0x2803,
    /// Find Information) with their frames: of each kind, the first `BoundedPrefix.capacity`,
    /// the last and how many (a client that rediscovers again and again does not pile them up).
    package private(set) var discoveryProcedures = DiscoveryProcedures()
    /// The counts `dropAttributes()` kept.
    private var dropped: (services: Int, characteristics: Int)?

    package init() {}

    /// Learns what a response taught (`GATTAnnotation.discovered`).
    mutating func learn(_ discovered: [GATTAttribute]) {
        for a in discovered { database.learn(a) }
    }

    /// The services learned, in the order they were discovered (`GATTServerDatabase.services`).
    package var services: [GATTService] { database.services }

    /// The characteristics learned from their declarations, in handle order.
    package var characteristics: [Characteristic] { database.attributes.compactMap(Characteristic.init) }

    /// The characteristic whose declaration names `valueHandle` as its value (the first in
    /// handle order).
    package func characteristic(valueHandle: UInt16) -> Characteristic? {
        for a in database.attributes where a.kind == .characteristicDeclaration && a.relatedHandle == valueHandle {
            if let c = Characteristic(a) { return c }
        }
        return nil
    }

    /// Services and characteristics learned (also after `dropAttributes()`).
    package var counts: (services: Int, characteristics: Int) {
        dropped ?? (database.services.count, database.attributes.count { Characteristic($0) != nil })
    }

    /// Drops the database and the procedures (a connection the rules judged, held only for the
    /// reports' lists), keeping the counts.
    package mutating func dropAttributes() {
        dropped = counts
        database = GATTServerDatabase()
        discoveryProcedures = DiscoveryProcedures()
    }

    /// A characteristic as its declaration (Read By Type for 0x2803) taught it: a declaration
    /// without UUID, value handle or properties (one Find Information listed) is none.
    package struct Characteristic: Sendable, Hashable {
        package var declarationHandle: UInt16
        package var valueHandle: UInt16
        /// Properties bits (Core v5.4 Vol 3 Part G §3.3.1.1): 0x02 read, 0x04 write without
        /// response, 0x08 write, 0x10 notify, 0x20 indicate.
        package var properties: UInt8
        /// The frame of the response that declared it.
        package var learnedIn: FrameNumber
        /// The characteristic's UUID.
        package var uuidValue: ATTUUID
        /// "2a37" for 16-bit UUIDs, the canonical string otherwise.
        package var uuid: String { uuidValue.compactString }

        init?(_ a: GATTAttribute) {
            guard a.kind == .characteristicDeclaration, let uuid = a.uuid, let value = a.relatedHandle, let properties = a.properties else {
                return nil
            }
            uuidValue = uuid
            declarationHandle = a.handle
            valueHandle = value
            self.properties = properties.rawValue
            learnedIn = a.learnedIn
        }
    }

    mutating func recordDiscovery(_ p: DiscoveryProcedure) { discoveryProcedures.append(p) }

    /// The discovery requests of one connection: those that discover services as lists, the
    /// characteristic and descriptor discovery requests tallied by starting handle.
    package struct DiscoveryProcedures: Sendable {
        /// Discover All Primary Services, Discover Primary Service by UUID and Find Included
        /// Services requests, one list per kind in the order of `serviceIndex(_:)` (empty until
        /// one comes).
        private var serviceLists: [BoundedPrefix<DiscoveryProcedure>] = []
        /// Characteristic and descriptor discovery requests by kind and starting handle
        /// (characteristics first, each kind in handle order): bounded by the handles, not by
        /// how often a client discovers them again.
        package private(set) var byStart: [StartTally] = []

        /// The requests of one kind with one starting handle: the first, and how many.
        package struct StartTally: Sendable, Hashable {
            package var first: DiscoveryProcedure
            package var count: Int
        }

        package init() {}

        package var isEmpty: Bool { serviceLists.isEmpty && byStart.isEmpty }

        package var allPrimaryServices: BoundedPrefix<DiscoveryProcedure> { serviceList(0) }
        package var primaryServicesByUUID: BoundedPrefix<DiscoveryProcedure> { serviceList(1) }
        package var includes: BoundedPrefix<DiscoveryProcedure> { serviceList(2) }
        /// At least one characteristic or descriptor discovery request.
        package var discoversCharacteristics: Bool { !byStart.isEmpty }

        /// Characteristic discovery requests starting in `range`: the first and how many.
        package func characteristicRequests(startingIn range: ClosedRange<UInt16>) -> (first: DiscoveryProcedure?, count: Int) {
            requests(descriptors: false, startingIn: range)
        }

        /// Descriptor discovery requests starting in `range`: the first and how many.
        package func descriptorRequests(startingIn range: ClosedRange<UInt16>) -> (first: DiscoveryProcedure?, count: Int) {
            requests(descriptors: true, startingIn: range)
        }

        mutating func append(_ p: DiscoveryProcedure) {
            switch p.kind {
            case .characteristics, .descriptors:
                let key = Self.startKey(p)
                let i = byStart.partitionPoint { Self.startKey($0.first) >= key }
                if i < byStart.count, Self.startKey(byStart[i].first) == key {
                    byStart[i].count += 1
                } else {
                    byStart.insert(StartTally(first: p, count: 1), at: i)
                }
            case .allPrimaryServices, .primaryServiceByUUID, .includes:
                let i = Self.serviceIndex(p.kind)
                while serviceLists.count <= i { serviceLists.append(BoundedPrefix()) }
                serviceLists[i].append(p)
            }
        }

        private func serviceList(_ i: Int) -> BoundedPrefix<DiscoveryProcedure> {
            i < serviceLists.count ? serviceLists[i] : BoundedPrefix()
        }

        private func requests(descriptors: Bool, startingIn range: ClosedRange<UInt16>) -> (first: DiscoveryProcedure?, count: Int) {
            let lo = (descriptors ? 0x1_0000 : 0) | Int(range.lowerBound)
            var first: DiscoveryProcedure?
            var count = 0
            var i = byStart.partitionPoint { Self.startKey($0.first) >= lo }
            while i < byStart.count, (byStart[i].first.kind == .descriptors) == descriptors, byStart[i].first.startHandle <= range.upperBound {
                let t = byStart[i]
                if first.map({ t.first.request.frame < $0.request.frame }) ?? true { first = t.first }
                count += t.count
                i += 1
            }
            return (first, count)
        }

        /// Characteristic requests before descriptor requests, each in starting handle order.
        private static func startKey(_ p: DiscoveryProcedure) -> Int { (p.kind == .descriptors ? 0x1_0000 : 0) | Int(p.startHandle) }

        private static func serviceIndex(_ kind: GATTDiscoveryKind) -> Int {
            switch kind {
            case .allPrimaryServices: 0
            case .primaryServiceByUUID: 1
            default: 2
            }
        }
    }

    package struct DiscoveryProcedure: Sendable, Hashable {
        package typealias Kind = GATTDiscoveryKind
        package var kind: Kind
        package var request: FrameTime
        package var startHandle: UInt16
        package var endHandle: UInt16
        /// Side acting as GATT client.
        package var client: Side
        package init(kind: Kind, request: FrameTime, startHandle: UInt16, endHandle: UInt16, client: Side) {
            self.kind = kind
            self.request = request
            self.startHandle = startHandle
            self.endHandle = endHandle
            self.client = client
        }
    }
}

extension GATTService {
    package var start: UInt16 { range.start }
    package var end: UInt16 { range.end }
    /// GAP (0x1800) and GATT (0x1801) never count as discovered or used (RULES.md).
    package var isGAPOrGATT: Bool { uuid.uuid16 == 0x1800 || uuid.uuid16 == 0x1801 }
}

package struct CCCDWrite: Sendable, Hashable {
    package var at: FrameTime
    package var direction: Direction
    package var handle: UInt16
    /// The characteristic the CCCD belongs to (`GATTClientConfigurationWrite`), by value handle.
    package var characteristicValueHandle: UInt16?
    /// 0x0000 off, 0x0001 notifications, 0x0002 indications.
    package var value: UInt16
    package init(at: FrameTime, direction: Direction, handle: UInt16, characteristicValueHandle: UInt16?, value: UInt16) {
        self.at = at
        self.direction = direction
        self.handle = handle
        self.characteristicValueHandle = characteristicValueHandle
        self.value = value
    }
}
