#!/usr/bin/env python3
"""Generate hciscope's own scenario captures with Bumble, and the truth of each.

Two Bumble devices, each with an emulated controller (bumble.controller.Controller), share a
bumble.link.LocalLink. A btsnoop snooper (datalink 1002 / H4) is attached to the host of the
device whose side the capture records ("the local host"). Each scenario is a short asyncio script
(a few seconds of real time) driving Bumble's Device API. Waits the rules measure in tens of
seconds (a scan left on 31 s, a connection idle 11 s, advertising nobody answers for 61 s) are
taken on a virtual clock: the snooper's timestamps advance by the wait without the script
sleeping, so a scenario runs in seconds and its times are what the rule sees.

For every capture the generator writes NAME.truth.json: the verdict of each of the 21 rules, the
frames a finding must cite and the actors of the findings (docs/ATTRIBUTION.md), and the metrics,
worked out by Scripts/scenario_truth.py — a small independent decoder and the rules of
docs/RULES.md written again in Python — and checked against the verdicts the scenario was designed
to produce (the script stops if they differ). A few
captures are also written in the other formats hciscope reads (btsnoop 1001 and 2001, pcap and
pcapng with link type 201, pcap 254, PacketLogger in both byte orders), by the encoders of
Scripts/capture_encoders.py, each with its own truth file.

Run by hand (CI does not run it; the outputs are committed):

    pip install -r Scripts/requirements-scenarios.txt
    python3 Scripts/gen-scenarios.py            # all scenarios into captures/scenarios/
    python3 Scripts/gen-scenarios.py polling    # only scenarios whose name contains "polling"
    python3 Scripts/gen-scenarios.py --out /tmp/x   # somewhere else (e.g. to compare with a rerun)
    python3 Scripts/gen-scenarios.py --truth-only   # no Bumble run: recompute every truth file
                                                    # (and index.json) from the captures as they are

Where the emulated link cannot produce what a scenario needs (a supervision timeout: Bumble's
LocalLink never loses a packet), the scenario drives the emulated controllers' own event paths
with what a real controller would report (see `lose_link`); each such place says so.

See captures/scenarios/README.md for what each output shows.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import os
import struct
import sys
import time
from pathlib import Path

from bumble import hci
from bumble.att import ATT_Error, ErrorCode
from bumble.controller import Controller
from bumble.core import AdvertisingData
from bumble.device import (
    AdvertisingEventProperties,
    AdvertisingParameters,
    Connection,
    Device,
    Peer,
)
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.host import Host
from bumble.link import LocalLink
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.snoop import BtSnooper
from bumble.transport.common import AsyncPipeSink
from bumble.vendor.android import hci as android_hci

sys.path.insert(0, str(Path(__file__).resolve().parent))
import capture_encoders as encoders  # noqa: E402
import scenario_truth  # noqa: E402

OUT_DIR = Path(__file__).resolve().parent.parent / "captures" / "scenarios"

# Fixed addresses so that the captures are reproducible.
CENTRAL_ADDRESS = "C0:98:E5:00:00:01"
PERIPHERAL_ADDRESS = "D0:98:E5:00:00:02"
ABSENT_ADDRESS = "D0:98:E5:00:00:7F"  # nobody advertises with it

# A made-up vendor service (not a well-known UUID, so no decoder gives it a misleading name).
SERVICE_UUID = "8E7F0001-9C5B-4B8E-A3D4-2F1E0D6C5B4A"
SENSOR_UUID = "8E7F0002-9C5B-4B8E-A3D4-2F1E0D6C5B4A"  # read + notify
CONTROL_UUID = "8E7F0003-9C5B-4B8E-A3D4-2F1E0D6C5B4A"  # write
SECRET_UUID = "8E7F0004-9C5B-4B8E-A3D4-2F1E0D6C5B4A"  # read, needs encryption
BULK_UUID = "8E7F0005-9C5B-4B8E-A3D4-2F1E0D6C5B4A"  # write + write without response


# ---------------------------------------------------------------------------------------------
# The virtual clock


class Clock:
    """Capture time: a fixed start, plus the real time elapsed, plus every virtual wait."""

    START = datetime.datetime(2026, 11, 24, 12, 0, 0, tzinfo=datetime.UTC)

    def __init__(self) -> None:
        self.origin = time.monotonic()
        self.skipped = 0.0

    def now_us(self) -> int:
        elapsed = time.monotonic() - self.origin + self.skipped
        return int(self.START.timestamp() * 1_000_000 + elapsed * 1_000_000)

    async def wait(self, seconds: float) -> None:
        """`seconds` pass on the capture's clock; the script sleeps only a moment."""
        self.skipped += seconds
        await asyncio.sleep(0.02)


class VirtualSnooper(BtSnooper):
    """Bumble's btsnoop snooper, stamping records from a Clock."""

    def __init__(self, output, clock: Clock) -> None:
        super().__init__(output)
        self.clock = clock

    def snoop(self, hci_packet: bytes, direction) -> None:
        flags = int(direction)
        if hci_packet[0] in (hci.HCI_EVENT_PACKET, hci.HCI_COMMAND_PACKET):
            flags |= 0x02
        timestamp = self.clock.now_us() + encoders.BTSNOOP_EPOCH
        self.output.write(struct.pack(">IIIIQ", len(hci_packet), len(hci_packet), flags, 0, timestamp) + hci_packet)


