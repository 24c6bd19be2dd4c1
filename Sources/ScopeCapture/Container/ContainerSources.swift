import ScopeCore

/// Android btsnooz records, timed backwards from the last one's time (``BTSnooz``) in two
/// streaming passes over record data that can be read again (`open` gives a fresh stream from
/// the first record each time: the summary's zlib stream inflated again, or the raw records'
/// file read again): the first pass adds up the deltas and finds where reading stops, the
/// second delivers the records. Memory holds one record, whatever the record count.
final class BTSnoozSource: RecordSource {
    private let open: () throws(CaptureError) -> ByteInput
    private let name: String
    private let version: UInt8
    private let base: Int
    /// Records the first pass read (the second delivers exactly these).
    private let count: Int
    private let firstTimestamp: Int64
    /// The first pass's diagnostics, handed over with the first record.
    private var pending: [Diagnostic]
    private var scanner: BTSnooz.Scanner?
    private var delivered = 0
    private var previous: Int64 = 0
    private var finished = false
    /// Bytes of record data the first pass read.
    private let length: Int
    private(set) var reachedEnd = true

    /// Runs the first pass (reading the whole record data once); throws only when the data
    /// cannot be opened at all.
    init(
        name: String, version: UInt8, lastTimestamp: Int64, base: Int, diagnosticLimit: Int, pending: [Diagnostic] = [],
        open: @escaping () throws(CaptureError) -> ByteInput
    ) throws(CaptureError) {
        self.open = open
        self.name = name
        self.version = version
        self.base = base
        var log = DiagnosticLog(file: name, limit: diagnosticLimit)
        for d in pending { log.add(d) }
        let input = BufferedFileReader(input: try open(), name: name)
        var scanner = BTSnooz.Scanner(input: input, version: version, base: base)
        var total: Int64 = 0
        var n = 0
        do {
            while let h = try scanner.next(log: &log) {
                if n > 0 { total = total &+ Int64(h.delta) }
                n += 1
            }
        } catch {
            log.error(frame: nil, offset: error.offset ?? base + input.offset, code: error.stoppingCode, "\(error.message); the rest is not read")
            if error.stoppingCode != .truncatedRecord { reachedEnd = false }
        }
        input.close()
        count = n
        firstTimestamp = lastTimestamp &- total
        length = base + input.offset
        self.pending = log.drain()
    }

    func next(_ log: inout DiagnosticLog, frame: FrameNumber) -> SourceStep {
        if !pending.isEmpty {
            for d in pending { log.add(d) }
            pending = []
        }
        guard !finished, delivered < count else {
            finish()
            return .end
        }
        if scanner == nil {
            do {
                scanner = BTSnooz.Scanner(input: BufferedFileReader(input: try open(), name: name), version: version, base: base)
            } catch {
                log.error(frame: frame, offset: nil, code: .readingStopped, "\(error.message); reading stopped")
                reachedEnd = false
                finish()
                return .end
            }
        }
        // The second pass meets what the first met: the diagnostics were given then.
        var quiet = DiagnosticLog(file: name, limit: 0)
        guard var s = scanner, let h = try? s.next(log: &quiet) else {
            log.error(frame: frame, offset: nil, code: .readingStopped, "the btsnooz data read differently the second time; reading stopped")
            reachedEnd = false
            finish()
            return .end
        }
        let payload = s.payload()
        scanner = s
        previous = delivered == 0 ? firstTimestamp : previous &+ Int64(h.delta)
        delivered += 1
        return .record(BTSnooz.record(h, payload: payload, timestamp: previous), offset: h.offset)
    }

    private func finish() {
        finished = true
        scanner?.input.close()
        scanner = nil
    }

    var bytesRead: Int { scanner.map { $0.base + $0.input.offset } ?? length }
    var bufferedInput: BufferedFileReader? { nil }
    func close() { finish() }
}

/// A member of a merge: its name and how to open it (again: a member is opened once to see
/// what it is, and again when its records are merged).
struct MergeMember {
    var name: String
    var open: () throws(CaptureError) -> CaptureReader
}

