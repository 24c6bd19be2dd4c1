import ScopeCore

// The contract between analysis (ScopeAnalysis), rules (ScopeRules) and reports (ScopeReport).
// Everything is a value; every fact carries the frames it came from. Times are absolute
// `Timestamp`s (µs since the Unix epoch); reports show them relative to frame 1 (`origin`).
// Fields may be ADDED by the analysis work; existing names keep their meaning.

/// Everything the analysis learned from one capture.
package struct AnalysisResult: Sendable {
    package var capture: CaptureInfo
    package var scans: [ScanSession] = []
    /// Advertisers seen in advertising reports (address + address type).
    package var devices: [Device] = []
    /// Each address's first device in `devices` (an address reported with two address types is
    /// two devices).
    package var firstDeviceOfAddress: [BDAddr: Int] = [:]
    package var attempts: [ConnectionAttempt] = []
    package var connections: [Connection] = []
    package var pairings: [Pairing] = []
    /// Advertising set up by the local host (captures taken on the advertiser); nil when the
    /// host never set advertising data or enabled advertising.
    package var advertising: AdvertisingActivity?
    /// User-logging records and notes, e.g. test-step markers.
    package var markers: [Marker] = []
    /// Identities learned from SMP key distribution; resolvable private addresses they resolve
    /// are recorded in `Device.identity`, `Connection.peerIdentity` and
    /// `ConnectionAttempt.peerIdentity` (unless resolution was turned off).
    package var identities: [Identity] = []
    /// Report density of the scan sessions whose own `density` was folded in to bound memory
    /// (every session after the first `foldDensityAfterSessions`), per adapter: at most
    /// `capturedDensityBuckets` buckets over the whole capture.
    package var foldedScanDensity: [AdapterIndex: ReportDensity] = [:]
    /// Scan sessions judged on the way and dropped (long captures only: the first
    /// `AnalysisBuilder.HandOverPolicy.keptScans` sessions always stay in `scans`).
    package var handedOverScans = HandedOverScans()
    /// Connections that ended and were followed by a connection request to the same peer, as
    /// `conn.reconnect-by-scan` judges them (see `Reconnection`); set by the analysis.
    package var reconnections: [Reconnection] = []
    /// Connection requests, connections, pairings, reconnections and advertising records judged
    /// on the way and dropped (long captures only: the first `AnalysisBuilder.HandOverPolicy.kept` of
    /// each list stay): their counts and what the headline sums of them.
    package var handedOver = HandedOverItems()
    package static let foldDensityAfterSessions = 256
    package static let capturedDensityBuckets = 1000

    package init(capture: CaptureInfo) { self.capture = capture }

    /// The pairings that took place on `connections`.
    package func pairings(of connections: [Connection]) -> [Pairing] {
        let ids = Set(connections.map(\.id))
        return pairings.filter { ids.contains($0.connection) }
    }

    /// Sums over every scan session, handed over ones included.
    package var scanTotals: ScanTotals {
        scans.reduce(into: handedOverScans.totals) { $0.add($1) }
    }

    /// Frame 1's timestamp: the origin of every relative time in reports.
    package var origin: Timestamp { capture.firstTimestamp ?? Timestamp(microseconds: 0) }
}

/// A frame and its time: the unit of evidence.
package struct FrameTime: Sendable, Hashable, Comparable {
    package var frame: FrameNumber
    package var time: Timestamp
    package init(frame: FrameNumber, time: Timestamp) {
        self.frame = frame
        self.time = time
    }
    package static func < (a: FrameTime, b: FrameTime) -> Bool { a.frame < b.frame }
}

package struct CaptureInfo: Sendable {
    package var file: String
    package var format: String
    package var frames: Int = 0
    /// ACL records (a btsnooz summary holds none beyond L2CAP signalling).
    package var aclFrames: Int = 0
    /// The capture holds no ACL data to judge idle time or traffic by: a btsnooz summary (its
    /// ACL is L2CAP signalling only), or no ACL record at all.
    package var holdsNoACL: Bool { origin.summaryOnly || aclFrames == 0 }
    /// The first and last HCI packet (command, event, ACL, SCO, ISO): the capture's traffic, which
    /// notes and index records written hours or days before need not share.
    package var firstTraffic: FrameTime?
    package var lastTraffic: FrameTime?
    /// Silences of an hour or more between consecutive records: the frame after each and its
    /// length (the first `maxGaps`).
    package var gaps: [Gap] = []
    package static let maxGaps = 10
    package static let gapMicros: Int64 = 3_600_000_000

    package struct Gap: Sendable, Hashable {
        package var frame: FrameNumber
        package var micros: Int64
        package init(frame: FrameNumber, micros: Int64) {
            self.frame = frame
            self.micros = micros
        }
    }
    package var firstTimestamp: Timestamp?
    package var lastTimestamp: Timestamp?
    package var health = CaptureHealth()
    /// What the input was when not a bare capture (bug report, sysdiagnose, compression…) and
    /// which files were merged into this capture.
    package var origin = CaptureOrigin()
    /// The host stack that recorded the capture, with the evidence (set by `finish()`; a
    /// partial result handed to the rules on the way carries what was found by then).
    package var platform = HostPlatform()
    /// The host stack the first `AnalysisBuilder.platformWindow` records name (all of them in a
    /// shorter capture): what the rules go by, so that a batch judged on the way, before later
    /// evidence appears, is judged as the end is. Nil in a partial result handed over before the
    /// window was read (`RuleAccumulator` keeps such batches until it knows).
    package var platformAtStart: HostPlatform?

    package init(file: String, format: String) {
        self.file = file
        self.format = format
    }
}