class Pair:
    """Two devices on one LocalLink; `local` is the one whose HCI is recorded."""

    def __init__(self, recorded: str = "central") -> None:
        self.link = LocalLink()
        self.clock = Clock()
        self.central_controller = Controller("central", link=self.link, public_address=CENTRAL_ADDRESS)
        self.peripheral_controller = Controller(
            "peripheral", link=self.link, public_address=PERIPHERAL_ADDRESS
        )
        self.central = Device(
            name="hciscope-central",
            address=hci.Address(CENTRAL_ADDRESS),
            host=Host(self.central_controller, AsyncPipeSink(self.central_controller)),
        )
        self.peripheral = Device(
            name="hciscope-sensor",
            address=hci.Address(PERIPHERAL_ADDRESS),
            host=Host(self.peripheral_controller, AsyncPipeSink(self.peripheral_controller)),
        )
        self.recorded = recorded
        self.file = None

    def record(self, path: Path) -> None:
        self.file = open(path, "wb")
        device = self.central if self.recorded == "central" else self.peripheral
        device.host.snooper = VirtualSnooper(self.file, self.clock)

    async def wait(self, seconds: float) -> None:
        await self.clock.wait(seconds)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def sensor_service(secret: bool = False) -> Service:
    value = bytearray(b"\x15\x00")

    def read_sensor(_connection: Connection) -> bytes:
        value[0] = (value[0] + 1) & 0xFF
        return bytes(value)

    characteristics = [
        Characteristic(
            SENSOR_UUID,
            Characteristic.Properties.READ | Characteristic.Properties.NOTIFY,
            Characteristic.READABLE,
            CharacteristicValue(read=read_sensor),
        ),
        Characteristic(
            CONTROL_UUID,
            Characteristic.Properties.WRITE,
            Characteristic.WRITEABLE,
            b"\x00",
        ),
    ]
    if secret:
        characteristics.append(
            Characteristic(
                SECRET_UUID,
                Characteristic.Properties.READ,
                Characteristic.READ_REQUIRES_ENCRYPTION,
                b"secret",
            )
        )
    return Service(SERVICE_UUID, characteristics)


ADV_DATA = bytes(
    AdvertisingData(
        [
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LOCAL_NAME, b"hciscope-sensor"),
        ]
    )
)


async def power_on(pair: Pair) -> None:
    await pair.central.power_on()
    await pair.peripheral.power_on()


async def advertise(pair: Pair) -> None:
    await pair.peripheral.start_advertising(
        advertising_data=ADV_DATA, advertising_interval_min=100, advertising_interval_max=100
    )


async def scan_and_connect(pair: Pair, filter_duplicates: bool = True) -> Connection:
    """The central scans (duplicates filtered unless told) until it sees the peripheral, stops,
    connects."""
    seen = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement) -> None:
        if advertisement.address == pair.peripheral.random_address and not seen.done():
            seen.set_result(advertisement.address)

    pair.central.on("advertisement", on_advertisement)
    await pair.central.start_scanning(filter_duplicates=filter_duplicates)
    address = await seen
    await pair.central.stop_scanning()
    pair.central.remove_listener("advertisement", on_advertisement)
    return await pair.central.connect(address, timeout=5)


async def find_sensor(peer: Peer):
    # Targeted discovery (Find By Type Value), then the characteristics of that one service.
    service = (await peer.discover_service(SERVICE_UUID))[0]
    await service.discover_characteristics()
    sensor = service.get_characteristics_by_uuid(SENSOR_UUID)[0]
    return service, sensor


# ---------------------------------------------------------------------------------------------
# Scenarios


async def gatt_polling_fires(pair: Pair) -> None:
    """Central reads a read+notify characteristic 6 times, 300 ms apart, never subscribing."""
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    peer = Peer(connection)
    _, sensor = await find_sensor(peer)
    for _ in range(6):
        await sensor.read_value()
        await asyncio.sleep(0.3)
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def adv_payload_budget_fires(pair: Pair) -> None:
    """Peripheral (recorded) sets 40 bytes of advertising data on an extended advertising set
    whose properties ask for legacy PDUs (max 31 bytes), then advertises for 1 s."""
    await pair.peripheral.power_on()
    oversized = bytes(
        AdvertisingData(
            [
                (AdvertisingData.FLAGS, bytes([0x06])),
                (AdvertisingData.COMPLETE_LOCAL_NAME, b"hciscope-sensor"),
                (AdvertisingData.MANUFACTURER_SPECIFIC_DATA, bytes.fromhex("ffff") + bytes(range(16))),
            ]
        )
    )
    assert len(oversized) > 31, len(oversized)
    advertising_set = await pair.peripheral.create_advertising_set(
        advertising_parameters=AdvertisingParameters(
            advertising_event_properties=AdvertisingEventProperties(
                is_connectable=True, is_scannable=True, is_legacy=True
            ),
            primary_advertising_interval_min=100,
            primary_advertising_interval_max=100,
        ),
        random_address=pair.peripheral.random_address,
        advertising_data=oversized,
        auto_start=True,
    )
    await asyncio.sleep(1.0)
    await advertising_set.stop()
    await advertising_set.remove()


async def adv_without_need_passes(pair: Pair) -> None:
    """Peripheral (recorded) advertises connectably; a central connects within ~1 s, reads,
    and disconnects."""
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await advertise(pair)
    await asyncio.sleep(0.5)
    connection = await scan_and_connect(pair)
    peer = Peer(connection)
    _, sensor = await find_sensor(peer)
    await sensor.read_value()
    await asyncio.sleep(0.2)
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def conn_subscriptions_left_on_passes(pair: Pair) -> None:
    """Central (recorded) subscribes to notifications, receives three, unsubscribes (CCCD back
    to 0x0000), then disconnects."""
    service = sensor_service()
    pair.peripheral.add_service(service)
    sensor_local = service.characteristics[0]
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    peer = Peer(connection)
    _, sensor = await find_sensor(peer)
    received = []
    await sensor.subscribe(lambda value: received.append(value))
    await asyncio.sleep(0.1)
    for i in range(3):
        await pair.peripheral.notify_subscribers(sensor_local, bytes([0x20 + i, 0x00]))
        await asyncio.sleep(0.2)
    await sensor.unsubscribe()
    await asyncio.sleep(0.1)
    await connection.disconnect()
    await asyncio.sleep(0.1)
    assert len(received) == 3, received


