import ScopeCore

/// A BLE session written as the HCI packets a host and its controller exchange, for tests that
/// need an analysis of a particular situation: every packet is encoded byte for byte as the Core
/// Specification lays it out (section cited at each builder), numbered as a capture numbers its
/// frames (from 1) and stamped with the script's clock. The records go through the real decoder
/// and analysis (`Dissector`, `AnalysisBuilder`) like those of a capture file, and can be written
/// to a btsnoop file and opened in Wireshark.
///
/// ```swift
/// var s = SessionScript()
/// s.at(100)
/// let scan = s.scanEnable(true)          // frames 1 (command) and 2 (Command Complete)
/// s.at(200)
/// let found = s.advertisingReport(peer)  // frame 3
/// ```
///
/// Builders return the frame of the packet they wrote (or of the first one, with the answer's in
/// `.answer`). Times are milliseconds from the script's start; the clock only moves forward
/// through `at(_:)` (packets written at one time share it).
package struct SessionScript: Sendable {
    package private(set) var records: [CaptureRecord] = []
    /// The clock, µs since `origin`.
    package private(set) var nowMicros: Int64 = 0
    /// Timestamp of time 0 (btsnoop stores microseconds since year 0; any value works).
    package let origin: Int64
    package let adapter: AdapterIndex

    package init(origin: Int64 = 1_741_705_649_000_000, adapter: AdapterIndex = 0) {
        self.origin = origin
        self.adapter = adapter
    }

    /// A command and the event that answered it.
    package struct Exchange: Sendable, Hashable {
        package var command: FrameNumber
        package var answer: FrameNumber
    }

    /// The next frame number.
    package var nextFrame: FrameNumber { records.count + 1 }
    /// The last frame written.
    package var lastFrame: FrameNumber { records.count }

    /// Moves the clock to `ms` milliseconds after the start.
    package mutating func at(_ ms: Double) {
        nowMicros = Int64((ms * 1000).rounded())
    }

    // MARK: Packets (Vol 4 Part E §5.4)

    /// One record as a capture holds it: the HCI packet without the H4 type byte.
    @discardableResult
    package mutating func record(_ kind: RecordKind, _ direction: Direction, _ payload: [UInt8]) -> FrameNumber {
        records.append(
            CaptureRecord(
                frame: nextFrame, timestamp: Timestamp(microseconds: origin + nowMicros), adapter: adapter, direction: direction,
                kind: kind, payload: payload))
        return lastFrame
    }

    /// HCI Command packet (§5.4.1): Opcode (OCF in bits 0–9, OGF in bits 10–15), Parameter_Total_Length, parameters.
    @discardableResult
    package mutating func command(_ opcode: UInt16, _ parameters: [UInt8] = []) -> FrameNumber {
        record(.command, .sent, le16(opcode) + [UInt8(parameters.count)] + parameters)
    }

    /// HCI Event packet (§5.4.4): Event_Code, Parameter_Total_Length, parameters.
    @discardableResult
    package mutating func event(_ code: UInt8, _ parameters: [UInt8]) -> FrameNumber {
        event(code, parameters, direction: .received)
    }

    private mutating func event(_ code: UInt8, _ parameters: [UInt8], direction: Direction) -> FrameNumber {
        record(.event, direction, [code, UInt8(parameters.count)] + parameters)
    }

    /// HCI_Command_Complete (§7.7.14): Num_HCI_Command_Packets, Command_Opcode, return parameters.
    @discardableResult
    package mutating func commandComplete(_ opcode: UInt16, _ returnParameters: [UInt8] = [0x00]) -> FrameNumber {
        event(0x0E, [0x01] + le16(opcode) + returnParameters)
    }

    /// HCI_Command_Status (§7.7.15): Status, Num_HCI_Command_Packets, Command_Opcode.
    @discardableResult
    package mutating func commandStatus(_ opcode: UInt16, status: UInt8 = 0) -> FrameNumber {
        event(0x0F, [status, 0x01] + le16(opcode))
    }

    /// HCI_LE_Meta (§7.7.65): Subevent_Code, then the subevent's parameters.
    @discardableResult
    package mutating func leMeta(_ subevent: UInt8, _ parameters: [UInt8]) -> FrameNumber {
        event(0x3E, [subevent] + parameters)
    }

    /// A command answered by Command Complete with `returnParameters` (Status first), written
    /// `answerAfterMs` later.
    @discardableResult
    package mutating func completed(_ opcode: UInt16, _ parameters: [UInt8] = [], returning returnParameters: [UInt8] = [0x00], answerAfterMs: Double = 1)
        -> Exchange
    {
        let c = command(opcode, parameters)
        advance(answerAfterMs)
        return Exchange(command: c, answer: commandComplete(opcode, returnParameters))
    }

    /// A command answered by Command Status.
    @discardableResult
    package mutating func statused(_ opcode: UInt16, _ parameters: [UInt8], status: UInt8 = 0, answerAfterMs: Double = 1) -> Exchange {
        let c = command(opcode, parameters)
        advance(answerAfterMs)
        return Exchange(command: c, answer: commandStatus(opcode, status: status))
    }

    /// HCI ACL Data packet (§5.4.2): Handle (12 bits), Packet_Boundary_Flag, Broadcast_Flag,
    /// Data_Total_Length, data. First fragments: PB 0b00 from the host, 0b10 from the controller
    /// (LE, §5.4.2).
    @discardableResult
    package mutating func acl(_ handle: UInt16, _ direction: Direction, _ data: [UInt8]) -> FrameNumber {
        let pb: UInt16 = direction == .sent ? 0b00 : 0b10
        return record(.acl, direction, le16(handle & 0x0FFF | pb << 12) + le16(UInt16(data.count)) + data)
    }

    /// An L2CAP B-frame (Vol 3 Part A §3.1: Length, Channel ID, information payload) in one ACL packet.
    @discardableResult
    package mutating func l2cap(_ handle: UInt16, _ direction: Direction, cid: UInt16, _ payload: [UInt8]) -> FrameNumber {
        acl(handle, direction, le16(UInt16(payload.count)) + le16(cid) + payload)
    }

    /// An ATT PDU (Vol 3 Part F §3.3: Attribute Opcode, parameters) on the ATT channel (CID 0x0004).
    @discardableResult
    package mutating func att(_ handle: UInt16, _ direction: Direction, _ pdu: [UInt8]) -> FrameNumber {
        l2cap(handle, direction, cid: 0x0004, pdu)
    }

    /// An SMP command (Vol 3 Part H §3.3: Code, data) on the SMP channel (CID 0x0006).
    @discardableResult
    package mutating func smp(_ handle: UInt16, _ direction: Direction, _ command: [UInt8]) -> FrameNumber {
        l2cap(handle, direction, cid: 0x0006, command)
    }

    /// Cuts the last record to its first `n` bytes, keeping its original length, as a capture
    /// with a snap length (or an Android filtered log) does.
    package mutating func truncateLast(keeping n: Int) {
        guard let last = records.indices.last else { return }
        records[last].payload = Array(records[last].payload.prefix(n))
    }

    private mutating func advance(_ ms: Double) { nowMicros += Int64((ms * 1000).rounded()) }
}