package struct CaptureHealth: Sendable {
    /// Records shorter than their original length.
    package var truncatedRecords = 0
    /// ACL records cut short (Android "filtered" snoop logs): ATT analysis is then incomplete.
    package var truncatedACL = 0
    /// Highest cumulative drop counter reported by the source.
    package var drops: UInt32 = 0
    package var backwardTimestamps = 0
    /// Frames where the clock jumps forward a day or more from the previous record (at most 10).
    package var forwardJumps: [FrameTime] = []
    package var implausibleTimestamps = 0
    /// A ±378-day jump or an implausible clock that 378 days would fix.
    package var epochSkewSuspected = false
    package var unknownRecords = 0
    package var malformedFrames = 0
    /// Structural read errors (from the capture reader).
    package var readErrors = 0
    package var readWarnings = 0
    /// Read errors that mean data was damaged or not read to its end: a CRC failure, corrupt
    /// compressed data, a damaged archive, a member that could not be read, a limit reached,
    /// reading stopped in the middle (not a file merely cut short at its end). Each of the
    /// first ten is a `HealthNote.dataDamaged`; `analyze` exits 1 when there is any.
    package var damage = 0
    /// ACL seen on handles whose connection setup is not in the capture.
    package var handlesWithoutSetup: [UInt16] = []
    /// Plain-language notes, typed so that readers check the kind and print its `text`.
    package var notes: [HealthNote] = []

    package init() {}

    /// True when ACL payloads are cut so that ATT/GATT counts would be wrong.
    package var attAnalysisIncomplete: Bool { truncatedACL > 0 }
}

/// A health note of the analysis: what it is (for code that acts on it) and its sentence (for
/// people; the wording may change, so match the case, never the text).
package enum HealthNote: Sendable, Hashable {
    /// PacketLogger timestamps are the device's local wall-clock time.
    case localClock
    /// The capture is Android's btsnooz summary.
    case btsnoozSummary
    /// Consecutive records `gapMicros` apart (a day or more) at `frame`.
    case forwardJump(frame: FrameNumber, gapMicros: Int64)
    /// `count` ACL records cut short: ATT and GATT figures are incomplete.
    case truncatedACL(count: Int)
    /// The records hold time differences only (raw btsnooz v2 records): the clock was anchored to
    /// the file's modification time.
    case clockFromFileTime
    /// ACL on handles whose connection setup is not in the capture.
    case setupNotCaptured(handles: [UInt16])
    /// Data damaged or not read to its end: the reader's diagnostic, as printed.
    case dataDamaged(String)
    /// More damage than the notes name one by one.
    case moreDamage(count: Int)
    /// Notes and user-logging records past the first `kept` were counted, not kept; `cut` kept
    /// ones had their text cut to `textLimit` bytes.
    case markersNotKept(kept: Int, notKept: Int, cut: Int, textLimit: Int)
    /// Advertisers let go before 15 minutes of quiet: more distinct ones were heard within that
    /// time than `limit`.
    case advertisersNotHeld(count: Int, limit: Int)

    /// The sentence printed in reports.
    package var text: String {
        switch self {
        case .localClock:
            return "PacketLogger timestamps are the device's local wall-clock time, not UTC: absolute times are off by the "
                + "device's UTC offset (intervals are unaffected)"
        case .btsnoozSummary:
            return "the capture is Android's btsnooz summary (the stack's short history: packets cut to ~150 bytes, ACL outside "
                + "L2CAP signalling to 14): ATT/GATT detail is missing; take a bug report with the HCI snoop log turned on for a full log"
        case .forwardJump(let frame, let gap):
            return "timestamps jump forward by \(Self.days(gap)) at frame \(frame): the \(frame - 1) "
                + "record(s) before it are dated earlier than the rest (PacketLogger writes its notes with the time "
                + "they were created); times in this report count from frame 1"
        case .clockFromFileTime:
            return "the records hold only the time between them (raw btsnooz records): absolute times are anchored to the file's "
                + "modification time, so dates may be wrong; intervals are exact"
        case .truncatedACL(let count):
            return "\(count) ACL records are cut short (as in Android \"filtered\" snoop logs): "
                + "ATT and GATT figures are incomplete and the rules that need them are not evaluated"
        case .setupNotCaptured(let handles):
            return "connection setup not captured for handle(s) "
                + handles.map { Hex.prefixed($0, digits: 4) }.joined(separator: ", ")
                + ": rules that need the setup are not evaluated for them"
        case .dataDamaged(let what):
            return "data damaged or not read to its end (what it hid is not analysed): \(what)"
        case .moreDamage(let count):
            return "\(count) more read error(s) of damaged or unread data"
        case .markersNotKept(let kept, let notKept, let cut, let limit):
            var parts: [String] = []
            if notKept > 0 { parts.append("\(notKept) note/user-logging record(s) after the first \(kept) were counted, not kept as markers") }
            if cut > 0 { parts.append("\(cut) marker text(s) cut to \(limit) bytes") }
            return parts.joined(separator: "; ") + " (limits.markers and limits.marker_bytes in hciscope.yml)"
        case .advertisersNotHeld(let count, let limit):
            return "\(count) advertiser(s) were let go before 15 minutes of quiet: more than \(limit) distinct advertisers were heard "
                + "within that time (limits.advertisers_held in hciscope.yml); every one is counted, and one heard again later counts twice"
        }
    }

    /// "8 d 19 h 35 min" for a gap in microseconds.
    static func days(_ micros: Int64) -> String {
        ReadableSpan.text(micros) ?? "under a minute"
    }
}

package struct Marker: Sendable, Hashable {
    package var at: FrameTime
    package var text: String
    package init(at: FrameTime, text: String) {
        self.at = at
        self.text = text
    }
}
