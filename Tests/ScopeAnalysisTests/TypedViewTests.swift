import Foundation
import ScopeCapture
import ScopeCore
import ScopeTestSupport
import Testing

@testable import ScopeDecode

/// The typed views (`command.typed`, `event.typed`) on real frames of the corpus, read with the
/// project's reader, against what tshark reports for the same frame (run here, when installed).
/// Times are compared in the units tshark prints (0.625 ms slots, 1.25 ms, 10 ms): the view's
/// microseconds divided back, so a wrong unit shows. Where tshark 4.0 decodes nothing (LE Extended
/// Create Connection v2, LE Enhanced Connection Complete v2, Encryption Change v2), the view is
/// checked against the v1 view of the same bytes, as the spec defines v2 as v1 plus parameters.
@Suite("Typed HCI views")
struct TypedViewTests {
    /// A frame, the tshark fields to ask for, and the view's values in the same order.
    struct Case: CustomStringConvertible, Sendable {
        var file: String
        var frame: Int
        var fields: [String]
        var values: @Sendable (DecodedHCI) -> [String]?
        var description: String { "\(file) frame \(frame)" }
    }

    enum DecodedHCI {
        case command(HCICommand), event(HCIEvent)
        var command: HCICommand? { if case .command(let c) = self { c } else { nil } }
        var event: HCIEvent? { if case .event(let e) = self { e } else { nil } }
    }

    static func units(_ micros: Int64, _ per: Int64) -> String { "\(micros / per)" }
    static func n<T: BinaryInteger>(_ v: T) -> String { "\(v)" }

