// Documentation of the connection rules (guidance 5, 6 and 7): `hciscope rules`, docs/RULES.md.

extension ConnIdleBeforeDisconnect {
    package static let documentation = RuleDocumentation(
        title: "Idle connections before a disconnect",
        subject: "Each LE connection that one side chose to end: a Disconnection Complete whose reason is not a lost "
            + "link, or the local host resetting or closing its controller with the link up. Links lost by supervision "
            + "timeout or never established are `conn.link-lost`'s; links still up at the end of the capture are "
            + "`conn.left-open`'s; BR/EDR links are not judged by LE rules.",
        evidence: [
            "LE (Enhanced) Connection Complete and Disconnection Complete (with its reason: 0x16 the local host, "
                + "0x13–0x15 the peer)",
            "ACL data in either direction on the connection (ATT, SMP, L2CAP signalling)",
        ],
        violated: "More than `idle_s` (10 s) pass without any ACL data before the Disconnection Complete (counted "
            + "from the Connection Complete when there was no data at all). The finding is the local side's when the "
            + "local host disconnected, the peer's when the peer did.",
        passed: "Every chosen disconnect came at most 10 s after the connection's last data.",
        notEvaluated: "No LE connection that one side chose to end; or the capture holds no ACL data (a btsnooz "
            + "summary), so idle time cannot be seen.",
        severity: "warning",
        thresholds: [
            ("idle_s", "seconds without ACL data before the Disconnection Complete"),
            ("supervision_timeout_reason", "the disconnection reason of a lost link (\"0x08\"): such links are not judged here but by `conn.link-lost`"),
        ],
        why: "An idle connection is not free: both sides wake for every connection event (an empty packet each way "
            + "at every interval), and the peripheral cannot advertise to others or sleep deeply.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "No `cancelPeripheralConnection(_:)` once the work is done, or a peripheral kept connected "
                    + "\"in case\".",
                fix: "Cancel the connection when done; reconnect with `connect(_:options:)` when needed again.",
                stackDoes: "iOS keeps a link up while any app or system service uses the peripheral (HID, audio, "
                    + "notifications), so cancelling only ends your app's claim."),
            PlatformAdvice(
                .android,
                cause: "No `BluetoothGatt.disconnect()` and `close()` when done.",
                fix: "Call `disconnect()` and then `close()` once the exchange is finished.",
                stackDoes: "Android keeps an LE link a few seconds after the last client closes before it disconnects."),
            PlatformAdvice(
                .bluez,
                cause: "No `Device1.Disconnect()`; or a trusted device bluetoothd reconnects to.",
                fix: "Disconnect explicitly when done."),
            PlatformAdvice(
                .embedded,
                cause: "A peripheral or central that never calls `bt_conn_disconnect()` (NimBLE: `ble_gap_terminate()`).",
                fix: "`bt_conn_disconnect(conn, BT_HCI_ERR_REMOTE_USER_TERM_CONN)` when the exchange is over."),
        ])
}

extension ConnLeftOpen {
    package static let documentation = RuleDocumentation(
        title: "Connections left open",
        subject: "Each LE connection still up when the capture ends; one up before the capture began is judged from "
            + "its last data, its actor unknown (who opened it is not in the capture).",
        evidence: [
            "LE (Enhanced) Connection Complete without a Disconnection Complete by the last frame; for a link set up "
                + "before the capture, LE-only traffic on its handle (ATT, LE signalling or SMP channels, LE "
                + "connection events)",
            "ACL data in either direction on the connection",
        ],
        violated: "No ACL data crossed the connection for more than `idle_at_end_s` (30 s) before the last frame "
            + "(counted from the Connection Complete when there was none).",
        passed: "Every connection still up at the end carried data within the last 30 s.",
        notEvaluated: "No LE connection still up at the end that carried data in the capture or whose setup it "
            + "holds (a link up before the capture began with no data in it shows no idle time); or the capture "
            + "holds no ACL data (a btsnooz summary).",
        severity: "warning",
        thresholds: [("idle_at_end_s", "seconds without ACL data before the end of the capture")],
        why: "A connection kept open with nothing to send costs a connection event every interval on both sides for "
            + "as long as it stays up.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "The app keeps the peripheral connected after the exchange: no `cancelPeripheralConnection(_:)`.",
                fix: "Cancel the connection once the exchange is done; reconnect with `connect(_:options:)` when needed.",
                stackDoes: "iOS keeps links to bonded accessories (watches, keyboards, audio) up by itself: those are "
                    + "the system's."),
            PlatformAdvice(
                .android,
                cause: "No `BluetoothGatt.disconnect()` and `close()` when done.",
                fix: "Call `disconnect()` and `close()` once the exchange is finished.",
                stackDoes: "Android keeps links to bonded HID and audio devices up by itself."),
            PlatformAdvice(.bluez, cause: "No `Device1.Disconnect()`.", fix: "Disconnect explicitly when done."),
            PlatformAdvice(
                .embedded, cause: "The application never calls `bt_conn_disconnect()`.",
                fix: "Disconnect when the exchange is over."),
        ])
}

