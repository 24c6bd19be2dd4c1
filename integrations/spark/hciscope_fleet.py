#!/usr/bin/env python3
"""hciscope's fleet table on Apache Spark: one `hciscope.fleet/2` row per capture, from captures on
any filesystem Spark reads, written as Parquet.

    spark-submit integrations/spark/hciscope_fleet.py --hciscope PATH --output DIR \\
        [--partition-by COLUMN] [--summary] INPUT...

INPUT: files, folders (searched recursively) or globs on any Hadoop filesystem (file:, hdfs:,
s3a:, gs:, abfs:, dbfs: ...). Every file is one capture or container (btsnoop, pcap, pcapng,
PacketLogger, compressed, Android bug report zips, iOS sysdiagnose archives, btsnooz text);
files that are not captures are skipped and counted, as `hciscope analyze DIR` skips them.

Each executor runs the same hciscope binary on each file's bytes through standard input
(`hciscope analyze - --format jsonl --name PATH --modified SECONDS --skip-non-captures`), so a
row is exactly the row `analyze DIR --format jsonl` gives for that file, with `file` the file's
full path as Spark names it, plus the columns `path` and `size` (bytes) from Spark's listing.
A file hciscope cannot read is a row with its `error`; a file that makes hciscope crash or run
past --timeout is a row saying so. Neither fails the job.

How the bytes reach hciscope (--read):
  auto   (default) files on a local or mounted filesystem (file: paths, which is also how
         Databricks Volumes and DBFS, NFS and FUSE mounts of object stores appear) are
         streamed: the open file is hciscope's standard input, nothing is held in memory.
         Files on other filesystems are read by Spark itself (the binaryFile source, through
         the cluster's Hadoop configuration and credentials): whole, one file at a time per
         task, so an executor core holds at most about three copies of one file; files larger
         than --max-in-memory are rows with an error instead.
  spark  every file read by Spark as above (also local ones).

The binary: --hciscope PATH. When PATH exists where the job is submitted, the job ships it to
every executor itself (SparkContext.addFile, as --files does; in local mode too);
`--files /path/to/hciscope` does the same. Otherwise PATH must exist on every executor (installed
on the image). The Linux binary carries the Swift runtime; executors need its system libraries
(libbluetooth, zlib, liblzma, libzstd, libbz2; Scripts/setup.sh installs them on Debian).

Output: DIR/fleet (the rows, Parquet, partitioned by --partition-by; `date`, the UTC day of
first_timestamp_utc, may be named though it is not a column of the rows) and, with --summary,
DIR/summary/NAME (the fleet questions of fleet_summary.sql, one Parquet table each), printed too.
"""

import argparse
import heapq
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# The keys of hciscope.fleet/2 in their order (docs/FLEET.md; Sources/ScopeReport/FleetRow.swift),
# and their Spark types. Keys a newer hciscope adds (the schema keeps its version when keys are
# added) are kept with the types Spark infers for them. Rows of hciscope.fleet/1 (an older
# hciscope) have a subset of these keys: the others are null in their rows.
SCHEMA = "hciscope.fleet/2"
FIGURES = ["discovery_ms", "discovery_p90_ms", "discovery_reports", "discovery_radio_on_ms",
           "first_report_to_request_ms", "failed_attempts", "failed_attempts_ms", "scan_ms", "scan_radio_on_ms",
           "app_full_duty_scan_ms", "reports", "duplicate_reports", "duplicate_ratio", "duplicate_rate_median",
           "duplicate_rate_peak", "duplicate_event_bytes", "setup_ms", "setup_p90_ms", "accept_list_wait_ms",
           "first_att_ms", "gatt_discovery_ms", "first_data_ms", "idle_tail_ms"]
ACTORS = ["app", "os", "peer", "unknown"]
COUNTS = ["scans", "devices", "connection_attempts", "connections", "pairings", "errors", "warnings", "infos",
          "rules_violated", "rules_passed", "rules_not_evaluated"]
