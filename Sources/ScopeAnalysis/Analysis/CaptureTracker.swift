import ScopeCapture
import ScopeCore
import ScopeDecode

/// The capture's own facts, frame by frame (owned by `AnalysisBuilder`): how many frames and
/// when, its health (truncated, malformed and unknown records, clock steps, gaps, damage the
/// reader reported), its markers (notes and user-logging records), and which stack recorded it.
/// None of it depends on what the other trackers make of a frame.
struct CaptureTracker: Sendable {
    /// The facts gathered so far (`finish` adds the closing health notes).
    private(set) var info: CaptureInfo
    /// The notes and user-logging records kept (`noteMarker`).
    private(set) var markers: [Marker] = []
    /// The last frame seen.
    private(set) var lastFrame: FrameTime?

    /// Which stack recorded the capture.
    private var platformDetector: PlatformDetector
    /// What the detector said after the first `AnalysisBuilder.platformWindow` records
    /// (`CaptureInfo.platformAtStart`).
    private var platformAtStart: HostPlatform?
    private var platformAtStartTaken = false

    /// Notes and user-logging records not kept as markers, and those kept cut short.
    private var markersNotKept = 0
    private var markersCut = 0
    /// Reader diagnostics of damage named one by one in the health notes (then counted).
    static let damageNamed = 10

    /// The previous timestamp of each adapter but the last record's.
    private var previousTimestamp: [AdapterIndex: Timestamp] = [:]
    /// The last record's adapter and timestamp (not yet in `previousTimestamp`).
    private var healthAdapter: AdapterIndex?
    private var healthTimestamp = Timestamp(microseconds: 0)

    /// `format`: the file's; nil for records that come from no file (`capture --live`, named
    /// "live" in the report).
    init(file: String, format: CaptureFormat?) {
        info = CaptureInfo(file: file, format: format?.rawValue ?? "live")
        platformDetector = PlatformDetector(format: format)
        if format?.container == .packetLogger {
            info.health.notes.append(.localClock)
        }
    }

    /// The facts so far with the platform named as it stands (a part handed over before the end).
    var infoNow: CaptureInfo {
        var now = info
        now.platform = platformDetector.platform
        now.platformAtStart = platformAtStart
        return now
    }

    /// Where the capture came from (containers, merged files); a btsnooz summary is named in the
    /// health notes, since its packets are cut short.
    mutating func noteOrigin(_ origin: CaptureOrigin) {
        info.origin = origin
        platformDetector.noteOrigin(origin)
        if origin.summaryOnly {
            info.health.notes.append(.btsnoozSummary)
        }
        if origin.layers.contains(.btsnoozRecords) {
            info.health.notes.append(.clockFromFileTime)
        }
    }

    /// Notes one frame: its health, its platform evidence, its time. Inlined into the builder's
    /// router: the frame's record is read once for all of it.
    @inline(__always)
    mutating func consume(_ frame: inout DecodedFrame, at: FrameTime) {
        noteHealth(frame, at: at)
        platformDetector.consume(frame)
        // Frames first, then a flag: comparing the optional HostPlatform with nil copied it
        // (and destroyed the copy) on every frame.
        if !platformAtStartTaken, info.frames >= AnalysisBuilder.platformWindow {
            platformAtStart = platformDetector.platform
            platformAtStartTaken = true
        }
        lastFrame = at
    }

    /// A note or user-logging record as a marker: the first `limit` are kept, each text cut to
    /// `textBytes` bytes; the others are counted.
    mutating func noteMarker(at: FrameTime, _ text: String, limit: Int, textBytes: Int) {
        guard markers.count < limit else {
            markersNotKept += 1
            return
        }
        var text = text
        if text.utf8.count > textBytes {
            var cut = text.utf8.index(text.utf8.startIndex, offsetBy: textBytes)
            while cut > text.startIndex, !text.unicodeScalars.indices.contains(cut) { cut = text.utf8.index(before: cut) }
            text = String(text[..<cut]) + "…"
            markersCut += 1
        }
        markers.append(Marker(at: at, text: text))
    }

    /// Records what the capture reader reported (read errors, warnings).
    mutating func noteReaderDiagnostics(_ diagnostics: [Diagnostic]) {
        for d in diagnostics {
            if d.severity == .error { info.health.readErrors += 1 } else { info.health.readWarnings += 1 }
            if d.code == .epochSkew { info.health.epochSkewSuspected = true }
            // Data damaged or not read to its end (not merely a file cut short at its end).
            if d.severity == .error, d.code == .dataDamaged || d.code == .readingStopped || d.code == .limitReached {
                info.health.damage += 1
                if info.health.damage <= Self.damageNamed { info.health.notes.append(.dataDamaged(d.description)) }
            }
        }
    }

