import ScopeCapture
import ScopeCore
import ScopeDecode

/// Collects `HostPlatform` evidence frame by frame (owned by `CaptureTracker`).
struct PlatformDetector: Sendable {
    private var fileFacts: [HostPlatform.Evidence] = []
    private var androidVendor = Counted()
    private var btstack = Counted()
    private var mgmt = Counted()
    private var userChannel = Counted()
    private var linuxMonitor = false
    private var brEdrHostSetup = Counted()
    private var h4 = false
    /// The capture's own words about the device (notes, control channels).
    private var details = HostPlatform.Details()
    private var productNotes = Counted()
    private var kernelNotes = Counted()

    struct Counted: Sendable {
        var count = 0
        var first: FrameNumber?
        mutating func add(_ frame: FrameNumber) {
            count += 1
            if first == nil { first = frame }
        }
    }

    init(format: CaptureFormat?) {
        switch format {
        case .pklgLE?: fileFacts.append(.init(.packetLoggerLittleEndian))
        case .pklgBE?: fileFacts.append(.init(.packetLoggerBigEndian))
        case .btsnoopH4?: h4 = true
        case .btsnoopMonitor?, .pcapMonitor?, .pcapngMonitor?: linuxMonitor = true
        default: break
        }
    }

    mutating func noteOrigin(_ origin: CaptureOrigin) {
        switch origin.kind {
        case .androidBugReport: fileFacts.append(.init(.androidBugReport))
        case .sysdiagnose: fileFacts.append(.init(.sysdiagnose))
        case .capture, .archive: break
        }
        let btsnooz = origin.layers.contains { layer in
            switch layer {
            case .btsnoozSummary, .btsnoozRecords: return true
            default: return false
            }
        }
        if btsnooz { fileFacts.append(.init(.btsnoozSummary)) }
    }

    /// The command's opcode (OGF, OCF) as sent by the host.
    mutating func command(ogf: UInt8, ocf: UInt16, frame: FrameNumber) {
        switch ogf {
        case 0x3F where (0x153...0x15F).contains(ocf): androidVendor.add(frame)
        case 0x3D: btstack.add(frame)
        // Write Scan Enable, Write Extended Inquiry Response: a dual-mode host setting up BR/EDR.
        case 0x03 where ocf == 0x001A || ocf == 0x0052: brEdrHostSetup.add(frame)
        default: break
        }
    }

    /// An event code outside the specification's table in 0x60–0x6F: BTstack's own events.
    mutating func event(code: UInt8, known: Bool, frame: FrameNumber) {
        if !known, (0x60...0x6F).contains(code) { btstack.add(frame) }
    }

    /// A monitor record: management traffic, or a control channel opened (format 1: HCI user
    /// channel, 2: MGMT; CTRL_OPEN, FORMATS.md §2).
    mutating func monitor(_ payload: MonitorPayload, frame: FrameNumber) {
        switch payload {
        case .control: mgmt.add(frame)
        case .controlOpen(_, let format, let version, let revision, _, let ident):
            if format == 2 {
                mgmt.add(frame)
                if let ident, ident == "bluetoothd", details.host == nil {
                    details.host = "bluetoothd" + (version.map { v in " (MGMT \(v)" + (revision.map { ".\($0)" } ?? "") + ")" } ?? "")
                    note(frame)
                }
            } else if format == 1 {
                userChannel.add(frame)
            }
        case .note(let text):
            noteText(text, frame: frame)
        default: break
        }
    }

    /// A note's words about the device (PacketLogger's header notes, the Linux monitor's).
    mutating func noteText(_ text: String, frame: FrameNumber) {
        func value(_ prefix: String) -> String? {
            guard text.hasPrefix(prefix) else { return nil }
            let v = text.dropFirst(prefix.count).drop { $0 == " " }
            return v.isEmpty ? nil : String(v.prefix(120))
        }
        if let product = value("Product:") {
            details.device = product
            if Self.appleProducts.contains(where: { product.hasPrefix($0) }) { productNotes.add(frame) }
            note(frame)
        } else if let host = value("Bluetooth Host:") {
            details.host = host
            if host.hasPrefix("MobileBluetooth") || host.hasPrefix("BlueTool") { productNotes.add(frame) }
            note(frame)
        } else if let software = value("Software:") {
            // "Version 27.0 (Build 24A5380h)": the OS of the product named.
            var version = software.hasPrefix("Version ") ? String(software.dropFirst("Version ".count)) : software
            if let r = version.range(of: "(Build ") { version.replaceSubrange(r, with: "(") }
            details.os = (Self.appleOS(details.device).map { $0 + " " } ?? "") + version
            note(frame)
        } else if let chipset = value("Chipset:") {
            details.controller = chipset
            note(frame)
        } else if let linux = value("Linux version") {
            details.os = "Linux " + (linux.split(separator: " ").first.map(String.init) ?? linux)
            kernelNotes.add(frame)
            note(frame)
        }
    }

    private mutating func note(_ frame: FrameNumber) {
        if details.frame == nil { details.frame = frame }
    }

    /// Apple product identifiers' prefixes (PacketLogger's "Product:" note).
    static let appleProducts = ["iPhone", "iPad", "iPod", "Mac", "iMac", "Watch", "AppleTV", "AudioAccessory", "RealityDevice"]

    /// The OS of an Apple product identifier.
    static func appleOS(_ device: String?) -> String? {
        guard let d = device else { return nil }
        if d.hasPrefix("iPhone") || d.hasPrefix("iPod") { return "iOS" }
        if d.hasPrefix("iPad") { return "iPadOS" }
        if d.hasPrefix("Mac") || d.hasPrefix("iMac") { return "macOS" }
        if d.hasPrefix("Watch") { return "watchOS" }
        if d.hasPrefix("AppleTV") { return "tvOS" }
        return nil
    }

    var platform: HostPlatform {
        var e = fileFacts
        func add(_ c: Counted, _ fact: HostPlatform.Fact) {
            if c.count > 0 { e.append(.init(fact, count: c.count, firstFrame: c.first)) }
        }
        add(androidVendor, .androidVendorCommands)
        add(btstack, .btstackPackets)
        add(mgmt, .mgmtTraffic)
        add(userChannel, .hciUserChannel)
        if linuxMonitor { e.append(.init(.linuxMonitor)) }
        if h4, brEdrHostSetup.count > 0 {
            e.append(.init(.btsnoopH4DualModeHost, count: brEdrHostSetup.count, firstFrame: brEdrHostSetup.first))
        }
        add(productNotes, .packetLoggerProductNotes)
        add(kernelNotes, .linuxKernelNotes)
        var p = HostPlatform(evidence: e)
        p.details = details
        return p
    }
}

extension PlatformDetector {
    /// The facts of one decoded frame (as `AnalysisBuilder.consume` notes them). Inlined: most
    /// frames are looked at and passed over in a few instructions, less than the call.
    @inline(__always)
    mutating func consume(_ frame: DecodedFrame) {
        let f = frame.record.frame
        switch frame.packet {
        case .command(let c):
            if c.opcode.ogf >= 0x3D || c.opcode.ogf == 0x03 { command(ogf: c.opcode.ogf, ocf: c.opcode.ocf, frame: f) }
        case .event(let e):
            if e.code.rawValue >= 0x60, e.code.rawValue <= 0x6F { event(code: e.code.rawValue, known: e.code.name != nil, frame: f) }
        case .monitor(let payload):
            monitor(payload, frame: f)
        default: break
        }
    }
}
