#!/usr/bin/env python3
"""A Bumble session through `hciscope capture --h4-proxy` (end-to-end test helper).

    bumble-h4-session.py CONTROLLER_TRANSPORT HOST_TRANSPORT

Two Bumble controllers share a LocalLink. The first is served as H4 on CONTROLLER_TRANSPORT
(e.g. `tcp-server:127.0.0.1:9001`): the proxy connects there. A Bumble host connects to the
proxy on HOST_TRANSPORT (e.g. `unix:/tmp/proxy.sock` or `tcp-client:127.0.0.1:9000`) and
resets, scans (until it sees the peer's advertising), connects, and reads the peer's Device
Name characteristic over ATT, then disconnects. The second controller is the peer: an
in-process Bumble device advertising a GATT server.

Prints one `RESULT key=value` line per step to standard output, `SESSION OK` at the end,
and exits 0 only when the whole session succeeded (so bytes went through the proxy intact).
Exits 77 when bumble is not installed.
"""

import asyncio
import sys

try:
    from bumble.controller import Controller
    from bumble.device import Device, Peer
    from bumble.gatt import GATT_DEVICE_NAME_CHARACTERISTIC
    from bumble.hci import Address
    from bumble.host import Host
    from bumble.link import LocalLink
    from bumble.transport import open_transport
    from bumble.transport.common import AsyncPipeSink
except ImportError as error:  # the Swift test skips loudly on this
    print(f"bumble is not installed: {error}", file=sys.stderr)
    sys.exit(77)

PEER_ADDRESS = "F1:F1:F1:F1:F1:F1"
PEER_NAME = "hciscope-peer"


def result(key, value):
    print(f"RESULT {key}={value}", flush=True)


async def session(controller_spec, host_spec):
    link = LocalLink()
    served = await open_transport(controller_spec)
    Controller("proxied", host_source=served.source, host_sink=served.sink, link=link,
               public_address="F0:F0:F0:F0:F0:F0")

    peer_controller = Controller("peer", link=link, public_address=PEER_ADDRESS)
    peer = Device(name=PEER_NAME, address=Address(PEER_ADDRESS),
                  host=Host(peer_controller, AsyncPipeSink(peer_controller)))
    await peer.power_on()
    await peer.start_advertising(advertising_interval_min=20.0,
                                 advertising_interval_max=20.0)

    hci = await open_transport(host_spec)
    central = Device.with_hci("hciscope-central", Address("F0:F0:F0:F0:F0:F0"), hci.source, hci.sink)
    await central.power_on()  # HCI Reset and the set-up commands
    result("power_on", "ok")

    seen = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement):
        if str(advertisement.address).startswith(PEER_ADDRESS) and not seen.done():
            seen.set_result(advertisement)

    central.on("advertisement", on_advertisement)
    await central.start_scanning(active=False, filter_duplicates=False)
    advertisement = await asyncio.wait_for(seen, 10)
    result("advertisement", advertisement.address)
    await central.stop_scanning()

    connection = await asyncio.wait_for(central.connect(advertisement.address), 10)
    result("connection_handle", connection.handle)
    gatt_peer = Peer(connection)
    await gatt_peer.discover_services()
    characteristics = await gatt_peer.discover_characteristics(uuids=[GATT_DEVICE_NAME_CHARACTERISTIC])
    if not characteristics:
        raise RuntimeError("the peer's Device Name characteristic was not found")
    value = await characteristics[0].read_value()
    result("device_name", bytes(value).decode())
    if bytes(value).decode() != PEER_NAME:
        raise RuntimeError(f"read {bytes(value)!r}, expected {PEER_NAME!r}")
    await connection.disconnect()
    result("disconnect", "ok")
    print("SESSION OK", flush=True)
    await hci.close()
    await served.close()


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        asyncio.run(asyncio.wait_for(session(sys.argv[1], sys.argv[2]), 60))
    except Exception as error:  # noqa: BLE001 - the test shows the message
        print(f"SESSION FAILED: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
