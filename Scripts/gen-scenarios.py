#!/usr/bin/env python3
"""Generate hciscope's own scenario captures with Bumble.

Two Bumble devices, each with an emulated controller (bumble.controller.Controller), share a
bumble.link.LocalLink. A btsnoop snooper (bumble.snoop.BtSnooper, datalink 1002 / H4) is attached
to the host of the device whose side the capture records ("the local host"). Each scenario is a
short asyncio script (a few seconds of real time) driving Bumble's Device API.

Run by hand (CI does not run it; the outputs are committed):

    pip install -r Scripts/requirements-scenarios.txt
    python3 Scripts/gen-scenarios.py            # all scenarios into captures/scenarios/
    python3 Scripts/gen-scenarios.py polling    # only scenarios whose name contains "polling"
    python3 Scripts/gen-scenarios.py --out /tmp/x   # somewhere else (e.g. to compare with a rerun)

See captures/scenarios/README.md for what each output shows.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
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

OUT_DIR = Path(__file__).resolve().parent.parent / "captures" / "scenarios"

# Fixed addresses so that the captures are reproducible (the timestamps are the wall clock).
CENTRAL_ADDRESS = "C0:98:E5:00:00:01"
PERIPHERAL_ADDRESS = "D0:98:E5:00:00:02"

# A made-up vendor service (not a well-known UUID, so no decoder gives it a misleading name).
SERVICE_UUID = "8E7F0001-9C5B-4B8E-A3D4-2F1E0D6C5B4A"
SENSOR_UUID = "8E7F0002-9C5B-4B8E-A3D4-2F1E0D6C5B4A"  # read + notify
CONTROL_UUID = "8E7F0003-9C5B-4B8E-A3D4-2F1E0D6C5B4A"  # write
SECRET_UUID = "8E7F0004-9C5B-4B8E-A3D4-2F1E0D6C5B4A"  # read, needs encryption


class Pair:
    """Two devices on one LocalLink; `local` is the one whose HCI is recorded."""

    def __init__(self, recorded: str = "central") -> None:
        self.link = LocalLink()
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
        device.host.snooper = BtSnooper(self.file)

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


async def scan_and_connect(pair: Pair) -> Connection:
    """The central scans (duplicates filtered) until it sees the peripheral, stops, connects."""
    seen = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement) -> None:
        if advertisement.address == pair.peripheral.random_address and not seen.done():
            seen.set_result(advertisement.address)

    pair.central.on("advertisement", on_advertisement)
    await pair.central.start_scanning(filter_duplicates=True)
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


async def gatt_polling_fires(path: Path) -> None:
    """Central reads a read+notify characteristic 6 times, 300 ms apart, never subscribing."""
    pair = Pair("central")
    pair.peripheral.add_service(sensor_service())
    pair.record(path)
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
    pair.close()


async def adv_payload_budget_fires(path: Path) -> None:
    """Peripheral (recorded) sets 40 bytes of advertising data on an extended advertising set
    whose properties ask for legacy PDUs (max 31 bytes), then advertises for 1 s."""
    pair = Pair("peripheral")
    pair.record(path)
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
    pair.close()


async def adv_without_need_passes(path: Path) -> None:
    """Peripheral (recorded) advertises connectably; a central connects within ~1 s, reads,
    and disconnects."""
    pair = Pair("peripheral")
    pair.peripheral.add_service(sensor_service())
    pair.record(path)
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
    pair.close()


async def conn_subscriptions_left_on_passes(path: Path) -> None:
    """Central (recorded) subscribes to notifications, receives three, unsubscribes (CCCD back
    to 0x0000), then disconnects."""
    pair = Pair("central")
    service = sensor_service()
    pair.peripheral.add_service(service)
    sensor_local = service.characteristics[0]
    pair.record(path)
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
    pair.close()


async def conn_reconnect_by_scan_passes(path: Path) -> None:
    """Central (recorded) scans once, connects, disconnects; 0.5 s later it reconnects to the
    same address with a direct LE Create Connection, no scan in between."""
    pair = Pair("central")
    pair.peripheral.add_service(sensor_service())
    pair.record(path)
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
    pair.close()


async def security_insufficient_auth_passes(path: Path) -> None:
    """Central (recorded) reads a characteristic that needs encryption: ATT Error Insufficient
    Encryption; it pairs (LE Secure Connections), the link is encrypted, the read succeeds."""
    pair = Pair("central")
    pair.peripheral.add_service(sensor_service(secret=True))
    pair.record(path)
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
    pair.close()


async def security_unauthenticated_pairing_fires(path: Path) -> None:
    """Central (recorded) pairs with LE Secure Connections; both sides declare DisplayYesNo
    (numeric comparison possible) but neither sets the MITM flag, so Just Works is used."""
    pair = Pair("central")
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
    pair.record(path)
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
    pair.close()


SCENARIOS = {
    "gatt.polling-fires": gatt_polling_fires,
    "adv.payload-budget-fires": adv_payload_budget_fires,
    "adv.without-need-passes": adv_without_need_passes,
    "conn.subscriptions-left-on-passes": conn_subscriptions_left_on_passes,
    "conn.reconnect-by-scan-passes": conn_reconnect_by_scan_passes,
    "security.insufficient-auth-passes": security_insufficient_auth_passes,
    "security.unauthenticated-pairing-fires": security_unauthenticated_pairing_fires,
}


async def main(arguments: list[str]) -> None:
    out_dir = OUT_DIR
    if len(arguments) >= 2 and arguments[0] == "--out":
        out_dir = Path(arguments[1])
        arguments = arguments[2:]
    selection = arguments
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, scenario in SCENARIOS.items():
        if selection and not any(s in name for s in selection):
            continue
        path = out_dir / f"{name}.btsnoop"
        await scenario(path)
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    logging.basicConfig(level=os.environ.get("BUMBLE_LOGLEVEL", "WARNING").upper())
    asyncio.run(main(sys.argv[1:]))