async def conn_reconnect_by_scan_passes(pair: Pair) -> None:
    """Central (recorded) scans once, connects, disconnects; 0.5 s later it reconnects to the
    same address with a direct LE Create Connection, no scan in between."""
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await pair.peripheral.start_advertising(
        advertising_data=ADV_DATA,
        advertising_interval_min=100,
        advertising_interval_max=100,
        auto_restart=True,
    )
    connection = await scan_and_connect(pair)
    address = connection.peer_address
    peer = Peer(connection)
    _, sensor = await find_sensor(peer)
    await sensor.read_value()
    await connection.disconnect()
    await asyncio.sleep(0.5)
    connection = await pair.central.connect(address, timeout=5)
    peer = Peer(connection)
    _, sensor = await find_sensor(peer)
    await sensor.read_value()
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def security_insufficient_auth_passes(pair: Pair) -> None:
    """Central (recorded) reads a characteristic that needs encryption: ATT Error Insufficient
    Encryption; it pairs (LE Secure Connections), the link is encrypted, the read succeeds."""
    pair.peripheral.add_service(sensor_service(secret=True))
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    peer = Peer(connection)
    service, _ = await find_sensor(peer)
    secret = service.get_characteristics_by_uuid(SECRET_UUID)[0]
    try:
        await secret.read_value()
        raise RuntimeError("read of the protected characteristic unexpectedly succeeded")
    except ATT_Error as error:
        assert error.error_code in (
            ErrorCode.INSUFFICIENT_ENCRYPTION,
            ErrorCode.INSUFFICIENT_AUTHENTICATION,
        ), error
    await connection.pair()
    await asyncio.sleep(0.1)
    value = await secret.read_value()
    assert value == b"secret", value
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def security_unauthenticated_pairing_fires(pair: Pair) -> None:
    """Central (recorded) pairs with LE Secure Connections; both sides declare DisplayYesNo
    (numeric comparison possible) but neither sets the MITM flag, so Just Works is used."""
    for device in (pair.central, pair.peripheral):
        device.pairing_config_factory = lambda _connection: PairingConfig(
            sc=True,
            mitm=False,
            bonding=True,
            delegate=PairingDelegate(
                io_capability=PairingDelegate.IoCapability.DISPLAY_OUTPUT_AND_YES_NO_INPUT
            ),
        )
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    await connection.pair()
    await asyncio.sleep(0.1)
    peer = Peer(connection)
    _, sensor = await find_sensor(peer)
    await sensor.read_value()
    await connection.disconnect()
    await asyncio.sleep(0.1)


# ---------------------------------------------------------------------------------------------
# Scenarios added for rule coverage: every rule violated and passed at least once.


def extra_services() -> list[Service]:
    """Two more services a "discover everything" central explores and never uses."""
    return [
        Service("180F", [Characteristic("2A19", Characteristic.Properties.READ | Characteristic.Properties.NOTIFY,
                                        Characteristic.READABLE, b"\x64")]),
        Service("180A", [Characteristic("2A29", Characteristic.Properties.READ, Characteristic.READABLE,
                                        b"hciscope")]),
    ]


def bulk_service() -> Service:
    return Service(SERVICE_UUID, [
        Characteristic(BULK_UUID, Characteristic.Properties.WRITE | Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
                       Characteristic.WRITEABLE, b"\x00"),
    ])


def pairing(device: Device, *, sc: bool, mitm: bool, io, accept: bool = True) -> None:
    class Delegate(PairingDelegate):
        async def accept(self) -> bool:
            return accept

    device.pairing_config_factory = lambda _connection: PairingConfig(
        sc=sc, mitm=mitm, bonding=True, delegate=Delegate(io_capability=io))


async def scan_left_running_fires(pair: Pair) -> None:
    """Central scans (duplicates filtered), sees the peripheral, never connects; the scan stays on
    31 s before it is stopped."""
    await power_on(pair)
    await advertise(pair)
    await pair.central.start_scanning(filter_duplicates=True)
    await asyncio.sleep(0.3)
    await pair.wait(31)
    await pair.central.stop_scanning()
    await asyncio.sleep(0.05)


async def scan_duplicates_allowed_fires(pair: Pair) -> None:
    """Central scans with the duplicate filter off for about 1.5 s while the peripheral advertises
    every 100 ms: the same report arrives again and again (well over half are duplicates)."""
    await power_on(pair)
    await advertise(pair)
    await pair.central.start_scanning(filter_duplicates=False)
    await asyncio.sleep(1.5)
    await pair.central.stop_scanning()
    await asyncio.sleep(0.05)


async def scan_duplicates_allowed_info(pair: Pair) -> None:
    """Central scans with the duplicate filter off but stops at the first advertisement (and its
    scan response), then connects, reads once and disconnects: filter off, no duplicate."""
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair, filter_duplicates=False)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.read_value()
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def gatt_discover_all_fires(pair: Pair) -> None:
    """Central discovers every service over the whole handle range, every characteristic and
    descriptor, writes one characteristic of one service, then leaves the link idle 11 s before
    disconnecting."""
    pair.peripheral.add_service(sensor_service())
    for service in extra_services():
        pair.peripheral.add_service(service)
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    peer = Peer(connection)
    await peer.discover_services()
    for service in peer.services:
        await service.discover_characteristics()
        for characteristic in service.characteristics:
            await characteristic.discover_descriptors()
    control = [c for s in peer.services for c in s.characteristics if c.uuid == CONTROL_UUID][0]
    await control.write_value(b"\x01", with_response=True)
    await asyncio.sleep(0.1)
    await pair.wait(11)
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def conn_subscriptions_left_on_fires(pair: Pair) -> None:
    """Central subscribes to notifications, receives three, and disconnects with the CCCD still on."""
    service = sensor_service()
    pair.peripheral.add_service(service)
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.subscribe(lambda value: None)
    await asyncio.sleep(0.1)
    for i in range(3):
        await pair.peripheral.notify_subscribers(service.characteristics[0], bytes([0x30 + i, 0x00]))
        await asyncio.sleep(0.2)
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def conn_reconnect_by_scan_fires(pair: Pair) -> None:
    """Central connects, reads, disconnects; then scans again for the same peripheral and connects."""
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await pair.peripheral.start_advertising(advertising_data=ADV_DATA, advertising_interval_min=100,
                                            advertising_interval_max=100, auto_restart=True)
    for _ in range(2):
        connection = await scan_and_connect(pair)
        _, sensor = await find_sensor(Peer(connection))
        await sensor.read_value()
        await connection.disconnect()
        await asyncio.sleep(0.3)


