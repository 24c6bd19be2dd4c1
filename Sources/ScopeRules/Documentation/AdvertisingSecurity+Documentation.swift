// Documentation of the advertising and security rules (guidance 8 and 9): `hciscope rules`,
// docs/RULES.md.

extension AdvPayloadBudget {
    package static let documentation = RuleDocumentation(
        title: "Advertising data over its budget",
        subject: "The advertising and scan response data the local host set (captures taken on the advertiser).",
        evidence: [
            "LE Set Advertising Data / LE Set Scan Response Data (legacy commands)",
            "LE Set Extended Advertising Data / LE Set Extended Scan Response Data, with the set's legacy-PDU "
                + "property from LE Set Extended Advertising Parameters",
            "LE Read Maximum Advertising Data Length, and each command's Command Complete status",
        ],
        violated: "Legacy advertising PDUs (legacy commands, or an extended set with the legacy-PDU property) carry "
            + "more than `legacy_max_bytes` (31) of advertising or scan response data — an error even when the "
            + "controller rejects the command (0x12). With the iOS profile (`profile: ios`): advertising data other "
            + "than Flags over `ios_adv_bytes_excluding_flags` (28), or scan response data over `ios_scan_rsp_bytes` "
            + "(10), AD headers included, each judged on its own — info. Extended (non-legacy) data is an error only "
            + "when longer than the controller's maximum (when read) or refused (0x45, 0x07); it is never judged "
            + "against 31 bytes or the iOS budget.",
        passed: "All data the host set fits its PDUs (and the iOS budget with that profile).",
        notEvaluated: "The host set no advertising or scan response data (the capture was not taken on the advertiser).",
        severity: "error (over the PDU), info (over the iOS budget)",
        thresholds: [
            ("legacy_max_bytes", "bytes of data a legacy advertising or scan response PDU carries"),
            ("ios_adv_bytes_excluding_flags", "with profile ios: advertising data bytes besides Flags"),
            ("ios_scan_rsp_bytes", "with profile ios: scan response bytes (the local name)"),
        ],
        why: "Data that does not fit is not sent: the controller rejects the command (the product advertises nothing "
            + "or stale data) or, on iOS, moves service UUIDs to an overflow area that only iOS scanners asking for "
            + "them see and cuts the local name.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "Several service UUIDs or a long local name in `CBPeripheralManager.startAdvertising(_:)`: a "
                    + "foreground app gets 28 bytes for service UUIDs and the name, and 10 more bytes of scan response "
                    + "for the name.",
                fix: "Advertise one service UUID and a short local name (8 characters or fewer fit the scan response)."),
            PlatformAdvice(
                .android,
                cause: "`AdvertiseData` over 31 bytes (`ADVERTISE_FAILED_DATA_TOO_LARGE`), often "
                    + "`setIncludeDeviceName(true)` with a long name next to service data.",
                fix: "Move the name to the scan response, trim service and manufacturer data, or use "
                    + "`startAdvertisingSet` with `setLegacyMode(false)` when every scanner supports extended advertising."),
            PlatformAdvice(
                .bluez,
                cause: "An `LEAdvertisement1` with too many `ServiceUUIDs`, `ManufacturerData` and `Includes: local-name`.",
                fix: "Trim the properties, or register an extended advertisement (`SecondaryChannel`) where scanners "
                    + "support it."),
            PlatformAdvice(
                .embedded,
                cause: "`bt_le_adv_start()` with more than 31 bytes in `ad` or `sd` (NimBLE: `ble_gap_adv_set_fields()` "
                    + "fails with BLE_HS_EMSGSIZE).",
                fix: "Move the name to `sd`, shorten the data, or use extended advertising (`bt_le_ext_adv_create()` "
                    + "with `BT_LE_ADV_OPT_EXT_ADV`) where every scanner supports it."),
        ])
}

