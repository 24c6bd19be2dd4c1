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


# The rule record's fields in hciscope.fleet/2, with the DuckDB type a missing one takes (rows of
# hciscope.fleet/1 have no judged_status and no findings_by_actor).
RULE_FIELDS = [("rule", "VARCHAR"), ("status", "VARCHAR"), ("judged_status", "VARCHAR"), ("findings", "BIGINT"),
               ("errors", "BIGINT"), ("warnings", "BIGINT"), ("infos", "BIGINT"),
               ("findings_by_actor", 'STRUCT(app BIGINT, os BIGINT, peer BIGINT, "unknown" BIGINT)')]


def has_field(struct_type, name):
    return re.search(r'[(,]\s*"?%s"?\s' % re.escape(name), struct_type) is not None


def create_view(con, path):
    """The view `fleet` over the rows at `path`: hciscope.fleet/2's columns that the queries use,
    with nulls for those rows of hciscope.fleet/1 lack (os_version; the rules' judged_status and
    findings_by_actor) when no row has them."""
    con.execute("CREATE VIEW fleet_rows AS SELECT * FROM %s" % source(path))
    columns = {name: kind for name, kind, *_ in con.execute("DESCRIBE fleet_rows").fetchall()}
    replace, add = [], []
    rules = columns.get("rules", "")
    if "STRUCT" in rules and not all(has_field(rules, f) for f, _ in RULE_FIELDS):
        fields = ", ".join("%s := %s" % (f, ("r.%s" % f) if has_field(rules, f) else "CAST(NULL AS %s)" % kind)
                           for f, kind in RULE_FIELDS)
        replace.append("list_transform(rules, lambda r: struct_pack(%s)) AS rules" % fields)
    if "os_version" not in columns:
        add.append("CAST(NULL AS VARCHAR) AS os_version")
    select = "*" + (" REPLACE (%s)" % ", ".join(replace) if replace else "") + "".join(", " + a for a in add)
    con.execute("CREATE VIEW fleet AS SELECT %s FROM fleet_rows" % select)


def notes_for(con):
    """What a reader of the tables should know about these rows."""
    notes = []
    older = con.execute("SELECT count(*) FROM fleet WHERE schema = 'hciscope.fleet/1'").fetchone()[0]
    if older:
        notes.append("%d row(s) of hciscope.fleet/1 (an older hciscope, no attribution): violation_rate_by_rule "
                     "takes their status as the verdict, violation_rate_by_actor leaves them out, and their "
                     "os_version is null" % older)
    if con.execute("SELECT count(*) FROM fleet WHERE list_contains([r.rule FOR r IN rules], 'conn.link-lost')").fetchone()[0] == 0:
        notes.append("link_loss_rate: no row has the rule conn.link-lost (this hciscope has no link-loss rule), "
                     "so its counts are 0 and its rates null")
    return notes


def summarise(path, sql_file=os.path.join(HERE, "fleet_summary_duckdb.sql")):
    import duckdb
    con = duckdb.connect()
    create_view(con, path)
    notes = notes_for(con)
    results = {}
    for name, sql in read_queries(sql_file):
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
