#!/usr/bin/env python3
"""Runs one command under a time and a memory limit, as the hostile-input tests need.

    run-limited.py --seconds S --rss-mb M --result FILE [--wall W] [--stdout FILE] [--stderr FILE] -- COMMAND...

The command is forked from this small process and exec'ed (so its peak RSS is its own, not the
test runner's), its resident set and CPU time are read from /proc every 20 ms, and it is killed
(SIGKILL) once it has used S seconds of CPU, holds more than M MB, or runs W seconds of wall time
(default 3 × S: a command blocked on a pipe uses no CPU). CPU time, not wall time, is the limit
that matters: on a machine shared with other jobs the wall clock of the same work doubles. FILE
gets one line of JSON: exit status (or the signal that ended it), wall and CPU seconds, peak RSS
in KB (wait4's ru_maxrss) and why it was killed ("time", "wall", "memory" or ""). A shell line
(`bash -c 'exec hciscope show <(cat x.zip)'`) keeps the measured process the one that runs
hciscope as long as it ends in `exec`.
"""
import argparse
import json
import os
import signal
import sys
import time


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--rss-mb", type=float, required=True)
    ap.add_argument("--wall", type=float)
    ap.add_argument("--result", required=True)
    ap.add_argument("--stdout", default=os.devnull)
    ap.add_argument("--stderr", default=os.devnull)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        out = os.open(a.stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(a.stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.execvp(command[0], command)
    killed = ""
    peak_seen = 0
    cpu = 0.0
    wall = a.wall or 3 * a.seconds
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done == pid:
            break
        peak_seen = max(peak_seen, rss_kb(pid))
        cpu = max(cpu, cpu_seconds(pid))
        elapsed = time.monotonic() - start
        reason = ("time" if cpu > a.seconds else "wall" if elapsed > wall
                  else "memory" if peak_seen > a.rss_mb * 1024 else "")
        if reason and not killed:
            killed = reason
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)
    try:
        os.killpg(pid, signal.SIGKILL)  # what the command left running (a writer into a FIFO, `yes`)
    except OSError:
        pass
    result = {
        "status": os.waitstatus_to_exitcode(status),
        "seconds": round(time.monotonic() - start, 3),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_kb": max(usage.ru_maxrss, peak_seen),
        "killed": killed,
    }
    with open(a.result, "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
