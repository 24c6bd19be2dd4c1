import Foundation
import ScopeAnalysis
import ScopeCore
import ScopeTestSupport
import Testing

/// Which host stack recorded a capture, named from its own evidence (HostPlatform).
@Suite struct HostPlatformTests {
    typealias Fact = HostPlatform.Fact

    /// The project's own captures: the btvirt recordings are the Linux kernel and btmgmt (MGMT on
    /// the monitor, and the kernel's notes naming Linux); the Bumble scenarios name no stack in btsnoop 1002/1001 or pcap; the encoders'
    /// copies carry what their format says (a Linux monitor file, PacketLogger records).
    static let own: [(file: String, kind: HostPlatform.Kind, certain: Bool, facts: Set<Fact>)] = [
        ("btvirt-le-pairing.btsnoop", .bluez, true, [.mgmtTraffic, .linuxMonitor, .linuxKernelNotes]),
        ("btvirt-recorded-by-hciscope.btsnoop", .bluez, true, [.mgmtTraffic, .linuxMonitor, .linuxKernelNotes]),
        ("scenarios/scan.duplicates-allowed-fires.btsnoop", .unknown, false, []),
        ("scenarios/conn.attempt-unbounded-fires.btsnoop", .unknown, false, []),
        ("scenarios/gatt.polling-fires.h1.btsnoop", .unknown, false, []),
        ("scenarios/gatt.polling-fires.pcap", .unknown, false, []),
        ("scenarios/gatt.polling-fires.monitor.btsnoop", .bluez, false, [.linuxMonitor]),
        ("scenarios/conn.subscriptions-left-on-fires.le.pklg", .ios, true, [.packetLoggerLittleEndian]),
        ("scenarios/security.legacy-pairing-fires.be.pklg", .ios, false, [.packetLoggerBigEndian]),
    ]

    @Test(arguments: own.indices) func ownCapture(_ i: Int) throws {
        let e = Self.own[i]
        let r = try AnalysisBuilder.analyze(path: Fixtures.project(e.file).path)
        #expect(r.capture.platform.kind == e.kind, "\(e.file): \(r.capture.platform.description)")
        #expect(r.capture.platform.isCertain == e.certain, "\(e.file)")
        #expect(Set(r.capture.platform.evidence.map(\.fact)) == e.facts, "\(e.file)")
    }