// MARK: Scanning

extension SessionScript {
    /// HCI_LE_Set_Scan_Parameters (§7.8.10, OGF 0x08 OCF 0x000B): LE_Scan_Type, LE_Scan_Interval,
    /// LE_Scan_Window (units of 0.625 ms), Own_Address_Type, Scanning_Filter_Policy; Command Complete.
    @discardableResult
    package mutating func scanParameters(active: Bool = true, intervalMs: Double = 100, windowMs: Double = 50) -> Exchange {
        completed(0x200B, [active ? 0x01 : 0x00] + le16(slots(intervalMs)) + le16(slots(windowMs)) + [0x00, 0x00])
    }

    /// HCI_LE_Set_Scan_Enable (§7.8.11, OCF 0x000C): LE_Scan_Enable, Filter_Duplicates; Command Complete.
    @discardableResult
    package mutating func scanEnable(_ enable: Bool, filterDuplicates: Bool = true, status: UInt8 = 0) -> Exchange {
        completed(0x200C, [enable ? 0x01 : 0x00, filterDuplicates ? 0x01 : 0x00], returning: [status])
    }

    /// HCI_LE_Advertising_Report (§7.7.65.2, subevent 0x02) with one report: Num_Reports, Event_Type
    /// (0x00 ADV_IND), Address_Type, Address (little-endian), Data_Length, Data, RSSI.
    @discardableResult
    package mutating func advertisingReport(
        _ peer: BDAddr, addressType: UInt8 = 0x00, eventType: UInt8 = 0x00, data: [UInt8] = [0x02, 0x01, 0x06], rssi: Int8 = -60
    ) -> FrameNumber {
        var parameters: [UInt8] = [0x01, eventType, addressType] + address(peer)
        parameters += [UInt8(truncatingIfNeeded: data.count)] + data + [UInt8(bitPattern: rssi)]
        return leMeta(0x02, parameters)
    }
}