extension AdvWithoutNeed {
    package static let documentation = RuleDocumentation(
        title: "Connectable advertising nobody connects to",
        subject: "Connectable advertising of the local host (non-connectable beacons are out of scope).",
        evidence: [
            "LE Set Advertising Enable / LE Set Extended Advertising Enable and the advertising type or properties",
            "LE (Enhanced) Connection Complete in the peripheral role: a connection arriving",
            "LE Advertising Set Terminated",
            "LE Read Supported States: whether the controller can take another connection in that role",
        ],
        violated: "Connectable advertising stays enabled more than `connectable_enabled_without_connection_s` (60 s) with "
            + "no connection arriving within those 60 s; or it is enabled while connected on a controller whose LE "
            + "Supported States say it cannot accept another connection in that role (not judged when LE Read "
            + "Supported States is not in the capture).",
        passed: "Connectable advertising led to a connection within 60 s or stopped, and never ran where no connection "
            + "could be accepted.",
        notEvaluated: "The local host did not advertise connectably in the capture.",
        severity: "info",
        thresholds: [("connectable_enabled_without_connection_s", "seconds of connectable advertising with no connection")],
        why: "Every advertising event transmits on three channels (and listens for requests after each): at a 100 ms "
            + "interval that is ten bursts a second for as long as advertising runs. Advertising that nobody can or "
            + "does answer spends that for nothing.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "`CBPeripheralManager.startAdvertising(_:)` left on after the central connected, or with nobody "
                    + "coming.",
                fix: "Call `stopAdvertising()` once a central subscribes or after a timeout.",
                stackDoes: "iOS advertises by itself for system features (Continuity, Handoff, AirDrop, Find My, "
                    + "HomeKit: Apple manufacturer data, company 0x004C) on the same controller."),
            PlatformAdvice(
                .android,
                cause: "`BluetoothLeAdvertiser.startAdvertising` without `stopAdvertising`.",
                fix: "Stop once connected, or give advertising a bound: `AdvertiseSettings.Builder().setTimeout(ms)` "
                    + "or `startAdvertisingSet(..., duration, maxExtendedAdvertisingEvents, ...)`.",
                stackDoes: "Google Play services advertise for Nearby and Fast Pair on the same controller."),
            PlatformAdvice(
                .bluez,
                cause: "An `LEAdvertisement1` left registered; bluetoothd re-enables advertising after each disconnection.",
                fix: "Unregister the advertisement when done, or set its `Timeout`/`Duration` properties."),
            PlatformAdvice(
                .embedded,
                cause: "`bt_le_adv_start()` with a connectable option left running, or restarted after every "
                    + "disconnection (NimBLE: `ble_gap_adv_start()` with `BLE_HS_FOREVER`).",
                fix: "Stop with `bt_le_adv_stop()` once connected and give advertising a timeout "
                    + "(`bt_le_ext_adv_start()` with `timeout`; NimBLE's duration)."),
        ],
        attribution: [
            PlatformAttribution(
                .ios,
                "Connectable advertising whose data carries Apple manufacturer data (company 0x004C), when the platform "
                    + "is iOS: the system's own services (Continuity, Handoff, AirDrop). Core Bluetooth apps cannot set "
                    + "manufacturer data, so such advertising is never the app's. Counted, not a finding."),
        ])
}

extension SecurityInsufficientAuth {
    package static let documentation = RuleDocumentation(
        title: "Access refused for lack of security, never fixed",
        subject: "ATT Error Responses Insufficient Authentication (0x05), Insufficient Encryption (0x0F) and "
            + "Insufficient Encryption Key Size (0x0C), on each connection.",
        evidence: [
            "ATT Error Response and the request it answers (characteristic UUID when discovered)",
            "SMP pairing on the same connection, and Encryption Change / Encryption Key Refresh Complete status",
        ],
        violated: "Such an error is not followed, on that connection, by successful pairing or encryption: the access "
            + "failed for good. Errors on characteristics listed in `sensitive_characteristics` are marked.",
        passed: "Every such error was followed by successful pairing or encryption — the intended flow: the server "
            + "protects the value, the client pairs and retries.",
        notEvaluated: "No such ATT error in the capture, or ATT cannot be judged.",
        severity: "warning",
        why: "The data the app wanted did not arrive, and each retry without pairing costs another round trip. A "
            + "protected characteristic needs pairing to work; if pairing is never triggered or always declined, "
            + "the feature is broken, not secured.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "The user declined the pairing request, or the peripheral cannot pair.",
                fix: "Explain pairing before the first protected access; make sure the peripheral supports it.",
                stackDoes: "Core Bluetooth starts pairing by itself when a read or write fails with these errors."),
            PlatformAdvice(
                .android,
                cause: "Accessing the characteristic without bonding; some devices' stacks do not start pairing on "
                    + "these errors.",
                fix: "Call `BluetoothDevice.createBond()` and wait for `BOND_BONDED` before the protected access."),
            PlatformAdvice(
                .bluez,
                cause: "No pairing agent registered, so bluetoothd cannot answer the pairing.",
                fix: "Register an agent (`AgentManager1.RegisterAgent`) or call `Device1.Pair()` first."),
            PlatformAdvice(
                .embedded,
                cause: "A GATT client that does not raise security on the error.",
                fix: "`bt_conn_set_security(conn, BT_SECURITY_L2)` (or L3) and retry (Zephyr: "
                    + "`CONFIG_BT_ATT_RETRY_ON_SEC_ERR`; NimBLE: `ble_gap_security_initiate()`)."),
        ])
}

