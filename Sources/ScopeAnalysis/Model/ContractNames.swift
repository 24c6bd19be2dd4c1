import ScopeCore
import ScopeDecode

/// Spec names for codes carried in the contract, so reports (which do not import ScopeDecode)
/// can print them. Added for ScopeReport.
package enum ContractNames {
    /// "Write Request", or "Unknown (0xNN)".
    package static func attOpcode(_ opcode: UInt8) -> String {
        ATTOpcode(opcode).name ?? "Unknown (0x" + Hex.string([opcode]) + ")"
    }

    /// "0x16 Connection Terminated By Local Host" (the truth files' spelling).
    package static func hciStatus(_ code: UInt8) -> String {
        "0x" + Hex.string([code]) + " " + (HCIStatus(rawValue: code).name ?? "Unknown")
    }
}