    /// The facts at the end, with the closing health notes: markers and advertisers not held
    /// (`markerBytes`: the text limit; `devicesNotHeld` of at most `heldDevices`), damage past
    /// the named, ACL cut short, and connections whose setup the capture does not hold.
    mutating func finish(markerBytes: Int, devicesNotHeld: Int, heldDevices: Int, handlesWithoutSetup: [UInt16]) -> CaptureInfo {
        if markersNotKept > 0 || markersCut > 0 {
            info.health.notes.append(.markersNotKept(kept: markers.count, notKept: markersNotKept, cut: markersCut, textLimit: markerBytes))
        }
        if devicesNotHeld > 0 {
            info.health.notes.append(.advertisersNotHeld(count: devicesNotHeld, limit: heldDevices))
        }
        if info.health.damage > Self.damageNamed {
            info.health.notes.append(.moreDamage(count: info.health.damage - Self.damageNamed))
        }
        info.health.handlesWithoutSetup = handlesWithoutSetup
        if info.health.truncatedACL > 0 {
            info.health.notes.append(.truncatedACL(count: info.health.truncatedACL))
        }
        if !handlesWithoutSetup.isEmpty {
            info.health.notes.append(.setupNotCaptured(handles: handlesWithoutSetup))
        }
        info.platform = platformDetector.platform
        info.platformAtStart = platformAtStart ?? platformDetector.platform
        return info
    }

    // Updates `info` in place (a copy of CaptureInfo per frame would copy its arrays and strings).
    @inline(__always)
    private mutating func noteHealth(_ frame: DecodedFrame, at: FrameTime) {
        let record = frame.record
        let timestamp = record.timestamp
        info.frames += 1
        switch record.kind {
        case .acl:
            info.aclFrames += 1
            noteTraffic(at)
        case .command, .event, .sco, .iso:
            noteTraffic(at)
        default: break
        }
        if info.firstTimestamp == nil { info.firstTimestamp = timestamp }
        info.lastTimestamp = timestamp
        // (`record.isTruncated`, inlined: a call into ScopeCore per frame.)
        let truncated = record.payload.count < record.originalLength
        if truncated {
            info.health.truncatedRecords += 1
            if record.kind == .acl { info.health.truncatedACL += 1 }
        }
        if record.drops > info.health.drops { info.health.drops = record.drops }
        // A record cut short by its writer (filtered and btsnooz logs) is counted as truncated,
        // not also as malformed: what is missing from its PDUs is the cut, not a fault.
        if !truncated, !frame.malformed.isEmpty || Self.anyMalformedPDU(frame.pdus) { info.health.malformedFrames += 1 }
        switch record.kind {
        case .unknownH4, .unknownMonitor, .unknownPacketLogger: info.health.unknownRecords += 1
        default: break
        }
        // The previous timestamp of this adapter: the last record's when it is the same adapter.
        let previous: Timestamp?
        if healthAdapter == record.adapter {
            previous = healthTimestamp
        } else {
            if let adapter = healthAdapter { previousTimestamp[adapter] = healthTimestamp }
            previous = previousTimestamp[record.adapter]
            healthAdapter = record.adapter
        }
        healthTimestamp = timestamp
        if let previous {
            let delta = timestamp.microseconds.subtractingReportingOverflow(previous.microseconds)
            let day: Int64 = 86_400_000_000
            let skew: Int64 = 378 * day
            if !delta.overflow, delta.partialValue >= 0, delta.partialValue < day {
                // The usual step forward; an hour or more of silence is named (`gaps`).
                if delta.partialValue >= CaptureInfo.gapMicros { noteGap(record.frame, delta.partialValue) }
            } else if !delta.overflow, delta.partialValue.magnitude >= UInt64(skew - day), delta.partialValue.magnitude <= UInt64(skew + day) {
                info.health.epochSkewSuspected = true
            } else if timestamp < previous {
                info.health.backwardTimestamps += 1
            } else if !delta.overflow, delta.partialValue >= day, info.health.forwardJumps.count < 10 {
                // A gap of a day or more between consecutive records: PacketLogger writes its
                // preamble notes with the time they were created, often days before the session.
                info.health.forwardJumps.append(FrameTime(frame: record.frame, time: timestamp))
                info.health.notes.append(.forwardJump(frame: record.frame, gapMicros: delta.partialValue))
                noteGap(record.frame, delta.partialValue)
            }
        }
        if !timestamp.isPlausible { info.health.implausibleTimestamps += 1 }
    }

    private mutating func noteGap(_ frame: FrameNumber, _ micros: Int64) {
        if info.gaps.count < CaptureInfo.maxGaps { info.gaps.append(CaptureInfo.Gap(frame: frame, micros: micros)) }
    }

    /// An HCI packet at `at`: the capture's traffic runs from the first to the last.
    @inline(__always)
    private mutating func noteTraffic(_ at: FrameTime) {
        if info.firstTraffic == nil { info.firstTraffic = at }
        info.lastTraffic = at
    }

    /// Whether a PDU has malformations, reading the flag in place (`contains(where:)` copies every
    /// PDU, with its arrays and strings, to hand it to the closure).
    @inline(__always)
    private static func anyMalformedPDU(_ pdus: [DecodedPDU]) -> Bool {
        for p in pdus.indices where pdus[p].hasMalformations { return true }
        return false
    }
}

extension AnalysisBuilder {
    /// How many records at the start of a capture name the host stack the rules go by
    /// (`CaptureInfo.platformAtStart`).
    package static let platformWindow = 20_000
}
