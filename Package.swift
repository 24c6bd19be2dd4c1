// swift-tools-version: 6.1
import PackageDescription

// Data flows one way (see docs/ARCHITECTURE.md):
// bytes → records (ScopeCapture) → decoded frames (ScopeDecode) → … → reports; ScopeCommands composes them.

/// The live layer (`hciscope capture`: the monitor socket, libpcap's live source, the H4 proxy,
/// signalfd; BlueZ's libbluetooth) is Linux-only. Everything else builds on macOS 13+ too.
/// `HCISCOPE_PORTABLE=1 swift build` leaves the live layer out on Linux as well, exactly as on
/// macOS, so CI compiles the macOS shape (Scripts/test.sh) and it cannot rot.
let portable = Context.environment["HCISCOPE_PORTABLE"].map { $0 != "" && $0 != "0" } ?? false


/// The commit this build comes from, for `hciscope --version` ("unknown" outside a git checkout).
let commit: String = {
    guard let git = Context.gitInformation else { return "unknown" }
    return String(git.currentCommit.prefix(12)) + (git.hasUncommittedChanges ? "-dirty" : "")
}()

/// Generic types named with concrete arguments get their metadata through direct accessor
/// calls, not by mangled name: a mangled name is resolved at run time by scanning every protocol
/// conformance in the binary (about 6,500, 43 % of them the Foundation libraries') for each
/// conformance it requires, a fixed cost at every start. Measured in docs/PERFORMANCE.md (a
/// 1,000-frame run 7.4 → 6.7 ms of CPU; −0.7 to −1.6 % instructions on six 300,000-frame
/// replays). Only on targets outside the library products: a package that depends on those by
/// version cannot build them with unsafe flags (Scripts/check-library-flags.py keeps it so).
let metadataAccessors: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])
]

var targets: [Target] = [
    // libpcap's API (apt: libpcap-dev). On Linux it is loaded on first use, not linked
    // (Sources/CPcap/pcap.c says why); macOS links it.
    .target(name: "CPcap", linkerSettings: [.linkedLibrary("pcap", .when(platforms: [.macOS]))]),
    // Compression libraries for compressed captures and archives (Sources/ScopeCapture/Container).
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
    .systemLibrary(name: "CLzma", pkgConfig: "liblzma", providers: [.apt(["liblzma-dev"]), .brew(["xz"])]),
    .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
    // bzip2 ships no pkg-config file on Debian; the module map links libbz2.
    .systemLibrary(name: "CBzip2", providers: [.apt(["libbz2-dev"]), .brew(["bzip2"])]),
    // C streams backed by callbacks (fopencookie / funopen), for libpcap and the buffered reader.
    .target(name: "CStreams"),
    // Values for the binary's version line; C, because a Swift -D flag cannot carry a value.
    .target(name: "CBuildInfo", cSettings: [.define("HCISCOPE_COMMIT", to: "\"\(commit)\"")]),
    .target(name: "ScopeCore"),
    .target(name: "ScopeCapture", dependencies: ["ScopeCore", "CPcap", "CZlib", "CLzma", "CZstd", "CBzip2", "CStreams"]),
    .target(name: "ScopeDecode", dependencies: ["ScopeCore"]),
    .target(name: "ScopeAnalysis", dependencies: ["ScopeDecode", "ScopeCore", "ScopeCapture"], swiftSettings: metadataAccessors),
    .target(
        name: "ScopeRules",
        dependencies: ["ScopeAnalysis", "ScopeDecode", "ScopeCore", .product(name: "Yams", package: "Yams")],
        swiftSettings: metadataAccessors
    ),
    .target(name: "ScopeReport", dependencies: ["ScopeRules", "ScopeAnalysis", "ScopeCore"], swiftSettings: metadataAccessors),
    .target(
        name: "ScopeCommands",
        dependencies: [
            "ScopeCore", "ScopeCapture", "ScopeDecode", "ScopeAnalysis", "ScopeRules", "ScopeReport", "CBuildInfo",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ] + (portable ? [] : [.target(name: "ScopeLive", condition: .when(platforms: [.linux]))]),
        swiftSettings: metadataAccessors
    ),
    .executableTarget(name: "hciscope", dependencies: ["ScopeCommands"], swiftSettings: metadataAccessors),
    .target(
        name: "ScopeTestSupport",
        dependencies: ["ScopeAnalysis", "ScopeDecode", "ScopeCapture", "ScopeCore"],
        resources: [.copy("Fixtures")]
    ),
    .testTarget(name: "ScopeCoreTests", dependencies: ["ScopeCore", "ScopeTestSupport"]),
    .testTarget(name: "ScopeCaptureTests", dependencies: ["ScopeCapture", "ScopeCore", "ScopeTestSupport"]),
    .testTarget(name: "ScopeDecodeTests", dependencies: ["ScopeDecode", "ScopeCore", "ScopeTestSupport"]),
    .testTarget(
        name: "ScopeAnalysisTests",
        dependencies: ["ScopeAnalysis", "ScopeDecode", "ScopeCapture", "ScopeCore", "ScopeTestSupport"]
    ),
    .testTarget(
        name: "ScopeRulesTests",
        dependencies: [
            "ScopeRules", "ScopeAnalysis", "ScopeDecode", "ScopeCapture", "ScopeCore", "ScopeTestSupport",
            .product(name: "Yams", package: "Yams"),
        ]
    ),
    .testTarget(
        name: "ScopeReportTests",
        dependencies: ["ScopeReport", "ScopeRules", "ScopeAnalysis", "ScopeDecode", "ScopeCore", "ScopeTestSupport"],
        exclude: ["Snapshots"]
    ),
    .testTarget(
        name: "ScopeCommandsTests",
        dependencies: ["ScopeCommands", "ScopeCapture", "ScopeDecode", "ScopeCore", "ScopeTestSupport"],
        exclude: ["Snapshots"]
    ),
]

if !portable {
    targets += [
        .systemLibrary(
            name: "CBluetooth",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),
        .target(
            name: "ScopeLive",
            dependencies: ["ScopeCore", "ScopeCapture", "CPcap", .target(name: "CBluetooth", condition: .when(platforms: [.linux]))]
        ),
        .testTarget(
            name: "ScopeLiveTests",
            dependencies: ["ScopeLive", "ScopeCapture", "ScopeCore"]
        ),
    ]
}

let package = Package(
    name: "hciscope",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "hciscope", targets: ["hciscope"]),
        .library(name: "ScopeDecode", targets: ["ScopeDecode"]),
        .library(name: "ScopeCapture", targets: ["ScopeCapture"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
    ],
    targets: targets
)
