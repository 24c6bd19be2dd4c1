#!/usr/bin/env python3
"""The fleet table on Spark, tested for real (issue 31): integrations/spark/hciscope_fleet.py run by
spark-submit with a local Spark (local[2]) over the project's captures and scenarios, containers
(the fixtures', and a gzip'd log, an Android bug report zip and a sysdiagnose tar.gz made here),
the corpus of real captures when there is one, and broken files. Checks:

  - every row equals the row `hciscope analyze DIR... --format jsonl` gives for the same file
    (the file's name aside: Spark names it by URI), read back from the Parquet by DuckDB, and
    the files analyze skips (not captures) are skipped too;
  - broken files are rows with their error; a file that makes hciscope crash or run past
    --timeout is a row saying so, and the job goes on;
  - the Parquet has hciscope.fleet/2's columns in order, then path and size (and the partition
    column), and loads in DuckDB and Spark;
  - --summary's tables (Spark SQL) equal the DuckDB queries' (fleet_summary.py) over the same rows,
    and the per-rule verdicts (judged_status), the per-actor table (findings_by_actor) and the
    per-OS-version groups equal what this script counts from analyze's rows itself;
  - --read spark (Spark reads the bytes, no streaming) gives the same rows;
  - fleet_summary.py reads rows of hciscope.fleet/1 (no attribution, no os_version), alone and
    mixed with hciscope.fleet/2 rows.

    python3 Scripts/spark-fleet-test.py --hciscope .build/release/hciscope [--corpus DIR]

(--hciscope defaults to $HCISCOPE.) The binary must have `analyze -` with --name, --modified and
--skip-non-captures, which the job runs on every file.

Skips with a note (exit 0) when Java, PySpark or DuckDB is missing (Scripts/setup.sh --test
installs them).
"""
import argparse
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOB = os.path.join(ROOT, "integrations", "spark", "hciscope_fleet.py")
FIXTURES = os.path.join(ROOT, "Sources", "ScopeTestSupport", "Fixtures")
sys.path.insert(0, os.path.join(ROOT, "integrations", "spark"))

passed, failed = 0, 0


def check(condition, what):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def skip(reason):
    print("spark-fleet-test: SKIPPED: %s (Scripts/setup.sh --test installs it)" % reason, file=sys.stderr)
    sys.exit(0)


def spark_submit():
    found = shutil.which("spark-submit")
    if found:
        return found
    import pyspark
    candidate = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
    return candidate if os.path.exists(candidate) else None


def local_spark_arguments():
    """spark-submit options for a quick local run on this machine (README: Fleet on Spark)."""
    return ["--master", "local[2]",
            "--driver-java-options", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
            "--conf", "spark.ui.enabled=false",
            "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
            "--conf", "spark.log.level=WARN"]


def spark_environment():
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable,
               PYSPARK_DRIVER_PYTHON=sys.executable)
    return env