// MARK: Extended scanning

extension SessionScript {
    /// HCI_LE_Set_Extended_Scan_Parameters (§7.8.64, OCF 0x0041): Own_Address_Type,
    /// Scanning_Filter_Policy, Scanning_PHYs (bit 0: LE 1M), then for the PHY Scan_Type,
    /// Scan_Interval, Scan_Window (units of 0.625 ms); Command Complete.
    @discardableResult
    package mutating func extendedScanParameters(active: Bool = true, intervalMs: Double = 100, windowMs: Double = 50) -> Exchange {
        completed(0x2041, [0x00, 0x00, 0x01, active ? 0x01 : 0x00] + le16(slots(intervalMs)) + le16(slots(windowMs)))
    }

    /// HCI_LE_Set_Extended_Scan_Enable (§7.8.65, OCF 0x0042): Enable, Filter_Duplicates, Duration
    /// (10 ms units, 0 until disabled), Period (1.28 s units, 0 continuous); Command Complete.
    @discardableResult
    package mutating func extendedScanEnable(_ enable: Bool, filterDuplicates: Bool = true, status: UInt8 = 0) -> Exchange {
        completed(0x2042, [enable ? 0x01 : 0x00, filterDuplicates ? 0x01 : 0x00] + le16(0) + le16(0), returning: [status])
    }

    /// HCI_LE_Extended_Advertising_Report (§7.7.65.13, subevent 0x0D) with one complete report:
    /// Num_Reports, Event_Type (2 octets: bit 0 connectable, bit 1 scannable, bit 4 legacy PDU;
    /// data status 0b00 complete), Address_Type, Address, Primary_PHY (LE 1M), Secondary_PHY (none
    /// for legacy PDUs, else LE 1M), Advertising_SID (0xFF: none), TX_Power (0x7F: not
    /// available), RSSI, Periodic_Advertising_Interval (0), Direct_Address_Type, Direct_Address,
    /// Data_Length, Data (up to 229 octets in one event).
    @discardableResult
    package mutating func extendedAdvertisingReport(
        _ peer: BDAddr, addressType: UInt8 = 0x00, connectable: Bool = true, legacy: Bool = true, data: [UInt8] = [0x02, 0x01, 0x06],
        rssi: Int8 = -60
    ) -> FrameNumber {
        // A legacy connectable PDU is ADV_IND (connectable and scannable, 0b0010011); a
        // non-connectable one ADV_NONCONN_IND (0b0010000).
        let eventType: UInt16 = (connectable ? (legacy ? 0x0003 : 0x0001) : 0x0000) | (legacy ? 0x0010 : 0x0000)
        var parameters: [UInt8] = [0x01] + le16(eventType) + [addressType] + address(peer)
        parameters += [0x01, legacy ? 0x00 : 0x01, 0xFF, 0x7F, UInt8(bitPattern: rssi)] + le16(0) + [0x00] + [UInt8](repeating: 0, count: 6)
        parameters += [UInt8(truncatingIfNeeded: data.count)] + data
        return leMeta(0x0D, parameters)
    }
}

// MARK: Connections

extension SessionScript {
    /// HCI_LE_Create_Connection (§7.8.12, OCF 0x000D): LE_Scan_Interval, LE_Scan_Window,
    /// Initiator_Filter_Policy, Peer_Address_Type, Peer_Address, Own_Address_Type,
    /// Connection_Interval_Min/Max (1.25 ms), Max_Latency, Supervision_Timeout (10 ms),
    /// Min/Max_CE_Length; answered by Command Status.
    @discardableResult
    package mutating func createConnection(_ peer: BDAddr, addressType: UInt8 = 0x00, status: UInt8 = 0) -> Exchange {
        var parameters = le16(0x0060) + le16(0x0030)
        parameters += [0x00, addressType] + address(peer) + [0x00]
        parameters += le16(0x0018) + le16(0x0028) + le16(0)
        parameters += le16(0x01F4) + le16(0) + le16(0)
        return statused(0x200D, parameters, status: status)
    }

    /// HCI_LE_Create_Connection_Cancel (§7.8.13, OCF 0x000E, no parameters); Command Complete.
    @discardableResult
    package mutating func createConnectionCancel() -> Exchange { completed(0x200E) }