extension ConnLinkLost {
    package static let documentation = RuleDocumentation(
        title: "Lost links",
        subject: "Each LE connection, and each connection request whose link failed in its LE Connection Complete.",
        evidence: [
            "Disconnection Complete with reason 0x08 (Connection Timeout: the supervision timeout expired) or 0x3E "
                + "(Connection Failed to be Established); LE Connection Complete with status 0x3E",
            "The parameters in force: the LE Connection Complete's, or the last LE Connection Update Complete's, and "
                + "who asked for them (the host's LE Connection Update, the peer's L2CAP Connection Parameter Update "
                + "Request or LE Remote Connection Parameter Request)",
            "The last ACL data sent and received before the loss",
            "The signal strength where the capture has it: the last Read RSSI answer on the link (and the weakest), "
                + "else the peer's last advertising report before the link came up; at or below `weak_rssi_dbm` "
                + "(-85 dBm), read at most `weak_rssi_within_s` (60 s) before the loss, the finding says the devices "
                + "were likely near the edge of range (an older reading says nothing of where they were then: it is named "
                + "with its age, and is not evidence)",
        ],
        violated: "A link ends with 0x08 or 0x3E, or a request is answered with 0x3E. An Encryption Change or Key "
            + "Refresh with status 0x08 is such a loss too, never a pairing failure.",
        passed: "No LE link was lost.",
        notEvaluated: "No LE connection or connection request in the capture.",
        severity: "warning",
        thresholds: [
            ("weak_rssi_dbm", "a signal at or below this (dBm) is called weak, the devices likely near the edge of range"),
            ("weak_rssi_within_s", "only a reading taken this long before the loss or less (seconds) is called weak"),
        ],
        why: "A lost link keeps both radios listening for a whole supervision timeout before anyone learns it is "
            + "gone, drops what was in flight, and leaves the app to notice and reconnect. Losses at close range point "
            + "at parameters (a supervision timeout too short for the peer's latency), power or antenna problems.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "The peripheral went out of range or was switched off; or a supervision timeout too short for "
                    + "it (iOS uses 720 ms by default for the links it opens).",
                fix: "Handle `centralManager(_:didDisconnectPeripheral:error:)` with `CBError.connectionTimeout` by "
                    + "reconnecting with `connect(_:options:)`; from the peripheral, ask for a longer supervision "
                    + "timeout (Apple's accessory guidelines allow up to 6 s) if losses happen in range."),
            PlatformAdvice(
                .android,
                cause: "The peripheral went out of range or was switched off (`onConnectionStateChange` status 8, "
                    + "GATT_CONN_TIMEOUT; status 62 / 0x3E: the link failed to be established).",
                fix: "On status 8 or 62, `close()` the `BluetoothGatt` and reconnect (`connectGatt` with "
                    + "`autoConnect = true` waits for the device to come back); for 0x3E, retry a few times."),
            PlatformAdvice(
                .bluez,
                cause: "The device went out of range (`Device1.Connected` turns false with no Disconnect).",
                fix: "Reconnect when the device is back; tune `SupervisionTimeout` in main.conf's [LE] section if "
                    + "losses happen in range."),
            PlatformAdvice(
                .embedded,
                cause: "The peer went away, or connection parameters with a supervision timeout too short for the "
                    + "peripheral latency and interval.",
                fix: "Choose a supervision timeout of at least 6 intervals × (1 + latency); request new parameters "
                    + "with `bt_conn_le_param_update()`; handle `BT_HCI_ERR_CONN_TIMEOUT` by reconnecting."),
        ])
}

