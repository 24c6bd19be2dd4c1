import Foundation
import ScopeCapture
import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    /// Opens `path`, decodes every record and analyses it. Reader diagnostics (read errors,
    /// timestamp warnings) are recorded in `capture.health`. `resolvePrivateAddresses` resolves
    /// resolvable private addresses with the IRKs the capture distributes.
    ///
    /// Records are read and decoded a batch at a time into frames that the analysis reads where
    /// they are (``FramePipeline``). `threads`: with 2 or more, and two CPUs for this analysis,
    /// reading and decoding run on a second thread that hands the batches along to this one
    /// (at most ``FramePipeline/batchesInFlight`` batches exist, so memory stays bounded). That
    /// finishes a little sooner for a lot more CPU time (every hand-over between cores costs
    /// some), so one thread is the default. The result is the same either way.
    ///
    /// `handOver`, when given, receives batches of closed connections with their ATT detail and of
    /// closed scan sessions as the analysis goes (see `handOverSettled()`); the result then keeps
    /// only their counts. `follower`, when given, follows every connection's ATT PDUs as they
    /// are applied (see `attFollower`), and open connections then hold at most
    /// `handOverPolicy.attPDUs` of them between them (`heldATTBudget`).
    package static func analyze(
        path: String, options: CaptureReader.Options = CaptureReader.Options(), resolvePrivateAddresses: Bool = true,
        handOverPolicy: HandOverPolicy = HandOverPolicy(), threads: Int = 1, follower: (any ATTFollower)? = nil,
        handOver: ((SettledBatch) -> Void)? = nil
    ) throws -> AnalysisResult {
        try analyze(
            path: path, options: options, resolvePrivateAddresses: resolvePrivateAddresses,
            pipelined: AnalysisLoad.secondThread(threads), handOverPolicy: handOverPolicy, follower: follower, handOver: handOver)
    }

    /// `pipelined`: nil decides by the CPUs available; true/false force it (tests compare both).
    /// `detail`: what the single-thread loop's dissector works out (tests compare both).
    static func analyze(
        path: String, options: CaptureReader.Options = CaptureReader.Options(), resolvePrivateAddresses: Bool, pipelined: Bool?,
        handOverPolicy: HandOverPolicy = HandOverPolicy(), detail: DecodeDetail = .analysis, follower: (any ATTFollower)? = nil,
        handOver: ((SettledBatch) -> Void)? = nil
    ) throws -> AnalysisResult {
        let reader = try CaptureReader.open(path: path, options: options)
        var builder = AnalysisBuilder(file: SafeText.escaped(path), format: reader.format)
        builder.noteOrigin(reader.origin)
        builder.resolvePrivateAddressesEnabled = resolvePrivateAddresses
        builder.handOverPolicy = handOverPolicy
        if let follower {
            builder.attFollower = follower
            builder.heldATTBudget = handOverPolicy.attPDUs
        }
        let running = AnalysisLoad.shared.enter()
        defer { AnalysisLoad.shared.leave() }
        // The pipeline keeps about two CPUs busy: only when this analysis has two to itself
        // (`analyze a b c` already runs one file per core).
        let producer = FramePipeline.Producer(reader: reader, detail: detail)
        if pipelined ?? AnalysisLoad.hasTwoCPUs(running: running) {
            FramePipeline.run(producer, into: &builder, handOver: handOver)
        } else {
            FramePipeline.runOnOneThread(producer, into: &builder, handOver: handOver)
        }
        return builder.finish()
    }
}

/// How many `analyze` calls (and rule evaluations, `RuleEngine`) are running in this process:
/// each takes a second thread only when there are two CPUs per running one.
package final class AnalysisLoad: @unchecked Sendable {
    package static let shared = AnalysisLoad()
    private let lock = NSLock()
    private var count = 0

    /// Counts one more running analysis; returns how many run now, this one included.
    package func enter() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }

    package func leave() {
        lock.lock()
        count -= 1
        lock.unlock()
    }

    /// Whether the machine has two CPUs for each of `running` analyses.
    package static func hasTwoCPUs(running: Int) -> Bool {
        ProcessInfo.processInfo.activeProcessorCount >= 2 * running
    }

    /// What a caller allowed `threads` threads forces: one thread (false) when it allows one,
    /// nil (the CPUs decide) otherwise.
    package static func secondThread(_ threads: Int) -> Bool? {
        threads < 2 ? false : nil
    }
}

