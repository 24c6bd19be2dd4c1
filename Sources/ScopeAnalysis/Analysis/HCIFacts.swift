import ScopeCore

/// Typed views of the few HCI command parameters, event parameters and return parameters the
/// analysis needs (Core v5.4, Vol 4, Part E, §7.1–§7.8). Every parser is bounds-checked and
/// returns nil when the bytes are too short; none of them traps.
enum HCIFacts {
    /// Reads `body` with a ByteReader; nil when it runs out of bytes.
    static func read<T>(_ bytes: [UInt8], _ body: (inout ByteReader) throws(DecodeError) -> T) -> T? {
        var r = ByteReader(bytes, layer: .hci)
        do { return try body(&r) } catch { return nil }
    }

    static func read<T>(_ bytes: ArraySlice<UInt8>, _ body: (inout ByteReader) throws(DecodeError) -> T) -> T? {
        var r = ByteReader(bytes, layer: .hci)
        do { return try body(&r) } catch { return nil }
    }

    /// 0.625 ms units → µs.
    static func slots(_ v: UInt32) -> Int64 { Int64(v) * 625 }
    /// 1.25 ms units → µs.
    static func connectionInterval(_ v: UInt16) -> Int64 { Int64(v) * 1250 }
    /// 10 ms units → µs.
    static func timeout(_ v: UInt16) -> Int64 { Int64(v) * 10_000 }

    // MARK: Scanning

    struct ScanParameters: Sendable, Hashable {
        var phys: [ScanPHY]
        var active: Bool { phys.contains { $0.active } }
    }