ROW_KEYS = (["schema", "file", "format", "error", "tool_version", "frames", "duration_ms", "first_timestamp_utc",
             "health", "health_problems", "platform", "platform_certain", "device", "os_version", "source",
             "merged_files"]
            + COUNTS + ["figures", "rules"])
# Columns the job adds to hciscope's: the file as Spark lists it, and its size in bytes.
EXTRA_KEYS = ["path", "size"]
# What --partition-by may name beyond the columns: derived from a column.
DERIVED = {"date": "to_date(substring(first_timestamp_utc, 1, 10))"}


def known_schema():
    from pyspark.sql.types import (ArrayType, BooleanType, DoubleType, LongType, StringType, StructField,
                                   StructType)
    rule = StructType([StructField("rule", StringType()), StructField("status", StringType()),
                       StructField("judged_status", StringType()),
                       StructField("findings", LongType()), StructField("errors", LongType()),
                       StructField("warnings", LongType()), StructField("infos", LongType()),
                       StructField("findings_by_actor", StructType([StructField(a, LongType()) for a in ACTORS]))])
    types = {
        "schema": StringType(), "file": StringType(), "format": StringType(), "error": StringType(),
        "tool_version": StringType(), "frames": LongType(), "duration_ms": DoubleType(),
        "first_timestamp_utc": StringType(), "health": StringType(), "health_problems": ArrayType(StringType()),
        "platform": StringType(), "platform_certain": BooleanType(), "device": StringType(),
        "os_version": StringType(), "source": StringType(),
        "merged_files": LongType(),
        "figures": StructType([StructField(k, DoubleType()) for k in FIGURES]),
        "rules": ArrayType(rule),
        "path": StringType(), "size": LongType(),
    }
    for k in COUNTS:
        types[k] = LongType()
    return StructType([StructField(k, types[k]) for k in ROW_KEYS + EXTRA_KEYS])


def merge_schema(known, inferred):
    """`known`'s fields with its types, in its order, and what `inferred` has beyond them (keys a
    newer hciscope added), after hciscope's keys and before the job's own."""
    from pyspark.sql.types import ArrayType, StructField, StructType

    def merge(k, i):
        if isinstance(k, StructType) and isinstance(i, StructType):
            names = set(k.fieldNames())
            fields = [StructField(f.name, merge(f.dataType, i[f.name].dataType) if f.name in i.fieldNames() else f.dataType)
                      for f in k.fields]
            return StructType(fields + [f for f in i.fields if f.name not in names])
        if isinstance(k, ArrayType) and isinstance(i, ArrayType):
            return ArrayType(merge(k.elementType, i.elementType))
        return k

    merged = merge(known, inferred)
    own = [f for f in merged.fields if f.name in EXTRA_KEYS]
    return StructType([f for f in merged.fields if f.name not in EXTRA_KEYS] + own)


def failure_row(path, size, error, tool_version):
    """A row the job writes itself (hciscope crashed, ran out of time, could not be run on the
    file): the shape of hciscope's own row for a capture that could not be analysed."""
    row = {k: None for k in ROW_KEYS}
    row.update({"schema": SCHEMA, "file": path, "error": error, "tool_version": tool_version,
                "health_problems": [], "rules": []})
    return row


# ---------------------------------------------------------------------------------------------
# On the executors


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "signal %d" % number


def shipped_or_path(argument):
    """A file on this executor: shipped (SparkFiles, --files or addFile) under its name, else the
    path as given; None when neither exists."""
    candidates = []
    try:
        from pyspark import SparkFiles
        candidates.append(SparkFiles.get(os.path.basename(argument)))
    except Exception:
        pass
    candidates.append(argument)
    for path in candidates:
        if path and os.path.isfile(path):
            return path
    return None