def make_containers(folder):
    """Containers as users hand them over: the fixtures', and three made here from the project's
    captures (independently of hciscope's readers)."""
    os.makedirs(folder)
    for name in sorted(os.listdir(os.path.join(FIXTURES, "containers"))):
        shutil.copy(os.path.join(FIXTURES, "containers", name), os.path.join(folder, name))
    # The raw btsnooz log's clock is its modification time: make it one that is not now.
    os.utime(os.path.join(folder, "btsnooz_hci.log"), (1_760_000_000, 1_760_000_000))
    pairing = open(os.path.join(ROOT, "captures", "btvirt-le-pairing.btsnoop"), "rb").read()
    polling = open(os.path.join(ROOT, "captures", "scenarios", "gatt.polling-fires.btsnoop"), "rb").read()
    pklg = open(os.path.join(ROOT, "captures", "scenarios", "security.legacy-pairing-fires.be.pklg"), "rb").read()
    with open(os.path.join(folder, "field-log.btsnoop.gz"), "wb") as f:
        f.write(gzip.compress(polling, mtime=0))
    date = (2026, 5, 4, 10, 11, 12)
    with zipfile.ZipFile(os.path.join(folder, "bugreport-pixel-2026-05-04.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("bugreport-pixel-2026-05-04.txt", date), "== dumpstate: 2026-05-04 10:11:12\n" * 40)
        z.writestr(zipfile.ZipInfo("version.txt", date), "2.0")
        info = zipfile.ZipInfo("FS/data/misc/bluetooth/logs/btsnoop_hci.log", date)
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, pairing)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as t:
        for name, data in [("sysdiagnose_2026.05.04_10-11-12_iPhone/logs/Bluetooth/bluetoothd-hci-latest.pklg", pklg),
                           ("sysdiagnose_2026.05.04_10-11-12_iPhone/ps.txt", b"PID COMMAND\n1 launchd\n")]:
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1_777_000_000
            t.addfile(info, io.BytesIO(data))
    with open(os.path.join(folder, "sysdiagnose_2026.05.04_10-11-12_iPhone.tar.gz"), "wb") as f:
        f.write(buffer.getvalue())


def make_broken(folder):
    """Files that cannot be read (rows with errors) and files that are not captures (skipped)."""
    os.makedirs(folder)
    pairing = open(os.path.join(ROOT, "captures", "btvirt-le-pairing.btsnoop"), "rb").read()
    files = {
        "cut-header.btsnoop": pairing[:11],
        "header-only.btsnoop": pairing[:16],
        "garbage-after-header.btsnoop": pairing[:16] + bytes(range(256)) * 8,
        "bugreport-cut.zip": open(os.path.join(FIXTURES, "containers", "bugreport-full.zip"), "rb").read()[:1500],
        "corrupt.btsnoop.gz": (lambda b: b[:40] + bytes(200) + b[240:])(gzip.compress(pairing, mtime=0)),
        "not-a-capture.txt": b"hello, fleet\n",
        "empty.btsnoop": b"",
        "random.bin": bytes((i * 7919) % 251 for i in range(4096)),
    }
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    for name in ["block-length.pcapng", "wrong-magic.btsnoop", "datalink-9999.btsnoop"]:
        shutil.copy(os.path.join(FIXTURES, "bad", name), os.path.join(folder, "fixture-" + name))
    # Damaged but readable: a row with its health problem, not an error.
    shutil.copy(os.path.join(FIXTURES, "bad", "truncated-last-record.pklg"), os.path.join(folder, "readable-cut.pklg"))


def make_faults(folder, hciscope):
    """Two files and a wrapper around hciscope that crashes on one and hangs on the other."""
    os.makedirs(folder)
    for name in ["crash-me.btsnoop", "hang-me.btsnoop"]:
        shutil.copy(os.path.join(ROOT, "captures", "btvirt-le-pairing.btsnoop"), os.path.join(folder, name))
    wrapper = os.path.join(os.path.dirname(folder), "hciscope-wrapper")
    log = os.path.join(os.path.dirname(folder), "invocations")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\n"
                "echo \"$0 $1\" >> %s\n"
                "case \"$*\" in\n" % log)
        f.write(
                "  *crash-me*) echo 'about to crash' >&2; kill -SEGV $$ ;;\n"
                "  *hang-me*) exec sleep 120 ;;\n"
                "esac\n"
                "exec %s \"$@\"\n" % hciscope)
    os.chmod(wrapper, 0o755)
    return wrapper


def analyze_rows(hciscope, inputs):
    run = subprocess.run([hciscope, "analyze", "--format", "jsonl"] + inputs, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=False)
    rows = {}
    for line in run.stdout.decode().splitlines():
        row = json.loads(line)
        rows[row["file"]] = row
    return rows


def run_job(arguments, log):
    command = [spark_submit()] + local_spark_arguments() + [JOB] + arguments
    started = time.monotonic()
    with open(log, "w") as f:
        status = subprocess.run(command, stdout=f, stderr=subprocess.STDOUT, env=spark_environment()).returncode
    took = time.monotonic() - started
    if status != 0:
        sys.stderr.write(open(log).read()[-6000:])
    return status, took


def parquet_rows(con, folder):
    cursor = con.execute("SELECT * FROM read_parquet(?, hive_partitioning = true, union_by_name = true)",
                         [os.path.join(folder, "**", "*.parquet")])
    names = [d[0] for d in cursor.description]
    return names, [dict(zip(names, r)) for r in cursor.fetchall()]


def local_of(uri):
    return uri[len("file:"):] if uri.startswith("file:") else uri


