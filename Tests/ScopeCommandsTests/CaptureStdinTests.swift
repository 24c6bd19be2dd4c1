#if os(Linux)
import Foundation
import Glibc
import ScopeCommands
import ScopeTestSupport
import Testing

/// A live btsnoop stream on standard input (`adb … | hciscope show -`): the built binary is
/// fed the shipped sample through a pipe in uneven chunks with pauses, as a live producer
/// would, and must print exactly what `show FILE` prints.
@Suite("show - (a live btsnoop stream on standard input)")
struct CaptureStdinTests {
    static var binary: String? {
        if let path = builtBinary { return path }
        FileHandle.standardError.write(Data(
            "\n*** SKIPPED show - pipeline test: no built hciscope executable next to the tests (run `swift build` first) ***\n\n".utf8))
        return nil
    }

    @Test func aStreamArrivingInPiecesShowsLikeTheFile() throws {
        guard let binary = Self.binary else { return }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: shippedSample)))
        let expected = try show([shippedSample])
        #expect(expected.status == 0)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["show", "-"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read while writing so a full output pipe cannot stall the producer.
        let collected = DispatchQueue(label: "show-stdout")
        nonisolated(unsafe) var out = Data()
        let reading = DispatchGroup()
        reading.enter()
        collected.async {
            out = output.fileHandleForReading.readDataToEndOfFile()
            reading.leave()
        }
        // Uneven chunks: 5 bytes (inside the 16-byte file header), 30 (header + part of a
        // record), then growing pieces, with pauses between them.
        var offset = 0
        var size = 5
        while offset < bytes.count {
            let end = min(bytes.count, offset + size)
            input.fileHandleForWriting.write(Data(bytes[offset..<end]))
            offset = end
            size = size == 5 ? 30 : size * 2 + 7
            usleep(5_000)
        }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        reading.wait()
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == expected.status, "\(err)")
        #expect(String(decoding: out, as: UTF8.self) == expected.out)
    }
}
#endif
