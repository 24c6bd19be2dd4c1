import ScopeAnalysis

/// The host stack that made a capture — whose APIs a finding's advice speaks.
package enum Platform: String, Sendable, Hashable, CaseIterable, Codable {
    /// iOS, iPadOS and macOS apps through Core Bluetooth.
    case ios
    /// Android apps through `android.bluetooth.le` and `BluetoothGatt`.
    case android
    /// Linux hosts through BlueZ (bluetoothd's D-Bus API, or the kernel's mgmt interface).
    case bluez
    /// Zephyr, NimBLE and other embedded host stacks.
    case embedded

    /// "iOS / macOS (Core Bluetooth)".
    package var name: String {
        switch self {
        case .ios: return "iOS / macOS (Core Bluetooth)"
        case .android: return "Android"
        case .bluez: return "Linux (BlueZ)"
        case .embedded: return "Zephyr and other embedded stacks"
        }
    }
}

/// What a platform's code usually does to trigger a rule, how to fix it there, and what the
/// platform's own stack does that shows the same evidence without the app asking.
package struct PlatformAdvice: Sendable, Hashable {
    package var platform: Platform
    /// App (or firmware) code that usually causes the finding on this platform.
    package var cause: String
    /// The fix in this platform's API.
    package var fix: String
    /// What the stack does by itself that looks the same on HCI (nil: nothing known).
    package var stackDoes: String?

    package init(_ platform: Platform, cause: String, fix: String, stackDoes: String? = nil) {
        self.platform = platform
        self.cause = cause
        self.fix = fix
        self.stackDoes = stackDoes
    }
}

/// What a rule counts as the host stack's own doing on one platform (not a finding against the
/// app), and the evidence it goes by. `platform` nil: when the platform is unknown.
package struct PlatformAttribution: Sendable, Hashable {
    package var platform: Platform?
    package var text: String

    package init(_ platform: Platform?, _ text: String) {
        self.platform = platform
        self.text = text
    }

    /// "iOS / macOS", or "unknown platform".
    package var platformName: String { platform?.name ?? "unknown platform" }
}

/// Everything a user needs to know about one rule: the single source of `hciscope rules` and
/// docs/RULES.md (generated from it; a test keeps the two equal).
package struct RuleDocumentation: Sendable {
    /// A short title ("Scans left running").
    package var title: String
    /// What the rule judges, and on which side of the link.
    package var subject: String
    /// The HCI evidence it reads (commands, events, ATT/SMP PDUs by name).
    package var evidence: [String]
    /// When it is violated, with its thresholds named by their config keys.
    package var violated: String
    /// When it passes.
    package var passed: String
    /// When it is not evaluated.
    package var notEvaluated: String
    /// How findings are graded.
    package var severity: String
    /// Each threshold key of the rule's `defaultThresholds`: what it means and its unit.
    package var thresholds: [(key: String, meaning: String)]
    /// Why it matters: radio time, battery, latency, security.
    package var why: String
    /// Per platform, iOS first.
    package var advice: [PlatformAdvice]
    /// What is attributed to the platform rather than the app, per platform (empty: the rule
    /// judges what the app controls the same way everywhere).
    package var attribution: [PlatformAttribution]

    package init(
        title: String, subject: String, evidence: [String], violated: String, passed: String, notEvaluated: String,
        severity: String, thresholds: [(key: String, meaning: String)] = [], why: String, advice: [PlatformAdvice],
        attribution: [PlatformAttribution] = []
    ) {
        self.attribution = attribution
        self.title = title
        self.subject = subject
        self.evidence = evidence
        self.violated = violated
        self.passed = passed
        self.notEvaluated = notEvaluated
        self.severity = severity
        self.thresholds = thresholds
        self.why = why
        self.advice = advice
    }

    /// The advice for `platform`, if the rule has any.
    package func advice(for platform: Platform) -> PlatformAdvice? { advice.first { $0.platform == platform } }
}

/// The ten pieces of guidance the rules check, in this project's words (the rules' `guidance`).
package enum Guidance {
    package static let themes: [Int: String] = [
        1: "Scan only while you need to; stop once you found what you were looking for.",
        2: "Ask for every advertising report of a device only when a feature needs it (RSSI tracking); otherwise one per device is enough.",
        3: "Discover only the services and characteristics you use, by UUID.",
        4: "Subscribe to values that change instead of reading them over and over.",
        5: "Disconnect when the work is done; turn subscriptions off first.",
        6: "Reconnect to a peripheral you know directly, without scanning for it again.",
        7: "Bound every connection attempt: the controller never gives up by itself.",
        8: "Keep advertising small, and advertise only while you want a connection.",
        9: "Protect sensitive data with encryption and authenticated pairing, and make pairing succeed.",
        10: "Move bulk data in large writes over a negotiated ATT_MTU, without waiting for a response per chunk.",
    ]
}

extension Platform {
    /// The platform of a detected host stack (nil for unknown).
    package init?(_ kind: HostPlatform.Kind) {
        switch kind {
        case .ios: self = .ios
        case .android: self = .android
        case .bluez: self = .bluez
        case .embedded: self = .embedded
        case .unknown: return nil
        }
    }

    package var kind: HostPlatform.Kind {
        switch self {
        case .ios: return .ios
        case .android: return .android
        case .bluez: return .bluez
        case .embedded: return .embedded
        }
    }
}

/// The platform a rule speaks to and how sure it is (`HostPlatform`, or `--platform`).
struct PlatformContext: Sendable {
    var platform: Platform?
    /// Named on conclusive evidence or chosen by the user: the rule may attribute the platform's
    /// own traffic to it. Otherwise it says it cannot tell and lowers the severity.
    var certain: Bool

    init(_ host: HostPlatform, _ config: RuleConfiguration) {
        if let p = config.platform {
            platform = p
            certain = true
        } else {
            let host = config.detectedPlatform ?? host
            platform = Platform(host.kind)
            certain = host.isCertain
        }
    }

    /// iOS (or macOS), named for sure.
    var isIOS: Bool { platform == .ios && certain }

    /// Who `evidence` names on this platform (docs/ATTRIBUTION.md).
    func actor(_ evidence: ActorEvidence) -> Actor {
        evidence.actor(on: platform?.kind ?? .unknown, certain: certain)
    }
}
