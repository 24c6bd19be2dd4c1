#if os(Linux)
import CBluetooth
import Glibc
import ScopeCore

/// SIGINT and SIGTERM as a readable descriptor (`signalfd`), so the capture loop waits on the
/// socket and the signals with one `poll` and never loses a stop to a restarted `recvmsg`
/// (glibc's `signal()` sets SA_RESTART). Create it before any other thread starts.
package final class StopSignals {
    package let fd: Int32
    private var previous = sigset_t()
    private var set = sigset_t()

    package init() throws(LiveError) {
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        guard sigprocmask(SIG_BLOCK, &set, &previous) == 0 else { throw LiveError("cannot block SIGINT/SIGTERM", errno: errno) }
        let fd = hciscope_signalfd(&set)
        guard fd >= 0 else { throw LiveError("cannot create a signalfd", errno: errno) }
        self.fd = fd
    }

    deinit {
        close(fd)
        // The stop that ended the capture is still pending (poll on the signalfd does not take
        // it): take it now, or unblocking would deliver it and kill the process before it prints
        // its summary and exits 0.
        var none = timespec()
        while sigtimedwait(&set, nil, &none) > 0 {}
        sigprocmask(SIG_SETMASK, &previous, nil)
    }
}

package struct LiveCaptureOptions: Sendable {
    /// Stop after this many records written.
    package var count: Int?
    /// Stop after this long (µs).
    package var durationMicros: Int64?
    /// Keep one controller's traffic; index events and global records are always kept.
    package var index: UInt16?

    package init(count: Int? = nil, durationMicros: Int64? = nil, index: UInt16? = nil) {
        self.count = count
        self.durationMicros = durationMicros
        self.index = index
    }
}

extension LiveCaptureOptions {
    /// What the limits say now: stop for the count, stop for the duration, or wait at most this
    /// many milliseconds (250, less when the duration ends sooner) for the next input.
    package enum Limit: Sendable, Equatable { case count, duration, wait(Int32) }

    package func limit(written: Int, since start: Timestamp) -> Limit {
        if let count, written >= count { return .count }
        guard let durationMicros else { return .wait(250) }
        let left = durationMicros - (MonitorSource.now().microseconds - start.microseconds)
        return left <= 0 ? .duration : .wait(Int32(min(250, max(1, left / 1000))))
    }
}

/// What every capture loop shares (`runLiveCapture`, `runStreamCapture`, `runH4Proxy`): the
/// limits as a poll timeout, `poll` retried when a signal interrupts it, and the status line at
/// most every 250 ms.
struct CaptureLoop {
    enum Turn: Equatable { case reached(LiveCaptureOptions.Limit), ready(Int32) }

    let options: LiveCaptureOptions
    let start = MonitorSource.now()
    private var lastStatus: Timestamp

    init(options: LiveCaptureOptions) {
        self.options = options
        lastStatus = start
    }

    /// Waits on `fds` as long as the limits allow: `.reached` with the count or duration when
    /// one is reached, else `.ready` with how many descriptors are ready (0: the wait ran out).
    func wait(_ fds: inout [pollfd], written: Int) throws(LiveError) -> Turn {
        while true {
            let limit = options.limit(written: written, since: start)
            guard case .wait(let timeout) = limit else { return .reached(limit) }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready >= 0 { return .ready(ready) }
            if errno != EINTR { throw LiveError("poll failed", errno: errno) }
        }
    }

    /// True when the status line is due (at most every 250 ms).
    mutating func statusDue() -> Bool {
        let now = MonitorSource.now()
        guard now.microseconds - lastStatus.microseconds >= 250_000 else { return false }
        lastStatus = now
        return true
    }
}

package struct LiveCaptureSummary: Sendable {
    package enum Stop: String, Sendable { case signal, count, duration, endOfInput = "end of input" }
    package var written = 0
    package var skippedByIndex = 0
    package var malformed = 0
    package var kernelDrops: UInt32 = 0
    package var controllers: Set<UInt16> = []
    package var stoppedBy: Stop = .endOfInput
}

/// Records from `source` until a stop signal, the count, the duration or the end of input.
/// Each record is handed to `write` (which must put it on disk) before anything else happens
/// to it; `status` is called at most every 250 ms for a live status line.
package func runLiveCapture(
    source: any LiveSource, stopFD: Int32, options: LiveCaptureOptions,
    write: (CaptureRecord) throws(LiveError) -> Void,
    status: ((LiveCaptureSummary) -> Void)? = nil,
    problem: (LiveError) -> Void = { _ in }
) throws(LiveError) -> LiveCaptureSummary {
    var summary = LiveCaptureSummary()
    var loop = CaptureLoop(options: options)
    var frame = 0
    func handle(_ result: Result<MonitorMessage, LiveError>) throws(LiveError) {
        switch result {
        case .failure(let error) where error.isNothingYet:
            break
        case .failure(let error):
            summary.malformed += 1
            problem(error)
        case .success(let message):
            let record = message.record(frame: frame + 1)
            if let index = options.index, !keeps(record, index: index) {
                summary.skippedByIndex += 1
            } else {
                frame += 1
                try write(record)
                summary.written += 1
                if record.adapter != AdapterIndex.noController { summary.controllers.insert(record.adapter) }
            }
        }
    }
    while true {
        var fds = [pollfd(fd: source.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        if case .reached(let limit) = try loop.wait(&fds, written: summary.written) {
            summary.stoppedBy = limit == .count ? .count : .duration
            break
        }
        if fds[1].revents != 0 {
            // Keep what the kernel already queued: drain without waiting, then stop.
            while summary.written < (options.count ?? .max) {
                var one = pollfd(fd: source.fd, events: Int16(POLLIN), revents: 0)
                guard poll(&one, 1, 0) > 0, one.revents & Int16(POLLIN) != 0, let result = try source.receive() else { break }
                try handle(result)
            }
            summary.stoppedBy = .signal
            break
        }
        if fds[0].revents & Int16(POLLIN) != 0 {
            guard let result = try source.receive() else {
                summary.stoppedBy = .endOfInput
                break
            }
            try handle(result)
        } else if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 {
            summary.stoppedBy = .endOfInput
            break
        }
        summary.kernelDrops = source.kernelDrops
        if let status, loop.statusDue() { status(summary) }
    }
    summary.kernelDrops = source.kernelDrops
    return summary
}

/// `-i INDEX`: that controller's records, every controller's index events, global records.
func keeps(_ record: CaptureRecord, index: UInt16) -> Bool {
    if record.adapter == index || record.adapter == AdapterIndex.noController { return true }
    switch record.kind {
    case .newIndex, .deleteIndex, .openIndex, .closeIndex, .indexInfo: return true
    default: return false
    }
}
#endif
