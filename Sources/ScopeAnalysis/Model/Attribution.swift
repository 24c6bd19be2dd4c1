import ScopeCore

// Who did what (docs/ATTRIBUTION.md). A phone's capture holds the operating system's own scans,
// advertising and connections, the peer's behaviour and the app's: the analysis records, for
// every item it judges, the signal in the frames that says whose doing the item is
// (`ActorEvidence`); which actor that signal names depends on the platform that recorded the
// capture (`ActorSignal.actor(on:certain:)`), so the analysis records the fact and the rules and
// reports resolve it with the platform they go by. One table, documented in ATTRIBUTION.md and
// printed by `hciscope rules --attribution`.

/// Who did it.
package enum Actor: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The app (or the firmware) whose developer reads the report: what it asked of its stack.
    case app
    /// The local platform's own Bluetooth activity (bluetoothd, the Android stack and Google
    /// Play services, BlueZ's bluetoothd): nothing the app asked for.
    case os
    /// The remote device.
    case peer
    /// The frames do not say: judged as the app's, and the report says so.
    case unknown

    /// Whether findings of this actor count for `--fail-on` and the default report (the app's,
    /// and what cannot be told apart from it).
    package var judgedAsApp: Bool { self == .app || self == .unknown }

    /// "the app", "the system", "the peer", "app or system (unknown)".
    package var label: String {
        switch self {
        case .app: return "the app"
        case .os: return "the system"
        case .peer: return "the peer"
        case .unknown: return "app or system (not told apart)"
        }
    }

    var rank: Int {
        switch self {
        case .app: return 0
        case .unknown: return 1
        case .os: return 2
        case .peer: return 3
        }
    }
    package static func < (a: Actor, b: Actor) -> Bool { a.rank < b.rank }
}

