import Foundation
import ScopeCapture
import ScopeCore
import ScopeDecode

extension AnalysisBuilder {
    /// Opens `path`, decodes every record and analyses it. Reader diagnostics (read errors,
    /// timestamp warnings) are recorded in `capture.health`. `resolvePrivateAddresses` resolves
    /// resolvable private addresses with the IRKs the capture distributes.
    ///
    /// With more than one CPU free, reading and decoding run on a second thread that hands
    /// batches of decoded frames to this one (at most ``FramePipeline/batchesInFlight`` batches
    /// exist, so memory stays bounded); the result is the same as the single-thread loop's.
    ///
    /// `retire`, when given, receives batches of closed connections with their ATT detail as the
    /// analysis goes (see `retireClosedConnections()`); the result then keeps only their counts.
    public static func analyze(
        path: String, resolvePrivateAddresses: Bool = true, retirement: Retirement = Retirement(),
        retire: ((AnalysisResult) -> Void)? = nil
    ) throws -> AnalysisResult {
        try analyze(path: path, resolvePrivateAddresses: resolvePrivateAddresses, pipelined: nil, retirement: retirement, retire: retire)
    }

    /// `pipelined`: nil decides by the CPUs available; true/false force it (tests compare both).
    static func analyze(
        path: String, resolvePrivateAddresses: Bool, pipelined: Bool?, retirement: Retirement = Retirement(),
        retire: ((AnalysisResult) -> Void)? = nil
    ) throws -> AnalysisResult {
        let reader = try CaptureReader.open(path: path)
        var builder = AnalysisBuilder(file: path, format: reader.format.rawValue)
        builder.resolvePrivateAddressesEnabled = resolvePrivateAddresses
        builder.retirement = retirement
        let running = AnalysisLoad.shared.enter()
        defer { AnalysisLoad.shared.leave() }
        // One pipeline uses two threads: only when this analysis has two CPUs to itself
        // (`analyze a b c` already runs one file per core).
        if pipelined ?? (ProcessInfo.processInfo.activeProcessorCount >= 2 * running) {
            FramePipeline.run(reader: reader, into: &builder, retire: retire)
        } else {
            var reader = reader
            var dissector = Dissector()
            while let record = reader.next() {
                builder.consume(dissector.decode(record))
                if let retire, builder.hasRetirableConnections { retire(builder.retireClosedConnections()) }
                if reader.diagnostics.count >= 500 { builder.noteReaderDiagnostics(reader.drainDiagnostics()) }
            }
            builder.noteReaderDiagnostics(reader.drainDiagnostics())
            _ = dissector.finish()
        }
        return builder.finish()
    }
}

/// How many `analyze` calls are running in this process.
final class AnalysisLoad: @unchecked Sendable {
    static let shared = AnalysisLoad()
    private let lock = NSLock()
    private var count = 0

    /// Counts one more running analysis; returns how many run now, this one included.
    func enter() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }

    func leave() {
        lock.lock()
        count -= 1
        lock.unlock()
    }
}

/// Reading, decoding and analysis on three threads (reader thread → decoder thread → the
/// caller's): records and decoded frames travel in batches through bounded queues; emptied
/// batches go back to the stage that fills them, so at most ``batchesInFlight`` batches of each
/// kind exist. The consumer frees the frames.
enum FramePipeline {
    /// Small enough that a batch is still in cache when the next stage reads it.
    static let batchSize = 512
    static let batchesInFlight = 4

    /// Items in file order, and the reader diagnostics drained between them:
    /// `diagnostics[k].before` items of this batch come before `diagnostics[k].items`.
    struct Batch<Item: Sendable>: Sendable {
        var items: [Item] = []
        var diagnostics: [(before: Int, items: [Diagnostic])] = []
        /// The stage's last batch.
        var isLast = false
    }

    /// The reader, handed over once to the reader thread (CaptureReader is not Sendable).
    final class ReaderBox: @unchecked Sendable {
        var reader: CaptureReader
        init(_ reader: CaptureReader) { self.reader = reader }
    }

