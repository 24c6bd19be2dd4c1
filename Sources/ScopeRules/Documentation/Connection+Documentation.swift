// Documentation of the connection rules (guidance 5, 6 and 7): `hciscope rules`, docs/RULES.md.

extension ConnIdleBeforeDisconnect {
    public static let documentation = RuleDocumentation(
        title: "Idle connections",
        subject: "Each connection, from its Connection Complete to its Disconnection Complete or the end of the capture.",
        evidence: [
            "LE (Enhanced) Connection Complete and Disconnection Complete (with its reason)",
            "ACL data in either direction on the connection (ATT, SMP, L2CAP signalling)",
        ],
        violated: "More than `idle_s` (10 s) pass without any ACL data before the Disconnection Complete — or before "
            + "the end of the capture while still connected (counted from the Connection Complete when there was no "
            + "data at all); or the link ends with reason `supervision_timeout_reason` (0x08, Connection Timeout).",
        passed: "Every connection carried data until at most 10 s before it ended, and none ended by supervision timeout.",
        notEvaluated: "No connection in the capture.",
        severity: "warning",
        thresholds: [
            ("idle_s", "seconds without ACL data before the end of the connection"),
            ("supervision_timeout_reason", "the disconnection reason that counts as link loss (\"0x08\")"),
        ],
        why: "An idle connection is not free: both sides wake for every connection event (an empty packet each way "
            + "at every interval), and the peripheral cannot advertise to others or sleep deeply. A supervision "
            + "timeout keeps both radios listening for the whole timeout before anyone learns the link is gone.",
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
                fix: "`bt_conn_disconnect(conn, BT_HCI_ERR_REMOTE_USER_TERM_CONN)` when the exchange is over; on a "
                    + "supervision timeout, look for a peer that was switched off or out of range."),
        ])
}

extension ConnSubscriptionsLeftOn {
    public static let documentation = RuleDocumentation(
        title: "Disconnecting with subscriptions on",
        subject: "Connections the local host disconnected (HCI Disconnect) while acting as GATT client.",
        evidence: [
            "CCCD writes by the local host (0x0001 notifications, 0x0002 indications, 0x0000 off)",
            "HCI Disconnect sent by the local host",
        ],
        violated: "The host sends Disconnect while a CCCD it enabled is still on. Disconnections by the peer and link "
            + "loss are not judged.",
        passed: "Every subscription was turned off before the host disconnected.",
        notEvaluated: "The local host disconnected no connection on which it had subscribed.",
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
    public static let documentation = RuleDocumentation(
        title: "Scanning to reconnect to a known peripheral",
        subject: "Connection requests to an address (or resolved identity) the host was connected to earlier in the capture.",
        evidence: [
            "LE Create Connection / LE Extended Create Connection: the peer address",
            "the earlier connection to that peer and its Disconnection Complete",
            "scan enables between the two",
            "SMP Identity Information and Identity Address Information: the IRKs that resolve a peer's private addresses",
        ],
        violated: "The host started a scan after the earlier connection to that peer ended and before the next "
            + "connection request to it.",
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
    public static let documentation = RuleDocumentation(
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
