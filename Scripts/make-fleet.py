#!/usr/bin/env python3
"""A fleet of captures for Scripts/bench.sh --fleet: FILES files in device folders, half Android
snoop logs and half Android bug report zips (the log deflated under
FS/data/misc/bluetooth/logs/ beside a main text), each a real corpus capture replayed by
Scripts/make-large-capture.py --capture to a size drawn from SIZES (frames).

A pool of distinct files is made once (POOL of each kind); the fleet's files are hard links to
them, so FILES can be large without the disk filling up (hciscope reads each file in full, every
time: nothing is cached between files). Deterministic; never commit it.

    python3 Scripts/make-fleet.py --files 1000 --out /tmp/hciscope-fleet
"""
import argparse
import os
import shutil
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Android snoop logs of the corpus (btsnoop 1002) that make-large-capture.py replays.
SOURCES = [
    "Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log",
    "phlash__blefun__btsnoop_hci.log",
    "bbmp__AndroidPad__btsnoop_hci.cfa",
    "jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log",
    "dandwhelan__fossibot-bluetooth__btsnoop_hci.log",
    "wangdalian__btsnooper__btsnoop_hci.log",
    "soaresden__IX7TrackerPro__btsnoop_hci.log",
    "crossnite__NovaX-Escooter__btsnoop_hci.log",
    "csacca__horizon-74-at-ble__btsnoop_hci.log",
    "mchwalisz__lightsapp-cli__btsnoop_hci.log",
    "cnrd__yeelock__btsnoop_hci.log",
    "danisla__iot-bed__btsnoop_hci.log",
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--out", required=True)
    parser.add_argument("--sizes", default="20000,50000,100000,200000,400000",
                        help="frames per file, cycled through (default: 20k to 400k, mean 154k)")
    parser.add_argument("--pool", type=int, default=12, help="distinct files of each kind (log, bug report)")
    parser.add_argument("--corpus", default=os.path.join(os.environ.get("HCISCOPE_CORPUS", ""), "real"))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    sources = [s for s in SOURCES if os.path.exists(os.path.join(args.corpus, s))]
    if not sources:
        sys.exit("make-fleet: no corpus captures in %s (set HCISCOPE_CORPUS)" % args.corpus)
    pool_dir = args.out.rstrip("/") + ".pool"
    os.makedirs(pool_dir, exist_ok=True)
    pool = []
    for i in range(2 * args.pool):
        source = sources[i % len(sources)]
        frames = sizes[i % len(sizes)]
        log = os.path.join(pool_dir, "%02d-%s-%d.btsnoop" % (i, source.split("__")[1], frames))
        if not os.path.exists(log):
            subprocess.run([sys.executable, os.path.join(HERE, "make-large-capture.py"), "--capture",
                            os.path.join(args.corpus, source), "--frames", str(frames), "--out", log],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if i % 2 == 0:
            pool.append((log, "btsnoop_hci.log", frames))
            continue
        report = log[:-len(".btsnoop")] + ".zip"
        if not os.path.exists(report):
            date = (2026, 5, 4, 10, 11, 12)
            with zipfile.ZipFile(report + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr(zipfile.ZipInfo("bugreport-device-2026-05-04-10-11-12.txt", date),
                           "== dumpstate: 2026-05-04 10:11:12\n" + "[ro.build.version.release]: [14]\n" * 2000)
                info = zipfile.ZipInfo("FS/data/misc/bluetooth/logs/btsnoop_hci.log", date)
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(log, "rb") as f:
                    z.writestr(info, f.read())
            os.rename(report + ".tmp", report)
        pool.append((report, "bugreport.zip", frames))
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    total_frames = total_bytes = 0
    for n in range(args.files):
        source, name, frames = pool[n % len(pool)]
        folder = os.path.join(args.out, "device-%03d" % (n // 10))
        os.makedirs(folder, exist_ok=True)
        target = os.path.join(folder, "run-%04d-%s" % (n, name))
        os.link(source, target)
        total_frames += frames
        total_bytes += os.path.getsize(source)
    print("%d files, %d frames, %.0f MB in %s (hard links to %d distinct files in %s)"
          % (args.files, total_frames, total_bytes / 1e6, args.out, len(pool), pool_dir))


if __name__ == "__main__":
    main()