async def conn_attempt_unbounded_fires(pair: Pair) -> None:
    """Central asks to connect to an address nobody advertises with and cancels the attempt only
    after 11 s."""
    await power_on(pair)
    attempt = asyncio.create_task(pair.central.connect(ABSENT_ADDRESS))
    await asyncio.sleep(0.1)
    await pair.wait(11)
    await pair.central.cancel_connection()
    # A real controller then sends LE Connection Complete with 0x02 (Unknown Connection
    # Identifier); Bumble's emulated one sends nothing, so the attempt is abandoned here.
    try:
        await asyncio.wait_for(attempt, 0.3)
    except (Exception, asyncio.TimeoutError):
        pass
    await asyncio.sleep(0.05)


async def adv_without_need_fires(pair: Pair) -> None:
    """Peripheral advertises connectably, with its 15-character name in the scan response, for
    61 s; nobody connects."""
    await pair.peripheral.power_on()
    name = bytes(AdvertisingData([(AdvertisingData.COMPLETE_LOCAL_NAME, b"hciscope-sensor")]))
    await pair.peripheral.start_advertising(
        advertising_data=bytes(AdvertisingData([(AdvertisingData.FLAGS, bytes([0x06]))])),
        scan_response_data=name, advertising_interval_min=100, advertising_interval_max=100)
    await asyncio.sleep(0.2)
    await pair.wait(61)
    await pair.peripheral.stop_advertising()
    await asyncio.sleep(0.05)


async def security_legacy_pairing_fires(pair: Pair) -> None:
    """Both sides NoInputNoOutput without Secure Connections: LE legacy pairing, Just Works (the
    only method these capabilities allow), encryption succeeds."""
    for device in (pair.central, pair.peripheral):
        pairing(device, sc=False, mitm=False, io=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT)
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    await connection.pair()
    await asyncio.sleep(0.1)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.read_value()
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def security_pairing_failed_fires(pair: Pair) -> None:
    """Central reads the encryption-only characteristic (Insufficient Encryption), tries to pair,
    and the peripheral refuses (SMP Pairing Failed); it disconnects without the value."""
    pairing(pair.peripheral, sc=True, mitm=False, io=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT, accept=False)
    pair.peripheral.add_service(sensor_service(secret=True))
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    service, _ = await find_sensor(Peer(connection))
    secret = service.get_characteristics_by_uuid(SECRET_UUID)[0]
    try:
        await secret.read_value()
    except ATT_Error:
        pass
    try:
        await connection.pair()
    except Exception:  # the refusal
        pass
    await asyncio.sleep(0.1)
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def att_small_writes_fires(pair: Pair) -> None:
    """Central writes 25 chunks of 20 bytes (Write Request) 50 ms apart at the default ATT_MTU 23;
    the characteristic allows only acknowledged writes."""
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    service, _ = await find_sensor(Peer(connection))
    control = service.get_characteristics_by_uuid(CONTROL_UUID)[0]
    for i in range(25):
        await control.write_value(bytes([i]) * 20, with_response=True)
        await asyncio.sleep(0.05)
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def att_acknowledged_bulk_fires(pair: Pair) -> None:
    """Central exchanges the MTU (247), then sends 25 chunks of 200 bytes as Write Requests to a
    characteristic that allows Write Without Response."""
    pair.peripheral.add_service(bulk_service())
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    peer = Peer(connection)
    await peer.request_mtu(247)
    service = (await peer.discover_service(SERVICE_UUID))[0]
    await service.discover_characteristics()
    bulk = service.get_characteristics_by_uuid(BULK_UUID)[0]
    for i in range(25):
        await bulk.write_value(bytes([i]) * 200, with_response=True)
        await asyncio.sleep(0.05)
    await connection.disconnect()
    await asyncio.sleep(0.1)


# ---------------------------------------------------------------------------------------------
# Scenarios added with the rules of 21: lost links, links left open, Android's scan throttle,
# repeated bonding, subscriptions left on a bonded link, who disconnected.

SUPERVISION_TIMEOUT_S = 0.72  # the supervision timeout of Bumble's links (LE Connection Complete: 0x0048)
CONNECTION_TIMEOUT = 0x08     # HCI error code Connection Timeout (Core v5.4 Vol 1 Part F §2.8)


def bonding(device: Device) -> None:
    """LE Secure Connections, bonding (AuthReq bonding flags 01), Just Works; the identity address
    distributed is the device's static random address, the one it connects with (so a stored bond
    is found again by the address of the next connection)."""
    device.pairing_config_factory = lambda _connection: PairingConfig(
        sc=True, mitm=False, bonding=True,
        identity_address_type=PairingConfig.AddressType.RANDOM,
        delegate=PairingDelegate(io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT))


async def reconnect(pair: Pair, address) -> Connection:
    """A direct LE Create Connection to a bonded peer's known address, no scan first. (Bumble's
    connect() would scan to resolve a peer whose IRK it holds; this peer's identity is the static
    address it connects with, so none is needed.)"""
    resolver, pair.central.address_resolver = pair.central.address_resolver, None
    try:
        return await pair.central.connect(address, timeout=5)
    finally:
        pair.central.address_resolver = resolver


def controller_link(controller: Controller, handle: int | None = None):
    """The emulated controller's record of its (only, or `handle`'s) LE link."""
    return next(c for c in controller.le_connections.values() if handle is None or c.handle == handle)


def vanish(pair: Pair, central_handle: int, *, during_encryption: bool = False) -> None:
    """The peripheral's radio goes silent for good (switched off, out of range). Bumble's LocalLink
    never loses a packet and its controllers have no supervision timer, so the loss is made the way
    a controller reports it: once the link's supervision timeout has passed on the capture's clock,
    each emulated controller sends its host, through its own event path, Disconnection Complete
    with reason 0x08 Connection Timeout (and, when the central was starting encryption, first
    Encryption Change with status 0x08) — no LL_TERMINATE_IND crosses the link, nobody chose it.
    The recorded HCI is what a real central's controller reports on a supervision timeout."""
    central = controller_link(pair.central_controller, central_handle)
    peripheral = controller_link(pair.peripheral_controller)
    if during_encryption:
        pair.central_controller.on_le_encryption_change(central, CONNECTION_TIMEOUT)
    pair.central_controller.on_le_disconnected(central, CONNECTION_TIMEOUT)
    pair.peripheral_controller.on_le_disconnected(peripheral, CONNECTION_TIMEOUT)