    static let cases: [Case] = [
        // §7.8.10: Active, 18 × 0.625 ms
        Case(file: "real/AshMartian__HappyLeaf__Leafspy_Read_DCT_btsnoop_hci.log", frame: 143,
             fields: ["bthci_cmd.le_scan_type", "bthci_cmd.le_scan_interval", "bthci_cmd.le_scan_window"]) {
            guard case .leSetScanParameters(let s)? = $0.command?.typed else { return nil }
            return [n(s.scanType), units(s.intervalMicros, 625), units(s.windowMicros, 625)]
        },
        // §7.8.64: Scanning_PHYs 0x05 (1M, Coded), one block each
        Case(file: "real/Swastik36__OPPO-Earbuds__BT_HCI_2026_0719_110149.cfa", frame: 155,
             fields: ["bthci_cmd.le_scan_phys", "bthci_cmd.le_scan_type", "bthci_cmd.le_scan_interval", "bthci_cmd.le_scan_window"]) {
            guard case .leSetExtendedScanParameters(let s)? = $0.command?.typed, s.phys.map(\.bit) == [0, 2] else { return nil }
            return [n(s.scanningPHYs), s.phys.map { n($0.scanType) }.joined(separator: ","),
                    s.phys.map { units($0.intervalMicros, 625) }.joined(separator: ","),
                    s.phys.map { units($0.windowMicros, 625) }.joined(separator: ",")]
        },
        Case(file: "real/AshMartian__HappyLeaf__Leafspy_Read_DCT_btsnoop_hci.log", frame: 145,
             fields: ["bthci_cmd.le_scan_enable", "bthci_cmd.le_filter_duplicates"]) {
            guard case .leSetScanEnable(let e)? = $0.command?.typed, !e.extended else { return nil }
            return [e.enable ? "1" : "0", n(e.filterDuplicates)]
        },
        Case(file: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", frame: 226,
             fields: ["bthci_cmd.le_scan_enable", "bthci_cmd.le_filter_duplicates"]) {
            guard case .leSetScanEnable(let e)? = $0.command?.typed, e.extended else { return nil }
            return [e.enable ? "1" : "0", n(e.filterDuplicates)]
        },
        Case(file: "real/TheoLestandi__Projet_RP__ble_capture.snoop", frame: 365,
             fields: ["bthci_cmd.le_scan_interval", "bthci_cmd.le_scan_window", "bthci_cmd.le_initiator_filter_policy",
                      "bthci_cmd.le_peer_address_type", "bthci_cmd.bd_addr"]) {
            guard case .leCreateConnection(let c)? = $0.command?.typed else { return nil }
            return [units(c.scanIntervalMicros, 625), units(c.scanWindowMicros, 625), n(c.initiatorFilterPolicy),
                    n(c.peerAddressType), c.peer.description]
        },
        // §7.8.66 with Initiating_PHYs 0x07: three PHY blocks follow the fixed part
        Case(file: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", frame: 7868,
             fields: ["bthci_cmd.le_initiator_filter_policy", "bthci_cmd.le_peer_address_type", "bthci_cmd.bd_addr",
                      "bthci_cmd.le_init_phys", "bthci_cmd.le_scan_interval", "bthci_cmd.le_scan_window",
                      "bthci_cmd.le_con_interval_min", "bthci_cmd.le_con_interval_max", "bthci_cmd.le_con_latency",
                      "bthci_cmd.le_supv_timeout"]) {
            guard case .leExtendedCreateConnection(let c)? = $0.command?.typed, !c.v2, let phys = c.phys,
                phys.map(\.bit) == [0, 1, 2]
            else { return nil }
            func each(_ f: (LEExtendedCreateConnection.PHY) -> String) -> String { phys.map(f).joined(separator: ",") }
            return [n(c.initiatorFilterPolicy), n(c.peerAddressType), c.peer.description, n(c.initiatingPHYs),
                    each { units($0.scanIntervalMicros, 625) }, each { units($0.scanWindowMicros, 625) },
                    each { units($0.connectionIntervalMinMicros, 1250) }, each { units($0.connectionIntervalMaxMicros, 1250) },
                    each { n($0.maxLatency) }, each { units($0.supervisionTimeoutMicros, 10_000) }]
        },
        Case(file: "real/2m__a2dp-captures__btsnoop_hci.log", frame: 3666,
             fields: ["bthci_cmd.connection_handle", "bthci_cmd.reason"]) {
            guard case .disconnect(let d)? = $0.command?.typed else { return nil }
            return [n(d.handle), n(d.reason)]
        },
        Case(file: "real/AshMartian__HappyLeaf__Leafspy_Read_DCT_btsnoop_hci.log", frame: 101,
             fields: ["bthci_cmd.le_advts_interval_min", "bthci_cmd.le_advts_interval_max", "bthci_cmd.le_advts_type"]) {
            guard case .leSetAdvertisingParameters(let a)? = $0.command?.typed else { return nil }
            return [units(a.intervalMinMicros, 625), units(a.intervalMaxMicros, 625), n(a.advertisingType)]
        },
        // §7.8.53: properties 0x0010 (legacy PDUs), 24-bit interval
        Case(file: "real/Swastik36__OPPO-Earbuds__BT_HCI_2026_0719_110149.cfa", frame: 163,
             fields: ["bthci_cmd.advertising_handle", "bthci_cmd.advertising_properties", "bthci_cmd.adv_properties.connectable",
                      "bthci_cmd.adv_properties.directed", "bthci_cmd.adv_properties.legacy_adv", "bthci_cmd.le_advts_interval_min"]) {
            guard case .leSetExtendedAdvertisingParameters(let a)? = $0.command?.typed else { return nil }
            return [n(a.advertisingHandle), n(a.eventProperties), a.connectable ? "1" : "0", a.directed ? "1" : "0",
                    a.legacyPDUs ? "1" : "0", units(a.primaryIntervalMinMicros, 625)]
        },
        Case(file: "real/AshMartian__HappyLeaf__Leafspy_Read_DCT_btsnoop_hci.log", frame: 89,
             fields: ["bthci_cmd.le_data_length"]) {
            guard case .leSetAdvertisingData(let d)? = $0.command?.typed, !d.scanResponse, d.data.count == d.length else { return nil }
            return [n(d.length)]
        },
        Case(file: "scenarios/adv_ios_budget.btsnoop", frame: 33, fields: ["bthci_cmd.le_data_length"]) {
            guard case .leSetAdvertisingData(let d)? = $0.command?.typed, d.scanResponse, d.data.count == d.length else { return nil }
            return [n(d.length)]
        },
        Case(file: "scenarios/adv_ios_budget.btsnoop", frame: 37, fields: ["bthci_cmd.le_advts_enable"]) {
            guard case .leSetAdvertisingEnable(let e)? = $0.command?.typed else { return nil }
            return [e.enable ? "1" : "0"]
        },
        Case(file: "real/Swastik36__OPPO-Earbuds__BT_HCI_2026_0719_110149.cfa", frame: 169,
             fields: ["bthci_cmd.advertising_handle", "bthci_cmd.adv_data_operation", "bthci_cmd.le_data_length"]) {
            guard case .leSetExtendedAdvertisingData(let d)? = $0.command?.typed, !d.scanResponse, d.data.count == d.length
            else { return nil }
            return [n(d.advertisingHandle), n(d.operation), n(d.length)]
        },
        Case(file: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", frame: 6421,
             fields: ["bthci_cmd.advertising_handle", "bthci_cmd.adv_data_operation", "bthci_cmd.le_data_length"]) {
            guard case .leSetExtendedAdvertisingData(let d)? = $0.command?.typed, d.scanResponse else { return nil }
            return [n(d.advertisingHandle), n(d.operation), n(d.length)]
        },
        // §7.8.56: one set
        Case(file: "real/Swastik36__OPPO-Earbuds__BT_HCI_2026_0719_110149.cfa", frame: 159,
             fields: ["bthci_cmd.le_advts_enable", "bthci_cmd.adv_num_sets", "bthci_cmd.advertising_handle", "bthci_cmd.adv_duration",
                      "bthci_cmd.max_extended_advertising_events"]) {
            guard case .leSetExtendedAdvertisingEnable(let e)? = $0.command?.typed else { return nil }
            return [e.enable ? "1" : "0", n(e.sets.count), e.sets.map { n($0.advertisingHandle) }.joined(separator: ","),
                    e.sets.map { units($0.durationMicros, 10_000) }.joined(separator: ","),
                    e.sets.map { n($0.maxExtendedAdvertisingEvents) }.joined(separator: ",")]
        },
        // Events
        Case(file: "real/2m__a2dp-captures__btsnoop_hci.log", frame: 3672,
             fields: ["bthci_evt.status", "bthci_evt.connection_handle", "bthci_evt.reason"]) {
            guard case .disconnectionComplete(let d)? = $0.event?.typed else { return nil }
            return [n(d.status), n(d.handle), n(d.reason)]
        },
        Case(file: "real/2m__a2dp-captures__btsnoop_hci.log", frame: 170,
             fields: ["bthci_evt.status", "bthci_evt.connection_handle", "bthci_evt.encryption_enable"]) {
            guard case .encryptionChange(let e)? = $0.event?.typed else { return nil }
            return [n(e.status), n(e.handle), n(e.enabled)]
        },
        Case(file: "real/cheoljun99__bluetooth-pcap-test__bluetooth.pcap", frame: 11411,
             fields: ["bthci_evt.status", "bthci_evt.connection_handle"]) {
            guard case .encryptionKeyRefreshComplete(let e)? = $0.event?.typed else { return nil }
            return [n(e.status), n(e.handle)]
        },
        Case(file: "real/2m__a2dp-captures__btsnoop_hci.log", frame: 111,
             fields: ["bthci_evt.status", "bthci_evt.connection_handle", "bthci_evt.bd_addr", "bthci_evt.link_type"]) {
            guard case .connectionComplete(let c)? = $0.event?.typed else { return nil }
            return [n(c.status), n(c.handle), c.peer.description, n(c.linkType)]
        },
        Case(file: "real/TheoLestandi__Projet_RP__ble_capture.snoop", frame: 367,
             fields: ["bthci_evt.status", "bthci_evt.connection_handle", "bthci_evt.role", "bthci_evt.le_peer_address_type",
                      "bthci_evt.bd_addr", "bthci_evt.le_con_interval", "bthci_evt.le_con_latency", "bthci_evt.le_supv_timeout"]) {
            guard case .leConnectionComplete(let c)? = $0.event?.typed, c.kind == .legacy else { return nil }
            return [n(c.status), n(c.handle), n(c.role), n(c.peerAddressType), c.peer.description,
                    units(c.intervalMicros, 1250), n(c.peripheralLatency), units(c.supervisionTimeoutMicros, 10_000)]
        },
        // LE Enhanced Connection Complete v1, a failed one (0x02 after a cancel): the fields are there, zeroed
        Case(file: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", frame: 7856,
             fields: ["bthci_evt.status", "bthci_evt.connection_handle", "bthci_evt.role", "bthci_evt.le_peer_address_type",
                      "bthci_evt.bd_addr", "bthci_evt.le_con_interval", "bthci_evt.le_con_latency", "bthci_evt.le_supv_timeout"]) {
            guard case .leConnectionComplete(let c)? = $0.event?.typed, c.kind == .enhancedV1 else { return nil }
            return [n(c.status), n(c.handle), n(c.role), n(c.peerAddressType), c.peer.description,
                    units(c.intervalMicros, 1250), n(c.peripheralLatency), units(c.supervisionTimeoutMicros, 10_000)]
        },
        Case(file: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", frame: 34886,
             fields: ["bthci_evt.status", "bthci_evt.connection_handle", "bthci_evt.le_con_interval", "bthci_evt.le_con_latency",
                      "bthci_evt.le_supv_timeout"]) {
            guard case .leConnectionUpdateComplete(let u)? = $0.event?.typed else { return nil }
            return [n(u.status), n(u.handle), units(u.intervalMicros, 1250), n(u.peripheralLatency),
                    units(u.supervisionTimeoutMicros, 10_000)]
        },
        Case(file: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", frame: 47769,
             fields: ["bthci_evt.status", "bthci_evt.connection_handle", "bthci_evt.le_tx_phy", "bthci_evt.le_rx_phy"]) {
            guard case .lePHYUpdateComplete(let u)? = $0.event?.typed else { return nil }
            return [n(u.status), n(u.handle), n(u.txPHY), n(u.rxPHY)]
        },
        Case(file: "real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", frame: 47771,
             fields: ["bthci_evt.connection_handle", "bthci_evt.max_tx_octets", "bthci_evt.max_rx_octets"]) {
            guard case .leDataLengthChange(let d)? = $0.event?.typed else { return nil }
            return [n(d.handle), n(d.maxTXOctets), n(d.maxRXOctets)]
        },
        Case(file: "real/mauricelam__btsnoop-rs__btsnoop_btmon.log", frame: 15,
             fields: ["bthci_evt.status", "bthci_evt.adv_handle", "bthci_evt.connection_handle"]) {
            guard case .leAdvertisingSetTerminated(let t)? = $0.event?.typed else { return nil }
            return [n(t.status), n(t.advertisingHandle), n(t.connectionHandle)]
        },
        Case(file: "real/crossnite__NovaX-Escooter__btsnoop_hci.log", frame: 49,
             fields: ["bthci_evt.status", "bthci_evt.max_adv_data_length"]) {
            guard case .leReadMaximumAdvertisingDataLength(let m)? = $0.event?.typed else { return nil }
            return ["0", n(m.maxLength)]
        },
    ]

