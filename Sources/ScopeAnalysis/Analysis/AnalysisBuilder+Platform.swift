import ScopeCapture
import ScopeCore
import ScopeDecode

/// Collects `HostPlatform` evidence frame by frame (owned by `AnalysisBuilder`).
struct PlatformDetector: Sendable {
    var fileFacts: [HostPlatform.Evidence] = []
    var androidVendor = Counted()
    var btstack = Counted()
    var mgmt = Counted()
    var userChannel = Counted()
    var linuxMonitor = false
    var brEdrHostSetup = Counted()
    var h4 = false

    struct Counted: Sendable {
        var count = 0
        var first: FrameNumber?
        mutating func add(_ frame: FrameNumber) {
            count += 1
            if first == nil { first = frame }
        }
    }

    init(format: String) {
        switch format {
        case "pklg-le": fileFacts.append(.init(.packetLoggerLittleEndian))
        case "pklg-be": fileFacts.append(.init(.packetLoggerBigEndian))
        case "btsnoop-1002": h4 = true
        case "btsnoop-2001", "pcap-254", "pcapng-254": linuxMonitor = true
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
        case .controlOpen(_, let format, _, _, _, _):
            if format == 2 { mgmt.add(frame) } else if format == 1 { userChannel.add(frame) }
        default: break
        }
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
        return HostPlatform(evidence: e)
    }
}

extension AnalysisBuilder {
    /// How many records at the start of a capture name the host stack the rules go by
    /// (`CaptureInfo.platformAtStart`).
    public static let platformWindow = 20_000
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