/// Several captures read side by side and delivered as one, in time order (Android's rotated
/// snoop logs, the PacketLogger files of a sysdiagnose). At most ``CaptureLimits/openMembers``
/// members are open at once: with more, groups of that many are merged first, each into a
/// temporary file (in passes, until few enough remain), and those are merged — the same order
/// as merging every member at once (equal times keep the members' order), in memory that does
/// not grow with the number of members. Members' diagnostics are passed on as they are (their
/// file names the member, their frame numbers the member's own); those of a pass come before
/// the first record.
final class MergedSource: RecordSource {
    private let members: [MergeMember]
    private let context: OpenContext
    private let name: String
    private var merger = Merger(lanes: [])
    private(set) var delivered: [Int]
    private var started = false
    /// Diagnostics to hand over before the first record (members that could not be read).
    private var pending: [Diagnostic]
    private var passesComplete = true

    init(members: [MergeMember], name: String, context: OpenContext, diagnostics: [Diagnostic] = []) {
        self.members = members
        self.name = name
        self.context = context
        self.delivered = Array(repeating: 0, count: members.count)
        self.pending = diagnostics
    }

    func next(_ log: inout DiagnosticLog, frame: FrameNumber) -> SourceStep {
        if !started {
            started = true
            for d in pending { log.add(d) }
            pending = []
            merger = startMerge(lanes(log: &log))
        }
        guard let (record, member) = merger.next(log: &log) else { return .end }
        delivered[member] += 1
        return .record(record, offset: nil)
    }

    /// The lanes of the final merge: the members themselves, or merged groups of them.
    private func lanes(log: inout DiagnosticLog) -> [Merger.Lane] {
        // What the limit leaves: a merge inside a member of another merge opens fewer (at least 2).
        let limit = max(2, context.limits.openMembers - context.openLanes)
        var level: [() -> Merger.Lane?] = []
        for i in members.indices {
            let member = members[i]
            level.append { () -> Merger.Lane? in
                do throws(CaptureError) {
                    return .reader(try member.open(), member: i)
                } catch {
                    return .failed(Diagnostic(
                        .error, layer: .capture, file: error.file ?? member.name, offset: error.offset,
                        code: error.kind == .limit ? .limitReached : .dataDamaged,
                        message: "\(member.name) not read: \(error.message)"))
                }
            }
        }
        var spool: SpoolFile?
        while level.count > limit {
            var next: [() -> Merger.Lane?] = []
            var start = 0
            while start < level.count {
                let group = Array(level[start..<min(start + limit, level.count)])
                start += limit
                var merger = Merger(lanes: group.compactMap { $0() }, context: context)
                var passLog = DiagnosticLog(file: name, limit: context.options.diagnosticLimit)
                if spool == nil {
                    do { spool = try SpoolFile(name: name, context: context) } catch {
                        log.error(frame: nil, offset: nil, code: .readingStopped, "\(error.message); reading stopped")
                        passesComplete = false
                        return []
                    }
                }
                guard let file = spool else { return [] }
                var writer = RecordSpool.Writer(spool: file, name: name)
                while let (record, member) = merger.next(log: &passLog) {
                    do { try writer.append(record, member: member) } catch {
                        passLog.add(Diagnostic(
                            .error, layer: .capture, file: name, code: error.kind == .limit ? .limitReached : .readingStopped,
                            message: "merging \(plural(members.count, "member")) \(limit) at a time: \(error.message)"))
                        passesComplete = false
                        break
                    }
                }
                merger.close()
                for d in passLog.drain() { log.add(d) }
                let range: (offset: Int, count: Int)
                do { range = try writer.finish() } catch {
                    log.add(Diagnostic(.error, layer: .capture, file: name, code: .readingStopped, message: error.message))
                    passesComplete = false
                    continue
                }
                let name = self.name
                next.append { .spool(RecordSpool.Reader(input: file.range(offset: range.offset, count: range.count), name: name)) }
            }
            level = next
        }
        var lanes: [Merger.Lane] = []
        for open in level {
            guard let lane = open() else { continue }
            if case .failed(let d) = lane {
                log.add(d)
                continue
            }
            lanes.append(lane)
        }
        return lanes
    }

    private func startMerge(_ lanes: [Merger.Lane]) -> Merger { Merger(lanes: lanes, context: context) }

    var bytesRead: Int { merger.bytesRead }
    var reachedEnd: Bool { passesComplete && merger.complete }
    var bufferedInput: BufferedFileReader? { nil }
    func close() { merger.close() }
}

/// A k-way merge by timestamp over lanes (readers or merged passes), ties to the lower lane.
struct Merger {
    enum Lane {
        case reader(CaptureReader, member: Int)
        case spool(RecordSpool.Reader)
        /// A member that could not be opened (its diagnostic).
        case failed(Diagnostic)
    }