    /// The record at `frame` (1-based, as tshark counts), decoded as a command or an event.
    static func decoded(_ url: URL, frame: Int) throws -> DecodedHCI? {
        var reader = try CaptureReader.open(path: url.path)
        var n = 0
        while let record = reader.next() {
            n += 1
            guard n == frame else { continue }
            switch record.kind {
            case .command: return .command(HCICommand.decode(record.payload))
            case .event: return .event(HCIEvent.decode(record.payload))
            default: return nil
            }
        }
        return nil
    }

    /// tshark's value, normalised: hex and decimal integers as decimal, booleans as 0/1, the rest as is.
    static func normalised(_ value: String) -> String {
        value.split(separator: ",", omittingEmptySubsequences: false).map { part -> String in
            if part.hasPrefix("0x"), let v = UInt64(part.dropFirst(2), radix: 16) { return "\(v)" }
            if part == "True" { return "1" }
            if part == "False" { return "0" }
            return String(part)
        }.joined(separator: ",")
    }

    @Test("view agrees with tshark", arguments: cases)
    func agreesWithTshark(_ c: Case) throws {
        guard let url = Fixtures.corpus(c.file), Tshark.path != nil else { return }
        let frame = try #require(try Self.decoded(url, frame: c.frame), "frame \(c.frame) is a command or an event")
        let mine = try #require(c.values(frame), "the expected typed view")
        let out = try Tshark.run(
            ["-r", url.path, "-Y", "frame.number==\(c.frame)", "-T", "fields", "-E", "occurrence=a"]
                + c.fields.flatMap { ["-e", $0] })
        let theirs = out.trimmingCharacters(in: .newlines).components(separatedBy: "\t").map(Self.normalised)
        #expect(theirs == mine, "\(c.fields)")
    }

