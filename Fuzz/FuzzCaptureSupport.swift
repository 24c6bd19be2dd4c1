// Reader targets: the input becomes an in-memory file (an unlinked temporary file) read through CaptureReader, the
// same path as `hciscope analyze -` (pcap/pcapng go through libpcap's stream reader).
import Glibc
import ScopeCapture
import ScopeCore
import ScopeDecode

@inline(never)
func readAll(_ input: [UInt8]) -> Int {
    guard let file = tmpfile() else { return 0 }
    defer { fclose(file) }
    let fd = fileno(file)
    var written = 0
    while written < input.count {
        let n = input.withUnsafeBytes { write(fd, $0.baseAddress! + written, input.count - written) }
        if n <= 0 { return 0 }
        written += n
    }
    lseek(fd, 0, SEEK_SET)
    guard var reader = try? CaptureReader.open(fileDescriptor: fd, name: "fuzz") else { return 0 }
    var dissector = Dissector()
    var n = 0
    while let record = reader.next() {
        n &+= touch(dissector.decode(record))
        if n & 0xFF == 0 { _ = reader.drainDiagnostics() }
    }
    n &+= dissector.finish().count &+ reader.drainDiagnostics().count &+ reader.summary.records
    reader.close()
    return n
}
