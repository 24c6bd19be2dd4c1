#!/usr/bin/env python3
"""The fleet questions (fleet_summary_duckdb.sql) in DuckDB, on one machine, over the Parquet rows
of hciscope_fleet.py or over `hciscope analyze DIR --format jsonl`:

    python3 integrations/spark/fleet_summary.py OUTPUT/fleet        # the Spark job's rows
    python3 integrations/spark/fleet_summary.py fleet.jsonl         # analyze's rows

Prints each table (and, with --json, all of them as one JSON object: {name: [row objects]},
{"notes": [...]}). Needs PyPI duckdb.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


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


def source(path):
    """DuckDB's table function for the rows at `path`."""
    quoted = "'" + path.replace("'", "''") + "'"
    if os.path.isdir(path):
        glob = "'" + os.path.join(path, "**", "*.parquet").replace("'", "''") + "'"
        return "read_parquet(%s, hive_partitioning = true, union_by_name = true)" % glob
    if path.endswith(".parquet"):
        return "read_parquet(%s, union_by_name = true)" % quoted
    return "read_json_auto(%s, format = 'newline_delimited', sample_size = -1)" % quoted


def optional_columns(con):
    """{placeholder: SQL} for what the rows carry, and notes for what they do not."""
    columns = {name: kind for name, kind, *_ in con.execute("DESCRIBE fleet").fetchall()}
    found, notes = {}, []
    if re.search(r'[(,]\s*"?actor"?\s', columns.get("rules", "")):
        found["actor"] = "r.actor"
    else:
        notes.append("violation_rate_by_actor not computed: the rows' rule records carry no `actor` "
                     "(this hciscope does not attribute findings); violation_rate_by_rule covers every actor")
    for column in ("os_version", "platform_version"):
        if column in columns:
            found["os_version"] = "CAST(%s AS VARCHAR)" % column
            break
    else:
        found["os_version"] = "CAST(NULL AS VARCHAR)"
        notes.append("discovery_cost_by_platform: the rows carry no OS version, so os_version is null "
                     "(quantiles per platform only)")
    return found, notes


def summarise(path, sql_file=os.path.join(HERE, "fleet_summary_duckdb.sql")):
    import duckdb
    con = duckdb.connect()
    con.execute("CREATE VIEW fleet AS SELECT * FROM %s" % source(path))
    columns, notes = optional_columns(con)
    if con.execute("SELECT count(*) FROM fleet WHERE list_contains([r.rule FOR r IN rules], 'conn.link-lost')").fetchone()[0] == 0:
        notes.append("link_loss_rate: no row has the rule conn.link-lost (this hciscope has no link-loss rule), "
                     "so its counts are 0 and its rates null")
    results = {}
    for name, sql in read_queries(sql_file):
        needs = re.findall(r"\{(\w+)\}", sql)
        if any(n not in columns for n in needs):
            continue
        for n in needs:
            sql = sql.replace("{%s}" % n, columns[n])
        cursor = con.execute(sql)
        names = [d[0] for d in cursor.description]
        results[name] = [dict(zip(names, row)) for row in cursor.fetchall()]
    return results, notes


def plain(value):
    if isinstance(value, (int, str)) or value is None:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("fleet", help="a folder of Parquet rows (OUTPUT/fleet), a .parquet file, or a .jsonl of analyze")
    parser.add_argument("--json", action="store_true", help="print every table as one JSON object")
    args = parser.parse_args()
    results, notes = summarise(args.fleet)
    if args.json:
        out = {name: [{k: plain(v) for k, v in row.items()} for row in rows] for name, rows in results.items()}
        out["notes"] = notes
        json.dump(out, sys.stdout, indent=1)
        print()
        return
    for name, rows in results.items():
        print("== %s" % name)
        if rows:
            keys = list(rows[0])
            print("  " + " | ".join(keys))
            for row in rows:
                print("  " + " | ".join("" if row[k] is None else str(plain(row[k])) for k in keys))
        print()
    for n in notes:
        print("note: " + n)


if __name__ == "__main__":
    main()
