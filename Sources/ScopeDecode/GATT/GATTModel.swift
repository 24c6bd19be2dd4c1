import ScopeCore

/// Identity of one connection for GATT state: adapter, connection handle and a generation
/// number the caller bumps on every Connection Complete, so a reused handle starts with an
/// empty database (STYLE C8).
public struct GATTConnectionKey: Hashable, Sendable, CustomStringConvertible {
    public var adapter: AdapterIndex
    public var handle: UInt16
    public var generation: Int

    public init(adapter: AdapterIndex, handle: UInt16, generation: Int) {
        self.adapter = adapter
        self.handle = handle
        self.generation = generation
    }

    public var description: String { "hci\(adapter) handle \(Hex.prefixed(handle, digits: 4)) #\(generation)" }
}

/// Characteristic Properties (Core v5.4, Vol 3, Part G, §3.3.1.1, Table 3.5).
public struct GATTCharacteristicProperties: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = GATTCharacteristicProperties(rawValue: 0x01)
    public static let read = GATTCharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = GATTCharacteristicProperties(rawValue: 0x04)
    public static let write = GATTCharacteristicProperties(rawValue: 0x08)
    public static let notify = GATTCharacteristicProperties(rawValue: 0x10)
    public static let indicate = GATTCharacteristicProperties(rawValue: 0x20)
    public static let authenticatedSignedWrites = GATTCharacteristicProperties(rawValue: 0x40)
    public static let extendedProperties = GATTCharacteristicProperties(rawValue: 0x80)

    /// Bit names in bit order; all eight bits are defined.
    public static let names: [(bit: UInt8, name: String)] = [
        (0x01, "Broadcast"), (0x02, "Read"), (0x04, "Write Without Response"), (0x08, "Write"),
        (0x10, "Notify"), (0x20, "Indicate"), (0x40, "Authenticated Signed Writes"), (0x80, "Extended Properties"),
    ]

    /// "Read, Notify" or "none".
    public var description: String {
        let parts = GATTCharacteristicProperties.names.filter { rawValue & $0.bit != 0 }.map(\.name)
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}

/// A Client Characteristic Configuration value (Core v5.4, Vol 3, Part G, §3.3.3.3, Table 3.11).
public struct GATTClientConfiguration: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public var notifications: Bool { rawValue & 0x0001 != 0 }
    public var indications: Bool { rawValue & 0x0002 != 0 }
    /// Bits 2–15 (reserved).
    public var reservedBits: UInt16 { rawValue & 0xFFFC }

    /// "Notifications enabled", "Indications enabled", "Notifications and indications enabled",
    /// "Notifications and indications disabled" (+ reserved bits).
    public var description: String {
        let base: String
        switch (notifications, indications) {
        case (true, true): base = "Notifications and indications enabled"
        case (true, false): base = "Notifications enabled"
        case (false, true): base = "Indications enabled"
        case (false, false): base = "Notifications and indications disabled"
        }
        return reservedBits == 0 ? base : base + ", reserved bits " + Hex.prefixed(reservedBits, digits: 4)
    }
}

/// What an attribute is, as learned from discovery.
public enum GATTAttributeKind: String, Sendable, Hashable, Codable {
    case primaryService, secondaryService, include, characteristicDeclaration, characteristicValue, descriptor
}

/// One attribute of the peer's database as learned from discovery responses.
public struct GATTAttribute: Hashable, Sendable {
    public var handle: UInt16
    public var kind: GATTAttributeKind
    /// Service UUID (service declarations), characteristic UUID (declarations and values),
    /// descriptor type (descriptors), included service UUID when given (includes).
    public var uuid: ATTUUID?
    /// Characteristic declarations and values.
    public var properties: GATTCharacteristicProperties?
    /// Characteristic declarations: the value handle; value attributes: the declaration handle.
    public var relatedHandle: UInt16?
    /// Service declarations learned with their range: the last handle of the service.
    public var groupEnd: UInt16?
    /// The frame of the response that taught us this attribute.
    public var learnedIn: FrameNumber