/// What the frames show about who started an item: one signature of docs/ATTRIBUTION.md.
package enum ActorSignal: String, Sendable, Hashable, CaseIterable {
    // Scanning.
    /// A scan enabled within `AttributionPolicy.bootWindow` of an HCI Reset's Command Complete:
    /// the stack restores its own scanners before any app can run.
    case scanAfterReset = "scan_after_reset"
    /// A scan with exactly the parameters (type, interval and window per PHY) of a scan the stack
    /// started after the reset: the stack's background scan, resumed whenever an app's scan stops.
    case scanStackProfile = "scan_stack_profile"
    /// A low-duty scan (at most 25 %) while the controller's advertising filters (Android APCF,
    /// vendor OCF 0x157) were enabled that delivered no advertising report: scanning offloaded
    /// to the controller for the system's watchers.
    case scanControllerFiltered = "scan_controller_filtered"
    /// A passive scan that reports only devices on the Filter Accept List: a background
    /// reconnection watch for known devices.
    case scanAcceptListPassive = "scan_accept_list_passive"
    /// A scan enabled within `AttributionPolicy.nearResetWindow` of a reset that matches no profile
    /// of the stack: an app scanning as Bluetooth comes on looks the same as the stack.
    case scanNearReset = "scan_near_reset"

    // Advertising.
    /// Advertising data with Apple's manufacturer data (company 0x004C): iOS and macOS advertise
    /// for their own services (Continuity, Handoff, AirDrop, Find My); Core Bluetooth apps cannot
    /// set manufacturer data.
    case advertisingAppleData = "advertising_apple_data"
    /// Advertising data with a Google system service (Fast Pair 0xFE2C, Nearby 0xFEF3 and
    /// 0xFCF1, Exposure Notification 0xFD6F, …): Google Play services', not the app's.
    case advertisingGoogleService = "advertising_google_service"
    /// Advertising enabled within `AttributionPolicy.bootWindow` of an HCI Reset.
    case advertisingAfterReset = "advertising_after_reset"

    // Connections.
    /// A connection request to the Filter Accept List within `AttributionPolicy.nearResetWindow`
    /// of a reset: the stack reconnecting its bonded devices as Bluetooth comes on.
    case requestAcceptListAfterReset = "request_accept_list_after_reset"
    /// A connection request to the Filter Accept List (no address in the request): a background
    /// reconnection (iOS bluetoothd and BlueZ keep one for known devices; Android for
    /// `autoConnect = true`); for a connection, one to a bonded device (encrypted with stored keys).
    case requestAcceptList = "request_accept_list"
    /// A connection that came from a Filter Accept List request to a device it is not bonded with
    /// (never encrypted with stored keys): iOS and BlueZ connect every device through the accept
    /// list, an app's too.
    case requestAcceptListUnbonded = "request_accept_list_unbonded"
    /// The connection came up in the peripheral role: the remote central connected.
    case remoteCentral = "remote_central"
    /// A BR/EDR (classic) link.
    case classicLink = "classic_link"
    /// The connection's setup is not in the capture.
    case setupNotCaptured = "setup_not_captured"

    // GATT.
    /// The remote device was the GATT client.
    case remoteClient = "remote_client"
    /// Discovery the host stack does by itself whatever the app asks: iOS bluetoothd and BlueZ
    /// discover (and cache) the whole database on connection; Android's `discoverServices()`
    /// discovers every service, characteristic and descriptor and takes no UUIDs.
    case stackDiscovery = "stack_discovery"

    // Pairing and links.
    /// The remote device's SMP PDU (Pairing Request or Response) lacked the feature.
    case remotePairingFeatures = "remote_pairing_features"
    /// The local host's SMP PDU lacked the feature (Secure Connections, MITM): the host stack
    /// sets them, not an app (Android's and iOS's stacks; on Linux the adapter's settings and
    /// the pairing agent's IO capability, the system's or the developer's).
    case localPairingFeatures = "local_pairing_features"
    /// The remote device ended the link (Disconnection Complete with a remote reason, or a
    /// pairing it refused).
    case remoteEnded = "remote_ended"

    /// The local host disconnected because it was powering off (Disconnect reason 0x15):
    /// Bluetooth being turned off, the system's doing.
    case localPowerOff = "local_power_off"

    /// The local host asked for it and no platform signature matched: the app, where the
    /// platform lets apps be told apart from the system.
    case localRequest = "local_request"

    /// A signature of the system's own activity (on the platforms it applies to): a scan of
    /// this kind is never the app's search for a device.
    package var isSystemSignature: Bool {
        switch self {
        case .scanAfterReset, .scanStackProfile, .scanControllerFiltered, .scanAcceptListPassive, .advertisingAppleData,
            .advertisingGoogleService, .advertisingAfterReset, .requestAcceptListAfterReset, .stackDiscovery:
            return true
        default:
            return false
        }
    }

    /// Who the signal names on `platform` (nil: unknown), named with certainty or not. Unsure
    /// means unknown: a platform named only on suggestive evidence attributes nothing to the
    /// system or the app.
    package func actor(on platform: HostPlatform.Kind, certain: Bool) -> Actor {
        switch self {
        case .remoteCentral, .remoteClient, .remotePairingFeatures, .remoteEnded:
            return .peer
        case .setupNotCaptured, .scanNearReset:
            return .unknown
        default:
            break
        }
        guard certain else { return .unknown }
        switch (self, platform) {
        case (.scanAfterReset, .android), (.scanAfterReset, .ios), (.scanAfterReset, .bluez),
            (.scanStackProfile, .android), (.scanStackProfile, .ios), (.scanStackProfile, .bluez),
            (.scanControllerFiltered, .android),
            (.scanAcceptListPassive, .ios), (.scanAcceptListPassive, .bluez),
            (.advertisingAppleData, .ios),
            (.advertisingGoogleService, .android),
            (.advertisingAfterReset, .android), (.advertisingAfterReset, .ios), (.advertisingAfterReset, .bluez),
            (.requestAcceptListAfterReset, .android), (.requestAcceptListAfterReset, .ios), (.requestAcceptListAfterReset, .bluez),
            (.requestAcceptList, .ios), (.requestAcceptList, .bluez),
            (.stackDiscovery, .android), (.stackDiscovery, .ios), (.stackDiscovery, .bluez),
            (.localPowerOff, .android), (.localPowerOff, .ios), (.localPowerOff, .bluez),
            (.localPairingFeatures, .android), (.localPairingFeatures, .ios):
            return .os
        case (_, .unknown):
            return .unknown
        // iOS: bluetoothd serves every app's scans and direct connections through one scanner
        // and one initiator; what is left once the system's signatures are out cannot be told
        // apart from them.
        case (.localRequest, .ios), (.scanControllerFiltered, .ios), (.scanControllerFiltered, .bluez), (.scanAcceptListPassive, .android),
            (.requestAcceptListUnbonded, .ios), (.requestAcceptListUnbonded, .bluez), (.localPairingFeatures, .bluez):
            return .unknown
        case (.classicLink, _):
            return .unknown
        default:
            return .app
        }
    }

    /// What the signal is, for reports ("scan enabled 0.4 s after the HCI Reset").
    package var description: String {
        switch self {
        case .scanAfterReset: return "scan enabled right after the controller's HCI Reset, before any app could run"
        case .scanStackProfile: return "scan with the parameters of the stack's own scan after the reset (its background scan, resumed when an app's scan stops)"
        case .scanControllerFiltered: return "low-duty scan with the controller's advertising filters (APCF) on that delivered no report"
        case .scanAcceptListPassive: return "passive scan for Filter Accept List devices only (background reconnection watch)"
        case .scanNearReset: return "scan enabled just after the controller reset, matching none of the stack's own scans"
        case .advertisingAppleData: return "advertising Apple manufacturer data (0x004C: Continuity, Handoff, AirDrop, Find My)"
        case .advertisingGoogleService: return "advertising a Google system service (Fast Pair, Nearby, Exposure Notification)"
        case .advertisingAfterReset: return "advertising enabled right after the controller's HCI Reset"
        case .requestAcceptListAfterReset: return "Filter Accept List connection request right after the controller reset (bonded devices reconnected)"
        case .requestAcceptList: return "Filter Accept List connection request (background reconnection of a known device)"
        case .requestAcceptListUnbonded: return "Filter Accept List connection to a device it is not bonded with"
        case .remoteCentral: return "the remote central connected (peripheral role)"
        case .classicLink: return "BR/EDR (classic) link"
        case .setupNotCaptured: return "connection setup not captured"
        case .remoteClient: return "the remote device is the GATT client"
        case .stackDiscovery: return "the host stack discovers the whole GATT database by itself"
        case .remotePairingFeatures: return "the remote device's pairing PDU lacked the feature"
        case .localPairingFeatures: return "the local host stack's pairing PDU lacked the feature"
        case .remoteEnded: return "the remote device ended it"
        case .localPowerOff: return "disconnected because Bluetooth was turning off (reason 0x15)"
        case .localRequest: return "requested by the local host"
        }
    }
}

