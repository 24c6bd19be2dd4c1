// Documentation of the GATT and ATT rules (guidance 3, 4 and 10): `hciscope rules`, docs/RULES.md.

/// What "used" means for the discovery rules (one text, shown by both).
let usedCharacteristicText =
    "A characteristic is used when it is written, subscribed (its CCCD written), notified or indicated, or read — "
    + "except reads of a \"just in case\" sweep: the run of Read Requests right after a discovery that reads every "
    + "readable characteristic found so far once (at least two). GAP (0x1800) and GATT (0x1801) services never count."

extension GATTDiscoverAllServices {
    package static let documentation = RuleDocumentation(
        title: "Every service discovered, few used",
        subject: "Each connection on which the GATT client (the local host or, marked `remote`, the peer) discovered "
            + "primary services.",
        evidence: [
            "ATT Read By Group Type Request for Primary Service (0x2800) and its responses: the handle range asked for",
            "ATT Find By Type Value Request: discovery of one service by UUID",
            "later ATT reads, writes, CCCD writes, notifications and indications on the characteristics found",
        ],
        violated: "The client discovered primary services over the whole handle range (0x0001–0xFFFF) and fewer than "
            + "`used_fraction` (half) of the services it found have a characteristic used afterwards. "
            + usedCharacteristicText,
        passed: "Services were discovered by UUID, or at least half of those discovered were used.",
        notEvaluated: "No primary service discovery in the capture, or ATT cannot be judged (ACL cut short by a filtered "
            + "snoop log).",
        severity: "warning",
        thresholds: [
            ("used_fraction", "share (0–1) of discovered services that must have a used characteristic"),
            ("reads_that_count_as_use", "fixed at 1: one read outside a sweep counts as use"),
            ("just_in_case_sweep_reads_count", "fixed at false: reads of a just-in-case sweep are not use"),
            ("observation_s", "a connection still up when the capture ends less than this many seconds after its discovery is not judged (the use that may follow is not in the capture)"),
        ],
        why: "Every discovery request is an ATT round trip: at least one connection event each way, 7.5 ms to "
            + "hundreds of ms apiece. Discovering a large database nobody uses keeps both radios busy for seconds "
            + "before the first useful byte, on every connection that does not cache the result.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "`discoverServices(nil)` on the peripheral.",
                fix: "Pass the service UUIDs you use to `discoverServices(_:)`; Core Bluetooth caches what it "
                    + "learned for bonded peripherals.",
                stackDoes: "Core Bluetooth reads the GAP and GATT services itself (device name, Service Changed); "
                    + "they never count."),
            PlatformAdvice(
                .android,
                cause: "`BluetoothGatt.discoverServices()` called on every connection.",
                fix: "Android always discovers the whole database and takes no UUIDs: call `discoverServices()` "
                    + "once per connection, and bond with the peripheral so the stack can use its cache.",
                stackDoes: "The Android stack discovers every service, characteristic and descriptor whenever the app "
                    + "calls discoverServices(): the range is the stack's choice."),
            PlatformAdvice(
                .bluez,
                cause: "A BlueZ central: bluetoothd discovers the remote database itself on connection.",
                fix: "Keep the device bonded (and `Cache = always` in main.conf's [GATT] section) so bluetoothd reuses "
                    + "the cached database instead of discovering again.",
                stackDoes: "bluetoothd discovers the whole remote database on every connection without a valid cache."),
            PlatformAdvice(
                .embedded,
                cause: "`bt_gatt_discover()` with `BT_GATT_DISCOVER_PRIMARY` and `params.uuid = NULL` (NimBLE: "
                    + "`ble_gattc_disc_all_svcs()`).",
                fix: "Set `params.uuid` to the service you need (NimBLE: `ble_gattc_disc_svc_by_uuid()`), and store "
                    + "handles of bonded peers."),
        ])
}

