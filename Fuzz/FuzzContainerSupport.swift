// Container targets: the input becomes a file read through CaptureReader.open(path:) with small
// limits (two members open at once, so merges go through passes; small spool, text scan and
// decoder budgets), at most `records` records. What the records hold is the decoders' targets'
// business (reader_*, dissector): here each record is only checked for what a reader promises.
import Glibc
import ScopeCapture
import ScopeCore
import ScopeDecode

let fuzzLimits = CaptureLimits(
    openMembers: 2, spoolBytes: 32 << 20, zstdWindowLog: 22, xzMemoryBytes: 16 << 20, decoderMemoryBytes: 48 << 20,
    textScanBytes: 4 << 20, btsnoozSummaryBytes: 1 << 20, archiveMembers: 4096)

/// In memory when the machine has /dev/shm (Scripts/fuzz.sh puts the spool files there too).
let fuzzPath = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/hciscope-fuzz-\(getpid()).bin"

@inline(never)
func readContainer(_ input: [UInt8], records: Int = 20_000) -> Int {
    let fd = open(fuzzPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    var written = 0
    while written < input.count {
        let n = input.withUnsafeBytes { write(fd, $0.baseAddress! + written, input.count - written) }
        if n <= 0 { break }
        written += n
    }
    close(fd)
    guard var reader = try? CaptureReader.open(path: fuzzPath, options: CaptureReader.Options(limits: fuzzLimits)) else { return 0 }
    var n = reader.origin.members.count &+ reader.origin.leftOut.count &+ reader.origin.description.utf8.count
    var count = 0
    var lastFrame = 0
    while count < records, let record = reader.next() {
        count += 1
        // Frame numbers count up (a frame read and not delivered keeps its number).
        guard record.frame > lastFrame else { fatalError("frame \(record.frame) after frame \(lastFrame)") }
        lastFrame = record.frame
        n &+= record.payload.count
        if count & 0xFF == 0 { _ = reader.drainDiagnostics() }
    }
    n &+= reader.drainDiagnostics().count &+ reader.summary.records
    reader.close()
    return n
}