def resolve_binary(argument):
    """The hciscope binary on this executor: shipped (SparkFiles) under its name, else the path."""
    path = shipped_or_path(argument)
    if path is not None:
        if not os.access(path, os.X_OK):
            try:
                os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            except OSError:
                copy = os.path.join(tempfile.mkdtemp(prefix="hciscope-bin-"), "hciscope")
                shutil.copy(path, copy)
                os.chmod(copy, 0o755)
                path = copy
        return os.path.abspath(path)
    raise RuntimeError("hciscope binary not found on this executor: %r (ship it with --files or install it on the image)"
                       % argument)


def local_path(uri):
    """The local path of a file: URI (file:/x, file:///x), else None."""
    if uri.startswith("file://"):
        rest = uri[len("file://"):]
        return rest if rest.startswith("/") else None
    if uri.startswith("file:"):
        return uri[len("file:"):]
    if uri.startswith("/"):
        return uri
    return None


def feed(pipe, content):
    """Writes `content` (bytes) to `pipe` in 1 MiB pieces, then closes it; stops quietly when
    hciscope stops reading (it has what it needs, or gave up)."""
    view = memoryview(content)
    try:
        for start in range(0, len(view), 1 << 20):
            pipe.write(view[start:start + (1 << 20)])
    except (BrokenPipeError, OSError):
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def last_line(text):
    lines = [l for l in text.decode("utf-8", "replace").splitlines() if l.strip()]
    return lines[-1].strip() if lines else ""


def analyze_file(binary, version, item, settings):
    """Runs hciscope on one file; returns ("row", json_text), ("skip", path) or a job-made row."""
    path, size, modified, content, refusal = item
    if refusal is not None:
        return "row", json.dumps(failure_row(path, size, refusal, version))
    command = [binary, "analyze", "-", "--format", "jsonl", "--name", path, "--skip-non-captures"]
    if modified is not None:
        command += ["--modified", str(int(modified))]
    command += settings["analyze_args"]
    source = None
    if content is None:
        local = local_path(path)
        try:
            source = open(local, "rb")
        except OSError as e:
            return "row", json.dumps(failure_row(path, size, "%s: cannot open: %s" % (path, e.strerror or e), version))
    out = tempfile.TemporaryFile(dir=settings["workdir"])
    err = tempfile.TemporaryFile(dir=settings["workdir"])
    started = time.monotonic()
    try:
        process = subprocess.Popen(command, stdin=source if source is not None else subprocess.PIPE, stdout=out,
                                   stderr=err, cwd=settings["workdir"], close_fds=True)
    except OSError as e:
        raise RuntimeError("cannot run %s: %s" % (binary, e))
    writer = None
    if source is None:
        writer = threading.Thread(target=feed, args=(process.stdin, content), daemon=True)
        writer.start()
    timed_out = False
    try:
        process.wait(timeout=settings["timeout"])
    except subprocess.TimeoutExpired:
        timed_out = True
        process.kill()
        process.wait()
    finally:
        if source is not None:
            source.close()
    if writer is not None:
        writer.join()
    out.seek(0)
    err.seek(0)
    stdout, stderr = out.read(), err.read()
    out.close()
    err.close()
    status = process.returncode
    if timed_out:
        return "row", json.dumps(failure_row(
            path, size, "%s: hciscope stopped after the time limit (--timeout %g s): the file took longer than that"
            % (path, settings["timeout"]), version))
    if status < 0:
        detail = last_line(stderr)
        return "row", json.dumps(failure_row(
            path, size, "%s: hciscope crashed on this file (killed by %s after %.1f s)%s"
            % (path, signal_name(-status), time.monotonic() - started, (": " + detail) if detail else ""), version))
    lines = [l for l in stdout.decode("utf-8", "replace").splitlines() if l.strip()]
    if status == 0 and not lines:
        return "skip", path
    if status in (0, 1, 2) and len(lines) == 1:
        try:
            row = json.loads(lines[0])
        except ValueError:
            row = None
        if isinstance(row, dict) and row.get("schema", "").startswith("hciscope.fleet/"):
            return "row", lines[0]
    return "row", json.dumps(failure_row(
        path, size, "%s: hciscope exited %d without a row%s" % (path, status, (": " + last_line(stderr)) if stderr else ""),
        version))