extension GATTDiscoverAllCharacteristics {
    package static let documentation = RuleDocumentation(
        title: "Characteristics discovered in unused services",
        subject: "Each service (GAP and GATT excluded) in which the GATT client discovered characteristics or descriptors.",
        evidence: [
            "ATT Read By Type Request for Characteristic (0x2803) and Find Information Request within a service's range",
            "later reads, writes, CCCD writes, notifications and indications on that service's characteristics",
        ],
        violated: "Characteristics or descriptors were discovered in a service none of whose characteristics is used "
            + "afterwards. " + usedCharacteristicText,
        passed: "Characteristic and descriptor discovery happened only in services that were used.",
        notEvaluated: "No characteristic or descriptor discovery in the capture, or ATT cannot be judged.",
        severity: "info",
        thresholds: [
            ("reads_that_count_as_use", "fixed at 1: one read outside a sweep counts as use"),
            ("just_in_case_sweep_reads_count", "fixed at false: reads of a just-in-case sweep are not use"),
            ("observation_s", "a connection still up when the capture ends less than this many seconds after its discovery is not judged"),
        ],
        why: "Each service explored costs several more ATT round trips (characteristics, then descriptors), for "
            + "handles the app never touches.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "`discoverCharacteristics(nil, for:)` and `discoverDescriptors(for:)` on every service found, "
                    + "often followed by reading every value.",
                fix: "Discover characteristics only in the services you use, passing the characteristic UUIDs to "
                    + "`discoverCharacteristics(_:for:)`."),
            PlatformAdvice(
                .android,
                cause: "`discoverServices()`: Android discovers every characteristic and descriptor of every service.",
                fix: "The discovery is the stack's; what the app controls is what it does next — read only what it "
                    + "needs instead of iterating `getServices()` and reading everything.",
                stackDoes: "Android's service discovery always includes every characteristic and descriptor."),
            PlatformAdvice(
                .bluez,
                cause: "bluetoothd explores the whole database on connection.",
                fix: "Keep devices bonded with the GATT cache on, so discovery is not repeated.",
                stackDoes: "bluetoothd discovers every characteristic and descriptor itself."),
            PlatformAdvice(
                .embedded,
                cause: "`BT_GATT_DISCOVER_CHARACTERISTIC` / `BT_GATT_DISCOVER_DESCRIPTOR` over every service's range "
                    + "(NimBLE: `ble_gattc_disc_all_chrs()` everywhere).",
                fix: "Discover within the services you use and by UUID (`params.uuid`; NimBLE: "
                    + "`ble_gattc_disc_chrs_by_uuid()`)."),
        ])
}

extension GATTPolling {
    package static let documentation = RuleDocumentation(
        title: "Polling reads instead of notifications",
        subject: "Each characteristic handle read with ATT Read Request on a connection, by either GATT client.",
        evidence: [
            "ATT Read Request per handle and when it was sent",
            "CCCD writes (Write Request to a Client Characteristic Configuration descriptor): were notifications or "
                + "indications enabled on that handle",
            "the characteristic's properties from Read By Type responses (notify 0x10, indicate 0x20)",
        ],
        violated: "The same handle is read `min_reads` (5) or more times with a median gap of at most `max_median_gap_s` "
            + "(2 s) while notifications and indications were never enabled on it in that connection: a warning when "
            + "its properties allow notify or indicate, an info when the properties are unknown (not discovered in "
            + "the capture); no finding when they allow neither. Past 4,096 reads of a handle the median gap is "
            + "estimated (within 0.05 %, the finding says \"about\"), so a days-long poll is judged in bounded memory.",
        passed: "No handle was read that often, or it could not notify.",
        notEvaluated: "No ATT Read Request in the capture, or ATT cannot be judged.",
        severity: "warning (notify/indicate allowed), info (properties unknown)",
        thresholds: [
            ("min_reads", "reads of one handle in one connection before it counts as polling"),
            ("max_median_gap_s", "median seconds between those reads at most"),
        ],
        why: "A read costs a request and a response — two connection events at least — whether the value changed "
            + "or not, and the peripheral must stay in low-latency connection parameters to answer quickly. A "
            + "notification costs one PDU, only when the value changes.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "A timer calling `readValue(for:)`.",
                fix: "Call `setNotifyValue(true, for:)` once and handle `peripheral(_:didUpdateValueFor:error:)`."),
            PlatformAdvice(
                .android,
                cause: "`readCharacteristic` in a loop or a `Handler` tick.",
                fix: "`setCharacteristicNotification(characteristic, true)` plus writing `ENABLE_NOTIFICATION_VALUE` "
                    + "to its CCCD (`writeDescriptor`), then handle `onCharacteristicChanged`."),
            PlatformAdvice(
                .bluez,
                cause: "`GattCharacteristic1.ReadValue` called periodically.",
                fix: "`StartNotify()` (or `AcquireNotify()`) and listen for PropertiesChanged on `Value`."),
            PlatformAdvice(
                .embedded,
                cause: "`bt_gatt_read()` from a periodic work item (NimBLE: `ble_gattc_read()` on a timer).",
                fix: "`bt_gatt_subscribe()` with a notify callback (NimBLE: write the CCCD and handle "
                    + "`BLE_GAP_EVENT_NOTIFY_RX`)."),
        ])
}

