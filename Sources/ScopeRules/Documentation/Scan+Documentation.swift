// Documentation of the scan rules (guidance 1 and 2): `hciscope rules`, docs/RULES.md.

extension ScanLeftRunning {
    package static let documentation = RuleDocumentation(
        title: "Scans left running",
        subject: "Each scan session of the local host: from an LE Set (Extended) Scan Enable that turns scanning on "
            + "(and succeeds) to the one that turns it off, or to the end of the capture.",
        evidence: [
            "LE Set Scan Enable / LE Set Extended Scan Enable and their Command Complete status",
            "LE Set (Extended) Scan Parameters (interval, window, PHYs)",
            "LE (Extended) Advertising Report events: which addresses the scan reported",
            "LE Create Connection / LE Extended Create Connection: the connection requests made while it ran",
        ],
        violated: "A session runs more than `without_connection_request_s` (30 s) with no connection request in those "
            + "30 s — whether it was stopped later or is still running at the end of the capture; or a session stays "
            + "enabled more than `after_connection_request_s` (2 s) after the host asked to connect to an address that "
            + "this scan reported.",
        passed: "Every session ended (or led to a connection request) within 30 s, and none outlived a connection "
            + "request for a device it found by more than 2 s.",
        notEvaluated: "The capture has no successful scan enable on the local host.",
        severity: "warning",
        thresholds: [
            ("without_connection_request_s", "seconds a session may run without any connection request"),
            ("after_connection_request_s", "seconds a session may stay on after a request to a device it reported"),
        ],
        why: "While scanning, the receiver is on for the scan window of every scan interval — at a 100 % duty cycle "
            + "that is the whole time. A scan nobody stops costs the battery for nothing and, on a phone, competes "
            + "for the one radio with every connection and with Wi-Fi coexistence. Scanning on while a connection is "
            + "being set up also delays it: the controller shares its time between the two.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "`scanForPeripherals(withServices:options:)` with no matching `stopScan()` once the wanted "
                    + "peripheral is found, or no timer bounding the scan.",
                fix: "Call `stopScan()` in `centralManager(_:didDiscover:advertisementData:rssi:)` before "
                    + "`connect(_:options:)`, and stop every scan after a timeout of your choosing.",
                stackDoes: "Core Bluetooth pauses and duty-cycles scans of apps in the background by itself, and its "
                    + "own daemons scan for system features (Continuity, Find My)."),
            PlatformAdvice(
                .android,
                cause: "`BluetoothLeScanner.startScan(...)` without `stopScan(callback)` after the device is found, "
                    + "often with `SCAN_MODE_LOW_LATENCY`.",
                fix: "Call `stopScan(callback)` in `onScanResult` before `connectGatt`, post a delayed stop for every "
                    + "scan, and prefer `ScanFilter`s with `SCAN_MODE_BALANCED` or `LOW_POWER` for long searches.",
                stackDoes: "The Android stack restarts the controller's scan whenever an app starts, stops or changes "
                    + "filters, and stops scans that run for 30 minutes (they go on as opportunistic scans); those "
                    + "restarts appear as separate scan sessions."),
            PlatformAdvice(
                .bluez,
                cause: "`org.bluez.Adapter1.StartDiscovery()` without a matching `StopDiscovery()`.",
                fix: "Call `StopDiscovery()` as soon as the device appears (InterfacesAdded), and before "
                    + "`Device1.Connect()`.",
                stackDoes: "bluetoothd scans by itself for devices it auto-connects to (passive scanning with the "
                    + "accept list)."),
            PlatformAdvice(
                .embedded,
                cause: "`bt_le_scan_start()` (Zephyr; `ble_gap_disc()` on NimBLE) with no stop once the peer is found.",
                fix: "Call `bt_le_scan_stop()` in the scan callback before `bt_conn_le_create()`, and give discovery "
                    + "a timeout (`ble_gap_disc()` takes a duration)."),
        ])
}