    /// HCI_LE_Connection_Complete (§7.7.65.1, subevent 0x01): Status, Connection_Handle, Role
    /// (0x00 Central, 0x01 Peripheral), Peer_Address_Type, Peer_Address, Connection_Interval,
    /// Peripheral_Latency, Supervision_Timeout, Central_Clock_Accuracy.
    @discardableResult
    package mutating func connectionComplete(
        _ peer: BDAddr, addressType: UInt8 = 0x00, handle: UInt16, peripheral: Bool = false, status: UInt8 = 0
    ) -> FrameNumber {
        var parameters = [status] + le16(handle)
        parameters += [peripheral ? 0x01 : 0x00, addressType] + address(peer)
        parameters += le16(0x0028) + le16(0) + le16(0x01F4) + [0x00]
        return leMeta(0x01, parameters)
    }

    /// HCI_Disconnect (§7.1.6, OGF 0x01 OCF 0x0006): Connection_Handle, Reason; Command Status.
    @discardableResult
    package mutating func disconnect(_ handle: UInt16, reason: UInt8 = 0x13) -> Exchange {
        statused(0x0406, le16(handle) + [reason])
    }

    /// HCI_Disconnection_Complete (§7.7.5, event 0x05): Status, Connection_Handle, Reason.
    @discardableResult
    package mutating func disconnectionComplete(_ handle: UInt16, reason: UInt8) -> FrameNumber {
        event(0x05, [0x00] + le16(handle) + [reason])
    }

    /// HCI_Encryption_Change [v1] (§7.7.8, event 0x08): Status, Connection_Handle, Encryption_Enabled.
    @discardableResult
    package mutating func encryptionChange(_ handle: UInt16, status: UInt8 = 0, enabled: Bool = true) -> FrameNumber {
        event(0x08, [status] + le16(handle) + [enabled ? 0x01 : 0x00])
    }
}

// MARK: Advertising

extension SessionScript {
    /// HCI_LE_Set_Advertising_Parameters (§7.8.5, OCF 0x0006): Advertising_Interval_Min/Max (0.625 ms),
    /// Advertising_Type (0x00 ADV_IND, 0x03 ADV_NONCONN_IND), Own_Address_Type,
    /// Peer_Address_Type, Peer_Address, Advertising_Channel_Map, Advertising_Filter_Policy.
    @discardableResult
    package mutating func advertisingParameters(connectable: Bool = true, intervalMs: Double = 100) -> Exchange {
        var parameters = le16(slots(intervalMs)) + le16(slots(intervalMs))
        parameters += [connectable ? 0x00 : 0x03, 0x00, 0x00] + [UInt8](repeating: 0, count: 6) + [0x07, 0x00]
        return completed(0x2006, parameters)
    }

    /// HCI_LE_Set_Advertising_Data (§7.8.7, OCF 0x0008) or HCI_LE_Set_Scan_Response_Data (§7.8.8,
    /// OCF 0x0009): the significant length, then 31 octets (`data` zero-padded; a length above 31
    /// is what a host may send and the controller refuses).
    @discardableResult
    package mutating func advertisingData(_ data: [UInt8], length: Int? = nil, scanResponse: Bool = false, status: UInt8 = 0) -> Exchange {
        let field = Array((data + [UInt8](repeating: 0, count: 31)).prefix(31))
        return completed(scanResponse ? 0x2009 : 0x2008, [UInt8(truncatingIfNeeded: length ?? data.count)] + field, returning: [status])
    }

    /// HCI_LE_Set_Extended_Advertising_Data (§7.8.54, OCF 0x0037): Advertising_Handle, Operation
    /// (0x00 intermediate fragment, 0x01 first fragment, 0x02 last fragment, 0x03 complete data,
    /// 0x04 unchanged data), Fragment_Preference, Advertising_Data_Length, Advertising_Data.
    @discardableResult
    package mutating func extendedAdvertisingData(_ data: [UInt8], handle: UInt8 = 0, operation: UInt8 = 0x03, status: UInt8 = 0) -> Exchange {
        completed(0x2037, [handle, operation, 0x01, UInt8(truncatingIfNeeded: data.count)] + data, returning: [status])
    }

    /// HCI_LE_Set_Advertising_Enable (§7.8.9, OCF 0x000A): Advertising_Enable; Command Complete.
    @discardableResult
    package mutating func advertisingEnable(_ enable: Bool) -> Exchange { completed(0x200A, [enable ? 0x01 : 0x00]) }