/// Frames a batch at a time: a ``Producer`` reads records and decodes each into its slot in a
/// batch (never copied), the analysis reads the frames where they are, and the next refill frees
/// them. The frames' payload arrays are not freed: the reader refills them instead of allocating
/// new ones.
///
/// One thread by default (``runOnOneThread(_:into:handOver:)``). With two (``run(_:into:handOver:)``)
/// the producer runs on a second thread and batches travel through a bounded queue, emptied
/// ones going back (at most ``batchesInFlight`` exist); the producer frees the frames when it
/// reuses a batch (glibc's malloc is slowest when one thread only allocates and another only
/// frees). That finishes little sooner for much more CPU time: the analysis sets the pace, and
/// it then misses its caches on every frame the other core wrote (on a 3 M-frame replay 4 %
/// sooner for 45 % more CPU). A third thread, reading apart from decoding, cost 2–8 % more CPU
/// again for no time saved.
enum FramePipeline {
    /// Small enough that a batch is still in cache when the next stage reads it.
    static let batchSize = 512
    /// A batch ends early once its records hold this many payload bytes (records of up to
    /// 262,144 bytes exist: 512 of them would hold 134 MB), read ``readsOf`` records at a time.
    static let batchBytes = 4 << 20
    static let readsOf = 64
    static let batchesInFlight = 4

    /// Up to ``batchSize`` items in file order, and the reader diagnostics drained between them:
    /// `diagnostics[k].before` items of this batch come before `diagnostics[k].items`. Owned by
    /// one thread at a time (handed over through a ``Channel``).
    final class Batch<Item: Sendable>: @unchecked Sendable {
        private let storage = UnsafeMutablePointer<Item>.allocate(capacity: FramePipeline.batchSize)
        /// Items `0..<count` are initialised.
        private(set) var count = 0
        var diagnostics: [(before: Int, items: [Diagnostic])] = []
        /// The stage's last batch.
        var isLast = false

        deinit {
            storage.deinitialize(count: count)
            storage.deallocate()
        }

        var isFull: Bool { count == FramePipeline.batchSize }

        /// Lends the items in order, where they are; they stay in the batch until ``removeAll()``.
        /// (`inout` only to lend them in place: `body` does not change them. Borrowed from the
        /// storage, each would be copied with its references retained.)
        func forEach(_ body: (Int, inout Item) -> Void) {
            for i in 0..<count {
                body(i, &storage[i])
            }
        }

        /// Frees the items still in the batch and leaves it empty.
        func removeAll() {
            storage.deinitialize(count: count)
            count = 0
            diagnostics.removeAll()
            isLast = false
        }
    }

    /// A bounded queue of batches between two threads, with the emptied batches' way back.
    /// A waiting side is woken when two batches are ready for it (or the last one), not for
    /// each batch: fewer sleeps and wake-ups. With four batches this cannot deadlock: the
    /// producer only waits with three or more batches queued, and the consumer only waits while
    /// the producer can still get a batch to fill.
    final class Channel<Item: Sendable>: @unchecked Sendable {
        private let condition = NSCondition()
        private var full: [Batch<Item>] = []
        private var free: [Batch<Item>] = []
        private var allocated = 0
        private var producerWaits = false
        private var consumerWaits = false

        /// Producer: a batch to fill (waits while all batches are in flight). A recycled batch
        /// still holds the items the consumer is done with: the producer frees them, on its thread.
        func batchToFill() -> Batch<Item> {
            condition.lock()
            while free.isEmpty {
                if allocated < FramePipeline.batchesInFlight {
                    allocated += 1
                    condition.unlock()
                    return Batch<Item>()
                }
                producerWaits = true
                condition.wait()
            }
            producerWaits = false
            let batch = free.removeLast()
            condition.unlock()
            return batch
        }

        func send(_ batch: Batch<Item>) {
            condition.lock()
            full.append(batch)
            if consumerWaits, full.count >= 2 || batch.isLast { condition.signal() }
            condition.unlock()
        }

        /// Consumer: the next filled batch (waits for it).
        func receive() -> Batch<Item> {
            condition.lock()
            defer { condition.unlock() }
            while full.isEmpty {
                consumerWaits = true
                condition.wait()
            }
            consumerWaits = false
            return full.removeFirst()
        }

        /// Consumer: gives a batch back (emptied, or with items for the producer to free).
        func recycle(_ batch: Batch<Item>) {
            condition.lock()
            free.append(batch)
            if producerWaits, free.count >= 2 { condition.signal() }
            condition.unlock()
        }
    }

    static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Analysis on this thread, reading and decoding on another (batches go back and forth).
    static func run(_ producer: Producer, into builder: inout AnalysisBuilder, handOver: ((SettledBatch) -> Void)? = nil) {
        let frames = Channel<DecodedFrame>()
        start {
            while true {
                let batch = frames.batchToFill()
                producer.refill(batch)
                let isLast = batch.isLast
                frames.send(batch)
                if isLast { return }
            }
        }
        while true {
            let batch = frames.receive()
            consume(batch, into: &builder, handOver: handOver)
            if batch.isLast { break }
            frames.recycle(batch)
        }
    }

    /// Reading, decoding and analysis on this thread, one batch at a time.
    static func runOnOneThread(_ producer: Producer, into builder: inout AnalysisBuilder, handOver: ((SettledBatch) -> Void)? = nil) {
        let batch = Batch<DecodedFrame>()
        repeat {
            producer.refill(batch)
            consume(batch, into: &builder, handOver: handOver)
        } while !batch.isLast
    }