    /// LE Set Scan Parameters (§7.8.10).
    static func scanParameters(_ p: [UInt8]) -> ScanParameters? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            let type = try r.readU8()
            let interval = try r.readLE16()
            let window = try r.readLE16()
            return ScanParameters(phys: [
                ScanPHY(phy: "1M", active: type == 1, intervalMicros: slots(UInt32(interval)), windowMicros: slots(UInt32(window)))
            ])
        }
    }

    /// LE Set Extended Scan Parameters (§7.8.64): one block per bit of Scanning_PHYs (1M, Coded).
    static func extendedScanParameters(_ p: [UInt8]) -> ScanParameters? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            try r.skip(2)
            let physMask = try r.readU8()
            var phys: [ScanPHY] = []
            for (bit, name) in [(0, "1M"), (2, "Coded")] where physMask & (1 << bit) != 0 {
                let type = try r.readU8()
                let interval = try r.readLE16()
                let window = try r.readLE16()
                phys.append(
                    ScanPHY(phy: name, active: type == 1, intervalMicros: slots(UInt32(interval)), windowMicros: slots(UInt32(window))))
            }
            return ScanParameters(phys: phys)
        }
    }

    /// LE Set (Extended) Scan Enable (§7.8.11, §7.8.65): Enable, Filter_Duplicates.
    static func scanEnable(_ p: [UInt8]) -> (enable: Bool, filterDuplicates: UInt8)? {
        guard p.count >= 2 else { return nil }
        return (p[0] != 0, p[1])
    }

    // MARK: Connections

    struct CreateConnection: Sendable, Hashable {
        var filterPolicy: UInt8
        var peerAddressType: UInt8
        var peer: BDAddr
    }

    /// LE Create Connection (§7.8.12).
    static func createConnection(_ p: [UInt8]) -> CreateConnection? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            try r.skip(4)
            let policy = try r.readU8()
            let type = try r.readU8()
            let addr = try r.readAddress()
            return CreateConnection(filterPolicy: policy, peerAddressType: type, peer: addr)
        }
    }

    /// LE Extended Create Connection v1 (§7.8.66) and v2 (two leading bytes: Advertising_Handle, Subevent).
    static func extendedCreateConnection(_ p: [UInt8], v2: Bool) -> CreateConnection? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            if v2 { try r.skip(2) }
            let policy = try r.readU8()
            try r.skip(1)
            let type = try r.readU8()
            let addr = try r.readAddress()
            return CreateConnection(filterPolicy: policy, peerAddressType: type, peer: addr)
        }
    }

    /// Disconnect (§7.1.6): Connection_Handle, Reason.
    static func disconnect(_ p: [UInt8]) -> (handle: UInt16, reason: UInt8)? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            let h = try r.readLE16() & 0x0FFF
            return (h, try r.readU8())
        }
    }

    struct ConnectionComplete: Sendable, Hashable {
        var status: UInt8
        var handle: UInt16
        var role: UInt8
        var peerAddressType: UInt8
        var peer: BDAddr
        var interval: UInt16
        var latency: UInt16
        var timeout: UInt16
        var isLE: Bool
    }

    /// LE Connection Complete (§7.7.65.1) and LE Enhanced Connection Complete v1/v2 (§7.7.65.10),
    /// `bytes` starting after the subevent code; BR/EDR Connection Complete (§7.7.3).
    static func leConnectionComplete(_ bytes: ArraySlice<UInt8>, enhanced: Bool) -> ConnectionComplete? {
        read(bytes) { (r: inout ByteReader) throws(DecodeError) in
            let status = try r.readU8()
            let handle = try r.readLE16() & 0x0FFF
            let role = try r.readU8()
            let type = try r.readU8()
            let addr = try r.readAddress()
            if enhanced { try r.skip(12) }
            // A failed connection may carry zeros; the fields are still present.
            let interval = try r.readLE16()
            let latency = try r.readLE16()
            let timeout = try r.readLE16()
            return ConnectionComplete(
                status: status, handle: handle, role: role, peerAddressType: type, peer: addr, interval: interval, latency: latency,
                timeout: timeout, isLE: true)
        }
    }

    static func classicConnectionComplete(_ p: ArraySlice<UInt8>) -> (status: UInt8, handle: UInt16, peer: BDAddr, linkType: UInt8)? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            let status = try r.readU8()
            let handle = try r.readLE16() & 0x0FFF
            let addr = try r.readAddress()
            return (status, handle, addr, try r.readU8())
        }
    }

    /// LE Connection Update Complete (§7.7.65.3).
    static func connectionUpdate(_ bytes: ArraySlice<UInt8>) -> (status: UInt8, handle: UInt16, interval: UInt16, latency: UInt16, timeout: UInt16)? {
        read(bytes) { (r: inout ByteReader) throws(DecodeError) in
            let status = try r.readU8()
            let handle = try r.readLE16() & 0x0FFF
            let i = try r.readLE16()
            let l = try r.readLE16()
            return (status, handle, i, l, try r.readLE16())
        }
    }

    /// LE PHY Update Complete (§7.7.65.12).
    static func phyUpdate(_ bytes: ArraySlice<UInt8>) -> (status: UInt8, handle: UInt16, tx: UInt8, rx: UInt8)? {
        read(bytes) { (r: inout ByteReader) throws(DecodeError) in
            let status = try r.readU8()
            let handle = try r.readLE16() & 0x0FFF
            let tx = try r.readU8()
            return (status, handle, tx, try r.readU8())
        }
    }

    /// LE Data Length Change (§7.7.65.7).
    static func dataLengthChange(_ bytes: ArraySlice<UInt8>) -> (handle: UInt16, tx: UInt16, rx: UInt16)? {
        read(bytes) { (r: inout ByteReader) throws(DecodeError) in
            let handle = try r.readLE16() & 0x0FFF
            let tx = try r.readLE16()
            try r.skip(2)
            return (handle, tx, try r.readLE16())
        }
    }

    /// Disconnection Complete (§7.7.5).
    static func disconnectionComplete(_ p: ArraySlice<UInt8>) -> (status: UInt8, handle: UInt16, reason: UInt8)? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            let status = try r.readU8()
            let handle = try r.readLE16() & 0x0FFF
            return (status, handle, try r.readU8())
        }
    }

    /// Encryption Change v1/v2 (§7.7.8, §7.7.8.2).
    static func encryptionChange(_ p: ArraySlice<UInt8>) -> (status: UInt8, handle: UInt16, enabled: UInt8)? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            let status = try r.readU8()
            let handle = try r.readLE16() & 0x0FFF
            return (status, handle, try r.readU8())
        }
    }

    /// Encryption Key Refresh Complete (§7.7.39).
    static func keyRefresh(_ p: ArraySlice<UInt8>) -> (status: UInt8, handle: UInt16)? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            let status = try r.readU8()
            return (status, try r.readLE16() & 0x0FFF)
        }
    }

    // MARK: Advertising

    struct AdvertisingParameters: Sendable, Hashable {
        var intervalMicros: Int64
        var connectable: Bool
        var directed: Bool
        var legacyPDUs: Bool
    }

    /// LE Set Advertising Parameters (§7.8.5): Advertising_Type 0 ADV_IND, 1 ADV_DIRECT_IND (high duty),
    /// 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND, 4 ADV_DIRECT_IND (low duty).
    static func advertisingParameters(_ p: [UInt8]) -> AdvertisingParameters? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            let minimum = try r.readLE16()
            _ = try r.readLE16()
            let type = try r.readU8()
            return AdvertisingParameters(
                intervalMicros: slots(UInt32(minimum)), connectable: type == 0 || type == 1 || type == 4,
                directed: type == 1 || type == 4, legacyPDUs: true)
        }
    }

    /// LE Set Extended Advertising Parameters v1/v2 (§7.8.53): Advertising_Handle, then
    /// Advertising_Event_Properties (bit 0 connectable, 2 directed, 4 legacy PDUs).
    static func extendedAdvertisingParameters(_ p: [UInt8]) -> (handle: UInt8, params: AdvertisingParameters)? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            let handle = try r.readU8()
            let props = try r.readLE16()
            let minimum = try r.readLE24()
            return (
                handle,
                AdvertisingParameters(
                    intervalMicros: slots(minimum), connectable: props & 0x01 != 0, directed: props & 0x04 != 0,
                    legacyPDUs: props & 0x10 != 0)
            )
        }
    }

    /// LE Set Advertising Data / Scan Response Data (§7.8.7, §7.8.8): Length, then 31 bytes.
    static func legacyAdvertisingData(_ p: [UInt8]) -> (length: Int, data: [UInt8])? {
        guard let length = p.first else { return nil }
        let data = Array(p.dropFirst().prefix(Int(length)))
        return (Int(length), data)
    }

    /// LE Set Extended Advertising / Scan Response Data (§7.8.54, §7.8.55).
    static func extendedAdvertisingData(_ p: [UInt8]) -> (handle: UInt8, operation: UInt8, length: Int, data: [UInt8])? {
        guard p.count >= 4 else { return nil }
        let length = Int(p[3])
        return (p[0], p[1], length, Array(p.dropFirst(4).prefix(length)))
    }

    /// LE Set Extended Advertising Enable (§7.8.56): Enable, Num_Sets, then per set handle,
    /// Duration, Max_Extended_Advertising_Events. Num_Sets 0 with Enable 0 disables every set.
    static func extendedAdvertisingEnable(_ p: [UInt8]) -> (enable: Bool, handles: [UInt8])? {
        read(p) { (r: inout ByteReader) throws(DecodeError) in
            let enable = try r.readU8() != 0
            let n = try r.readU8()
            var handles: [UInt8] = []
            for _ in 0..<n {
                handles.append(try r.readU8())
                try r.skip(3)
            }
            return (enable, handles)
        }
    }

    /// LE Advertising Set Terminated (§7.7.65.18).
    static func advertisingSetTerminated(_ bytes: ArraySlice<UInt8>) -> (status: UInt8, handle: UInt8, connection: UInt16)? {
        read(bytes) { (r: inout ByteReader) throws(DecodeError) in
            let status = try r.readU8()
            let handle = try r.readU8()
            return (status, handle, try r.readLE16() & 0x0FFF)
        }
    }

    /// LE Read Supported States return (§7.8.27): Status, LE_States (8 octets).
    static func supportedStates(_ returns: ArraySlice<UInt8>) -> UInt64? {
        read(returns) { (r: inout ByteReader) throws(DecodeError) in
            guard try r.readU8() == 0 else { throw r.invalid("failed") }
            return try r.readLE64()
        }
    }

    /// LE Read Maximum Advertising Data Length return (§7.8.57).
    static func maxAdvertisingDataLength(_ returns: ArraySlice<UInt8>) -> Int? {
        read(returns) { (r: inout ByteReader) throws(DecodeError) in
            guard try r.readU8() == 0 else { throw r.invalid("failed") }
            return Int(try r.readLE16())
        }
    }
}