    /// Every HCI capture of the corpus, with the platform its evidence names. Android: the
    /// stack's vendor commands (OCF 0x153–0x15F: APCF filters, energy info, vendor
    /// capabilities); older or filtered Android logs without them: a dual-mode host's btsnoop
    /// 1002 (likely). BlueZ: MGMT traffic on the monitor. iOS: little-endian PacketLogger. The
    /// two big-endian hci_dump.pklg files are BTstack's (its daemon events 0x60–0x6F).
    static let corpus: [(file: String, kind: HostPlatform.Kind, certain: Bool, facts: Set<Fact>)] = [
        ("2m__a2dp-captures__btsnoop_hci.log", .android, false, [.btsnoopH4DualModeHost]),
        ("AshMartian__HappyLeaf__Leafspy_Read_DCT_btsnoop_hci.log", .android, false, [.btsnoopH4DualModeHost]),
        ("Matheus-Garbelini__esp32_bluetooth_classic_sniffer__hci_dump.pklg", .embedded, true, [.packetLoggerBigEndian, .btstackPackets]),
        ("Swastik36__OPPO-Earbuds__BT_HCI_2026_0719_110149.cfa", .android, true, [.androidVendorCommands]),
        ("Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("TheoLestandi__Projet_RP__ble_capture.snoop", .bluez, true, [.mgmtTraffic, .linuxMonitor, .linuxKernelNotes]),
        ("TheoLestandi__Projet_RP__capture.snoop", .bluez, true, [.mgmtTraffic, .linuxMonitor, .linuxKernelNotes]),
        ("ap4y__iSAP__hci_dump.pklg", .embedded, true, [.packetLoggerBigEndian, .btstackPackets]),
        ("bbmp__AndroidPad__btsnoop_hci.cfa", .android, false, [.btsnoopH4DualModeHost]),
        ("cheoljun99__bluetooth-pcap-test__bluetooth-infocar.pcap", .unknown, false, []),
        ("cheoljun99__bluetooth-pcap-test__bluetooth.pcap", .android, true, [.androidVendorCommands]),
        ("cnrd__yeelock__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("crossnite__NovaX-Escooter__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("csacca__horizon-74-at-ble__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("dandwhelan__fossibot-bluetooth__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("danisla__iot-bed__btsnoop_hci.log", .unknown, false, []),
        ("felixwatts__batteread__capture.btsnoop", .bluez, true, [.mgmtTraffic, .linuxMonitor, .linuxKernelNotes]),
        ("havvk__even-g2-smart-classroom__bt3.pklg", .ios, true, [.packetLoggerLittleEndian, .packetLoggerProductNotes]),
        ("jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng", .android, true, [.androidVendorCommands]),
        ("mauricelam__btsnoop-rs__btsnoop_btmon.log", .bluez, true, [.mgmtTraffic, .linuxMonitor, .linuxKernelNotes]),
        ("mchwalisz__lightsapp-cli__btsnoop_hci.log", .android, false, [.btsnoopH4DualModeHost]),
        ("phlash__blefun__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("soaresden__IX7TrackerPro__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("syssi__esphome-lumentree__btsnoop_hci.log", .unknown, false, []),
        ("wangdalian__btsnooper__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("whoisbe__pongbot-mcp__btsnoop_hci.log.last", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("zabbits__btsnoop__btsnoop_hci.cfa", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        // iOS bluetoothd logs whose first records are notes naming the product, the iOS version
        // and the Bluetooth host: certain, whatever the byte order of the records.
        ("cagnulein__Bafang-RideSync__bluetoothd-hci-latest.pklg", .ios, true, [.packetLoggerBigEndian, .packetLoggerProductNotes]),
        ("elkusbry__peripage-tool__peripage_capture.pklg", .ios, true, [.packetLoggerLittleEndian, .packetLoggerProductNotes]),
        ("robotdrink__OpenSCQ30-P31i__btsnoop_hci.log.filtered", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("sardark1__data-1__btsnooz_hci.log", .android, true, [.btsnoozSummary, .androidVendorCommands, .btsnoopH4DualModeHost]),
        ("MaciejKubon__MyCar__btsnooz_hci.log.last", .android, true, [.btsnoozSummary, .androidVendorCommands, .btsnoopH4DualModeHost]),
        ("manojshakti77__bluetooth__btsnoop_hci-ethermind.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("doafirst__code_study__btsnoop_hci.cfa", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("durnerj__PoGo-Plus-BLE__bt_log_plus_pair_2017_12_13.log", .android, true, [.androidVendorCommands]),
        ("cagnulein__qdomyos-zwift__heart200andstop.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("nick0451__dsp408-tuner__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("mypopydev__BT__btsnoop_hci.log", .android, true, [.androidVendorCommands]),
        ("aleksamarkoni__bluetooth_sample__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("mtoslalibu__ec521__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("Riosagala__uploadfile__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("NoahB10__MABIP__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("vpuhoff__bk300-web-bluetooth-monitor__btsnoop_hci.log.last", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("palmarci__OpenGuardian__780g_pairing_with_mobile.pcapng", .android, true, [.androidVendorCommands]),
        ("joelarula__darkelf__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
        ("tonton81__test__btsnoop_hci.log", .android, true, [.androidVendorCommands, .btsnoopH4DualModeHost]),
    ]

    /// PacketLogger's header notes name the device, the OS version and the Bluetooth host build.
    @Test func packetLoggerNotesNameTheDevice() throws {
        guard let url = Fixtures.corpus("real/cagnulein__Bafang-RideSync__bluetoothd-hci-latest.pklg") else { return }
        let p = try AnalysisBuilder.analyze(path: url.path).capture.platform
        #expect(p.details.device == "iPhone18,2")
        #expect(p.details.os == "iOS 26.5.1 (23F81)")
        #expect(p.details.host == "MobileBluetooth-195.7.1.2")
        #expect(p.details.frame == 1)
        #expect(p.description.contains("iPhone18,2, iOS 26.5.1 (23F81)"))
        #expect(!p.description.contains("older macOS"))
    }

    @Test(arguments: corpus.indices) func corpusCapture(_ i: Int) throws {
        let e = Self.corpus[i]
        guard let url = Fixtures.corpus("real/" + e.file) else { return }
        let r = try AnalysisBuilder.analyze(path: url.path)
        #expect(r.capture.platform.kind == e.kind, "\(e.file): \(r.capture.platform.description)")
        #expect(r.capture.platform.isCertain == e.certain, "\(e.file)")
        #expect(Set(r.capture.platform.evidence.map(\.fact)) == e.facts, "\(e.file)")
    }

    /// The table covers every HCI capture pinned in captures/corpus.tsv (the three link-layer
    /// sniffer files are not HCI: analyze refuses them), whichever of them are present here (a
    /// corpus missing some, as when they could not be fetched, still checks those it has).
    @Test func corpusTableIsComplete() {
        let sniffers: Set = [
            "AleBonora3__Tesi_BLE__Lv4_passkey.pcapng", "mikeryan__crackle__le_secure_connections.pcapng",
            "Matheus-Garbelini__sweyntooth_bluetooth_low_energy_attacks__capture_cypress_psoc6_crash_llid.pcapng",
        ]
        let table = Set(Self.corpus.map(\.file))
        #expect(Set(Fixtures.corpusManifest.map(\.file)).subtracting(sniffers) == table)
        let files = Set(Fixtures.corpusFiles().filter { $0.deletingLastPathComponent().lastPathComponent == "real" }.map(\.lastPathComponent))
        #expect(files.subtracting(sniffers).isSubset(of: table), "present but not in the table: \(files.subtracting(sniffers).subtracting(table).sorted())")
    }

    /// The evidence of the yeelock log: the first Android vendor command is frame 60.
    @Test func evidenceNamesItsFirstFrame() throws {
        guard let url = Fixtures.corpus("real/cnrd__yeelock__btsnoop_hci.log") else { return }
        let p = try AnalysisBuilder.analyze(path: url.path).capture.platform
        let vendor = try #require(p.evidence.first { $0.fact == .androidVendorCommands })
        #expect(vendor.firstFrame == 60)
        #expect(vendor.count == 83)
        #expect(p.description.hasPrefix("Android (Android HCI vendor commands"))
    }

    /// `--platform` keeps the evidence and says what the capture suggested.
    @Test func overrideKeepsTheEvidence() {
        let detected = HostPlatform(evidence: [.init(.linuxMonitor)])
        let chosen = detected.overridden(by: .ios)
        #expect(chosen.kind == .ios && chosen.overridden && chosen.isCertain)
        #expect(chosen.detected == .bluez)
        #expect(chosen.evidence == detected.evidence)
        #expect(detected.overridden(by: nil) == detected)
    }

    /// Conclusive facts for two stacks at once name neither.
    @Test func conflictingConclusiveEvidenceIsUnknown() {
        let p = HostPlatform(evidence: [.init(.mgmtTraffic), .init(.hciUserChannel)])
        #expect(p.kind == .unknown)
    }
}