    private var lanes: [Lane]
    private var heads: [(record: CaptureRecord, member: Int)?]
    private var started = false
    private(set) var complete = true
    /// Counts the readers open (``OpenContext/openLanes``); a reader is closed as soon as it ends.
    private let context: OpenContext?

    init(lanes: [Lane], context: OpenContext? = nil) {
        self.lanes = lanes
        self.heads = Array(repeating: nil, count: lanes.count)
        self.context = context
        for lane in lanes { if case .reader = lane { context?.openLanes += 1 } }
    }

    /// Closes the reader of lane `i` (it ended, or the merge is closed).
    private mutating func retire(_ i: Int) {
        guard case .reader(var reader, _) = lanes[i] else { return }
        reader.close()
        context?.openLanes -= 1
        lanes[i] = .spool(RecordSpool.Reader.empty)
    }

    private mutating func advance(_ i: Int, log: inout DiagnosticLog) {
        switch lanes[i] {
        case .reader(var reader, let member):
            heads[i] = reader.next().map { ($0, member) }
            if reader.diagnosticCount > 0 {
                for d in reader.drainDiagnostics() { log.add(d) }
            }
            if heads[i] == nil, !reader.summary.complete { complete = false }
            lanes[i] = .reader(reader, member: member)
            if heads[i] == nil { retire(i) }
        case .spool(let spool):
            do {
                heads[i] = try spool.next()
            } catch {
                heads[i] = nil
                complete = false
                log.add(Diagnostic(.error, layer: .capture, file: error.file, offset: error.offset, code: .readingStopped, message: error.message))
            }
        case .failed(let d):
            heads[i] = nil
            complete = false
            log.add(d)
            lanes[i] = .spool(RecordSpool.Reader.empty)
        }
    }

    mutating func next(log: inout DiagnosticLog) -> (CaptureRecord, Int)? {
        if !started {
            started = true
            for i in lanes.indices { advance(i, log: &log) }
        }
        var best = -1
        var bestTime = Timestamp(microseconds: 0)
        for i in heads.indices {
            guard let h = heads[i] else { continue }
            if best < 0 || h.record.timestamp < bestTime {
                best = i
                bestTime = h.record.timestamp
            }
        }
        guard best >= 0, let head = heads[best] else { return nil }
        advance(best, log: &log)
        return (head.record, head.member)
    }

    var bytesRead: Int {
        lanes.reduce(0) { n, lane in
            if case .reader(let r, _) = lane { return n + r.bytesRead }
            return n
        }
    }

    mutating func close() {
        for i in lanes.indices { retire(i) }
        lanes = []
        heads = []
    }
}

/// Records written to a spool file by a merge pass, each with the member it came from, and
/// read back. Layout per record (little-endian): member u32 · timestamp i64 · direction u8 ·
/// kind u8 + value u16 · adapter u16 · drops u32 · original length u64 · payload length u32 ·
/// payload.
enum RecordSpool {
    static let headerLength = 34

    struct Writer {
        let spool: SpoolFile
        let name: String
        let start: Int
        private var buffer: [UInt8] = []

        init(spool: SpoolFile, name: String) {
            self.spool = spool
            self.name = name
            self.start = spool.file.size
            buffer.reserveCapacity(1 << 16)
        }

        mutating func append(_ r: CaptureRecord, member: Int) throws(CaptureError) {
            var w = ByteWriter(capacity: RecordSpool.headerLength)
            w.le32(UInt32(truncatingIfNeeded: member))
            w.le64(UInt64(bitPattern: r.timestamp.microseconds))
            w.u8(r.direction == .sent ? 0 : r.direction == .received ? 1 : 2)
            let (tag, value) = RecordSpool.encode(r.kind)
            w.u8(tag)
            w.le16(value)
            w.le16(r.adapter)
            w.le32(r.drops)
            w.le64(UInt64(max(0, r.originalLength)))
            w.le32(UInt32(truncatingIfNeeded: r.payload.count))
            buffer += w.bytes
            buffer += r.payload
            if buffer.count >= 1 << 16 { try flush() }
        }

        private mutating func flush() throws(CaptureError) {
            guard !buffer.isEmpty else { return }
            defer { buffer.removeAll(keepingCapacity: true) }
            try spool.append(buffer, name: name, what: "a merge pass")
        }

        /// Writes what is buffered; returns the range of the file written.
        mutating func finish() throws(CaptureError) -> (offset: Int, count: Int) {
            try flush()
            return (start, spool.file.size - start)
        }
    }