async def lose_link(pair: Pair, connection: Connection) -> None:
    """The peripheral vanishes now; the supervision timeout later the link is lost (`vanish`)."""
    await pair.wait(SUPERVISION_TIMEOUT_S)
    vanish(pair, connection.handle)
    await asyncio.sleep(0.1)


def answer_android_vendor_commands(controller: Controller) -> None:
    """Bumble's emulated controller does not know Android's vendor commands (it would answer 0x01
    Unknown HCI Command): answer LE Get Vendor Capabilities (0xFD53) as an Android controller does,
    status 0x00 with capabilities of version 0.98."""
    def on_get_vendor_capabilities(_command):
        return android_hci.HCI_LE_Get_Vendor_Capabilities_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS, max_advt_instances=16, offloaded_resolution_of_private_address=1,
            total_scan_results_storage=0, max_irk_list_sz=16, filtering_support=1, max_filter=16,
            activity_energy_info_support=1, version_supported=0x0098, total_num_of_advt_tracked=16,
            extended_scan_support=1, debug_logging_supported=0, le_address_generation_offloading_support=0,
            a2dp_source_offload_capability_mask=0, bluetooth_quality_report_support=0,
            dynamic_audio_buffer_support=0)
    controller.on_hci_le_get_vendor_capabilities_command = on_get_vendor_capabilities


async def android_power_on(pair: Pair) -> None:
    """Both devices on; the recorded central's host then asks its controller for Android's vendor
    capabilities (LE Get Vendor Capabilities, OGF 0x3F OCF 0x153), as the Android stack does at
    start: the capture reads as Android for certain. The app's scans come 6 s later, outside the
    windows in which a scan reads as the system's (1 s after the reset) or near it (5 s)."""
    answer_android_vendor_commands(pair.central_controller)
    await power_on(pair)
    await pair.central.host.send_sync_command(android_hci.HCI_LE_Get_Vendor_Capabilities_Command())
    await pair.wait(6)


async def short_scans(pair: Pair, gaps: list[float]) -> None:
    """One short scan (duplicates filtered, 0.2 s), then one more after each gap (seconds on the
    capture's clock between two scan starts)."""
    for gap in [None, *gaps]:
        if gap is not None:
            await pair.wait(gap - 0.2)
        await pair.central.start_scanning(filter_duplicates=True)
        await asyncio.sleep(0.2)
        await pair.central.stop_scanning()


async def scan_restart_throttled_fires(pair: Pair) -> None:
    """Android (the host sends Android's LE Get Vendor Capabilities at start). The app starts six
    short scans 2 s apart: the sixth starts with five others in the 30 s before it, so Android would
    keep it registered and deliver nothing."""
    await android_power_on(pair)
    await advertise(pair)
    await short_scans(pair, [2, 2, 2, 2, 2])
    await asyncio.sleep(0.05)


async def scan_restart_throttled_passes(pair: Pair) -> None:
    """Android (LE Get Vendor Capabilities at start). The app starts five short scans 2 s apart, then
    a sixth 23 s after the fifth (31 s after the first): no scan starts with five others in the 30 s
    before it."""
    await android_power_on(pair)
    await advertise(pair)
    await short_scans(pair, [2, 2, 2, 2, 23])
    await asyncio.sleep(0.05)


async def conn_link_lost_fires(pair: Pair) -> None:
    """Central connects, finds the sensor and reads it; then the peripheral goes silent (switched off):
    after the link's supervision timeout (720 ms) the central's controller reports Disconnection
    Complete with reason 0x08 Connection Timeout. No HCI Disconnect: nobody chose to end the link
    (the loss is made as `vanish` describes)."""
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.read_value()
    await asyncio.sleep(0.1)
    await lose_link(pair, connection)


async def conn_link_lost_encrypting(pair: Pair) -> None:
    """Central bonds with the peripheral (LE Secure Connections, bonding on both sides), disconnects,
    and reconnects directly; it starts encryption with the stored key, but the peripheral has gone
    silent: the central's controller reports Encryption Change with status 0x08 Connection Timeout,
    then Disconnection Complete 0x08 — a lost link, not a failed pairing or encryption (the loss is
    made as `vanish` describes)."""
    for device in (pair.central, pair.peripheral):
        bonding(device)
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await pair.peripheral.start_advertising(advertising_data=ADV_DATA, advertising_interval_min=100,
                                            advertising_interval_max=100, auto_restart=True)
    connection = await scan_and_connect(pair)
    address = connection.peer_address
    await connection.pair()
    await asyncio.sleep(0.1)
    await connection.disconnect()
    await asyncio.sleep(0.3)
    connection = await reconnect(pair, address)
    await asyncio.sleep(0.1)
    controller = pair.central_controller

    def enable_encryption_unanswered(command):
        # LL_ENC_REQ goes out and nothing comes back: the controller accepts the command (Command
        # Status pending) and reports the loss after the supervision timeout.
        controller._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)

        async def timeout():
            await pair.wait(SUPERVISION_TIMEOUT_S)
            vanish(pair, command.connection_handle, during_encryption=True)
        asyncio.ensure_future(timeout())

    controller.on_hci_le_enable_encryption_command = enable_encryption_unanswered
    try:
        await connection.encrypt()
        raise RuntimeError("encryption unexpectedly succeeded")
    except hci.HCI_Error as error:
        assert error.error_code == CONNECTION_TIMEOUT, error
    await asyncio.sleep(0.1)