    public init(
        handle: UInt16, kind: GATTAttributeKind, uuid: ATTUUID?, properties: GATTCharacteristicProperties? = nil,
        relatedHandle: UInt16? = nil, groupEnd: UInt16? = nil, learnedIn: FrameNumber
    ) {
        self.handle = handle
        self.kind = kind
        self.uuid = uuid
        self.properties = properties
        self.relatedHandle = relatedHandle
        self.groupEnd = groupEnd
        self.learnedIn = learnedIn
    }

    /// The UUID's name, else its string, else "?".
    var uuidName: String { uuid.map { $0.name ?? $0.string } ?? "?" }
}

/// A service learned from discovery.
public struct GATTService: Hashable, Sendable {
    public var range: ATTHandleRange
    public var uuid: ATTUUID
    public var isPrimary: Bool
    public var learnedIn: FrameNumber

    public init(range: ATTHandleRange, uuid: ATTUUID, isPrimary: Bool, learnedIn: FrameNumber) {
        self.range = range
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.learnedIn = learnedIn
    }
}

/// A service as the one answer to "which service holds this handle" reads it: its handle range.
/// The decoder's ``GATTService`` and the analysis's per-connection service list both conform, so
/// both ask ``Swift/BidirectionalCollection/service(containing:)``, which states the rule once.
public protocol GATTServiceRange {
    var handleRange: ATTHandleRange { get }
}

extension GATTService: GATTServiceRange {
    public var handleRange: ATTHandleRange { range }
}

extension BidirectionalCollection where Element: GATTServiceRange {
    /// The service, of those learned (in the order they were learned, one per start handle),
    /// whose range holds `handle`. Ranges of one database do not overlap; when the learned ones
    /// do (a service learned again with another range after a Service Changed, or a Find By
    /// Type Value range running to 0xFFFF), the innermost range wins (the highest start), and of
    /// equal starts the one learned last. For handles inside a learned range this is the
    /// service tshark names (`btatt.service_uuid16`/`_uuid128`: the nearest service declaration
    /// at or below the handle); tshark also names a service for a handle past every learned
    /// range, where this says none (ServiceMembershipTests).
    ///
    /// Inlinable, so that each caller's list (the decoder's services, the analysis's) gets its own
    /// specialised loop reading the ranges in place: the generic one, called through witness
    /// tables and copying every service it looks at, cost danisla__iot-bed 2.3 M instructions on a
    /// 30,000-frame replay (callgrind), 17 % of the analysis with its copies.
    @inlinable
    public func service(containing handle: UInt16) -> Element? {
        serviceIndex(containing: handle).map { self[$0] }
    }

    /// Where ``service(containing:)``'s service is (read a field of it there instead of copying
    /// it out).
    @inlinable
    public func serviceIndex(containing handle: UInt16) -> Index? {
        var best: Index?
        var bestStart: UInt16 = 0
        var i = endIndex
        while i != startIndex {
            formIndex(before: &i)
            let range = self[i].handleRange
            if range.contains(handle), best == nil || range.start > bestStart {
                best = i
                bestStart = range.start
            }
        }
        return best
    }
}

/// A characteristic as discovery revealed it (``GATTTracker/characteristics(in:)``): its value
/// attribute, the handles it spans (its declaration, when known, to its last descriptor) and its
/// descriptors.
public struct GATTCharacteristic: Hashable, Sendable {
    /// The characteristic value attribute (UUID, properties, and the declaration as
    /// `relatedHandle` when Read By Type taught it).
    public var value: GATTAttribute
    public var range: ATTHandleRange
    public var descriptors: [GATTAttribute]

    public init(value: GATTAttribute, range: ATTHandleRange, descriptors: [GATTAttribute]) {
        self.value = value
        self.range = range
        self.descriptors = descriptors
    }
}