    /// HCI_LE_Read_Supported_States (§7.8.27, OCF 0x001C): returns Status, LE_States (8 octets).
    @discardableResult
    package mutating func readSupportedStates(_ states: UInt64) -> Exchange { completed(0x201C, returning: [0x00] + le64(states)) }

    /// HCI_LE_Read_Maximum_Advertising_Data_Length (§7.8.57, OCF 0x003A): returns Status,
    /// Maximum_Advertising_Data_Length.
    @discardableResult
    package mutating func readMaximumAdvertisingDataLength(_ length: UInt16) -> Exchange {
        completed(0x203A, returning: [0x00] + le16(length))
    }
}

// MARK: ATT (Vol 3 Part F §3.4) and SMP (Vol 3 Part H §3.5)

extension SessionScript {
    /// ATT_EXCHANGE_MTU_REQ / _RSP (§3.4.2.1–2, 0x02/0x03): Client / Server Rx MTU.
    package mutating func exchangeMTU(_ handle: UInt16, client: UInt16, server: UInt16) -> Exchange {
        let c = att(handle, .sent, [0x02] + le16(client))
        advance(1)
        return Exchange(command: c, answer: att(handle, .received, [0x03] + le16(server)))
    }

    /// ATT_READ_BY_GROUP_TYPE_REQ (§3.4.4.9, 0x10): Starting_Handle, Ending_Handle,
    /// Attribute_Group_Type 0x2800 (primary services).
    @discardableResult
    package mutating func discoverPrimaryServices(_ handle: UInt16, from start: UInt16, to end: UInt16 = 0xFFFF) -> FrameNumber {
        att(handle, .sent, [0x10] + le16(start) + le16(end) + le16(0x2800))
    }

    /// ATT_READ_BY_GROUP_TYPE_RSP (§3.4.4.10, 0x11): Length (6), then Attribute Handle, End Group
    /// Handle, 16-bit service UUID per service.
    @discardableResult
    package mutating func primaryServices(_ handle: UInt16, _ services: [(start: UInt16, end: UInt16, uuid: UInt16)]) -> FrameNumber {
        var pdu: [UInt8] = [0x11, 0x06]
        for service in services { pdu += le16(service.start) + le16(service.end) + le16(service.uuid) }
        return att(handle, .received, pdu)
    }

    /// ATT_FIND_BY_TYPE_VALUE_REQ (§3.4.3.3, 0x06): discovery of a primary service by its UUID
    /// (Starting_Handle, Ending_Handle, Attribute_Type 0x2800, Attribute_Value the UUID).
    @discardableResult
    package mutating func discoverPrimaryService(_ handle: UInt16, uuid: UInt16, from start: UInt16 = 1, to end: UInt16 = 0xFFFF) -> FrameNumber {
        att(handle, .sent, [0x06] + le16(start) + le16(end) + le16(0x2800) + le16(uuid))
    }

    /// ATT_READ_BY_TYPE_REQ (§3.4.4.1, 0x08) for Attribute_Type 0x2803: characteristic discovery.
    @discardableResult
    package mutating func discoverCharacteristics(_ handle: UInt16, from start: UInt16, to end: UInt16) -> FrameNumber {
        att(handle, .sent, [0x08] + le16(start) + le16(end) + le16(0x2803))
    }

    /// ATT_READ_BY_TYPE_RSP (§3.4.4.2, 0x09): Length (7), then per characteristic declaration its
    /// handle and value (Properties, Value Handle, 16-bit UUID; Vol 3 Part G §3.3.1).
    @discardableResult
    package mutating func characteristics(_ handle: UInt16, _ list: [(valueHandle: UInt16, properties: UInt8, uuid: UInt16)]) -> FrameNumber {
        var pdu: [UInt8] = [0x09, 0x07]
        for c in list {
            pdu += le16(c.valueHandle &- 1)
            pdu.append(c.properties)
            pdu += le16(c.valueHandle)
            pdu += le16(c.uuid)
        }
        return att(handle, .received, pdu)
    }

    /// ATT_FIND_INFORMATION_REQ (§3.4.3.1, 0x04) and its _RSP (§3.4.3.2, 0x05, Format 0x01: handle
    /// and 16-bit UUID pairs): descriptor discovery.
    @discardableResult
    package mutating func findInformation(_ handle: UInt16, from start: UInt16, to end: UInt16, _ found: [(handle: UInt16, uuid: UInt16)]) -> Exchange {
        let c = att(handle, .sent, [0x04] + le16(start) + le16(end))
        advance(1)
        var pdu: [UInt8] = [0x05, 0x01]
        for d in found { pdu += le16(d.handle) + le16(d.uuid) }
        return Exchange(command: c, answer: att(handle, .received, pdu))
    }

