/// What is known of standard input ("-") beyond its bytes, for the one process-wide stream:
/// the name its capture goes by (a path elsewhere, as a job that pipes files in knows it), its
/// modification time (the only time anchor raw btsnooz records have), and its first bytes as
/// read (so a folder-style "is it a capture at all" check works without reading it again).
///
/// `analyze - --name NAME --modified SECONDS` sets the first two before anything reads "-";
/// standard input is read once, by one reader, so the values are set before they are read and
/// `head` is written and read on the thread that reads it.
public enum StandardInput {
    /// The name in diagnostics and reports; nil: "<stdin>" in diagnostics.
    nonisolated(unsafe) public static var name: String?
    /// Unix seconds; nil when unknown.
    nonisolated(unsafe) public static var modified: Int?
    /// Up to the first 8 bytes read from standard input, once a reader has looked at them.
    nonisolated(unsafe) public static var head: [UInt8]?
}