/// The signal that attributes an item, and the first frame that shows it.
package struct ActorEvidence: Sendable, Hashable {
    package var signal: ActorSignal
    /// The frame that shows it (the reset, the profile's first scan, the data command…).
    package var frame: FrameNumber?

    package init(_ signal: ActorSignal, frame: FrameNumber? = nil) {
        self.signal = signal
        self.frame = frame
    }

    /// The local host's own request, with no platform signature.
    package static let localRequest = ActorEvidence(.localRequest)

    package func actor(on platform: HostPlatform.Kind, certain: Bool) -> Actor {
        signal.actor(on: platform, certain: certain)
    }

    /// "scan with the parameters of … (frame 145)".
    package var description: String {
        signal.description + (frame.map { " (frame \($0))" } ?? "")
    }
}

/// The windows the attribution goes by (docs/ATTRIBUTION.md).
package struct AttributionPolicy: Sendable, Hashable {
    /// After an HCI Reset's Command Complete, what the local host starts within this window is
    /// the stack's: no app runs before the stack reports Bluetooth on.
    package var bootWindowMicros: Int64 = 3_000_000
    /// Within this window, a scan matching no profile of the stack is not told apart.
    package var nearResetWindowMicros: Int64 = 5_000_000
    /// The highest duty cycle of a controller-filtered background scan.
    package var controllerFilteredMaxDuty = 0.25

    package init() {}
}

extension CaptureInfo {
    /// The platform attributions are resolved with: the one chosen with `--platform`, else the
    /// one the first `AnalysisBuilder.platformWindow` records name (what the rules go by).
    package var judgingPlatform: HostPlatform { platform.overridden ? platform : (platformAtStart ?? platform) }

    /// `judgingPlatform`'s kind and certainty, read where they are (asked for every judged item:
    /// returning the platform copies its names and evidence).
    package var judgingKind: (kind: HostPlatform.Kind, certain: Bool) {
        if !platform.overridden, let kind = platformAtStart?.kind, let certain = platformAtStart?.isCertain { return (kind, certain) }
        return (platform.kind, platform.isCertain)
    }
}

extension AnalysisResult {
    /// Who `evidence` names on the capture's platform (as the rules resolve it).
    package func actor(_ evidence: ActorEvidence) -> Actor {
        let p = capture.judgingKind
        return evidence.actor(on: p.kind, certain: p.certain)
    }
}
