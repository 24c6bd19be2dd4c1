import ScopeCore

/// What reading one input may cost at most, whatever the input holds (docs/LIMITS.md,
/// "Limits"; each value has a key under `limits:` in hciscope.yml, docs/CONFIG.md). The defaults
/// keep `analyze` of any input under 150 MB of memory: a hostile file gets a clear refusal or a
/// bounded reading, never memory, disk or time in proportion to what it claims.
public struct CaptureLimits: Sendable, Hashable {
    /// Members of a container read side by side at most (`open_members`): a merge of more
    /// (rotated logs, a sysdiagnose's PacketLogger files) is done in passes through temporary
    /// files, this many at a time.
    public var openMembers: Int
    /// Bytes written to temporary files for one input, at most (`spool_mb`): a zip read from a
    /// pipe or a compression layer, tar members, merge passes. What goes past it is not read,
    /// and says so.
    public var spoolBytes: Int
    /// The largest window a zstd frame may declare, as a power of two (`zstd_window_log`,
    /// libzstd's `ZSTD_d_windowLogMax`): a frame asking for more is refused at once.
    public var zstdWindowLog: Int
    /// The most memory one xz stream's decoder may use (`xz_memory_mb`, liblzma's memlimit): a
    /// dictionary that needs more is refused at once.
    public var xzMemoryBytes: Int
    /// The memory the xz, zstd and bzip2 decoders of one input use between them at most
    /// (`decoder_memory_mb`: members of a container are decoded side by side).
    public var decoderMemoryBytes: Int
    /// How far a text input is searched for a btsnooz summary (`text_scan_mb`): text with none
    /// in this stretch is refused.
    public var textScanBytes: Int
    /// The largest btsnooz summary block, base64 text (`btsnooz_summary_mb`): it is held in
    /// memory to be read twice (times are rebuilt backwards from its end).
    public var btsnoozSummaryBytes: Int
    /// The most members an archive's directory may list (`archive_members`).
    public var archiveMembers: Int

    public init(
        openMembers: Int = 32, spoolBytes: Int = 1 << 30, zstdWindowLog: Int = 25, xzMemoryBytes: Int = 80 << 20,
        decoderMemoryBytes: Int = 80 << 20, textScanBytes: Int = 512 << 20, btsnoozSummaryBytes: Int = 16 << 20,
        archiveMembers: Int = 100_000
    ) {
        self.openMembers = openMembers
        self.spoolBytes = spoolBytes
        self.zstdWindowLog = zstdWindowLog
        self.xzMemoryBytes = xzMemoryBytes
        self.decoderMemoryBytes = decoderMemoryBytes
        self.textScanBytes = textScanBytes
        self.btsnoozSummaryBytes = btsnoozSummaryBytes
        self.archiveMembers = archiveMembers
    }

    /// "8 MiB", "512 KiB", "100 bytes".
    static func size(_ n: Int) -> String {
        if n >= 1 << 20, n % (1 << 20) == 0 { return "\(grouped(n >> 20)) MiB" }
        if n >= 1 << 10, n % (1 << 10) == 0 { return "\(grouped(n >> 10)) KiB" }
        return plural(n, "byte")
    }
}

/// Memory the decoders of one input hold between them (``CaptureLimits/decoderMemoryBytes``).
/// Each xz or zstd decoder asks for what it needs once the stream's header says it and gives it
/// back when it goes; one that would go over is refused. Used by one thread at a time.
final class DecoderBudget: @unchecked Sendable {
    let total: Int
    private(set) var used = 0

    init(total: Int) { self.total = total }

    var remaining: Int { max(0, total - used) }

    /// Moves a decoder's holding from `old` to `new` bytes; false (nothing changed) when the
    /// budget cannot cover the growth.
    func change(from old: Int, to new: Int) -> Bool {
        if new > old, new - old > remaining { return false }
        used += new - old
        return true
    }
}

/// What every container, decoder and spool file opened for one input shares: the options
/// (limits among them), the decoders' memory budget and the bytes spooled so far.
final class OpenContext: @unchecked Sendable {
    let options: CaptureReader.Options
    let decoders: DecoderBudget
    /// Bytes written to temporary files for this input.
    var spooled = 0
    /// Member readers open now, in every merge of this input (a merge inside a merge opens as
    /// many as ``CaptureLimits/openMembers`` leaves, at least two).
    var openLanes = 0

    init(options: CaptureReader.Options) {
        self.options = options
        self.decoders = DecoderBudget(total: options.limits.decoderMemoryBytes)
    }

    var limits: CaptureLimits { options.limits }

    /// Spool bytes left (``CaptureLimits/spoolBytes``).
    var spoolLeft: Int { max(0, limits.spoolBytes - spooled) }

    /// The error for a spool that reached the limit.
    func spoolLimit(name: String, what: String) -> CaptureError {
        CaptureError(
            .limit, file: name,
            message: "\(what) reached the limit of \(CaptureLimits.size(limits.spoolBytes)) written to temporary files for one input "
                + "(limits.spool_mb in hciscope.yml); the rest is not read")
    }
}