async def conn_left_open_fires(pair: Pair) -> None:
    """Central connects, finds the sensor and reads it once, then keeps the link up with nothing to
    send for 31 s; the capture ends with the link still up (its last frame: the host's LE Rand,
    which carries no ACL data)."""
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.read_value()
    await asyncio.sleep(0.1)
    await pair.wait(31)
    await pair.central.host.send_sync_command(hci.HCI_LE_Rand_Command())
    await asyncio.sleep(0.05)


async def conn_left_open_busy(pair: Pair) -> None:
    """Central connects and subscribes to the sensor; the peripheral notifies every 10 s for 40 s, and
    the capture ends 2 s after the last notification with the link still up: the link carried data
    in its last 30 s (conn.left-open cannot judge it: the capture ended before the app could be seen
    deciding)."""
    service = sensor_service()
    pair.peripheral.add_service(service)
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.subscribe(lambda value: None)
    for i in range(5):
        await pair.wait(10 if i else 0.1)
        await pair.peripheral.notify_subscribers(service.characteristics[0], bytes([0x40 + i, 0x00]))
        await asyncio.sleep(0.05)
    await pair.wait(2)
    await pair.central.host.send_sync_command(hci.HCI_LE_Rand_Command())
    await asyncio.sleep(0.05)


async def gatt_discover_all_unobserved(pair: Pair) -> None:
    """Central discovers every service over the whole handle range and every characteristic and
    descriptor; the capture ends 2 s later with the link still up (its last frame: the host's LE
    Rand): what the app would use is not in the capture, so neither discovery rule judges it."""
    pair.peripheral.add_service(sensor_service())
    for service in extra_services():
        pair.peripheral.add_service(service)
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    peer = Peer(connection)
    await peer.discover_services()
    for service in peer.services:
        await service.discover_characteristics()
        for characteristic in service.characteristics:
            await characteristic.discover_descriptors()
    await pair.wait(2)
    await pair.central.host.send_sync_command(hci.HCI_LE_Rand_Command())
    await asyncio.sleep(0.05)


async def conn_idle_before_disconnect_peer_fires(pair: Pair) -> None:
    """Central (recorded) connects, finds the sensor and reads it; the link then carries nothing for
    11 s until the peripheral disconnects it (the peer's choice: Remote User Terminated)."""
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.read_value()
    await asyncio.sleep(0.1)
    await pair.wait(11)
    await next(iter(pair.peripheral.connections.values())).disconnect()
    await asyncio.sleep(0.1)


async def conn_subscriptions_left_on_bonded_fires(pair: Pair) -> None:
    """Central pairs with bonding on both sides (LE Secure Connections), subscribes to notifications,
    receives three, and disconnects with the CCCD still on: the bonded peripheral keeps it on for
    the next connection."""
    for device in (pair.central, pair.peripheral):
        bonding(device)
    service = sensor_service()
    pair.peripheral.add_service(service)
    await power_on(pair)
    await advertise(pair)
    connection = await scan_and_connect(pair)
    await connection.pair()
    await asyncio.sleep(0.1)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.subscribe(lambda value: None)
    await asyncio.sleep(0.1)
    for i in range(3):
        await pair.peripheral.notify_subscribers(service.characteristics[0], bytes([0x50 + i, 0x00]))
        await asyncio.sleep(0.2)
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def security_repeated_pairing_fires(pair: Pair) -> None:
    """Central bonds with the peripheral (LE Secure Connections, bonding on both sides), reads the
    sensor, disconnects; it then deletes the bond (as an app that removes it) and reconnects
    directly: it pairs and bonds again with the same peripheral, which still has its keys."""
    for device in (pair.central, pair.peripheral):
        bonding(device)
    pair.peripheral.add_service(sensor_service())
    await power_on(pair)
    await pair.peripheral.start_advertising(advertising_data=ADV_DATA, advertising_interval_min=100,
                                            advertising_interval_max=100, auto_restart=True)
    connection = await scan_and_connect(pair)
    address = connection.peer_address
    await connection.pair()
    await asyncio.sleep(0.1)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.read_value()
    await connection.disconnect()
    await asyncio.sleep(0.3)
    for name, _keys in await pair.central.keystore.get_all():
        await pair.central.keystore.delete(name)
    connection = await reconnect(pair, address)
    await connection.pair()
    await asyncio.sleep(0.1)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.read_value()
    await connection.disconnect()
    await asyncio.sleep(0.1)


async def security_repeated_pairing_passes(pair: Pair) -> None:
    """Central bonds with the peripheral (LE Secure Connections, bonding on both sides) and
    disconnects; it reconnects directly and encrypts the link with the stored key (no pairing: the
    link is bonded), subscribes to notifications, receives three, turns them off (CCCD 0x0000) and
    disconnects."""
    for device in (pair.central, pair.peripheral):
        bonding(device)
    service = sensor_service()
    pair.peripheral.add_service(service)
    await power_on(pair)
    await pair.peripheral.start_advertising(advertising_data=ADV_DATA, advertising_interval_min=100,
                                            advertising_interval_max=100, auto_restart=True)
    connection = await scan_and_connect(pair)
    address = connection.peer_address
    await connection.pair()
    await asyncio.sleep(0.1)
    await connection.disconnect()
    await asyncio.sleep(0.3)
    connection = await reconnect(pair, address)
    await connection.encrypt()
    await asyncio.sleep(0.1)
    _, sensor = await find_sensor(Peer(connection))
    await sensor.subscribe(lambda value: None)
    await asyncio.sleep(0.1)
    for i in range(3):
        await pair.peripheral.notify_subscribers(service.characteristics[0], bytes([0x60 + i, 0x00]))
        await asyncio.sleep(0.2)
    await sensor.unsubscribe()
    await asyncio.sleep(0.1)
    await connection.disconnect()
    await asyncio.sleep(0.1)


# ---------------------------------------------------------------------------------------------
# The catalogue: name → (recorded side, script, designed verdicts). Every rule not named is
# expected `not_evaluated` or `passed` as scenario_truth.py derives it; the named ones must come
# out as designed ("warning"/"info"/"error" mean violated with that severity), or generation stops.

V, P, N = "violated", "passed", "not_evaluated"