def with_source(text, path, size):
    """hciscope's row with the job's columns after its own keys (the row is one JSON object)."""
    text = text.rstrip()
    assert text.endswith("}")
    return text[:-1] + ',"path":%s,"size":%s}' % (json.dumps(path), "null" if size is None else int(size))


RULE_KEYS = {"rule", "status", "judged_status", "findings", "errors", "warnings", "infos", "findings_by_actor"}


def unknown_keys(text):
    """True when a row has keys this job does not know (a newer hciscope's): Spark then infers
    their types instead of the job leaving them out."""
    row = json.loads(text)
    if any(k not in ROW_KEYS for k in row):
        return True
    if any(k not in FIGURES for k in (row.get("figures") or {})):
        return True
    rules = row.get("rules") or []
    return (any(k not in RULE_KEYS for r in rules for k in r)
            or any(a not in ACTORS for r in rules for a in (r.get("findings_by_actor") or {})))


def cpu_seconds(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def process_partition(items, binary_argument, settings):
    children, worker = cpu_seconds(resource.RUSAGE_CHILDREN), cpu_seconds(resource.RUSAGE_SELF)
    binary = resolve_binary(binary_argument)
    version_text = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  check=False).stdout.decode("utf-8", "replace").strip()
    version = version_text.split()[0] if version_text else None
    workdir = tempfile.mkdtemp(prefix="hciscope-fleet-")
    analyze_args = list(settings["analyze_args"])
    if settings.get("config"):
        config = shipped_or_path(settings["config"])
        if config is None:
            raise RuntimeError("hciscope rule configuration not found on this executor: %r (ship it with --files)"
                               % settings["config"])
        analyze_args += ["--config", os.path.abspath(config)]
    settings = dict(settings, workdir=workdir, analyze_args=analyze_args)
    try:
        for item in items:
            kind, text = analyze_file(binary, version, item, settings)
            if kind == "row":
                row = json.loads(text)
                yield (kind, with_source(text, item[0], item[1]), row.get("error") is not None, unknown_keys(text))
            else:
                yield (kind, text, False, False)
        # CPU time of this task: hciscope (the processes it waited for) and this Python worker.
        yield ("cpu", json.dumps([cpu_seconds(resource.RUSAGE_CHILDREN) - children,
                                  cpu_seconds(resource.RUSAGE_SELF) - worker]), False, False)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# On the driver


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="spark-submit integrations/spark/hciscope_fleet.py",
        description="hciscope's fleet table (one hciscope.fleet/2 row per capture, plus path and size) on Spark, "
                    "from captures on any filesystem Spark reads, written as Parquet.",
        epilog="Example (local, both cores): spark-submit --master 'local[2]' integrations/spark/hciscope_fleet.py "
               "--hciscope .build/release/hciscope --output /tmp/fleet-out --partition-by platform --summary captures/. "
               "Output: OUTPUT/fleet (Parquet rows) and, with --summary, OUTPUT/summary/NAME. README: 'Fleet on Spark'.")
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="files, folders (searched recursively) or globs on any filesystem Spark reads "
                             "(file:, hdfs:, s3a:, gs:, abfs:, ...); a plain path is the default filesystem's")
    parser.add_argument("--hciscope", required=True, metavar="PATH",
                        help="the hciscope binary: shipped to the executors when it exists here (or ship it with "
                             "--files), else this path on every executor")
    parser.add_argument("--output", required=True, metavar="DIR", help="where to write fleet/ and summary/ (any filesystem)")
    parser.add_argument("--partition-by", metavar="COLUMN", default=None,
                        help="partition the Parquet rows by these columns (comma-separated), e.g. platform, source or "
                             "date (the UTC day of first_timestamp_utc)")
    parser.add_argument("--summary", action="store_true",
                        help="also answer the fleet questions (fleet_summary.sql beside this job): violation rate per "
                             "rule and per actor, discovery cost quantiles per platform and OS version, duplicate-scan "
                             "overhead, link-loss rate; printed and written to OUTPUT/summary/NAME")
    parser.add_argument("--timeout", type=float, default=600, metavar="SECONDS",
                        help="time limit for hciscope on one file; past it the file is a row saying so (default 600)")
    parser.add_argument("--read", choices=["auto", "spark"], default="auto",
                        help="auto: stream file: paths to hciscope, let Spark read other filesystems' files; "
                             "spark: let Spark read every file (default auto)")
    parser.add_argument("--max-in-memory", type=int, default=512 << 20, metavar="BYTES",
                        help="largest file Spark reads whole into an executor's memory (files it reads: see --read); "
                             "larger ones are rows with an error (default 536870912)")
    parser.add_argument("--partitions", type=int, default=None, metavar="N",
                        help="tasks for the files (default: one per 50 files, at least four per core Spark has)")
    parser.add_argument("--config", metavar="FILE",
                        help="hciscope rule configuration (YAML) on every executor, or shipped with --files under "
                             "this name (default: none; ./hciscope.yml is never picked up implicitly)")
    parser.add_argument("--analyze-arg", action="append", default=[], metavar="ARG",
                        help="an extra argument for `hciscope analyze` (repeatable), e.g. --analyze-arg=--platform=android")
    parser.add_argument("--overwrite", action="store_true", help="replace OUTPUT/fleet and OUTPUT/summary if they exist")
    return parser.parse_args(argv)