extension ATTSmallWrites {
    package static let documentation = RuleDocumentation(
        title: "Small writes at the default ATT_MTU",
        subject: "Writes to each handle by either GATT client (findings say `remote` when the peer writes).",
        evidence: [
            "ATT Write Request and Write Command per handle: size and time",
            "ATT Exchange MTU Request/Response: the ATT_MTU in force at the first of the writes",
        ],
        violated: "`min_writes` (20) or more writes of at most `max_write_bytes` (20) bytes each reach one handle, each "
            + "within `max_gap_s` (1 s) of the previous one, the largest of them carrying `max_write_bytes`: data cut "
            + "into pieces of the default payload — while no MTU exchange had happened, or after one had raised the "
            + "ATT_MTU above 23 (judged at the first of them). A run of shorter writes is whole messages, which a "
            + "larger MTU would not shorten.",
        passed: "No such run of small writes.",
        notEvaluated: "No ATT Write Request or Write Command in the capture, or ATT cannot be judged.",
        severity: "warning",
        thresholds: [
            ("min_writes", "writes in the run"),
            ("max_write_bytes", "value bytes a write may carry to count as small"),
            ("max_gap_s", "seconds between consecutive writes of the run at most"),
        ],
        why: "Every ATT PDU carries 7 bytes of L2CAP and ATT header and its own link-layer framing; 20-byte chunks "
            + "spend a third of the airtime on headers and need several times the connection events a negotiated "
            + "MTU (up to 247 bytes with data length extension) would.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "Chunking data into 20-byte writes (the ATT_MTU 23 default) although iOS negotiates a larger MTU "
                    + "by itself.",
                fix: "Chunk by `maximumWriteValueLength(for:)` of the write type you use.",
                stackDoes: "iOS exchanges the MTU itself early in every connection."),
            PlatformAdvice(
                .android,
                cause: "No `requestMtu()`, so the ATT_MTU stays 23 and data goes in 20-byte pieces.",
                fix: "Call `gatt.requestMtu(517)` after connecting, wait for `onMtuChanged`, and write chunks of "
                    + "`mtu - 3` bytes."),
            PlatformAdvice(
                .bluez,
                cause: "Writing with `WriteValue` in fixed small chunks.",
                fix: "Use `AcquireWrite()`, which returns the negotiated MTU, and write chunks of that size.",
                stackDoes: "bluetoothd exchanges the MTU itself."),
            PlatformAdvice(
                .embedded,
                cause: "No MTU exchange (`bt_gatt_exchange_mtu()`; NimBLE `ble_gattc_exchange_mtu()`) or a small "
                    + "`CONFIG_BT_L2CAP_TX_MTU`.",
                fix: "Exchange the MTU after connecting (Zephyr: `CONFIG_BT_GATT_AUTO_UPDATE_MTU`), raise the L2CAP "
                    + "MTU and buffers, and size writes by `bt_gatt_get_mtu() - 3`."),
        ])
}

extension ATTAcknowledgedBulk {
    package static let documentation = RuleDocumentation(
        title: "Bulk data with acknowledged writes",
        subject: "Runs of ATT Write Requests to one handle, by either GATT client.",
        evidence: [
            "ATT Write Request and Write Response per handle: count, sizes, gaps",
            "the ATT_MTU in force",
            "the characteristic's properties (Write Without Response 0x04) from discovery",
        ],
        violated: "`min_run_write_requests` (20) or more consecutive Write Requests go to one handle, each within "
            + "`max_gap_s` (1 s) of the previous one, carrying in total more than one ATT payload (ATT_MTU − 3), "
            + "where the characteristic allows Write Without Response or its properties are unknown.",
        passed: "No such run, or the characteristic does not allow Write Without Response.",
        notEvaluated: "No ATT Write Request in the capture, or ATT cannot be judged.",
        severity: "info",
        thresholds: [
            ("min_run_write_requests", "Write Requests in the run"),
            ("max_gap_s", "seconds between consecutive writes of the run at most"),
        ],
        why: "Each Write Request waits for its Write Response, so a transfer moves at most one chunk per connection "
            + "event round trip; Write Without Response lets several chunks share one connection event.",
        advice: [
            PlatformAdvice(
                .ios,
                cause: "`writeValue(_:for:type: .withResponse)` in a loop.",
                fix: "Use `.withoutResponse`, paced by `canSendWriteWithoutResponse` and "
                    + "`peripheralIsReady(toSendWriteWithoutResponse:)`; acknowledge at the application level if the "
                    + "protocol needs it."),
            PlatformAdvice(
                .android,
                cause: "`writeCharacteristic` with `WRITE_TYPE_DEFAULT` for every chunk.",
                fix: "Use `WRITE_TYPE_NO_RESPONSE` and send the next chunk on `onCharacteristicWrite`."),
            PlatformAdvice(
                .bluez,
                cause: "`WriteValue` with `type: request`.",
                fix: "Use `type: command`, or `AcquireWrite()` and write to the returned socket."),
            PlatformAdvice(
                .embedded,
                cause: "`bt_gatt_write()` for every chunk (NimBLE: `ble_gattc_write_flat()`).",
                fix: "`bt_gatt_write_without_response_cb()` (NimBLE: `ble_gattc_write_no_rsp_flat()`)."),
        ])
}