    /// v2 layouts are v1 plus parameters (§7.8.66, §7.7.65.10, §7.7.8.2): tshark 4.0 decodes no
    /// v2, so each v2 view is checked against the v1 view of the same bytes.
    @Test func v2ViewsAgreeWithV1OnTheSameBytes() throws {
        guard let pklg = Fixtures.corpus("real/havvk__even-g2-smart-classroom__bt3.pklg"),
            let snoop = Fixtures.corpus("real/soaresden__IX7TrackerPro__btsnoop_hci.log")
        else { return }
        // LE Extended Create Connection v2: Advertising_Handle, Subevent, then v1's parameters.
        let create = try #require(try Self.decoded(pklg, frame: 140)?.command)
        #expect(create.opcode == .leExtendedCreateConnectionV2)
        let v2 = try #require(LEExtendedCreateConnection(create.parameters[...], v2: true))
        let v1 = try #require(LEExtendedCreateConnection(create.parameters.dropFirst(2), v2: false))
        #expect(v2.v2 && v2.peer == v1.peer && v2.peerAddressType == v1.peerAddressType)
        #expect(v2.initiatorFilterPolicy == v1.initiatorFilterPolicy && v2.initiatingPHYs == v1.initiatingPHYs)
        #expect(v2.phys != nil && v2.phys == v1.phys)
        // LE Enhanced Connection Complete v2: v1's parameters, then Advertising_Handle, Sync_Handle.
        let complete = try #require(try Self.decoded(pklg, frame: 236)?.event)
        guard case .leConnectionComplete(let c2)? = complete.typed else {
            Issue.record("no LE Connection Complete view")
            return
        }
        #expect(c2.kind == .enhancedV2)
        var c1 = try #require(LEConnectionComplete(complete.parameters.dropFirst(), .enhancedV1))
        c1.kind = .enhancedV2
        #expect(c1 == c2)
        // Encryption Change v2: v1's parameters, then Encryption_Key_Size.
        let encryption = try #require(try Self.decoded(snoop, frame: 335)?.event)
        guard case .encryptionChange(let e2)? = encryption.typed else {
            Issue.record("no Encryption Change view")
            return
        }
        #expect(encryption.code == .encryptionChangeV2)
        #expect(EncryptionChange(encryption.parameters, v2: false) == e2)
        // The frame is 04 59 05 | 00 33 00 02 10: Success, handle 0x0033, AES-CCM (0x02), key size 16.
        #expect(e2.status == 0 && e2.handle == 0x0033 && e2.enabled == 0x02)
    }