extension ScanDuplicatesAllowed {
    package static let documentation = RuleDocumentation(
        title: "Duplicate advertising reports asked for",
        subject: "Each scan session of the local host with the controller's duplicate filter off (Filter_Duplicates 0).",
        evidence: [
            "Filter_Duplicates in LE Set Scan Enable / LE Set Extended Scan Enable",
            "LE Advertising Report and LE Extended Advertising Report events: address, address type, event type "
                + "and data of each report (a fragmented extended report counts once; scan responses count)",
        ],
        violated: "Duplicate filtering is off for a session that received reports. A report is a duplicate when the same device sent the "
            + "same event type with the same data earlier in the same session. More than `duplicate_ratio` (50 %) "
            + "duplicates is a warning, fewer an info.",
        passed: "Every scan session had the duplicate filter on, or the sessions with it off received no report.",
        notEvaluated: "The capture has no scan session.",
        severity: "warning above the ratio, info at or below it",
        thresholds: [("duplicate_ratio", "share of a session's reports (0–1) above which a finding is a warning")],
        why: "With the filter off, the controller sends an HCI event for every advertisement it hears — dozens per "
            + "second per device nearby. Each one crosses the transport, wakes the host and is parsed, to say what "
            + "the host already knows. With the filter on, the controller reports each device once per scan.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "`scanForPeripherals(withServices:options:)` with `CBCentralManagerScanOptionAllowDuplicatesKey: true`.",
                fix: "Leave the option out (it defaults to false) unless a feature needs continuous RSSI or changing "
                    + "advertising data, and then only for as long as that feature runs.",
                stackDoes: "In the background Core Bluetooth ignores the option and coalesces discoveries."),
            PlatformAdvice(
                .android,
                cause: "A long scan with the default `ScanSettings.CALLBACK_TYPE_ALL_MATCHES` and no `ScanFilter`, so "
                    + "every advertisement reaches the app.",
                fix: "The duplicate filter is the stack's choice: judge what the app controls — scan with `ScanFilter`s, "
                    + "`setCallbackType(CALLBACK_TYPE_FIRST_MATCH)` where the hardware supports it, or batch with "
                    + "`setReportDelay(ms)`, and keep scans short.",
                stackDoes: "The Android stack turns the controller's duplicate filter off for its own scans, so that it "
                    + "can serve several apps, batching and RSSI; the duplicates measured are still the cost, but "
                    + "the setting is not the app's."),
            PlatformAdvice(
                .bluez,
                cause: "Discovery left running for RSSI or data updates (`Adapter1.SetDiscoveryFilter` with "
                    + "`DuplicateData: true`, its default), or an advertisement monitor registered for a long time.",
                fix: "Set `DuplicateData: false` in `SetDiscoveryFilter` unless you track RSSI, and stop discovery and "
                    + "monitors when the feature that needs them ends.",
                stackDoes: "The kernel turns the controller's duplicate filter off by itself while an advertisement "
                    + "monitor (`AdvertisementMonitorManager1`) is registered."),
            PlatformAdvice(
                .embedded,
                cause: "`bt_le_scan_start()` without `BT_LE_SCAN_OPT_FILTER_DUPLICATE` in `bt_le_scan_param.options` "
                    + "(NimBLE: `filter_duplicates = 0` in `ble_gap_disc_params`).",
                fix: "Set `BT_LE_SCAN_OPT_FILTER_DUPLICATE` (NimBLE: `filter_duplicates = 1`)."),
        ],
        attribution: [
            PlatformAttribution(
                .android,
                "Duplicate filtering off is the Android stack's setting, not the app's: a scan session with "
                    + "Filter_Duplicates = 0 that lasted no longer than `scan.left-running`'s "
                    + "`without_connection_request_s` (or saw no duplicate) is counted as the stack's. A longer one is "
                    + "judged on what the app controls (how long it scanned, what it does with the reports), in "
                    + "`BluetoothLeScanner`/`ScanSettings` terms; when Android is only likely, the finding is info."),
        ])
}

extension ScanRestartThrottled {
    package static let documentation = RuleDocumentation(
        title: "Scans restarted until Android throttles them",
        subject: "On Android captures: each scan session without a system signature (docs/ATTRIBUTION.md), with the "
            + "starts of the scans before it on the same controller.",
        evidence: [
            "LE Set Scan Enable / LE Set Extended Scan Enable (enable) and their Command Complete status",
            "The system's own scans (after the reset, with the stack's background parameters, controller-filtered) are "
                + "left out of the count",
            "The stack's resumptions are left out too: a scan enabled within 2 s of a connection request, connection or "
                + "disconnection, and a scan enabled again within 1 s of its disable with an LE Set Random Address between "
                + "and no scan parameters (the stack changing its private address)",
        ],
        violated: "A scan starts when `max_starts` (5) others started within the `window_s` (30 s) before it: Android "
            + "7 and later keep such a scan registered but deliver no results to the app, and say nothing.",
        passed: "No scan was started with 5 others in the 30 s before it.",
        notEvaluated: "The capture is not from Android, or has no scan of the app's.",
        severity: "warning",
        thresholds: [
            ("max_starts", "scan starts an app may make within the window (at most 8 are counted)"),
            ("window_s", "the window, in seconds"),
        ],
        why: "A throttled scan finds nothing: the app waits for results that never come (and usually restarts again), "
            + "while the radio still scans for the system's other clients.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "Not judged on iOS: Core Bluetooth does not throttle restarted scans this way (it pauses background "
                    + "apps' scans instead).",
                fix: "Still, keep one `scanForPeripherals(withServices:options:)` running while it is needed rather than "
                    + "restarting it."),
            PlatformAdvice(
                .android,
                cause: "`BluetoothLeScanner.startScan` and `stopScan` in a loop: a scan restarted on every result, or "
                    + "short scans cycled by a timer.",
                fix: "Start one scan and keep it running while it is needed (with `ScanFilter`s and "
                    + "`setReportDelay`); never start more than 5 scans in 30 s.",
                stackDoes: "Android's stack restarts the controller's scan by itself whenever any client starts or "
                    + "stops; those restarts carry the stack's background parameters and are not counted. It also "
                    + "pauses the scan every few minutes to change its private address (scan disabled, LE Set Random "
                    + "Address, the same scan enabled again about 10 ms later): not counted either."),
        ])
}