/// ATT_MTU of one bearer (Core v5.4, Vol 3, Part F, §3.4.2): 23 until an exchange completes,
/// then min(Client Rx MTU, Server Rx MTU).
public struct GATTMTUState: Hashable, Sendable {
    public static let defaultLE: Int = 23
    public var clientRxMTU: UInt16?
    public var serverRxMTU: UInt16?
    public var requestFrame: FrameNumber?
    public var responseFrame: FrameNumber?

    public init() {}

    /// True once a response to an Exchange MTU Request has been seen.
    public var isExchanged: Bool { clientRxMTU != nil && serverRxMTU != nil }

    /// The ATT_MTU in force. Values below 23 leave it unchanged (§3.4.2.2). A response whose
    /// request was not captured counts with its own value for the client's.
    public var effective: Int {
        guard let s = serverRxMTU else { return GATTMTUState.defaultLE }
        return max(GATTMTUState.defaultLE, Int(min(clientRxMTU ?? s, s)))
    }
}

/// The GATT discovery procedure a request belongs to (Core v5.4, Vol 3, Part G, §4.4–4.7).
public enum GATTDiscoveryKind: String, Sendable, Hashable {
    /// Read By Group Type for «Primary Service» (or «Secondary Service»): Discover All Primary Services.
    case allPrimaryServices
    /// Find By Type Value for «Primary Service»: Discover Primary Service by Service UUID.
    case primaryServiceByUUID
    /// Read By Type for «Characteristic»: Discover All Characteristics of a Service.
    case characteristics
    /// Find Information: Discover All Characteristic Descriptors.
    case descriptors
    /// Read By Type for «Include»: Find Included Services.
    case includes

    /// The procedure `request` belongs to; nil for requests that discover nothing.
    public init?(request: borrowing ATTPDU) {
        let type: UInt16?
        switch request.parameters {
        case .typedRange(_, let t): type = t.uuid16
        case .findByTypeValueRequest(_, let t, _): type = t
        default: type = nil
        }
        switch request.opcode {
        case .readByGroupTypeRequest where type == GATTNames.primaryService || type == GATTNames.secondaryService:
            self = .allPrimaryServices
        case .findByTypeValueRequest where type == GATTNames.primaryService:
            self = .primaryServiceByUUID
        case .readByTypeRequest where type == GATTNames.characteristic:
            self = .characteristics
        case .readByTypeRequest where type == GATTNames.include:
            self = .includes
        case .findInformationRequest:
            self = .descriptors
        default:
            return nil
        }
    }
}

/// A write of a Client Characteristic Configuration descriptor (Write Request or Write Command).
public struct GATTClientConfigurationWrite: Hashable, Sendable {
    /// The CCCD's handle.
    public var handle: UInt16
    /// The value handle of the characteristic the CCCD belongs to
    /// (``GATTTracker/characteristic(owning:)``), nil when discovery did not reveal it.
    public var characteristicValueHandle: UInt16?
    public var value: GATTClientConfiguration

    public init(handle: UInt16, characteristicValueHandle: UInt16?, value: GATTClientConfiguration) {
        self.handle = handle
        self.characteristicValueHandle = characteristicValueHandle
        self.value = value
    }
}

