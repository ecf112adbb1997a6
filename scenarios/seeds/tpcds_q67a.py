"""TPC-DS q67a's distributed plan, derived from its query text: Impala's planner
tests have q67 (a GROUP BY ROLLUP, planned as one multi-class aggregation) but
not q67a, which the ticket's tpcds-unmodified workload runs.

q67a (testdata/workloads/tpcds/queries/tpcds-q67a.test) computes the rollup by
hand: a WITH clause `results` (store_sales joined to date_dim, store and item,
grouped by 8 columns) and `results_rollup`, the union of `results` and eight
aggregations of it, each grouping by one column fewer, the last by none; then
rank() over (partition by i_category) and the top 100. Impala inlines a WITH
clause at each reference, so the plan holds nine copies of `results`. The
facts below follow Impala's planning rules, with every size and estimate taken
from its plan of q67 where q67 has the same operator:
- each copy of `results`: the store_sales scan joined to three broadcast
  dimensions (q67's exchanges 13, 14, 15), a streaming pre-aggregation, a hash
  exchange on the 8 columns (row size 92 B: q67's tuple of the same 8 columns
  and sum, tuple 13) and the merging aggregation. Its groups (item x store x
  month) are no fewer than its input, so the pre-aggregation passes its input
  rows: the store sales of the query's 12 months (d_month_seq 1200-1211, the
  year 2000) of the five years, 1998-2002, that store_sales spans (TPC-DS
  specification), 2.88M x 366 / 1826 at scale factor 1. The planner does not
  reduce q67's join by the window (2.88M, its estimate of every sale), so this
  corrects its estimate as make-impala-15512 corrects q72's week join;
- each rollup level: a second two-phase aggregation over its copy, a pre-
  aggregation beside the merge (the copy is partitioned on all 8 columns, not
  on the level's), a hash exchange on the level's columns (an unpartitioned
  one for the grand total) and the merge in the union's fragment. Its rows are
  the level's groups at scale factor 1 from each of the planner tests' 3
  instances (TPC-DS: 18,000 items, 12 months in the year's window, about 1,000
  brands, 100 classes, 10 categories); its row size is the level's slots
  (strings 12 B, ints 4 B, the decimal sum 16 B) and null bytes, 4-aligned, as
  Impala lays out a tuple; no more than its copy's rows;
- the union's fragment absorbs its partitioned children (as q77's plan does)
  and sends to the analytic's hash exchange on i_category and the final merge,
  q67's exchanges 18 and 20;
- a row of a copy or a level is its slots (row_size, the fixed-length part)
  plus its strings' data (row_strings: the mean and the longest, from Impala's
  TPC-DS statistics), where make-impala-15512 otherwise splits a planner size
  half and half.
"""

COLUMNS = [("i_category", 12), ("i_class", 12), ("i_brand", 12), ("i_product_name", 12), ("d_year", 4),
           ("d_qoy", 4), ("d_moy", 4), ("s_store_id", 12)]
# The string columns' data beyond their 12 B slots: mean and longest value in bytes
# (avgColLen and maxColLen in Impala's TPC-DS statistics, PlannerTest/tpcds_cpu_cost/
# stats-3TB.json; a column's lengths do not grow with the scale factor).
STRING_BYTES = {"i_category": (5.91, 11), "i_class": (7.79, 15), "i_brand": (16.16, 22),
                "i_product_name": (22.85, 30), "s_store_id": (16.0, 16)}
SUM_BYTES = 16
# Groups of each rollup level (1 to 8 columns dropped from the right) at scale factor 1.
LEVEL_GROUPS = [18_000 * 12, 18_000 * 4, 18_000, 18_000, 1_000, 100, 10, 1]
PLANNER_INSTANCES = 3
WINDOW_SHARE = 366 / 1826  # the year 2000's days among the 1826 of store_sales' five years, 1998-2002


def tuple_bytes(columns):
    slots = sum(size for _, size in columns) + SUM_BYTES
    null_bytes = (len(columns) + 1 + 7) // 8
    return (slots + null_bytes + 3) // 4 * 4


def string_bytes(columns):
    """The var-len bytes of a row of `columns`: (mean, max) of its strings' data."""
    lengths = [STRING_BYTES[c] for c, _ in columns if c in STRING_BYTES]
    return round(sum(m for m, _ in lengths), 2), sum(x for _, x in lengths)


def plan(q67):
    """q67a's exchanges, in tpcds-plans.json's form, from q67's."""
    by_id = {x["id"]: x for x in q67}
    dims = [by_id[i] for i in (13, 14, 15)]
    results = by_id[16]
    exchanges, union_inputs = [], []
    next_id = iter(range(100, 1000))
    assert tuple_bytes(COLUMNS) == 92  # q67's tuple of the same columns

    for branch in range(9):
        dim_ids = []
        for d in dims:
            dim_ids.append(next(next_id))
            exchanges.append(dict(d, id=dim_ids[-1]))
        copy = dict(results, id=next(next_id), row_size=tuple_bytes(COLUMNS),
                    cardinality_sf1=results["scan_rows_sf1"] * WINDOW_SHARE, consumes=dim_ids,
                    group_by=[c for c, _ in COLUMNS], row_strings=string_bytes(COLUMNS))
        exchanges.append(copy)
        if branch == 0:
            union_inputs.append(copy["id"])
            continue
        kept = COLUMNS[:8 - branch]
        level = {"id": next(next_id), "kind": "hash" if kept else "unpartitioned", "row_size": tuple_bytes(kept),
                 "cardinality_sf1": float(min(copy["cardinality_sf1"],
                                              LEVEL_GROUPS[branch - 1] * PLANNER_INSTANCES)),
                 "tables": [], "scan_rows_sf1": 0.0, "read_rows_sf1": 0.0, "consumes": [copy["id"]],
                 "group_by": [c for c, _ in kept] or None, "consumer_scan_rows_sf1": 0.0, "consumer_scan_row_size": 0,
                 "row_strings": string_bytes(kept)}
        exchanges.append(level)
        union_inputs.append(level["id"])
    analytic = dict(by_id[18], consumes=union_inputs)
    return [dict(by_id[20])] + [analytic] + exchanges