    /// A bounded queue of batches between two threads, with the emptied batches' way back.
    final class Channel<Item: Sendable>: @unchecked Sendable {
        private let condition = NSCondition()
        private var full: [Batch<Item>] = []
        private var free: [Batch<Item>] = []
        private var allocated = 0

        /// Producer: an empty batch to fill (waits while all batches are in flight).
        func emptyBatch() -> Batch<Item> {
            condition.lock()
            defer { condition.unlock() }
            while free.isEmpty {
                if allocated < FramePipeline.batchesInFlight {
                    allocated += 1
                    var batch = Batch<Item>()
                    batch.items.reserveCapacity(FramePipeline.batchSize)
                    return batch
                }
                condition.wait()
            }
            return free.removeLast()
        }

        func send(_ batch: Batch<Item>) {
            condition.lock()
            full.append(batch)
            condition.signal()
            condition.unlock()
        }

        /// Consumer: the next filled batch (waits for it).
        func receive() -> Batch<Item> {
            condition.lock()
            defer { condition.unlock() }
            while full.isEmpty { condition.wait() }
            return full.removeFirst()
        }

        /// Consumer: gives an emptied batch back.
        func recycle(_ batch: Batch<Item>) {
            condition.lock()
            free.append(batch)
            condition.signal()
            condition.unlock()
        }
    }

    static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 8 << 20
        thread.start()
    }

    static func run(reader: CaptureReader, into builder: inout AnalysisBuilder, retire: ((AnalysisResult) -> Void)? = nil) {
        let records = Channel<CaptureRecord>()
        let frames = Channel<DecodedFrame>()
        let box = ReaderBox(reader)
        start { read(box, into: records) }
        start { decode(records, into: frames) }
        while true {
            var batch = frames.receive()
            var next = 0
            batch.items.withUnsafeBufferPointer { items in
                // Borrowed from the buffer: no copy of each frame.
                for i in items.indices {
                    while next < batch.diagnostics.count, batch.diagnostics[next].before == i {
                        builder.noteReaderDiagnostics(batch.diagnostics[next].items)
                        next += 1
                    }
                    builder.consume(items[i])
                    if let retire, builder.hasRetirableConnections { retire(builder.retireClosedConnections()) }
                }
            }
            while next < batch.diagnostics.count {
                builder.noteReaderDiagnostics(batch.diagnostics[next].items)
                next += 1
            }
            if batch.isLast { break }
            batch.items.removeAll(keepingCapacity: true)
            batch.diagnostics.removeAll()
            frames.recycle(batch)
        }
    }

    private static func read(_ box: ReaderBox, into channel: Channel<CaptureRecord>) {
        var reader = box.reader
        var batch = channel.emptyBatch()
        while let record = reader.next() {
            batch.items.append(record)
            if reader.diagnostics.count >= 500 {
                batch.diagnostics.append((batch.items.count, reader.drainDiagnostics()))
            }
            if batch.items.count == batchSize {
                channel.send(batch)
                batch = channel.emptyBatch()
            }
        }
        batch.diagnostics.append((batch.items.count, reader.drainDiagnostics()))
        batch.isLast = true
        channel.send(batch)
    }

    private static func decode(_ input: Channel<CaptureRecord>, into output: Channel<DecodedFrame>) {
        var dissector = Dissector()
        while true {
            var records = input.receive()
            var frames = output.emptyBatch()
            records.items.withUnsafeBufferPointer { items in
                for i in items.indices { frames.items.append(dissector.decode(items[i])) }
            }
            frames.diagnostics = records.diagnostics
            frames.isLast = records.isLast
            if records.isLast {
                _ = dissector.finish()
                output.send(frames)
                return
            }
            output.send(frames)
            records.items.removeAll(keepingCapacity: true)
            records.diagnostics.removeAll()
            input.recycle(records)
        }
    }
}