extension ConnSubscriptionsLeftOn {
    package static let documentation = RuleDocumentation(
        title: "Disconnecting with subscriptions on",
        subject: "Bonded LE connections the local host disconnected (HCI Disconnect) while acting as GATT client: a "
            + "link is bonded when it was paired with bonding on both sides, or encrypted without pairing (keys of an "
            + "earlier bond).",
        evidence: [
            "CCCD writes by the local host (0x0001 notifications, 0x0002 indications, 0x0000 off)",
            "HCI Disconnect sent by the local host",
        ],
        violated: "The host sends Disconnect while a CCCD it enabled is still on. Disconnections by the peer, link "
            + "loss and links that are not bonded are not judged: a server resets the CCCDs of a client that has not "
            + "bonded at each connection (Core v5.4 Vol 3 Part G §3.3.3.3), so a subscription left on costs nothing there.",
        passed: "Every subscription was turned off before the host disconnected.",
        notEvaluated: "The local host disconnected no bonded connection as its GATT client.",
        severity: "info",
        why: "A bonded peripheral keeps its CCCD values across connections (the Core specification requires it), "
            + "so it goes on preparing and sending notifications at the next connection, for a client that may no "
            + "longer want them.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "`cancelPeripheralConnection(_:)` without `setNotifyValue(false, for:)` first.",
                fix: "Turn notifications off, wait for `peripheral(_:didUpdateNotificationStateFor:error:)`, then "
                    + "cancel the connection."),
            PlatformAdvice(
                .android,
                cause: "`disconnect()` without `setCharacteristicNotification(characteristic, false)` and writing "
                    + "`DISABLE_NOTIFICATION_VALUE` to the CCCD.",
                fix: "Disable notifications (both steps) and wait for `onDescriptorWrite` before `disconnect()`."),
            PlatformAdvice(
                .bluez,
                cause: "`Device1.Disconnect()` without `StopNotify()`.",
                fix: "Call `GattCharacteristic1.StopNotify()` first."),
            PlatformAdvice(
                .embedded,
                cause: "`bt_conn_disconnect()` with subscriptions still active (NimBLE: CCCD not written back).",
                fix: "`bt_gatt_unsubscribe()` before disconnecting."),
        ])
}

extension ConnReconnectByScan {
    package static let documentation = RuleDocumentation(
        title: "Scanning to reconnect to a known peripheral",
        subject: "Connection requests to an address (or resolved identity) the host was connected to earlier in the capture.",
        evidence: [
            "LE Create Connection / LE Extended Create Connection: the peer address (for a request to the Filter "
                + "Accept List, the peer its LE Connection Complete names)",
            "the earlier connection to that peer and its Disconnection Complete",
            "scan enables between the two",
            "SMP Identity Information and Identity Address Information: the IRKs that resolve a peer's private addresses",
        ],
        violated: "The host started a scan after the earlier connection to that peer ended and before the next "
            + "connection request to it. A scan with a signature of the system's own (docs/ATTRIBUTION.md) counts "
            + "only when it found the peer again and the host then asked for it by address.",
        passed: "Every reconnection was requested without scanning first.",
        notEvaluated: "No peer was connected to twice in the capture.",
        severity: "info",
        why: "A direct connection request (or a pending connection on the accept list) finds the peripheral at its "
            + "next advertisement; scanning first adds a full scan, its reports and the app's decision before the "
            + "same request is made.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "Scanning again instead of `retrievePeripherals(withIdentifiers:)` or "
                    + "`retrieveConnectedPeripherals(withServices:)` followed by `connect(_:options:)`.",
                fix: "Keep the peripheral's identifier and connect to it directly; a pending `connect` waits for it "
                    + "without a scan. Scan only when that fails."),
            PlatformAdvice(
                .android,
                cause: "A new `startScan` to find a device the app already knows.",
                fix: "`BluetoothAdapter.getRemoteDevice(address)` and `connectGatt(context, true, callback)` "
                    + "(autoConnect): the stack waits for the device through the accept list. Bond with devices that "
                    + "use private addresses so the identity address works."),
            PlatformAdvice(
                .bluez,
                cause: "`StartDiscovery()` before reconnecting.",
                fix: "Call `Device1.Connect()` on the known device's object path (set it `Trusted` to let bluetoothd "
                    + "reconnect by itself)."),
            PlatformAdvice(
                .embedded,
                cause: "`bt_le_scan_start()` before reconnecting (NimBLE: `ble_gap_disc()`).",
                fix: "`bt_conn_le_create()` with the stored address, or the accept list with "
                    + "`bt_conn_le_create_auto()` (NimBLE: `ble_gap_connect()` with the bonded identity)."),
        ])
}

