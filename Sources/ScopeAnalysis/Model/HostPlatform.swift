import ScopeCore

/// Which host stack recorded the capture, worked out from what the capture itself shows (its
/// format, its container, the stack's own commands and events), with every piece of evidence.
///
/// Rules use it to speak the platform's API first and to tell what the platform does by itself
/// from what an app asked for (docs/RULES.md, "Who did it"); `hciscope analyze --platform`
/// overrides the guess (`RuleConfiguration.platform`).
package struct HostPlatform: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// iOS, iPadOS or macOS: Apple's bluetoothd under Core Bluetooth.
        case ios
        /// Android's Bluetooth stack (Fluoride / Gabeldorsche).
        case android
        /// Linux: the kernel's Bluetooth subsystem and bluetoothd.
        case bluez
        /// Zephyr, NimBLE, BTstack and other embedded or portable host stacks.
        case embedded
        /// Nothing in the capture says.
        case unknown

        package var name: String {
            switch self {
            case .ios: return "iOS / macOS"
            case .android: return "Android"
            case .bluez: return "Linux (BlueZ)"
            case .embedded: return "embedded / other host stack"
            case .unknown: return "unknown"
            }
        }
    }

    /// How much a fact says about the stack.
    package enum Weight: String, Sendable, Hashable, Comparable {
        /// Only that stack writes or sends it.
        case conclusive
        /// Usual for that stack, but others can produce it.
        case suggestive

        var score: Int { self == .conclusive ? 3 : 1 }
        package static func < (a: Weight, b: Weight) -> Bool { a.score < b.score }
    }

    /// A fact of the capture that points at a stack.
    package enum Fact: Sendable, Hashable {
        /// Little-endian PacketLogger records: written by Apple's PacketLogger / bluetoothd only.
        case packetLoggerLittleEndian
        /// Big-endian PacketLogger records: Apple's PacketLogger (older macOS), also BTstack's hci_dump.
        case packetLoggerBigEndian
        /// The input was an iOS sysdiagnose archive.
        case sysdiagnose
        /// The input was an Android bug report.
        case androidBugReport
        /// The records are Android's btsnooz summary (only the Android stack writes it).
        case btsnoozSummary
        /// Android's HCI vendor extensions (OGF 0x3F, OCF 0x153–0x15F: vendor capabilities,
        /// multi-advertising, batch scan, APCF scan filters, energy info…), sent by the Android stack.
        case androidVendorCommands
        /// btsnoop datalink 1002 from a dual-mode host that configures BR/EDR (Write Scan Enable,
        /// Write Extended Inquiry Response) — what a phone's snoop log looks like.
        case btsnoopH4DualModeHost
        /// Records from the Linux kernel's monitor channel (btsnoop 2001 / pcap 254).
        case linuxMonitor
        /// Management-interface (MGMT) commands and events on the monitor channel: bluetoothd or
        /// btmgmt driving the kernel.
        case mgmtTraffic
        /// A process opened the controller through the HCI user channel: another host stack
        /// (Zephyr's native port, Bumble, BTstack…) owned it, not the kernel's.
        case hciUserChannel
        /// BTstack's own packets: daemon commands (OGF 0x3D) and events 0x60–0x6F.
        case btstackPackets
        /// PacketLogger notes naming an Apple product (iPhone, iPad, Mac…) or Apple's Bluetooth
        /// host ("Bluetooth Host: MobileBluetooth-…"): what bluetoothd writes at the top of its log.
        case packetLoggerProductNotes
        /// Monitor notes naming the Linux kernel ("Linux version …", "Bluetooth subsystem version").
        case linuxKernelNotes

        /// The stack it points at and how strongly.
        package var points: (kind: Kind, weight: Weight) {
            switch self {
            case .packetLoggerLittleEndian, .sysdiagnose: return (.ios, .conclusive)
            case .packetLoggerBigEndian: return (.ios, .suggestive)
            case .androidBugReport, .btsnoozSummary, .androidVendorCommands: return (.android, .conclusive)
            case .btsnoopH4DualModeHost: return (.android, .suggestive)
            case .mgmtTraffic: return (.bluez, .conclusive)
            case .linuxMonitor: return (.bluez, .suggestive)
            case .btstackPackets, .hciUserChannel: return (.embedded, .conclusive)
            case .packetLoggerProductNotes: return (.ios, .conclusive)
            case .linuxKernelNotes: return (.bluez, .conclusive)
            }
        }

        /// Stable name in JSON reports.
        package var id: String {
            switch self {
            case .packetLoggerLittleEndian: return "packetlogger_le"
            case .packetLoggerBigEndian: return "packetlogger_be"
            case .sysdiagnose: return "sysdiagnose"
            case .androidBugReport: return "android_bugreport"
            case .btsnoozSummary: return "btsnooz"
            case .androidVendorCommands: return "android_vendor_commands"
            case .btsnoopH4DualModeHost: return "btsnoop_h4_dual_mode_host"
            case .linuxMonitor: return "linux_monitor"
            case .mgmtTraffic: return "mgmt"
            case .hciUserChannel: return "hci_user_channel"
            case .btstackPackets: return "btstack"
            case .packetLoggerProductNotes: return "packetlogger_product_notes"
            case .linuxKernelNotes: return "linux_kernel_notes"
            }
        }

        /// What the fact is, for reports ("Android vendor commands (OCF 0x153–0x15F)").
        package var description: String {
            switch self {
            case .packetLoggerLittleEndian: return "Apple PacketLogger format (little-endian records)"
            case .packetLoggerBigEndian: return "PacketLogger format (big-endian records: iOS bluetoothd logs and PacketLogger, also BTstack)"
            case .sysdiagnose: return "iOS sysdiagnose archive"
            case .androidBugReport: return "Android bug report"
            case .btsnoozSummary: return "Android btsnooz summary"
            case .androidVendorCommands: return "Android HCI vendor commands (OCF 0x153–0x15F)"
            case .btsnoopH4DualModeHost: return "btsnoop 1002 from a dual-mode host configuring BR/EDR, as a phone's snoop log"
            case .linuxMonitor: return "Linux monitor channel records"
            case .mgmtTraffic: return "BlueZ management (MGMT) traffic"
            case .hciUserChannel: return "HCI user channel opened by another host stack"
            case .btstackPackets: return "BTstack daemon commands/events (OGF 0x3D, events 0x60–0x6F)"
            case .packetLoggerProductNotes: return "PacketLogger notes naming the Apple product and Bluetooth host"
            case .linuxKernelNotes: return "monitor notes naming the Linux kernel"
            }
        }
    }

    /// One piece of evidence: the fact, how often it was seen and where first (nil for facts of
    /// the file or container, not of a frame).
    package struct Evidence: Sendable, Hashable {
        package var fact: Fact
        package var count: Int
        package var firstFrame: FrameNumber?
        package init(_ fact: Fact, count: Int = 1, firstFrame: FrameNumber? = nil) {
            self.fact = fact
            self.count = count
            self.firstFrame = firstFrame
        }

        /// "Android HCI vendor commands (OCF 0x153–0x15F) ×124 from frame 37".
        package var description: String {
            var s = fact.description
            if count > 1 { s += " ×\(count)" }
            if let firstFrame { s += count > 1 ? " from frame \(firstFrame)" : " at frame \(firstFrame)" }
            return s
        }
    }

    /// What the capture says of the device and its software in its own words (PacketLogger's
    /// notes, the Linux monitor's notes, MGMT control channels), where recorded.
    package struct Details: Sendable, Hashable {
        /// The device model ("iPhone17,2").
        package var device: String?
        /// The operating system and its version ("iOS 27.0 (24A5380h)", "Linux 6.1.19-gentoo").
        package var os: String?
        /// The Bluetooth host build ("MobileBluetooth-2700.43", "bluetoothd (MGMT 1.22)").
        package var host: String?
        /// The controller ("BCM_4399, Revision: s=C2").
        package var controller: String?
        /// The first frame that says any of it.
        package var frame: FrameNumber?
        package init() {}
        package var isEmpty: Bool { device == nil && os == nil && host == nil && controller == nil }

        /// "iPhone17,2, iOS 27.0 (24A5380h), Bluetooth host MobileBluetooth-2700.43".
        package var description: String {
            [device, os, host.map { "Bluetooth host " + $0 }, controller.map { "controller " + $0 }].compactMap { $0 }.joined(separator: ", ")
        }
    }

    /// The stack named: the one the evidence points at most strongly, or the override.
    package var kind: Kind = .unknown
    /// The device, OS version and host build the capture names.
    package var details = Details()
    /// The strongest weight behind `kind` (nil when unknown or overridden without evidence).
    package var weight: Weight?
    /// Every fact found, in the order first seen.
    package var evidence: [Evidence] = []
    /// Set when `--platform` (or the configuration) chose the platform; `detected` is what the
    /// capture said.
    package var overridden = false
    package var detected: Kind = .unknown

    package init() {}

    /// Decides `kind` from `evidence`: the stack with the highest score (conclusive facts 3,
    /// suggestive 1); a tie, or no evidence, is unknown.
    package init(evidence: [Evidence]) {
        self.evidence = evidence
        var score: [Kind: Int] = [:]
        var strongest: [Kind: Weight] = [:]
        for e in evidence {
            let (k, w) = e.fact.points
            score[k, default: 0] += w.score
            strongest[k] = max(strongest[k] ?? w, w)
        }
        let ranked = score.sorted { $0.value > $1.value }
        if let top = ranked.first, ranked.count == 1 || ranked[1].value < top.value {
            kind = top.key
            weight = strongest[top.key]
        }
        detected = kind
    }

    /// This platform with `override` chosen by the user (the evidence stays).
    package func overridden(by override: Kind?) -> HostPlatform {
        guard let override else { return self }
        var p = self
        p.kind = override
        p.overridden = true
        p.weight = nil
        return p
    }

    /// True when the platform is named on conclusive evidence or chosen by the user: rules then
    /// attribute the platform's own traffic to it. On suggestive evidence only, they speak its
    /// API but say they cannot tell.
    package var isCertain: Bool { overridden || weight == .conclusive }

    /// "Android (Android HCI vendor commands (OCF 0x153–0x15F) ×124 from frame 37; …)".
    package var description: String {
        let facts = evidence.map(\.description).joined(separator: "; ")
        var s = kind.name
        if !details.isEmpty { s += " — " + details.description + (details.frame.map { " (frame \($0))" } ?? "") }
        if overridden {
            s += " (chosen with --platform; the capture suggests \(detected.name)"
            return s + (facts.isEmpty ? ")" : ": \(facts))")
        }
        if weight == .suggestive { s += ", likely" }
        if facts.isEmpty { return s + " (nothing in the capture names the host stack)" }
        return s + " (" + facts + ")"
    }
}