    /// ATT_READ_REQ (§3.4.4.3, 0x0A): Attribute_Handle.
    @discardableResult
    package mutating func read(_ handle: UInt16, attribute: UInt16) -> FrameNumber { att(handle, .sent, [0x0A] + le16(attribute)) }

    /// ATT_READ_RSP (§3.4.4.4, 0x0B): Attribute_Value.
    @discardableResult
    package mutating func readResponse(_ handle: UInt16, _ value: [UInt8]) -> FrameNumber { att(handle, .received, [0x0B] + value) }

    /// ATT_WRITE_REQ (§3.4.5.1, 0x12): Attribute_Handle, Attribute_Value.
    @discardableResult
    package mutating func write(_ handle: UInt16, attribute: UInt16, _ value: [UInt8], direction: Direction = .sent) -> FrameNumber {
        att(handle, direction, [0x12] + le16(attribute) + value)
    }

    /// ATT_WRITE_RSP (§3.4.5.2, 0x13).
    @discardableResult
    package mutating func writeResponse(_ handle: UInt16, direction: Direction = .received) -> FrameNumber { att(handle, direction, [0x13]) }

    /// ATT_WRITE_CMD (§3.4.5.3, 0x52): Attribute_Handle, Attribute_Value.
    @discardableResult
    package mutating func writeCommand(_ handle: UInt16, attribute: UInt16, _ value: [UInt8]) -> FrameNumber {
        att(handle, .sent, [0x52] + le16(attribute) + value)
    }

    /// ATT_ERROR_RSP (§3.4.1.1, 0x01): Request_Opcode_In_Error, Attribute_Handle_In_Error, Error_Code.
    @discardableResult
    package mutating func attError(_ handle: UInt16, request: UInt8, attribute: UInt16, error: UInt8) -> FrameNumber {
        att(handle, .received, [0x01, request] + le16(attribute) + [error])
    }

    /// ATT_HANDLE_VALUE_NTF (§3.4.7.1, 0x1B): Attribute_Handle, Attribute_Value, from the server.
    @discardableResult
    package mutating func notification(_ handle: UInt16, attribute: UInt16, _ value: [UInt8]) -> FrameNumber {
        att(handle, .received, [0x1B] + le16(attribute) + value)
    }

    /// SMP Pairing Request / Response (§3.5.1–2, codes 0x01/0x02): IO_Capability, OOB_Data_Flag,
    /// AuthReq, Maximum_Encryption_Key_Size, Initiator_Key_Distribution, Responder_Key_Distribution.
    @discardableResult
    package mutating func pairingFeatures(_ handle: UInt16, response: Bool, io: UInt8, authReq: UInt8) -> FrameNumber {
        smp(handle, response ? .received : .sent, [response ? 0x02 : 0x01, io, 0x00, authReq, 16, 0x01, 0x01])
    }

    /// SMP Pairing Failed (§3.5.5, code 0x05): Reason.
    @discardableResult
    package mutating func pairingFailed(_ handle: UInt16, reason: UInt8, direction: Direction = .received) -> FrameNumber {
        smp(handle, direction, [0x05, reason])
    }
}

// MARK: Notes

extension SessionScript {
    /// A note the capturing tool wrote between the packets (btmon's System Note, monitor opcode 12
    /// in BlueZ's btsnoop.h: the text, NUL-terminated); the analysis keeps it as a marker.
    /// A btsnoop file of datalink 1002 cannot hold one: write such scripts only as monitor captures.
    @discardableResult
    package mutating func note(_ text: String) -> FrameNumber { record(.systemNote, .received, Array(text.utf8) + [0]) }
}

// MARK: Encoding

extension SessionScript {
    /// A 0.625 ms slot count, as scan and advertising intervals are given.
    func slots(_ ms: Double) -> UInt16 { UInt16(clamping: Int((ms / 0.625).rounded())) }

    /// A device address as HCI carries it: little-endian, least significant octet first (Vol 4 Part E §5.2).
    func address(_ a: BDAddr) -> [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: a.value >> (8 * UInt64($0))) } }
}

fileprivate func le16(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
fileprivate func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