/// What the tracker adds to one ATT PDU: the attribute it concerns (by name), the handle a
/// response refers to (inferred from the request), the matching request, what discovery
/// taught, and fields for display.
///
/// What changed in the connection's GATT state is reported with it, for analysis as for
/// display: ``procedure`` (a discovery request, and the response answering it), ``discovered``
/// (what that response taught), ``clientConfigurationWrite`` (a CCCD written, with the
/// characteristic it belongs to), ``effectiveMTU`` (an MTU exchange answered) and
/// ``requestFrame`` (the request answered).
public struct GATTAnnotation: Hashable, Sendable {
    // Laid out to keep the annotation at 57 bytes: the display-only properties sit behind one
    // reference (nil for analysis, which never sets them) and the rest are ordered to leave no
    // padding, so it fits with its PDU in a ``DecodedPDU/Upper`` under 128 bytes, which is
    // copied inline.
    private var display: Display? = nil
    /// Attributes learned from this response (services, characteristics, descriptors).
    public var discovered: [GATTAttribute] = []
    /// The frame of the matching request (responses) or indication (confirmations).
    public var requestFrame: FrameNumber? = nil
    /// The handle a response/confirmation refers to, taken from the matching request or
    /// indication (not present in the PDU: show as inferred).
    public var inferredHandle: UInt16? = nil
    /// The opcode of that request.
    public var requestOpcode: ATTOpcode? = nil
    /// The discovery procedure of a discovery request, and of the response that answers it.
    public var procedure: GATTDiscoveryKind? = nil
    /// CCCD value written (write request/command) or read (read response).
    public var clientConfiguration: GATTClientConfiguration? = nil
    /// A Write Request or Write Command to a CCCD, with the characteristic it configures.
    public var clientConfigurationWrite: GATTClientConfigurationWrite? = nil
    /// Set on an Exchange MTU Response: the ATT_MTU in force from then on (when no request
    /// matches it, min(the last Client Rx MTU of the bearer, the Server Rx MTU), at least 23).
    public var effectiveMTU: Int? = nil

    /// The properties only ``DecodeDetail/display`` sets. Kept nil while they are all empty, so
    /// two annotations with the same properties compare equal.
    private indirect enum Display: Hashable, Sendable {
        case fields(handleName: String?, requestHandles: [UInt16], fields: [Field])
    }

    private var displayed: (handleName: String?, requestHandles: [UInt16], fields: [Field]) {
        get {
            guard case .fields(let name, let handles, let fields) = display else { return (nil, [], []) }
            return (name, handles, fields)
        }
        set {
            if newValue.handleName == nil, newValue.requestHandles.isEmpty, newValue.fields.isEmpty {
                display = nil
            } else {
                display = .fields(
                    handleName: newValue.handleName, requestHandles: newValue.requestHandles, fields: newValue.fields)
            }
        }
    }

    /// The attribute's name ("Heart Rate Measurement", "Client Characteristic Configuration of
    /// Heart Rate Measurement", "Primary Service Heart Rate"); nil when the handle is unknown.
    public var handleName: String? {
        get { displayed.handleName }
        set { if newValue != nil || display != nil { displayed.handleName = newValue } }
    }
    /// Read Multiple (Variable) Response: the handles requested.
    public var requestHandles: [UInt16] {
        get { displayed.requestHandles }
        set { if !newValue.isEmpty || display != nil { displayed.requestHandles = newValue } }
    }
    public var fields: [Field] {
        get { displayed.fields }
        set { if !newValue.isEmpty || display != nil { displayed.fields = newValue } }
    }

    /// An empty annotation. Its properties' initial values are written straight into it: an
    /// initialiser that assigns them builds the empty value in a temporary and copies it out (a
    /// retain and a release of each of its arrays), for every ATT PDU the tracker annotates.
    public init() {}

    public init(
        handleName: String? = nil, inferredHandle: UInt16? = nil, requestHandles: [UInt16] = [],
        requestFrame: FrameNumber? = nil, requestOpcode: ATTOpcode? = nil, discovered: [GATTAttribute] = [],
        clientConfiguration: GATTClientConfiguration? = nil, effectiveMTU: Int? = nil, fields: [Field] = []
    ) {
        self.handleName = handleName
        self.inferredHandle = inferredHandle
        self.requestHandles = requestHandles
        self.requestFrame = requestFrame
        self.requestOpcode = requestOpcode
        self.discovered = discovered
        self.clientConfiguration = clientConfiguration
        self.effectiveMTU = effectiveMTU
        self.fields = fields
    }

    var isEmpty: Bool {
        display == nil && inferredHandle == nil && requestFrame == nil && discovered.isEmpty && procedure == nil
            && clientConfiguration == nil && clientConfigurationWrite == nil && effectiveMTU == nil
    }
}
