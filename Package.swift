// swift-tools-version: 6.1
import PackageDescription

// Data flows one way (see docs/ARCHITECTURE.md):
// bytes → records (ScopeCapture) → decoded frames (ScopeDecode) → … → reports; ScopeCommands composes them.
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
    targets: [
        .systemLibrary(
            name: "CPcap",
            pkgConfig: "libpcap",
            providers: [.apt(["libpcap-dev"])]
        ),
        .systemLibrary(
            name: "CBluetooth",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),
        .target(name: "ScopeCore"),
        .target(name: "ScopeCapture", dependencies: ["ScopeCore", "CPcap"]),
        .target(name: "ScopeDecode", dependencies: ["ScopeCore"]),
        .target(name: "ScopeLive", dependencies: ["ScopeCore", "CBluetooth", "CPcap"]),
        .target(name: "ScopeAnalysis", dependencies: ["ScopeDecode", "ScopeCore", "ScopeCapture"]),
        .target(
            name: "ScopeRules",
            dependencies: ["ScopeAnalysis", "ScopeDecode", "ScopeCore", .product(name: "Yams", package: "Yams")]
        ),
        .target(name: "ScopeReport", dependencies: ["ScopeRules", "ScopeAnalysis", "ScopeCore"]),
        .target(
            name: "ScopeCommands",
            dependencies: [
                "ScopeCore", "ScopeCapture", "ScopeDecode", "ScopeAnalysis", "ScopeRules", "ScopeReport", "ScopeLive", "CBluetooth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "hciscope", dependencies: ["ScopeCommands"]),
        .target(
            name: "ScopeTestSupport",
            dependencies: ["ScopeCore"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "ScopeCoreTests", dependencies: ["ScopeCore", "ScopeTestSupport"]),
        .testTarget(name: "ScopeCaptureTests", dependencies: ["ScopeCapture", "ScopeCore", "ScopeTestSupport"]),
        .testTarget(name: "ScopeDecodeTests", dependencies: ["ScopeDecode", "ScopeCore", "ScopeTestSupport"]),
        .testTarget(name: "ScopeLiveTests", dependencies: ["ScopeLive", "ScopeCapture", "ScopeCore"]),
        .testTarget(
            name: "ScopeAnalysisTests",
            dependencies: ["ScopeAnalysis", "ScopeDecode", "ScopeCapture", "ScopeCore", "ScopeTestSupport"]
        ),
        .testTarget(
            name: "ScopeRulesTests",
            dependencies: ["ScopeRules", "ScopeAnalysis", "ScopeDecode", "ScopeCapture", "ScopeCore", "ScopeTestSupport"]
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
)
