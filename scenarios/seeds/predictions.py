"""How a seed's published figures are predicted from simulated results: the
expressions in published.json call these (`query`, `median_query`,
`gain_share`...), and `robustness` predicts with them too.
"""
import math
import statistics


def query(result, name):
    """The simulated result of query `name`."""
    for q in result["queries"]:
        if q["name"] == name:
            return q
    raise KeyError(f"no query {name!r} in the results")


def host_max(result, key):
    """The largest per-host value of `key` (e.g. sender_peak_sum_bytes)."""
    return max(h[key] for h in result["hosts"])


def gain_share(base, other, names):
    """The share of the total wall-clock gain from `base` to `other` that the queries `names` make."""
    before = {q["name"]: q["wall_s"] for q in base["queries"]}
    after = {q["name"]: q["wall_s"] for q in other["queries"]}
    return sum(before[n] - after[n] for n in names) / (base["wall_s"] - other["wall_s"])


def geomean_query(result):
    walls = [q["wall_s"] for q in result["queries"]]
    return math.exp(sum(math.log(w) for w in walls) / len(walls))


def median_query(result):
    return statistics.median(q["wall_s"] for q in result["queries"])


def median_ratio(base, other):
    """The median over queries of each query's own time in `other` over its time in `base`."""
    before = {q["name"]: q["wall_s"] for q in base["queries"]}
    return statistics.median(q["wall_s"] / before[q["name"]] for q in other["queries"])


def sender_mean(result, key):
    """The mean over a run's exchanges that sent batches of each one's own
    `key` (rpc_network_us_mean): what averaging the fragments' RpcNetworkTime
    gives, as Impala's profile prints it, a mean over each fragment's calls."""
    means = [x[key] for x in result["exchanges"] if x["rpcs"] > 0]
    return sum(means) / len(means)


# The stages on a query's own threads, what Impala's TotalCpuTime counts
# (models/results/results.h, CpuByStage; docs/scenario-format.md).
QUERY_THREAD_STAGES = ("produce", "serialize", "compress", "call", "consume")


def query_cpu(result):
    """CPU seconds on the queries' own threads, as Impala's profile counts a
    query's TotalCpuTime: its fragment instances' and scanner threads', not the
    RPC layer's reactor and service threads."""
    return sum(result["cpu_s"].get(stage, 0) for stage in QUERY_THREAD_STAGES)


def predict(figure, results):
    """A figure's prediction (its `predicted` expression in published.json) over
    `results`: {run: {policy: result}}."""
    return eval(figure["predicted"], {"__builtins__": {}, "max": max, "min": min, "sum": sum, "len": len},
                {"r": results, "query": query, "host_max": host_max, "gain_share": gain_share,
                 "median_query": median_query, "median_ratio": median_ratio, "geomean_query": geomean_query,
                 "query_cpu": query_cpu, "sender_mean": sender_mean})
