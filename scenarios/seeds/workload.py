"""Builds a serial query workload from a benchmark's table of queries: the
shared part of the seed generators (make-impala-15512, make-impala-12430).

Each query says which fact rows it scans and what it shuffles:
    {"scan": {table: fraction}, "stage1": [shuffle...], "stage2": [shuffle...],
     "dims": broadcasts (default 3), "extra": small shuffles (default 0)}
A shuffle is (table, fraction, row type) for a share of a table, or
(None, rows, row type) for a number of aggregated or joined rows.

Every query broadcasts its filtered dimensions from the first host, runs its
first-stage shuffles together, then its second-stage ones, and merges 100 rows
to the coordinator. Producers spend one fragment thread's time on every row
they read, at the operator speed; consumers take rows at that speed.
"""
import json
import os


def shuffle_rows(rows, shuffle):
    table, amount, _ = shuffle
    return rows[table] * amount if table else amount


def queries(table, rows, row_types, lz4, operator_rows_per_s, merge_row="keyed_agg", broadcast_host="h0"):
    out = []
    for name, q in table.items():
        scanned = sum(rows[t] * f for t, f in q["scan"].items())
        exchanges = []

        def add(label, count, row, kind="hash", after=None, work_rows=None):
            count = max(1, int(round(count)))
            x = {"id": label, "kind": kind, "rows": count, "row": row_types[row], "lz4_ratio": lz4[row]}
            # A producer spends its thread's time on all the rows it reads
            # (work_rows), of which `count` leave through this exchange.
            x["produce_rows_per_s"] = operator_rows_per_s * count / max(count, work_rows or count)
            x["consume_rows_per_s"] = operator_rows_per_s
            if kind == "broadcast":
                x["senders"] = {"hosts": [broadcast_host], "per_host": 1}
                x["receivers"] = {"hosts": "all", "per_host": 1}
            if kind == "merge":
                x["senders"] = {"hosts": "all", "per_host": 1}
            if after:
                x["after"] = after
            exchanges.append(x)

        # Filtered dimensions, each broadcast to its join.
        for d in range(q.get("dims", 3)):
            add(f"d{d}", 50_000, "dim", kind="broadcast")
        first = []
        for i, s in enumerate(q["stage1"]):
            add(f"s{i}", shuffle_rows(rows, s), s[2], work_rows=scanned)
            first.append(f"s{i}")
        # The plan's other joins and aggregations: small shuffles beside the large ones.
        for e in range(q.get("extra", 0)):
            add(f"e{e}", 200_000, "keyed_agg", work_rows=scanned)
            first.append(f"e{e}")
        stage1_rows = sum(x["rows"] for x in exchanges if x["id"] in first)
        second = []
        for i, s in enumerate(q["stage2"]):
            add(f"t{i}", shuffle_rows(rows, s), s[2], after=first, work_rows=stage1_rows)
            second.append(f"t{i}")
        add("top", 100, merge_row, kind="merge", after=first + second)
        out.append({"name": name, "exchanges": exchanges})
    return out


def fitted(here, seed, key):
    """A value fitted by scenarios/seeds/fit for `seed`."""
    with open(os.path.join(here, f"fitted-{seed}.json")) as f:
        return json.load(f)[key]


def write(path, doc):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