def compare_rows(label, names, rows, expected, partition_columns):
    """Each Parquet row against analyze's row of the same file. Columns: hciscope.fleet/2's in
    order, then path and size; a partition column moves to the end (Hive layout)."""
    from hciscope_fleet import ROW_KEYS
    columns = [k for k in ROW_KEYS if k not in partition_columns] + ["path", "size"] + partition_columns
    check(names == columns, "%s: columns %s" % (label, names))
    seen = set()
    for row in rows:
        path = local_of(row["path"])
        seen.add(path)
        check(row["file"] == row["path"], "%s: %s: file %r is not its path" % (label, path, row["file"]))
        check(row["size"] == os.path.getsize(path), "%s: %s: size" % (label, path))
        want = expected.get(path)
        if want is None:
            check(False, "%s: %s: a row where analyze has none" % (label, path))
            continue
        got = as_written(want, {k: row[k] for k in ROW_KEYS})
        got["file"] = path
        if got["error"] is not None:
            got["error"] = got["error"].replace(row["path"], path)
        if got != want:
            diff = {k: (got.get(k), want.get(k)) for k in ROW_KEYS if got.get(k) != want.get(k)}
            check(False, "%s: %s: differs from analyze's row: %s" % (label, path, json.dumps(diff, default=str)[:1500]))
        else:
            check(True, "")
    return seen


def as_written(want, got):
    """`got` (a Parquet row) without the keys, null there, that analyze's row `want` has not: a row
    of hciscope.fleet/1 lacks fleet/2's keys, which the Parquet has as nulls."""
    if isinstance(want, dict) and isinstance(got, dict):
        return {k: as_written(want.get(k), v) for k, v in got.items() if k in want or v is not None}
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        return [as_written(w, g) for w, g in zip(want, got)]
    return got


ACTORS = ["app", "os", "peer", "unknown"]


def by_rule(rows):
    """violation_rate_by_rule counted here from analyze's rows: {rule: (violated, judged,
    violation_rate, violated_any_actor, findings)}, the verdict judged_status (status in a row of
    hciscope.fleet/1)."""
    table = {}
    for row in rows:
        for r in row["rules"] or []:
            t = table.setdefault(r["rule"], [0, 0, 0, 0])
            judged = r.get("judged_status", r["status"])
            t[0] += judged == "violated"
            t[1] += judged != "not_evaluated"
            t[2] += r["status"] == "violated"
            t[3] += r["findings"]
    return {k: (v, j, v / j if j else None, a, f) for k, (v, j, a, f) in table.items()}


def by_actor(rows):
    """violation_rate_by_actor counted here from analyze's rows: {(rule, actor):
    (captures_with_findings, captures_judged, rate, findings)} from findings_by_actor (rows of
    hciscope.fleet/1 have none)."""
    table = {}
    for row in rows:
        for r in row["rules"] or []:
            if "findings_by_actor" not in r:
                continue
            for actor in ACTORS:
                t = table.setdefault((r["rule"], actor), [0, 0, 0])
                n = r["findings_by_actor"][actor]
                t[0] += n > 0
                t[1] += r["status"] != "not_evaluated"
                t[2] += n
    return {k: (w, j, w / j if j else None, f) for k, (w, j, f) in table.items()}


def same_table(got, want):
    return set(got) == set(want) and all(len(got[k]) == len(want[k]) and all(close(a, b) for a, b in zip(got[k], want[k]))
                                         for k in got)


def check_counted(label, duck, rows):
    """The summary's per-rule, per-actor and per-OS-version tables against this script's counts."""
    got = {r["rule"]: (r["violated"], r["judged"], r["violation_rate"], r["violated_any_actor"], r["findings"])
           for r in duck.get("violation_rate_by_rule", [])}
    want = by_rule(rows)
    check(same_table(got, want), "%s: violation_rate_by_rule %s\n  counted %s" % (label, sorted(got.items())[:4],
                                                                                 sorted(want.items())[:4]))
    got = {(r["rule"], r["actor"]): (r["captures_with_findings"], r["captures_judged"], r["rate"], r["findings"])
           for r in duck.get("violation_rate_by_actor", [])}
    want = by_actor(rows)
    check(same_table(got, want), "%s: violation_rate_by_actor %s\n  counted %s" % (label, sorted(got.items())[:4],
                                                                                  sorted(want.items())[:4]))
    want = discovery_groups(rows)
    check(discovery_groups(duck) == want, "%s: discovery_cost_by_platform groups %s, counted %s"
          % (label, discovery_groups(duck), want))
    return want