extension ConnAttemptUnbounded {
    package static let documentation = RuleDocumentation(
        title: "Unbounded connection attempts",
        subject: "Each LE Create Connection / LE Extended Create Connection the local host sent.",
        evidence: [
            "LE Create Connection / LE Extended Create Connection, with their initiator filter policy",
            "LE Create Connection Cancel",
            "LE (Enhanced) Connection Complete: success, failure or cancellation (0x02 Unknown Connection Identifier)",
        ],
        violated: "A request is neither completed nor cancelled within `pending_s` (10 s); a request still pending at "
            + "the end of the capture counts up to the last frame.",
        passed: "Every request completed or was cancelled within 10 s.",
        notEvaluated: "No connection request in the capture.",
        severity: "warning",
        thresholds: [("pending_s", "seconds a request may stay pending")],
        why: "The controller never gives up on a connection request: while one is pending it scans for the peer at "
            + "the request's scan interval and window, often at full duty, until the peer appears or the host "
            + "cancels.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "`connect(_:options:)` with no timer; Core Bluetooth never times a connection out.",
                fix: "Start a timer with every foreground `connect` and call `cancelPeripheralConnection(_:)` when it "
                    + "fires. A pending connect meant to wait for a peripheral to come back (reconnection in the "
                    + "background) is fine: iOS runs it on the accept list at a low duty cycle.",
                stackDoes: "bluetoothd turns pending connects of every app and of the system (accessories, Continuity) "
                    + "into accept-list connection requests (initiator filter policy 1), cancelling and re-issuing "
                    + "them as the list changes; those are the platform's background reconnections."),
            PlatformAdvice(
                .android,
                cause: "`connectGatt(..., autoConnect = true)` used for a foreground connection, or an "
                    + "`autoConnect = false` attempt left to the stack's own 30 s timeout.",
                fix: "Use `autoConnect = false` with the app's own timeout for foreground connections (`disconnect()` + "
                    + "`close()` when it fires); keep `autoConnect = true` for background reconnection.",
                stackDoes: "The Android stack runs `autoConnect = true` requests on the accept list without a timeout, "
                    + "and times out direct attempts after about 30 s (status 133 or 147)."),
            PlatformAdvice(
                .bluez,
                cause: "`Device1.Connect()` on a device that is not there (bluetoothd gives up after its own timeout).",
                fix: "Bound the call with a D-Bus timeout and stop with `Device1.Disconnect()`.",
                stackDoes: "bluetoothd's background auto-connect to trusted devices runs on the accept list."),
            PlatformAdvice(
                .embedded,
                cause: "`bt_conn_le_create()` with `BT_CONN_LE_CREATE_CONN` and a long or zero timeout "
                    + "(`CONFIG_BT_CREATE_CONN_TIMEOUT`; NimBLE: `ble_gap_connect()` with `BLE_HS_FOREVER`).",
                fix: "Give every attempt a timeout (`bt_conn_le_create_param.timeout`, NimBLE's duration argument)."),
        ],
        attribution: [
            PlatformAttribution(
                .ios,
                "A filter-accept-list request (LE Create Connection with Initiator_Filter_Policy = 1) left pending past "
                    + "`pending_s`, when the platform is certain (PacketLogger little-endian records or a sysdiagnose): "
                    + "bluetoothd's background reconnection, the pattern Core Bluetooth recommends for a pending connect. "
                    + "Counted in the verdict's reason, not a finding. Requests to a named peer are judged as usual."),
            PlatformAttribution(
                .bluez,
                "The same for a certain BlueZ capture (MGMT traffic on the monitor channel): bluetoothd's auto-connect "
                    + "to trusted devices runs on the accept list. Counted, not a finding."),
            PlatformAttribution(
                .android,
                "A pending accept-list request is the app's `connectGatt(autoConnect = true)`, held by the stack: an "
                    + "info finding, in Android API terms, never a warning."),
            PlatformAttribution(
                nil,
                "A pending accept-list request: the capture cannot tell app from stack, so the finding is info."),
        ])
}
