import CBuildInfo

/// What this binary is: the one version number (reports and `--version` print it) and the commit
/// it was built from.
package enum BuildInfo {
    package static let version = "0.2.0"
    /// 12 hex digits of the commit, "-dirty" when built from a tree with uncommitted changes;
    /// "unknown" when the package was not built from a git checkout.
    package static let commit = String(cString: hciscope_build_commit())
    /// `hciscope --version`: "0.2.0 (commit 019dd86f3a2b)".
    package static var versionLine: String { "\(version) (commit \(commit))" }
}