def discovery_groups(rows_or_summary):
    """{(platform, os_version): captures} of discovery_cost_by_platform, or counted from rows
    (those of hciscope.fleet/1 have no os_version: null)."""
    if isinstance(rows_or_summary, dict):
        return {(r["platform"], r["os_version"]): r["captures"]
                for r in rows_or_summary.get("discovery_cost_by_platform", [])}
    groups = {}
    for row in rows_or_summary:
        if row["error"] is None and row["figures"]["discovery_ms"] is not None:
            key = (row["platform"] or "unknown", row.get("os_version"))
            groups[key] = groups.get(key, 0) + 1
    return groups


def older_rows(rows):
    """Rows as hciscope.fleet/1 wrote them: no device, os_version, judged_status, findings_by_actor."""
    old = []
    for row in rows:
        row = {k: v for k, v in row.items() if k not in ("device", "os_version")}
        row["schema"] = "hciscope.fleet/1"
        row["rules"] = [{k: v for k, v in r.items() if k not in ("judged_status", "findings_by_actor")}
                        for r in row["rules"]]
        old.append(row)
    return old


def close(a, b):
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(a)), abs(float(b)))
    return a == b


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hciscope", default=os.environ.get("HCISCOPE"),
                        help="the hciscope binary (default: $HCISCOPE)")
    parser.add_argument("--corpus", default=os.environ.get("HCISCOPE_CORPUS"))
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    if not args.hciscope:
        parser.error("--hciscope PATH (or $HCISCOPE) is required")
    hciscope = os.path.abspath(args.hciscope)
    usage = subprocess.run([hciscope, "analyze", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           check=False).stdout.decode("utf-8", "replace")
    if not all(option in usage for option in ("--name", "--modified", "--skip-non-captures")):
        print("spark-fleet-test: FAILED: %s analyze has no --name, --modified or --skip-non-captures, which the "
              "job runs on every file (a build of this branch has them)" % hciscope, file=sys.stderr)
        sys.exit(1)
    if not shutil.which("java"):
        skip("java is not installed")
    try:
        import pyspark  # noqa: F401
    except ImportError:
        skip("PyPI pyspark is not installed")
    try:
        import duckdb
    except ImportError:
        skip("PyPI duckdb is not installed")
    if not spark_submit():
        skip("spark-submit not found")
    import fleet_summary

    work = tempfile.mkdtemp(prefix="hciscope-spark-test-")
    try:
        containers, broken, faults = (os.path.join(work, n) for n in ("containers", "broken", "faults"))
        make_containers(containers)
        make_broken(broken)
        wrapper = make_faults(faults, hciscope)
        inputs = [os.path.join(ROOT, "captures"), containers, broken]
        corpus = os.path.join(args.corpus, "real") if args.corpus else None
        if corpus and os.path.isdir(corpus):
            inputs.append(corpus)
        else:
            print("spark-fleet-test: no corpus (HCISCOPE_CORPUS): the project's own captures only", file=sys.stderr)
        expected = analyze_rows(hciscope, inputs)
        con = duckdb.connect()

        # Run A: every input streamed, rows partitioned by platform, the summary, a crash and a hang.
        out_a = os.path.join(work, "out-a")
        status, took_a = run_job(["--hciscope", wrapper, "--output", out_a, "--partition-by", "platform", "--summary",
                                  "--timeout", "10"] + inputs + [faults + "/*.btsnoop"], os.path.join(work, "a.log"))
        check(status == 0, "run A: spark-submit exited %d" % status)
        names, rows = parquet_rows(con, os.path.join(out_a, "fleet"))
        fault_rows = {local_of(r["path"]): r for r in rows if local_of(r["path"]).startswith(faults)}
        rows = [r for r in rows if not local_of(r["path"]).startswith(faults)]
        seen = compare_rows("run A", names, rows, expected, ["platform"])
        check(seen == set(expected), "run A: files %s missing, %s extra"
              % (sorted(set(expected) - seen)[:5], sorted(seen - set(expected))[:5]))
        broken_rows = [r for r in rows if local_of(r["path"]).startswith(broken) and "readable" not in r["path"]]
        check(len(broken_rows) >= 6 and all(r["error"] for r in broken_rows),
              "run A: broken files are rows with errors: %s" % [(r["path"], r["error"]) for r in broken_rows])
        check(not any(local_of(r["path"]).endswith(("not-a-capture.txt", "empty.btsnoop", "random.bin")) for r in rows),
              "run A: files that are not captures are skipped")
        crash = fault_rows.get(os.path.join(faults, "crash-me.btsnoop"), {})
        hang = fault_rows.get(os.path.join(faults, "hang-me.btsnoop"), {})
        check("crashed" in (crash.get("error") or "") and "SIGSEGV" in crash["error"] and "about to crash" in crash["error"],
              "run A: the crash is a row saying so: %r" % crash.get("error"))
        check("time limit" in (hang.get("error") or ""), "run A: the hang is a row saying so: %r" % hang.get("error"))
        check(crash.get("tool_version") is not None and crash.get("rules") == [], "run A: a crash row has the row's shape")
        # hciscope ran once per file listed (the rows are kept, not recomputed), as the copy the
        # job shipped to the executors (SparkFiles), not the path given.
        # (Spark lists no empty file: analyze skips those as not captures anyway.)
        listed = sum(1 for folder in inputs for top, _, names in os.walk(folder)
                     for n in names if not n.startswith((".", "_")) and os.path.getsize(os.path.join(top, n)) > 0) + 2
        calls = [l.split() for l in open(os.path.join(work, "invocations"))]
        check(sum(1 for c in calls if c[1] == "analyze") == listed,
              "run A: hciscope ran %d times for %d files" % (sum(1 for c in calls if c[1] == "analyze"), listed))
        check(all(c[0] != wrapper for c in calls), "run A: the binary was not the shipped copy: %s" % calls[:2])

        # The summary: Spark SQL's tables against DuckDB's queries over the same Parquet rows.
        duck, notes = fleet_summary.summarise(os.path.join(out_a, "fleet"))
        summary_dir = os.path.join(out_a, "summary")
        spark_tables = sorted(n for n in os.listdir(summary_dir) if n != "notes")
        check(spark_tables == sorted(duck), "summary: tables %s (Spark) and %s (DuckDB)" % (spark_tables, sorted(duck)))
        for name in spark_tables:
            _, spark_rows = parquet_rows(con, os.path.join(summary_dir, name))
            duck_rows = duck.get(name, [])
            key = lambda r: json.dumps([r[k] for k in sorted(r)], default=str)
            a, b = sorted(spark_rows, key=key), sorted(duck_rows, key=key)
            same = len(a) == len(b) and all(set(x) == set(y) and all(close(x[k], y[k]) for k in x) for x, y in zip(a, b))
            check(same, "summary %s: Spark %s\n  DuckDB %s" % (name, a[:5], b[:5]))
        check(any(r["judged"] for r in duck.get("violation_rate_by_rule", [])), "summary: violation rates computed")
        _, spark_notes = parquet_rows(con, os.path.join(summary_dir, "notes"))
        check(sorted(n["note"] for n in spark_notes) == sorted(notes), "summary: notes %s / %s" % (spark_notes, notes))
        # A build of hciscope that writes hciscope.fleet/1 (no attribution) is tested as well as
        # one that writes fleet/2; the per-actor and OS-version checks need fleet/2.
        older = sum(1 for r in expected.values() if r["schema"] == "hciscope.fleet/1")
        check(older == 0 or any(n.startswith("%d row(s) of hciscope.fleet/1" % older) for n in notes),
              "summary: the hciscope.fleet/1 rows said (%d): %s" % (older, notes))
        # DuckDB equals Spark above; both against what this script counts from analyze's rows.
        groups = check_counted("summary", duck, list(expected.values()))
        if older:
            print("spark-fleet-test: this hciscope writes hciscope.fleet/1 rows: the per-actor and OS-version "
                  "tables are not exercised", file=sys.stderr)
        else:
            check(any(r["findings_by_actor"][a] for row in expected.values() for r in row["rules"] for a in ("os", "peer")),
                  "summary: some findings are the system's or the peer's (the per-actor split is exercised)")
            check(any(os_version for _, os_version in groups), "summary: some captures name their OS version")

        # Run B: Spark reads every file's bytes (no streaming), none over 6,000 bytes; containers,
        # broken files and an input that matches nothing; rows partitioned by date.
        out_b = os.path.join(work, "out-b")
        limit = 6000
        missing = os.path.join(work, "no-such-folder")
        status, took_b = run_job(["--hciscope", hciscope, "--output", out_b, "--read", "spark", "--max-in-memory",
                                  str(limit), "--partition-by", "date", "--summary", containers, broken, missing],
                                 os.path.join(work, "b.log"))
        check(status == 0, "run B: spark-submit exited %d" % status)
        names, rows = parquet_rows(con, os.path.join(out_b, "fleet"))
        gone = [r for r in rows if local_of(r["path"]) == missing]
        check(len(gone) == 1 and "no such file or folder" in (gone[0]["error"] or "") and gone[0]["size"] is None,
              "run B: the input that matches nothing is a row with its error: %s" % gone)
        big = [r for r in rows if r["size"] is not None and r["size"] > limit]
        check(big and all("larger than --max-in-memory" in (r["error"] or "") for r in big),
              "run B: files over --max-in-memory are rows saying so: %s" % [(r["path"], r["error"]) for r in big][:3])
        small = [r for r in rows if r["size"] is not None and r["size"] <= limit]
        subset = {p: r for p, r in expected.items()
                  if p.startswith((containers, broken)) and os.path.getsize(p) <= limit}
        seen = compare_rows("run B", names, small, subset, ["date"])
        check(seen == set(subset), "run B: files %s missing" % sorted(set(subset) - seen)[:5])
        check(all(str(r["date"]) == r["first_timestamp_utc"][:10] if r["first_timestamp_utc"] else r["date"] is None
                  for r in rows), "run B: date is the day of first_timestamp_utc")
        check(any(r["date"] is not None for r in rows), "run B: some rows have a date")
        duck, notes = fleet_summary.summarise(os.path.join(out_b, "fleet"))
        check_counted("run B summary", duck, list(subset.values()))
        summary_dir = os.path.join(out_b, "summary")
        for name in sorted(duck):
            _, spark_rows = parquet_rows(con, os.path.join(summary_dir, name))
            key = lambda r: json.dumps([r[k] for k in sorted(r)], default=str)
            a, b = sorted(spark_rows, key=key), sorted(duck[name], key=key)
            same = len(a) == len(b) and all(set(x) == set(y) and all(close(x[k], y[k]) for k in x) for x, y in zip(a, b))
            check(same, "run B summary %s: Spark %s\n  DuckDB %s" % (name, a[:5], b[:5]))
        # Rows of an older hciscope (hciscope.fleet/1), alone and mixed with these, in DuckDB.
        old = older_rows(expected.values())
        for label, rows in [("fleet/1 rows", old),
                            ("mixed rows", [o if i % 2 else n for i, (n, o) in enumerate(zip(expected.values(), old))])]:
            path = os.path.join(work, label.replace(" ", "-").replace("/", "") + ".jsonl")
            with open(path, "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
            duck, notes = fleet_summary.summarise(path)
            older = sum(1 for r in rows if r["schema"] == "hciscope.fleet/1")
            check(any(n.startswith("%d row(s) of hciscope.fleet/1" % older) for n in notes), "%s: said: %s" % (label, notes))
            newer = [r for r in rows if r["schema"] != "hciscope.fleet/1"]
            got = {(r["rule"], r["actor"]): (r["captures_with_findings"], r["captures_judged"], r["rate"], r["findings"])
                   for r in duck["violation_rate_by_actor"]}
            check(same_table(got, by_actor(newer)), "%s: per actor over the attributed rows only" % label)
            verdicts = [dict(r, rules=[dict(x, judged_status=x.get("judged_status", x["status"])) for x in r["rules"]])
                        for r in rows]
            got = {r["rule"]: (r["violated"], r["judged"], r["violation_rate"], r["violated_any_actor"], r["findings"])
                   for r in duck["violation_rate_by_rule"]}
            check(same_table(got, by_rule(verdicts)), "%s: per rule, status standing in for judged_status" % label)
            check(discovery_groups(duck) == discovery_groups(rows), "%s: discovery groups, os_version null for "
                  "fleet/1 rows: %s" % (label, discovery_groups(duck)))
        print("spark-fleet-test: %d files analysed (%d rows with errors) plus 2 faults; run A %.0f s, run B %.0f s"
              % (len(expected), sum(1 for r in expected.values() if r["error"]), took_a, took_b), file=sys.stderr)
    finally:
        if args.keep:
            print("spark-fleet-test: kept " + work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("spark-fleet-test: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