SCENARIOS = {
    "gatt.polling-fires": ("central", gatt_polling_fires,
                           {"gatt.polling": "warning", "gatt.discover-all-services": P, "scan.left-running": P,
                            "scan.duplicates-allowed": P, "conn.idle-before-disconnect": P}),
    "adv.payload-budget-fires": ("peripheral", adv_payload_budget_fires, {"adv.payload-budget": "error"}),
    "adv.without-need-passes": ("peripheral", adv_without_need_passes,
                                {"adv.without-need": P, "adv.payload-budget": P}),
    # Not bonded: a server forgets an unbonded client's CCCDs, so the rule does not judge it.
    "conn.subscriptions-left-on-passes": ("central", conn_subscriptions_left_on_passes,
                                          {"conn.subscriptions-left-on": N}),
    "conn.reconnect-by-scan-passes": ("central", conn_reconnect_by_scan_passes, {"conn.reconnect-by-scan": P}),
    "security.insufficient-auth-passes": ("central", security_insufficient_auth_passes,
                                          {"security.insufficient-auth": P, "security.legacy-pairing": P,
                                           "security.pairing-failed": P, "gatt.polling": P}),
    "security.unauthenticated-pairing-fires": ("central", security_unauthenticated_pairing_fires,
                                               {"security.unauthenticated-pairing": "info"}),
    "scan.left-running-fires": ("central", scan_left_running_fires,
                                {"scan.left-running": "warning", "scan.duplicates-allowed": P}),
    "scan.duplicates-allowed-fires": ("central", scan_duplicates_allowed_fires,
                                      {"scan.duplicates-allowed": "warning", "scan.left-running": P}),
    "scan.duplicates-allowed-info": ("central", scan_duplicates_allowed_info,
                                     {"scan.duplicates-allowed": "info", "conn.attempt-unbounded": P}),
    "gatt.discover-all-fires": ("central", gatt_discover_all_fires,
                                {"gatt.discover-all-services": "warning", "gatt.discover-all-characteristics": "info",
                                 "conn.idle-before-disconnect": "warning", "att.acknowledged-bulk": P,
                                 "att.small-writes": P}),
    # Not bonded (no pairing): not judged since the rule judges bonded links only.
    "conn.subscriptions-left-on-fires": ("central", conn_subscriptions_left_on_fires,
                                         {"conn.subscriptions-left-on": N,
                                          "gatt.discover-all-characteristics": P}),
    "conn.reconnect-by-scan-fires": ("central", conn_reconnect_by_scan_fires, {"conn.reconnect-by-scan": "info"}),
    "conn.attempt-unbounded-fires": ("central", conn_attempt_unbounded_fires, {"conn.attempt-unbounded": "warning"}),
    "adv.without-need-fires": ("peripheral", adv_without_need_fires,
                               {"adv.without-need": "info", "adv.payload-budget": P}),
    "security.legacy-pairing-fires": ("central", security_legacy_pairing_fires,
                                      {"security.legacy-pairing": "warning", "security.unauthenticated-pairing": P,
                                       "security.pairing-failed": P}),
    "security.pairing-failed-fires": ("central", security_pairing_failed_fires,
                                      {"security.pairing-failed": "error", "security.insufficient-auth": "warning"}),
    "att.small-writes-fires": ("central", att_small_writes_fires,
                               {"att.small-writes": "warning", "att.acknowledged-bulk": P}),
    "att.acknowledged-bulk-fires": ("central", att_acknowledged_bulk_fires,
                                    {"att.acknowledged-bulk": "info", "att.small-writes": P}),
    "scan.restart-throttled-fires": ("central", scan_restart_throttled_fires,
                                     {"scan.restart-throttled": "warning", "scan.left-running": P,
                                      "scan.duplicates-allowed": P}),
    "scan.restart-throttled-passes": ("central", scan_restart_throttled_passes,
                                      {"scan.restart-throttled": P, "scan.left-running": P}),
    "conn.link-lost-fires": ("central", conn_link_lost_fires,
                             {"conn.link-lost": "warning", "conn.idle-before-disconnect": N,
                              "conn.left-open": N, "gatt.polling": P}),
    "conn.link-lost-encrypting": ("central", conn_link_lost_encrypting,
                                  {"conn.link-lost": "warning", "security.pairing-failed": P,
                                   "security.repeated-pairing": P, "conn.reconnect-by-scan": P,
                                   "conn.idle-before-disconnect": P}),
    "conn.left-open-fires": ("central", conn_left_open_fires,
                             {"conn.left-open": "warning", "conn.idle-before-disconnect": N,
                              "conn.link-lost": P, "gatt.discover-all-services": P}),
    "conn.left-open-busy": ("central", conn_left_open_busy,
                            {"conn.left-open": P, "conn.link-lost": P, "gatt.polling": N}),
    "gatt.discover-all-unobserved": ("central", gatt_discover_all_unobserved,
                                     {"gatt.discover-all-services": N, "gatt.discover-all-characteristics": N,
                                      "conn.left-open": P}),
    "conn.idle-before-disconnect-peer-fires": ("central", conn_idle_before_disconnect_peer_fires,
                                               {"conn.idle-before-disconnect": "warning", "conn.link-lost": P}),
    "conn.subscriptions-left-on-bonded-fires": ("central", conn_subscriptions_left_on_bonded_fires,
                                                {"conn.subscriptions-left-on": "info",
                                                 "security.repeated-pairing": P, "security.pairing-failed": P}),
    "security.repeated-pairing-fires": ("central", security_repeated_pairing_fires,
                                        {"security.repeated-pairing": "warning", "security.pairing-failed": P,
                                         "conn.reconnect-by-scan": P, "conn.subscriptions-left-on": P}),
    "security.repeated-pairing-passes": ("central", security_repeated_pairing_passes,
                                         {"security.repeated-pairing": P, "conn.subscriptions-left-on": P,
                                          "security.pairing-failed": P, "conn.reconnect-by-scan": P}),
}