    /// Analyses the frames of `batch` in order, where they are, and the reader diagnostics
    /// between them in their places.
    private static func consume(_ batch: Batch<DecodedFrame>, into builder: inout AnalysisBuilder, handOver: ((SettledBatch) -> Void)?) {
        let diagnostics = batch.diagnostics
        var next = 0
        batch.forEach { i, frame in
            while next < diagnostics.count, diagnostics[next].before == i {
                builder.noteReaderDiagnostics(diagnostics[next].items)
                next += 1
            }
            builder.consume(lent: &frame)
        }
        while next < diagnostics.count {
            builder.noteReaderDiagnostics(diagnostics[next].items)
            next += 1
        }
        // Whether anything is due is asked once a batch (at most `batchSize` frames), not after
        // every frame: the question cost 74 instructions a frame (callgrind, durnerj replay), and
        // what a batch of frames adds to the items held is bounded by the batch.
        if let handOver, builder.isDueForHandOver() { handOver(builder.handOverSettled()) }
    }

    /// Reads records and decodes each into its slot in a batch: the one producer of both loops.
    /// Handed over once to the thread that runs it (`CaptureReader` is not `Sendable`).
    final class Producer: @unchecked Sendable {
        private var reader: CaptureReader
        private var dissector: Dissector
        private let records = UnsafeMutablePointer<CaptureRecord>.allocate(capacity: FramePipeline.batchSize)

        init(reader: CaptureReader, detail: DecodeDetail) {
            self.reader = reader
            dissector = Dissector(detail: detail)
        }

        deinit { records.deallocate() }

        /// Frees the frames `batch` still holds (their payload arrays go back to the reader to
        /// refill, their PDU arrays to the dissector) and fills it with the next frames, the
        /// reader diagnostics in their places; marks it the last at the end of the input.
        func refill(_ batch: Batch<DecodedFrame>) {
            let payloads = reader.sparePayloads
            dissector.collectSpareArrays { batch.removeAll(collectingPayloadsInto: payloads, pduArraysInto: &$0) }
            var bytes = 0
            while !batch.isFull, bytes < FramePipeline.batchBytes {
                let read = reader.read(
                    into: records, capacity: min(FramePipeline.batchSize - batch.count, FramePipeline.readsOf), diagnosticThreshold: 500)
                if read == 0 {
                    batch.diagnostics.append((batch.count, reader.drainDiagnostics()))
                    _ = dissector.finish()
                    batch.isLast = true
                    return
                }
                for i in 0..<read {
                    bytes &+= records[i].payload.count
                    batch.appendDecoding((records + i).move(), with: &dissector)
                }
                if reader.diagnosticCount >= 500 { batch.diagnostics.append((batch.count, reader.drainDiagnostics())) }
            }
        }
    }

    /// Payload arrays larger than this are freed rather than reused (a rare large record must
    /// not keep its storage in circulation). Each of the few thousand arrays in circulation keeps
    /// the largest capacity it ever held: with 4096 the 10 M replay peaked 4 MB higher (43.3 vs
    /// 39–40 MB) for the same instruction count (larger payloads are rare). 1,100 bytes hold
    /// a BR/EDR 3-DH5 packet (1,021 bytes of ACL data, an array of capacity 1,032): audio
    /// streams (A2DP) send almost only those, and freeing and allocating each cost more than
    /// decoding it.
    static let largestReusedPayload = 1100

    /// PDU arrays with room for more PDUs than this are freed rather than reused (almost every
    /// ACL frame completes one PDU or none).
    static let largestReusedPDUArray = 2
}

extension FramePipeline.Batch where Item == DecodedFrame {
    /// Appends the frame `dissector` decodes from `record`, built in its slot.
    func appendDecoding(_ record: consuming CaptureRecord, with dissector: inout Dissector) {
        dissector.decode(record, into: storage + count)
        count += 1
    }

    /// ``removeAll()``, keeping the frames' payload arrays in `payloads` (those with storage
    /// of at most ``FramePipeline/largestReusedPayload`` bytes) and their PDU arrays, emptied,
    /// in `pduArrays` (those with room for at most ``FramePipeline/largestReusedPDUArray``
    /// PDUs). With the rest of each frame (slices of the payload included) freed, nothing else
    /// normally refers to them.
    func removeAll(collectingPayloadsInto payloads: SparePayloads?, pduArraysInto pduArrays: inout [[DecodedPDU]]) {
        let firstArray = pduArrays.count
        for i in 0..<count {
            let (payload, pdus) = storage[i].takeArrays()
            if payload.capacity > 0, payload.capacity <= FramePipeline.largestReusedPayload { payloads?.keep(payload) }
            if pdus.capacity > 0, pdus.capacity <= FramePipeline.largestReusedPDUArray { pduArrays.append(pdus) }
        }
        removeAll()
        for k in firstArray..<pduArrays.count { pduArrays[k].removeAll(keepingCapacity: true) }
    }
}
