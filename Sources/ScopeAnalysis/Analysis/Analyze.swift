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
    public static func analyze(path: String, resolvePrivateAddresses: Bool = true) throws -> AnalysisResult {
        try analyze(path: path, resolvePrivateAddresses: resolvePrivateAddresses, pipelined: nil)
    }

    /// `pipelined`: nil decides by the CPUs available; true/false force it (tests compare both).
    static func analyze(path: String, resolvePrivateAddresses: Bool, pipelined: Bool?) throws -> AnalysisResult {
        let reader = try CaptureReader.open(path: path)
        var builder = AnalysisBuilder(file: path, format: reader.format.rawValue)
        builder.resolvePrivateAddressesEnabled = resolvePrivateAddresses
        let running = AnalysisLoad.shared.enter()
        defer { AnalysisLoad.shared.leave() }
        // One pipeline uses two threads: only when this analysis has two CPUs to itself
        // (`analyze a b c` already runs one file per core).
        if pipelined ?? (ProcessInfo.processInfo.activeProcessorCount >= 2 * running) {
            FramePipeline.run(reader: reader, into: &builder)
        } else {
            var reader = reader
            var dissector = Dissector()
            while let record = reader.next() {
                builder.consume(dissector.decode(record))
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

/// Reading and decoding on a producer thread, analysis on the calling thread: decoded frames
/// travel in batches through a bounded queue; emptied batches go back to the producer.
/// The producer only reads and decodes (the longer part); the consumer analyses and frees the frames.
enum FramePipeline {
    /// Small enough that a batch is still in cache when the consumer reads it.
    static let batchSize = 512
    static let batchesInFlight = 4

    /// Frames in file order, and the reader diagnostics drained between them:
    /// `diagnostics[k].before` frames of this batch are consumed before `diagnostics[k].items`.
    struct Batch: Sendable {
        var frames: [DecodedFrame] = []
        var diagnostics: [(before: Int, items: [Diagnostic])] = []
        /// The producer's last batch.
        var isLast = false
    }

    /// The reader, handed over once to the producer thread (CaptureReader is not Sendable).
    final class ReaderBox: @unchecked Sendable {
        var reader: CaptureReader
        init(_ reader: CaptureReader) { self.reader = reader }
    }

    final class Channel: @unchecked Sendable {
        private let condition = NSCondition()
        private var full: [Batch] = []
        private var free: [Batch] = []
        private var allocated = 0

        /// Producer: an empty batch to fill (waits while all batches are in flight).
        func emptyBatch() -> Batch {
            condition.lock()
            defer { condition.unlock() }
            while free.isEmpty {
                if allocated < FramePipeline.batchesInFlight {
                    allocated += 1
                    var batch = Batch()
                    batch.frames.reserveCapacity(FramePipeline.batchSize)
                    return batch
                }
                condition.wait()
            }
            return free.removeLast()
        }

        func send(_ batch: Batch) {
            condition.lock()
            full.append(batch)
            condition.signal()
            condition.unlock()
        }

        /// Consumer: the next filled batch (waits for it).
        func receive() -> Batch {
            condition.lock()
            defer { condition.unlock() }
            while full.isEmpty { condition.wait() }
            return full.removeFirst()
        }

        func recycle(_ batch: Batch) {
            condition.lock()
            free.append(batch)
            condition.signal()
            condition.unlock()
        }
    }

    static func run(reader: CaptureReader, into builder: inout AnalysisBuilder) {
        let channel = Channel()
        let box = ReaderBox(reader)
        let producer = Thread {
            produce(box, channel)
        }
        producer.stackSize = 8 << 20
        producer.start()
        while true {
            var batch = channel.receive()
            var next = 0
            batch.frames.withUnsafeBufferPointer { frames in
                // Borrowed from the buffer: no copy of each frame.
                for i in frames.indices {
                    while next < batch.diagnostics.count, batch.diagnostics[next].before == i {
                        builder.noteReaderDiagnostics(batch.diagnostics[next].items)
                        next += 1
                    }
                    builder.consume(frames[i])
                }
            }
            while next < batch.diagnostics.count {
                builder.noteReaderDiagnostics(batch.diagnostics[next].items)
                next += 1
            }
            if batch.isLast { break }
            // Frames are freed here: the producer has the longer part of the work.
            batch.frames.removeAll(keepingCapacity: true)
            batch.diagnostics.removeAll()
            channel.recycle(batch)
        }
    }

    private static func produce(_ box: ReaderBox, _ channel: Channel) {
        var reader = box.reader
        var dissector = Dissector()
        var batch = channel.emptyBatch()
        while let record = reader.next() {
            batch.frames.append(dissector.decode(record))
            if reader.diagnostics.count >= 500 {
                batch.diagnostics.append((batch.frames.count, reader.drainDiagnostics()))
            }
            if batch.frames.count == batchSize {
                channel.send(batch)
                batch = channel.emptyBatch()
            }
        }
        batch.diagnostics.append((batch.frames.count, reader.drainDiagnostics()))
        _ = dissector.finish()
        batch.isLast = true
        channel.send(batch)
    }
}
