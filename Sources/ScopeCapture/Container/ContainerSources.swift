import ScopeCore

/// Records decoded up front (a btsnooz summary: small and bounded by the stack, and timed
/// backwards from its end, so it cannot be delivered before it is read whole).
final class PreparedSource: RecordSource {
    private var entries: [BTSnooz.Entry]
    private var index = 0
    private let length: Int
    /// Diagnostics found while decoding, handed over with the first record.
    private var pending: [Diagnostic]

    init(entries: [BTSnooz.Entry], length: Int, diagnostics: [Diagnostic]) {
        self.entries = entries
        self.length = length
        self.pending = diagnostics
    }

    func next(_ log: inout DiagnosticLog, frame: FrameNumber) -> SourceStep {
        if !pending.isEmpty {
            for d in pending { log.add(d) }
            pending = []
        }
        guard index < entries.count else {
            entries = []
            return .end
        }
        defer { index += 1 }
        return .record(entries[index].record, offset: entries[index].offset)
    }

    var bytesRead: Int { index >= entries.count ? length : entries[index].offset }
    var reachedEnd: Bool { true }
    var bufferedInput: BufferedFileReader? { nil }
    func close() { entries = [] }
}

/// Several captures read side by side and delivered as one, in time order (Android's rotated
/// snoop logs, the PacketLogger files of a sysdiagnose). Each member keeps its own reader, so
/// memory holds one record per member; equal times keep the members' order. Members'
/// diagnostics are passed on as they are (their file names the member, their frame numbers
/// the member's own).
final class MergedSource: RecordSource {
    private var members: [CaptureReader]
    private var heads: [CaptureRecord?]
    private(set) var delivered: [Int]
    private var started = false

    init(members: [CaptureReader]) {
        self.members = members
        self.heads = Array(repeating: nil, count: members.count)
        self.delivered = Array(repeating: 0, count: members.count)
    }

    func next(_ log: inout DiagnosticLog, frame: FrameNumber) -> SourceStep {
        if !started {
            started = true
            for i in members.indices { heads[i] = members[i].next() }
        }
        var best = -1
        for i in heads.indices {
            guard let h = heads[i] else { continue }
            if best < 0 || h.timestamp < heads[best]!.timestamp { best = i }
        }
        for i in members.indices where members[i].diagnosticCount > 0 {
            for d in members[i].drainDiagnostics() { log.add(d) }
        }
        guard best >= 0, let record = heads[best] else { return .end }
        delivered[best] += 1
        heads[best] = members[best].next()
        if members[best].diagnosticCount > 0 {
            for d in members[best].drainDiagnostics() { log.add(d) }
        }
        return .record(record, offset: nil)
    }

    var bytesRead: Int { members.reduce(0) { $0 + $1.bytesRead } }
    var reachedEnd: Bool { members.allSatisfy { $0.summary.complete } }
    var bufferedInput: BufferedFileReader? { nil }
    func close() {
        for i in members.indices { members[i].close() }
    }
}