# Captures also written in the other formats hciscope reads: (source scenario, suffix, encoder,
# meta records placed before the HCI traffic, format name as hciscope reports it).
VARIANTS = [
    ("gatt.polling-fires", ".h1.btsnoop", lambda r: encoders.btsnoop_h1(r), 0, "btsnoop-1001"),
    ("gatt.polling-fires", ".monitor.btsnoop",
     lambda r: encoders.btsnoop_monitor(encoders.monitor_records(r, lead_us=0)), 4, "btsnoop-2001"),
    ("gatt.polling-fires", ".pcap", lambda r: encoders.pcap_file(201, encoders.phdr_packets(r)), 0, "pcap-201"),
    ("gatt.polling-fires", ".pcapng", lambda r: encoders.pcapng_file(201, encoders.phdr_packets(r)), 0, "pcapng-201"),
    ("security.legacy-pairing-fires", ".monitor.pcap",
     lambda r: encoders.pcap_file(254, encoders.monitor_packets(encoders.monitor_records(r, lead_us=0))), 4,
     "pcap-254"),
    ("security.legacy-pairing-fires", ".be.pklg",
     lambda r: encoders.pklg_file(r, big=True, lead_us=0, note=b"hciscope scenario"), 2, "pklg-be"),
    ("conn.subscriptions-left-on-fires", ".le.pklg",
     lambda r: encoders.pklg_file(r, big=False, lead_us=0, note=b"hciscope scenario"), 2, "pklg-le"),
]


def description_of(scenario) -> str:
    return " ".join((scenario.__doc__ or "").split())


def write_truth(path: Path, name: str, side: str, description: str, designed: dict) -> dict:
    designed_status = {r: (V if s in ("warning", "info", "error") else s) for r, s in designed.items()}
    t = scenario_truth.truth(path, designed_status)
    for rule, expected in designed.items():
        got = t["expected_rules"][rule]
        if got["status"] != designed_status[rule] or (expected in ("warning", "info", "error")
                                                     and got.get("severity") != expected):
            raise SystemExit(f"{name}: {rule} came out {got['status']}/{got.get('severity')}, designed {expected}: {got['why']}")
    t = {"scenario": name, "perspective": side, "description": description, **t}
    Path(str(path).rsplit(".", 1)[0] + ".truth.json").write_text(json.dumps(t, indent=1) + "\n")
    return t


def write_variants(out_dir: Path, truths: dict, encode_captures: bool = True) -> None:
    for source, suffix, encode, meta, fmt in VARIANTS:
        if source not in truths:
            continue
        records = encoders.read_btsnoop(out_dir / f"{source}.btsnoop")
        target = out_dir / f"{source}{suffix}"
        if encode_captures:
            target.write_bytes(encode(records))
        # The source's truth, frames moved by the meta records; actors as the format's own platform
        # names them (little-endian PacketLogger: iOS for certain).
        fresh = scenario_truth.variant_truth(out_dir / f"{source}.btsnoop", fmt, meta)
        t = json.loads(json.dumps(truths[source]))
        for key in ("expected_rules", "expected_rules_by_profile", "expected_metrics"):
            if key in fresh:
                t[key] = fresh[key]
        t.pop("design_check", None)
        t["capture"] = target.name
        t["capture_info"] = {"format": fmt, "packets": truths[source]["capture_info"]["packets"] + meta,
                             "source": f"{source}.btsnoop re-encoded by Scripts/capture_encoders.py"}
        (out_dir / (target.name + ".truth.json")).write_text(json.dumps(t, indent=1) + "\n")
        print(f"{target}: {target.stat().st_size} bytes ({fmt})")


def write_index(out_dir: Path) -> None:
    index, coverage = {}, {r: {"violated": [], "passed": []} for r in scenario_truth.RULE_IDS}
    for t in sorted(out_dir.glob("*.truth.json")):
        truth = json.loads(t.read_text())
        by_status = {}
        for rule, v in truth["expected_rules"].items():
            by_status.setdefault(v["status"], []).append(rule)
            if v["status"] in coverage[rule]:
                coverage[rule][v["status"]].append(truth["capture"])
        index[truth["capture"]] = by_status
    missing = [r for r, c in coverage.items() if not c["violated"] or not c["passed"]]
    (out_dir / "index.json").write_text(json.dumps({"captures": index, "coverage": coverage}, indent=1) + "\n")
    if missing:
        raise SystemExit(f"rules without a violating and a passing capture: {missing}")


def truth_only(out_dir: Path) -> None:
    """Recompute every scenario's truth (and its variants', and index.json) from the captures as
    they are: no Bumble run, the captures' bytes stay."""
    truths = {}
    for name, (side, scenario, designed) in SCENARIOS.items():
        path = out_dir / f"{name}.btsnoop"
        if not path.exists():
            print(f"{path}: missing (generate it first)")
            continue
        truths[name] = write_truth(path, name, side, description_of(scenario), designed)
        print(f"{path}: truth recomputed ({truths[name]['capture_info']['packets']} frames)")
    write_variants(out_dir, truths, encode_captures=False)
    write_index(out_dir)


async def main(arguments: list[str]) -> None:
    out_dir = OUT_DIR
    if len(arguments) >= 2 and arguments[0] == "--out":
        out_dir = Path(arguments[1])
        arguments = arguments[2:]
    if arguments[:1] == ["--truth-only"]:
        truth_only(out_dir)
        return
    selection = arguments
    out_dir.mkdir(parents=True, exist_ok=True)
    truths = {}
    for name, (side, scenario, designed) in SCENARIOS.items():
        if selection and not any(s in name for s in selection):
            continue
        path = out_dir / f"{name}.btsnoop"
        pair = Pair(side)
        pair.record(path)
        try:
            await scenario(pair)
        finally:
            pair.close()
        truths[name] = write_truth(path, name, side, description_of(scenario), designed)
        print(f"{path}: {path.stat().st_size} bytes, {truths[name]['capture_info']['packets']} frames")
    write_variants(out_dir, truths)
    if not selection:
        write_index(out_dir)


if __name__ == "__main__":
    logging.basicConfig(level=os.environ.get("BUMBLE_LOGLEVEL", "WARNING").upper())
    asyncio.run(main(sys.argv[1:]))
