#!/usr/bin/env python3
"""Feed one monitor-protocol byte stream to BlueZ's `btmon --tty` and to `hciscope capture --tty`,
each on its own pseudo-terminal, and compare the two btsnoop files record by record.

The stream is what Zephyr's monitor.c sends with CONFIG_BT_DEBUG_MONITOR_UART: the records of a
btsnoop 2001 capture (default: the shipped captures/btvirt-le-pairing.btsnoop), each framed as
{data_len u16 LE, opcode u16 LE, flags 0, hdr_len, TS32 (type 8, 1/10 ms since an arbitrary boot),
payload}, with drop counters (types 1 and 4) on every 50th record. The framing is written here from
the layouts in BlueZ's monitor/tty.h and Zephyr's monitor.h, independently of hciscope's decoder.

Compared: opcode and payload (must be identical), timestamps relative to each file's first record
(must be identical: btmon stores TS32 as seconds since 1970, hciscope anchors it to the host clock),
and the btsnoop drops field, which differs by design: btmon stores the drops reported with that
record, hciscope the cumulative count the btsnoop format defines. Exit status 1 on any other
difference.

usage: Scripts/btmon-tty-conformance.py --btmon BIN [--hciscope BIN] [CAPTURE.btsnoop]
       (btmon: Scripts/build-btmon.sh builds BlueZ 5.87's)
"""
import argparse
import os
import pty
import signal
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_btsnoop(path):
    data = open(path, 'rb').read()
    if data[:8] != b'btsnoop\0':
        sys.exit(f'{path}: not a btsnoop file')
    offset, records = 16, []
    while offset + 24 <= len(data):
        _orig, incl, flags, drops, ts = struct.unpack('>IIIIq', data[offset:offset + 24])
        offset += 24
        records.append((flags & 0xFFFF, ts, drops, data[offset:offset + incl]))
        offset += incl
    return records


def encode(records):
    t0 = records[0][1]
    stream = bytearray()
    for i, (opcode, ts, _drops, payload) in enumerate(records):
        ext = struct.pack('<BI', 8, 50_000 + (ts - t0) // 100)
        if i % 50 == 49:
            ext += bytes([1, 2, 4, 1])
        stream += struct.pack('<HHBB', 4 + len(ext) + len(payload), opcode, 0, len(ext)) + ext + payload
    return bytes(stream)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--btmon', required=True)
    parser.add_argument('--hciscope', default=os.path.join(ROOT, '.build/debug/hciscope'))
    parser.add_argument('capture', nargs='?', default=os.path.join(ROOT, 'captures/btvirt-le-pairing.btsnoop'))
    args = parser.parse_args()
    source = read_btsnoop(args.capture)
    stream = encode(source)
    work = tempfile.mkdtemp(prefix='hciscope-tty-')
    out_btmon, out_hciscope = os.path.join(work, 'btmon.btsnoop'), os.path.join(work, 'hciscope.btsnoop')
    m1, s1 = pty.openpty()
    m2, s2 = pty.openpty()
    btmon = subprocess.Popen([args.btmon, '--tty', os.ttyname(s1), '-B', '921600', '-w', out_btmon],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hciscope = subprocess.Popen([args.hciscope, 'capture', '--tty', os.ttyname(s2), '--baud', '921600',
                                 '-w', out_hciscope, '-q'], stderr=subprocess.PIPE)
    for _ in range(250):
        if os.path.exists(out_btmon) and os.path.exists(out_hciscope) and os.path.getsize(out_hciscope) >= 16:
            break
        time.sleep(0.02)
    time.sleep(0.3)  # both have set their line raw
    for i in range(0, len(stream), 256):
        os.write(m1, stream[i:i + 256])
        os.write(m2, stream[i:i + 256])
    time.sleep(1.0)
    btmon.send_signal(signal.SIGINT)
    hciscope.send_signal(signal.SIGINT)
    btmon.wait(10)
    said = hciscope.communicate(timeout=10)[1].decode()
    summary = [line for line in said.splitlines() if 'frames written' in line]
    print(summary[-1] if summary else said)
    print(f'hciscope exit status {hciscope.returncode}')
    a, b = read_btsnoop(out_btmon), read_btsnoop(out_hciscope)
    print(f'records: source {len(source)}, btmon {len(a)}, hciscope {len(b)}')
    same = sum(1 for x, y in zip(a, b) if x[0] == y[0] and x[3] == y[3])
    same_time = sum(1 for x, y in zip(a, b) if x[1] - a[0][1] == y[1] - b[0][1])
    cumulative, running = 0, 0
    for x, y in zip(a, b):
        running += x[2]
        cumulative += running == y[2]
    print(f'opcode and payload identical: {same}; timestamps identical (relative to the first): {same_time}; '
          f'hciscope drops = running sum of btmon drops: {cumulative}')
    ok = (hciscope.returncode == 0 and len(a) == len(b) == len(source) and same == same_time == cumulative == len(a))
    print('OK' if ok else 'DIFFERENT')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