extension SecurityLegacyPairing {
    package static let documentation = RuleDocumentation(
        title: "LE legacy pairing",
        subject: "Pairings that negotiated a method (SMP Pairing Request and Pairing Response both in the capture).",
        evidence: ["SMP Pairing Request and Pairing Response: the Secure Connections (SC) bit of AuthReq on each side"],
        violated: "LE legacy pairing was used: the SC bit was not set on both sides.",
        passed: "Every pairing used LE Secure Connections.",
        notEvaluated: "No pairing exchange in the capture.",
        severity: "warning",
        why: "The keys of LE legacy pairing with Just Works or a passkey can be recovered from a sniffed pairing "
            + "exchange; LE Secure Connections (ECDH) cannot be broken that way.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "The peripheral's stack or firmware does not offer LE Secure Connections; iOS asks for it itself.",
                fix: "Enable LE Secure Connections on the peripheral (and Secure Connections only mode if you can)."),
            PlatformAdvice(
                .android,
                cause: "The peripheral does not offer LE Secure Connections; Android asks for it itself.",
                fix: "Enable LE Secure Connections on the peripheral."),
            PlatformAdvice(
                .bluez,
                cause: "Secure Connections turned off on the adapter (`btmgmt sc off`), or a peer without it.",
                fix: "`btmgmt sc on` (or `only`) on the adapter; upgrade the peer."),
            PlatformAdvice(
                .embedded,
                cause: "Firmware built without LE Secure Connections, or a legacy-only stack.",
                fix: "Zephyr: `CONFIG_BT_SMP_SC_PAIR_ONLY=y` (or `CONFIG_BT_SMP_SC_ONLY` for SC-only mode); NimBLE: "
                    + "`ble_hs_cfg.sm_sc = 1`."),
        ])
}

extension SecurityUnauthenticatedPairing {
    package static let documentation = RuleDocumentation(
        title: "Just Works where an authenticated method was possible",
        subject: "Pairings that negotiated a method.",
        evidence: [
            "SMP Pairing Request and Response: IO capabilities, OOB flags, the MITM and SC bits of AuthReq",
            "the association model the Core specification's tables give for them (legacy or Secure Connections)",
        ],
        violated: "Just Works was used although both sides' IO capabilities allowed Passkey Entry or Numeric "
            + "Comparison — neither side asked for MITM protection.",
        passed: "Every pairing was authenticated, or its devices could not do better than Just Works.",
        notEvaluated: "No pairing exchange in the capture.",
        severity: "info",
        why: "Just Works gives no protection against a man in the middle during pairing; when both devices have a "
            + "display or keyboard, authentication costs the user one confirmation.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "Neither side set the MITM bit: Core Bluetooth asks for MITM only when the peripheral requires it.",
                fix: "Require authenticated pairing on the peripheral (its security request or the attribute's "
                    + "permissions); as an iOS peripheral, protect characteristics with "
                    + "`.readEncryptionRequired`/`.writeEncryptionRequired`."),
            PlatformAdvice(
                .android,
                cause: "The peripheral did not require MITM.",
                fix: "Require it on the peripheral; as an Android GATT server, use "
                    + "`PERMISSION_READ_ENCRYPTED_MITM`/`PERMISSION_WRITE_ENCRYPTED_MITM`."),
            PlatformAdvice(
                .bluez,
                cause: "An agent registered with capability NoInputNoOutput, or GATT flags without authentication.",
                fix: "Register the agent with `KeyboardDisplay` or `DisplayYesNo`; use `encrypt-authenticated-read`/"
                    + "`-write` flags for protected attributes."),
            PlatformAdvice(
                .embedded,
                cause: "No authentication callbacks registered, or security level 2 requested.",
                fix: "Register `bt_conn_auth_cb` with passkey display/confirm callbacks and ask for `BT_SECURITY_L3` "
                    + "(NimBLE: `sm_mitm = 1` and the IO capability of the device)."),
        ])
}

