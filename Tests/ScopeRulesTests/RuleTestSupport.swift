import ScopeAnalysis
import ScopeCore
import ScopeRules

/// Hand-built analysis values for rule tests. Frame n happens at `ms` milliseconds.
func rt(_ frame: FrameNumber, _ ms: Double) -> FrameTime {
    FrameTime(frame: frame, time: Timestamp(microseconds: Int64(ms * 1000)))
}

func rtResult(frames: Int = 100, lastMs: Double = 100_000) -> AnalysisResult {
    var r = AnalysisResult(capture: CaptureInfo(file: "test.btsnoop", format: "btsnoop"))
    r.capture.frames = frames
    r.capture.firstTimestamp = Timestamp(microseconds: 0)
    r.capture.lastTimestamp = Timestamp(microseconds: Int64(lastMs * 1000))
    return r
}

let rtPeer = BDAddr("C0:1D:90:F3:37:D3") ?? BDAddr(value: 1)

func rtConnection(handle: UInt16 = 1, role: Connection.Role = .central, complete: FrameTime? = rt(10, 1000)) -> Connection {
    var c = Connection(id: ConnectionID(adapter: 0, handle: handle, generation: 1), role: role)
    c.peer = rtPeer
    c.complete = complete
    return c
}

func rtATT(
    _ frame: FrameNumber, _ ms: Double, _ dir: Direction, _ opcode: UInt8, handle: UInt16? = nil, length: Int = 0,
    error: UInt8? = nil, mtu: Int = 23
) -> ATTEvent {
    ATTEvent(at: rt(frame, ms), direction: dir, opcode: opcode, handle: handle, valueLength: length, errorCode: error, mtu: mtu)
}

func rtScan(start: FrameTime, stop: FrameTime?, end: FrameTime, filter: UInt8 = 1) -> ScanSession {
    ScanSession(
        adapter: 0, start: start, end: end, stillRunningAtEnd: stop == nil, api: .legacy, active: true,
        phys: [ScanPHY(phy: "1M", active: true, intervalMicros: 100_000, windowMicros: 50_000)], filterDuplicates: filter
    )
    .with { $0.stop = stop }
}

extension ScanSession {
    func with(_ change: (inout ScanSession) -> Void) -> ScanSession {
        var copy = self
        change(&copy)
        return copy
    }
}

func rtVerdict<R: Rule>(_ rule: R.Type, _ analysis: AnalysisResult, config: RuleConfiguration = RuleConfiguration()) -> RuleVerdict {
    R().evaluate(analysis, config: config)
}