    /// LE Read Supported States (tshark shows LE_States only as bits): the view's value is the
    /// 8 octets after Status, little-endian, as §7.8.27 defines them.
    @Test func supportedStatesAreTheOctetsAfterStatus() throws {
        guard let url = Fixtures.corpus("real/AshMartian__HappyLeaf__Leafspy_Read_DCT_btsnoop_hci.log") else { return }
        let event = try #require(try Self.decoded(url, frame: 44)?.event)
        guard case .leReadSupportedStates(let s)? = event.typed else {
            Issue.record("no LE Read Supported States view")
            return
        }
        let r = Array(event.returnParameters)
        #expect(r.count == 9 && r[0] == 0)
        #expect(s.states == r[1...].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// Every name a view reads is in its layout row (once), as the kind of parameter the view
    /// reads it as: renaming a layout field cannot silently break a view.
    @Test func everyViewFieldIsInItsLayoutRow() {
        for (view, missing) in TypedViewTables.missing {
            #expect(missing.isEmpty, "\(view): \(missing)")
        }
    }

    /// Short parameters give nil, never a trap: every view on every prefix of a real frame.
    @Test func shortBytesGiveNil() throws {
        guard let url = Fixtures.corpus("real/Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log") else { return }
        let command = try #require(try Self.decoded(url, frame: 7868)?.command)
        for k in 0..<command.parameters.count {
            var short = command
            short.parameters = Array(command.parameters.prefix(k))
            // Up to the peer address the view has nothing to say.
            if k < 9 { #expect(short.typed == nil, "\(k) bytes") } else { _ = short.typed }
        }
        let event = try #require(try Self.decoded(url, frame: 34886)?.event)
        for k in 0..<event.packet.count {
            let short = HCIEvent.decode(Array(event.packet.prefix(k)))
            #expect(short.typed == nil, "\(k) bytes")
        }
    }
}