    final class Reader {
        private let input: BufferedFileReader?
        private let name: String

        init(input: ByteInput, name: String) {
            self.input = BufferedFileReader(input: input, name: name)
            self.name = name
        }

        private init() {
            input = nil
            name = ""
        }

        static var empty: Reader { Reader() }

        func next() throws(CaptureError) -> (record: CaptureRecord, member: Int)? {
            guard let input else { return nil }
            let have = try input.fill(atLeast: RecordSpool.headerLength)
            if have == 0 { return nil }
            guard have >= RecordSpool.headerLength else {
                throw CaptureError(.cutShort, file: name, message: "a merge pass's temporary file ends inside a record")
            }
            let h = input.bytes(at: 0, count: RecordSpool.headerLength)
            input.consume(RecordSpool.headerLength)
            let member = Int(Sniffer.le32(h, 0))
            let timestamp = Int64(bitPattern: Sniffer.le64(h, 4))
            let direction: Direction = h[12] == 0 ? .sent : h[12] == 1 ? .received : .unknown
            let kind = RecordSpool.decode(h[13], Sniffer.le16(h, 14))
            let adapter = Sniffer.le16(h, 16)
            let drops = Sniffer.le32(h, 18)
            let original = Int(clamping: Sniffer.le64(h, 22))
            let count = Int(Sniffer.le32(h, 30))
            let payload: [UInt8]
            if try input.fill(atLeast: count) >= count {
                payload = input.bytes(at: 0, count: count)
                input.consume(count)
            } else {
                // Longer than the window: read in pieces.
                var bytes: [UInt8] = []
                bytes.reserveCapacity(count)
                while bytes.count < count {
                    let have = try input.fill(atLeast: min(count - bytes.count, BufferedFileReader.chunkSize))
                    if have == 0 { throw CaptureError(.cutShort, file: name, message: "a merge pass's temporary file ends inside a record") }
                    let n = min(have, count - bytes.count)
                    bytes += input.bytes(at: 0, count: n)
                    input.consume(n)
                }
                payload = bytes
            }
            return (CaptureRecord(frame: 0, timestamp: Timestamp(microseconds: timestamp), adapter: adapter, direction: direction,
                                  kind: kind, originalLength: original, payload: payload, drops: drops), member)
        }
    }

    static func encode(_ kind: RecordKind) -> (UInt8, UInt16) {
        switch kind {
        case .command: return (0, 0)
        case .event: return (1, 0)
        case .acl: return (2, 0)
        case .sco: return (3, 0)
        case .iso: return (4, 0)
        case .newIndex: return (5, 0)
        case .deleteIndex: return (6, 0)
        case .openIndex: return (7, 0)
        case .closeIndex: return (8, 0)
        case .indexInfo: return (9, 0)
        case .vendorDiagnostic: return (10, 0)
        case .systemNote: return (11, 0)
        case .userLogging: return (12, 0)
        case .controlOpen: return (13, 0)
        case .controlClose: return (14, 0)
        case .controlCommand: return (15, 0)
        case .controlEvent: return (16, 0)
        case .driver: return (17, 0)
        case .socketData: return (18, 0)
        case .lmp: return (19, 0)
        case .packetLoggerText(let t): return (20, UInt16(t))
        case .unknownMonitor(let o): return (21, o)
        case .unknownH4(let t): return (22, UInt16(t))
        case .unknownPacketLogger(let t): return (23, UInt16(t))
        }
    }

    static func decode(_ tag: UInt8, _ value: UInt16) -> RecordKind {
        let byte = UInt8(truncatingIfNeeded: value)
        switch tag {
        case 0: return .command
        case 1: return .event
        case 2: return .acl
        case 3: return .sco
        case 4: return .iso
        case 5: return .newIndex
        case 6: return .deleteIndex
        case 7: return .openIndex
        case 8: return .closeIndex
        case 9: return .indexInfo
        case 10: return .vendorDiagnostic
        case 11: return .systemNote
        case 12: return .userLogging
        case 13: return .controlOpen
        case 14: return .controlClose
        case 15: return .controlCommand
        case 16: return .controlEvent
        case 17: return .driver
        case 18: return .socketData
        case 19: return .lmp
        case 20: return .packetLoggerText(byte)
        case 21: return .unknownMonitor(value)
        case 22: return .unknownH4(byte)
        default: return .unknownPacketLogger(byte)
        }
    }
}