extension SecurityPairingFailed {
    package static let documentation = RuleDocumentation(
        title: "Pairing or encryption failed",
        subject: "Pairings and encryption starts on each connection.",
        evidence: [
            "SMP Pairing Failed and its reason",
            "Encryption Change and Encryption Key Refresh Complete with an error status (e.g. 0x06 PIN or Key Missing)",
        ],
        violated: "SMP Pairing Failed was sent or received, or encryption failed with an error status.",
        passed: "Every pairing and encryption in the capture succeeded.",
        notEvaluated: "No pairing or encryption in the capture.",
        severity: "error",
        why: "Protected data does not flow, and the user usually sees a pairing dialog again or a feature that "
            + "silently does not work. Encryption failing with 0x06 means one side lost the bond.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "The user declined or mistyped the passkey, or one side lost the bond (\"Forget This Device\" on "
                    + "the phone, or keys erased on the peripheral).",
                fix: "On the peripheral, accept re-pairing from a known identity; tell users to forget the device in "
                    + "Settings when the peripheral was reset."),
            PlatformAdvice(
                .android,
                cause: "The user cancelled, a wrong passkey, or a bond deleted on one side.",
                fix: "Handle `BOND_NONE` after a failure by bonding again; on the peripheral, allow re-pairing."),
            PlatformAdvice(
                .bluez,
                cause: "The agent rejected the request, or the bond was removed (`RemoveDevice`) on one side.",
                fix: "Remove the stale bond on both sides and pair again."),
            PlatformAdvice(
                .embedded,
                cause: "Keys erased (`bt_unpair()`) or storage full; re-pairing from a bonded identity refused.",
                fix: "Zephyr: `CONFIG_BT_SMP_ALLOW_UNAUTH_OVERWRITE` and a `pairing_failed` callback that clears the "
                    + "stale bond; NimBLE: handle `BLE_GAP_EVENT_REPEAT_PAIRING`."),
        ])
}

extension SecurityRepeatedPairing {
    package static let documentation = RuleDocumentation(
        title: "Bonds made again and again",
        subject: "Each successful pairing in which both sides asked for bonding.",
        evidence: [
            "SMP Pairing Request / Pairing Response (AuthReq bonding bits) and the Encryption Change that completes the pairing",
            "The peer's address, or its identity address once an IRK resolves it (SMP Identity Information)",
        ],
        violated: "The same peer had already bonded earlier in the capture: one side deleted the bond and it was made "
            + "again. The finding is the peer's when it asked (Security Request, or its Pairing Request), else the local side's.",
        passed: "Every bonded peer bonded once.",
        notEvaluated: "No successful pairing in the capture.",
        severity: "warning",
        why: "Pairing again costs the user a prompt (or a passkey) and time on every connection, and a bond that does "
            + "not last defeats reconnection by stored keys.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "The peripheral forgets its keys, so iOS must pair again (and may show \"Pairing Unsuccessful\" "
                    + "until the user forgets the device).",
                fix: "Keep bonds on the peripheral across resets; distribute its identity key (IRK) when it uses private addresses."),
            PlatformAdvice(
                .android,
                cause: "The app removes the bond (`removeBond` by reflection) or calls `createBond()` on every connection; "
                    + "or the peripheral forgets its keys.",
                fix: "Bond once; check `getBondState()` before `createBond()`; never remove the bond from the app."),
            PlatformAdvice(
                .bluez,
                cause: "`RemoveDevice` between connections, or a peripheral that forgets its keys.",
                fix: "Keep the device paired; set it trusted."),
            PlatformAdvice(
                .embedded,
                cause: "Keys not stored in flash (Zephyr: `CONFIG_BT_SETTINGS`), or `bt_unpair()` between connections.",
                fix: "Enable persistent storage of bonds and restore them at boot (`settings_load()`)."),
        ])
}
