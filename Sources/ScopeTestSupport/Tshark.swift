import Foundation
import ScopeCore
import ScopeDecode

/// tshark (Debian package `tshark`), the reference decoder tests compare with, when installed:
/// found on `PATH` once (saying so once when it is not), and run with its output read back.
package enum Tshark {
    package static let path: String? = {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").map(String.init)
        for dir in dirs where FileManager.default.isExecutableFile(atPath: dir + "/tshark") { return dir + "/tshark" }
        FileHandle.standardError.write(Data("⚠️  tshark not found (apt-get install -y tshark): the comparisons with it are SKIPPED\n".utf8))
        return nil
    }()

    /// A UUID as tshark's fields write it: "0x2a05" for a 16-bit one, 32 lowercase hex digits
    /// otherwise.
    package static func uuidString(_ uuid: BluetoothUUID) -> String {
        if let u = uuid.uuid16 { return Hex.prefixed(u, digits: 4).lowercased() }
        return uuid.uuidString.lowercased().filter { $0 != "-" }
    }

    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
        package init(message: String) { self.message = message }
    }

    /// tshark's standard output for `arguments` (standard error discarded); throws when it is
    /// not installed or exits with a failure.
    package static func run(_ arguments: [String]) throws -> String {
        guard let path else { throw Failure(message: "tshark is not installed") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(message: "tshark \(arguments.joined(separator: " ")): exit \(p.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
