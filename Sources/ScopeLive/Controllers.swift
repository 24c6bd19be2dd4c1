#if os(Linux)
import CBluetooth
import Glibc
import ScopeCore

/// A Bluetooth controller the kernel knows, as libbluetooth's `hci_devinfo` describes it.
package struct ControllerInfo: Sendable, Hashable {
    /// "hci0".
    package var name: String
    package var index: UInt16
    package var address: BDAddr
    /// HCI_UP: the controller is powered and the kernel talks to it.
    package var isUp: Bool
}

/// The controllers of this machine (libbluetooth; the only place the command layer needs it).
package enum Controllers {
    /// Every controller index 0…63 that `hci_devinfo` answers for. Throws when the kernel has no
    /// Bluetooth at all (so "no controllers" and "no Bluetooth" read differently).
    package static func list() throws(LiveError) -> [ControllerInfo] {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        if probe < 0 {
            let code = errno
            if code == EAFNOSUPPORT || code == EPROTONOSUPPORT {
                throw LiveError("this kernel has no Bluetooth support (no AF_BLUETOOTH): no controllers to list", errno: code)
            }
        } else {
            close(probe)
        }
        var found: [ControllerInfo] = []
        for id in Int32(0)..<64 {
            var info = hci_dev_info()
            guard hci_devinfo(id, &info) == 0 else { continue }
            let name = withUnsafeBytes(of: &info.name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            let address = withUnsafeBytes(of: &info.bdaddr) { BDAddr(littleEndian: Array($0)) }
            let up = (info.flags & (1 << UInt32(HCI_UP))) != 0
            found.append(ControllerInfo(name: name, index: UInt16(id), address: address, isUp: up))
        }
        return found
    }

    /// False only when the kernel says there is no controller `index` (ENODEV); any other answer
    /// (present, or the question cannot be asked) counts as present, so recording is not refused
    /// on a guess.
    package static func mayExist(index: UInt16) -> Bool {
        var info = hci_dev_info()
        return !(hci_devinfo(Int32(index), &info) != 0 && errno == ENODEV)
    }
}
#endif
