/// Where a capture's records came from when the input was not a bare capture file: the
/// containers opened on the way (compression, archives, folders), what the container was
/// (an Android bug report, an iOS sysdiagnose, a btsnooz summary) and which files were merged
/// into the one capture, in the order of their first records, with the files left out and why.
public struct CaptureOrigin: Sendable, Hashable {
    /// A layer opened on the way to the records, outermost first.
    public enum Layer: Sendable, Hashable {
        case compressed(String)
        case zip
        case tar
        case folder
        /// The base64 btsnooz block of an Android bug report's text (version 1 or 2).
        case btsnoozSummary(version: UInt8)
        /// A btsnoop header followed by raw btsnooz version 2 records.
        case btsnoozRecords

        public var description: String {
            switch self {
            case .compressed(let c): return c
            case .zip: return "zip"
            case .tar: return "tar"
            case .folder: return "folder"
            case .btsnoozSummary(let v): return "btsnooz v\(v) summary"
            case .btsnoozRecords: return "btsnooz v2 records"
            }
        }
    }

    /// What the whole input is, as far as its content says.
    public enum Kind: String, Sendable, Hashable {
        case capture
        case androidBugReport = "Android bug report"
        case sysdiagnose = "iOS sysdiagnose"
        case archive
    }

    /// One file that contributed records.
    public struct Member: Sendable, Hashable {
        public var name: String
        public var format: String
        public var records: Int
        public init(name: String, format: String, records: Int = 0) {
            self.name = name
            self.format = format
            self.records = records
        }
    }

    /// A capture found in the container and not used, with the reason.
    public struct LeftOut: Sendable, Hashable {
        public var name: String
        public var reason: String
        /// True when it was left out because it could not be read (damaged, cut short, beyond a
        /// limit), false when it was readable and not needed (a duplicate, a filtered log of
        /// traffic a full log covers).
        public var unreadable: Bool
        public init(name: String, reason: String, unreadable: Bool = false) {
            self.name = name
            self.reason = reason
            self.unreadable = unreadable
        }
    }

    public var kind: Kind = .capture
    public var layers: [Layer] = []
    public var members: [Member] = []
    public var leftOut: [LeftOut] = []
    /// True when the records are the stack's short summary (btsnooz), cut to ~150 bytes each,
    /// not a full log.
    public var summaryOnly = false

    public init() {}

    /// True for a bare capture file read as is.
    public var isPlain: Bool { layers.isEmpty && members.count <= 1 && leftOut.isEmpty && kind == .capture }

    /// "Android bug report (zip): 2 files merged — FS/…/btsnoop_hci.log.last, FS/…/btsnoop_hci.log".
    public var description: String {
        var s = kind == .capture ? "" : kind.rawValue
        if !layers.isEmpty {
            let l = layers.map(\.description).joined(separator: " → ")
            s += s.isEmpty ? l : " (\(l))"
        }
        if members.count > 1 {
            s += (s.isEmpty ? "" : ": ") + "\(members.count) files merged in time order"
        } else if let m = members.first {
            s += (s.isEmpty ? "" : ": ") + m.name
        }
        if summaryOnly { s += "; a btsnooz summary (packets cut to ~150 bytes), not a full log" }
        return s
    }
}