def list_inputs(spark, inputs):
    """Qualified input patterns that match something, and the ones that match nothing."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    found, missing = [], []
    for text in inputs:
        p = jvm.org.apache.hadoop.fs.Path(text)
        fs = p.getFileSystem(conf)
        statuses = fs.globStatus(p)
        qualified = fs.makeQualified(p).toString()
        if statuses is None or len(statuses) == 0:
            missing.append(qualified)
        else:
            found.append(qualified)
    return found, missing


def balanced_groups(files, count):
    """`files` ((path, size, modified, ...) tuples) in `count` groups of about the same bytes:
    the largest first, each to the group with the fewest bytes so far."""
    groups = [[] for _ in range(count)]
    heap = [(0, i) for i in range(count)]
    for f in sorted(files, key=lambda f: -(f[1] or 0)):
        load, i = heapq.heappop(heap)
        groups[i].append(f)
        heapq.heappush(heap, (load + (f[1] or 0) + 4096, i))
    return [g for g in groups if g]


def read_queries(path):
    """`-- name: NAME` sections of a .sql file, in order: [(name, sql)]."""
    queries, name, lines = [], None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"--\s*name:\s*(\S+)", line)
            if m:
                if name:
                    queries.append((name, "".join(lines).strip().rstrip(";")))
                name, lines = m.group(1), []
            elif name:
                lines.append(line)
    if name:
        queries.append((name, "".join(lines).strip().rstrip(";")))
    return queries


def summary_sql():
    """fleet_summary.sql: beside this job, else shipped with --files (cluster deploy mode)."""
    beside = os.path.join(HERE, "fleet_summary.sql")
    if os.path.isfile(beside):
        return beside
    shipped = shipped_or_path("fleet_summary.sql")
    if shipped is None:
        raise SystemExit("hciscope_fleet: --summary needs fleet_summary.sql beside the job or shipped with "
                         "--files integrations/spark/fleet_summary.sql")
    return shipped


def summary_notes(spark):
    """What a reader of the summary tables should know about the rows of the view `fleet`."""
    notes = []
    older = spark.sql("SELECT count(*) FROM fleet WHERE schema = 'hciscope.fleet/1'").collect()[0][0]
    if older:
        notes.append("%d row(s) of hciscope.fleet/1 (an older hciscope, no attribution): violation_rate_by_rule "
                     "takes their status as the verdict, violation_rate_by_actor leaves them out, and their "
                     "os_version is null" % older)
    if spark.sql("SELECT 1 FROM fleet WHERE exists(rules, r -> r.rule = 'conn.link-lost') LIMIT 1").count() == 0:
        notes.append("link_loss_rate: no row has the rule conn.link-lost (this hciscope has no link-loss rule), "
                     "so its counts are 0 and its rates null")
    return notes


def run_summary(spark, fleet_dir, summary_dir, overwrite):
    """The fleet questions (fleet_summary.sql) over the Parquet rows just written."""
    fleet = spark.read.parquet(fleet_dir)
    fleet.createOrReplaceTempView("fleet")
    notes = summary_notes(spark)
    results = {}
    for name, sql in read_queries(summary_sql()):
        table = spark.sql(sql)
        table.coalesce(1).write.mode("overwrite" if overwrite else "errorifexists").parquet(summary_dir + "/" + name)
        results[name] = table
        print("\n== %s" % name)
        table.show(200, truncate=False)
    if notes:
        print("\nnotes:")
        for n in notes:
            print("  " + n)
    notes_table = spark.createDataFrame([(n,) for n in notes], "note string")
    notes_table.coalesce(1).write.mode("overwrite" if overwrite else "errorifexists").parquet(summary_dir + "/notes")
    return results, notes


def jvm_cpu(sc):
    """', this JVM (driver and, in local mode, executors) N' when the driver's parent is the JVM
    (spark-submit), else ''."""
    try:
        with open("/proc/%d/stat" % os.getppid()) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/%d/cmdline" % os.getppid(), "rb") as f:
            if b"java" not in f.read().split(b"\0")[0]:
                return ""
        return ", JVM %.1f" % ((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return ""


def main(argv=None):
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    from pyspark import StorageLevel
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = SparkSession.builder.appName("hciscope-fleet").getOrCreate()
    sc = spark.sparkContext
    started = time.monotonic()
    output = args.output.rstrip("/")
    fleet_dir, summary_dir = output + "/fleet", output + "/summary"
    partition_by = [c.strip() for c in (args.partition_by or "").split(",") if c.strip()]
    for c in partition_by:
        if c not in ROW_KEYS and c not in DERIVED and c not in EXTRA_KEYS:
            raise SystemExit("hciscope_fleet: --partition-by %s: not a column of the rows (nor %s)" % (c, ", ".join(DERIVED)))

    # The binary: shipped by the job when it is here (in local mode too, so the path a cluster
    # takes is the one tested), else looked for on each executor at that path.
    binary = args.hciscope
    local_master = sc.master.startswith("local")
    if os.path.isfile(binary):
        try:
            sc.addFile(os.path.abspath(binary))
        except Exception as e:  # already shipped under that name (--files)
            print("hciscope_fleet: not shipping %s again: %s" % (binary, e), file=sys.stderr)
    config = args.config
    if config and local_master:
        config = os.path.abspath(config)
    elif config and os.path.isfile(config):
        try:
            sc.addFile(os.path.abspath(config))
        except Exception as e:
            print("hciscope_fleet: not shipping %s again: %s" % (config, e), file=sys.stderr)
    settings = {"timeout": args.timeout, "analyze_args": list(args.analyze_arg), "config": config}

    # Listing: Spark's binaryFile source without its content column reads no file's bytes.
    inputs, missing = list_inputs(spark, args.inputs)
    listed = []
    if inputs:
        meta = (spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(inputs)
                .select("path", "length", F.col("modificationTime").cast("long").alias("modified")))
        listed = [(r.path, r.length, r.modified) for r in meta.collect()]
    seen = set()
    files = []
    for path, size, modified in listed:
        if path in seen:  # an input named twice, or inside another
            continue
        seen.add(path)
        files.append((path, size, modified))
    # auto: file: inputs streamed by path; the others' files read by Spark (binaryFile content).
    spark_inputs = [i for i in inputs if args.read == "spark" or local_path(i) is None]
    streamed, by_spark, refused = [], [], []
    for path, size, modified in files:
        if args.read == "auto" and local_path(path) is not None:
            streamed.append((path, size, modified, None, None))
        elif size > args.max_in_memory:
            refused.append((path, size, modified, None,
                            "%s: %d bytes: larger than --max-in-memory (%d bytes), the most Spark reads into an executor's "
                            "memory, and not on a filesystem streamed to hciscope (file: paths: a local or mounted "
                            "filesystem)" % (path, size, args.max_in_memory)))
        else:
            by_spark.append(path)
    refused += [(m, None, None, None, "%s: no such file or folder (nothing matches)" % m) for m in missing]

    parallelism = max(1, sc.defaultParallelism)
    # Tasks of about 50 files at least four per core: a core that finishes early takes the next,
    # so the end of the run is not one long task.
    count = args.partitions or max(4 * parallelism, (len(streamed) + len(refused) + 49) // 50)
    groups = balanced_groups(streamed + refused, max(1, min(count, len(streamed) + len(refused))))
    shared = sc.broadcast(groups)
    binary_argument = binary

    def run(items):
        return process_partition(items, binary_argument, settings)

    work = sc.parallelize(range(len(groups)), max(1, len(groups))).flatMap(lambda i: shared.value[i]) if groups else sc.emptyRDD()
    results = work.mapPartitions(run)
    if by_spark:
        # Spark reads these whole (binaryFile with content): at most --max-in-memory bytes each.
        # The length filter is applied before a file's bytes are read (binaryFile's filter push-down).
        content = (spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(spark_inputs)
                   .where(F.col("length") <= args.max_in_memory)
                   .select("path", "length", F.col("modificationTime").cast("long").alias("modified"), "content"))
        read = content.rdd.map(lambda r: (r.path, r.length, r.modified, r.content, None)).mapPartitions(run)
        results = results.union(read)
    # hciscope runs once per file: what it gave is kept for the passes below.
    results = results.persist(StorageLevel.MEMORY_AND_DISK)
    tally = results.map(lambda r: (r[0], r[2], r[3])).countByValue()
    skipped = sum(n for (kind, _, _), n in tally.items() if kind == "skip")
    total = sum(n for (kind, _, _), n in tally.items() if kind == "row")
    errors = sum(n for (kind, error, _), n in tally.items() if kind == "row" and error)
    rows_text = results.filter(lambda r: r[0] == "row").map(lambda r: r[1])
    cpu = [json.loads(t) for t in results.filter(lambda r: r[0] == "cpu").map(lambda r: r[1]).collect()]
    schema = known_schema()
    if any(extra for (kind, _, extra) in tally if kind == "row"):
        schema = merge_schema(schema, spark.read.json(rows_text).schema)
    rows = spark.read.schema(schema).option("mode", "FAILFAST").json(rows_text)
    for c in partition_by:
        if c in DERIVED and c not in rows.columns:
            rows = rows.withColumn(c, F.expr(DERIVED[c]))
    writer = rows.write.mode("overwrite" if args.overwrite else "errorifexists")
    if partition_by:
        writer = writer.partitionBy(*partition_by)
    writer.parquet(fleet_dir)
    results.unpersist()
    print("hciscope_fleet: %d file(s) listed, %d row(s) (%d with an error), %d skipped (not captures); "
          "%d streamed to hciscope, %d read by Spark; %.1f s; rows in %s"
          % (len(files), total, errors, skipped, len(streamed), len(by_spark), time.monotonic() - started, fleet_dir))
    print("hciscope_fleet: CPU seconds: hciscope %.1f, Python workers %.1f%s"
          % (sum(c[0] for c in cpu), sum(c[1] for c in cpu), jvm_cpu(sc)))
    if args.summary:
        run_summary(spark, fleet_dir, summary_dir, args.overwrite)
    spark.stop()


if __name__ == "__main__":
    main()
