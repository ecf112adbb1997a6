"""What fitting a seed reproduction needs, shared by `fit` (which writes the
fitted values) and `robustness` (which refits under each variant of the costs):
the seeds' baseline columns, the workstation profile of IMPALA-12430, and the
fit of one column (row scale, operator speed, RPC latency) by simulating the
baseline policy. See `fit` for what is fitted and why.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PROFILE = os.path.join(ROOT, "profiles", "impala-m6id-4xlarge.json")
WORKSTATION = os.path.join(ROOT, "profiles", "impala-12430-workstation.json")
# How much faster the LZ4 README's desktop (i7-9700K at 4.9 GHz: 780 MB/s) runs
# LZ4 than the cluster's 8375C (640 MB/s, the serialize benchmark's split).
DESKTOP_SPEEDUP = 780e6 / 640e6
# A profile's CPU costs: rates (per second, faster on a faster CPU) and times.
CPU_RATES = ("serialize_bytes_per_s", "deserialize_bytes_per_s", "lz4_compress_bytes_per_s",
             "lz4_decompress_bytes_per_s", "transfer_bytes_per_s", "partition_rows_per_s", "append_bytes_per_s")
CPU_TIMES = ("serialize_row_ns", "deserialize_row_ns", "deserialize_batch_us", "rpc_cpu_us", "rpc_caller_cpu_us",
             "sender_wake_us")
# Per seed: its generator, the baseline policy, the ticket's total there, and
# (only where the ticket gives it) the mean network time per RPC.
SEEDS = {
    "impala-15512": {"generator": "make-impala-15512", "policy": "16K", "wall_s": 383.6, "network_us": 410.0,
                     "hash_rpcs": 10.2e6,
                     "column": "the IMPALA-15512 16K column (total 383.6 s, 10.2M hash RPCs, 390-430 us per RPC)"},
    # TPC-H(42): 3.59 s on average after the change, -4.95%, so 3.59 / 0.9505 before.
    "impala-12430": {"generator": "make-impala-12430", "policy": "lz4", "wall_s": 22 * 3.59 / 0.9505, "network_us": None,
                     "hash_rpcs": None, "workstation": True,
                     "column": "the IMPALA-12430 baseline (22 TPC-H queries, 3.777 s on average)"},
}


def workstation_profile(cluster):
    """IMPALA-12430's costs: the cluster profile `cluster` with every CPU cost
    DESKTOP_SPEEDUP times faster; its network figures (rpc_latency_us, the
    service threads) as they are."""
    profile = dict(cluster)
    for key in CPU_RATES:
        profile[key] = round(cluster[key] * DESKTOP_SPEEDUP, -3 if cluster[key] >= 1e6 else 3)
    for key in CPU_TIMES:
        profile[key] = round(cluster[key] / DESKTOP_SPEEDUP, 3)
    profile["description"] = (
        "IMPALA-12430's benchmark machine, its author's workstation (the ticket: 'probably my CPU is faster'): "
        f"profiles/impala-m6id-4xlarge.json with every CPU cost {DESKTOP_SPEEDUP:.3g} times faster, the LZ4 README's desktop "
        "(i7-9700K at 4.9 GHz, 780 MB/s) against the 8375C's measured 640 MB/s; its per-RPC latency and service "
        "threads as there. Written by scenarios/seeds/fit impala-12430.")
    profile["sources"] = dict(cluster.get("sources", {}), **{
        key: f"profiles/impala-m6id-4xlarge.json's, {DESKTOP_SPEEDUP:.3g} times faster (the description says why)"
        for key in CPU_RATES + CPU_TIMES})
    return profile


def write_json(path, doc):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)


def set_args(sets):
    """`exsim simulate` arguments for KEY=VALUE overrides: --set KEY=VALUE each."""
    return [a for kv in sets for a in ("--set", kv)]


def simulate_baseline(exsim, tmp, seed, speed, latency_us, row_scale, profile, quiet=False, sets=(), generator_args=()):
    profile = dict(profile, rpc_latency_us=latency_us)
    costs = os.path.join(tmp, "costs.json")
    write_json(costs, profile)
    scenario = os.path.join(tmp, "scenario.json")
    command = [os.path.join(HERE, seed["generator"]), "--operator-rows-per-s", repr(speed), "--costs", costs,
               "-o", scenario]
    if row_scale is not None:
        command += ["--row-scale", repr(row_scale)]
    subprocess.run([*command, *generator_args], check=True)
    out = os.path.join(tmp, "results.json")
    done = subprocess.run([exsim, "simulate", scenario, "--policy", seed["policy"], "--json", out, *set_args(sets)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"fit: exsim simulate failed (exit {done.returncode}):\n{done.stderr}")
    with open(out) as f:
        r = json.load(f)[0]
    hash_rpcs = sum(x["rpcs"] for x in r["exchanges"] if x["kind"] == "hash")
    if not quiet:
        print(f"fit: rows x{row_scale if row_scale is not None else 1:.4g}, operator {speed:.4g} rows/s, rpc latency "
              f"{latency_us:.1f} us -> {r['wall_s']:.1f} s, {hash_rpcs / 1e6:.2f}M hash RPCs, network time mean "
              f"{r['rpc_network_us']['mean']:.0f} us", flush=True)
    return r["wall_s"], r["rpc_network_us"]["mean"], hash_rpcs


def fit_column(exsim, seed, profile, quiet=False, sets=(), generator_args=()):
    """The fitted knobs for `seed` (an entry of SEEDS) with costs `profile` (and
    the scenario values `sets`, KEY=VALUE as `exsim simulate --set` takes them,
    and `generator_args` for the seed's generator):
    a dict of operator speed, row scale (or None), rpc_latency_us and what they achieve."""
    target_wall, target_network = seed["wall_s"], seed["network_us"]
    latency = float(profile["rpc_latency_us"])
    speed = 2e7
    scale = 1.0 if seed["hash_rpcs"] is not None else None
    with tempfile.TemporaryDirectory() as tmp:
        run = lambda s, l: simulate_baseline(exsim, tmp, seed, s, l, scale, profile, quiet, sets,
                                                       generator_args)  # noqa: E731
        if scale is not None:
            # Rows: RPCs follow rows in proportion (full batches), so step by the ratio.
            for _ in range(3):
                _, _, rpcs = run(speed, latency)
                scale *= seed["hash_rpcs"] / rpcs
        for _ in range(4):
            if target_network is not None:
                # Latency: each call's network time includes it once, so step by the gap.
                _, network, _ = run(speed, latency)
                latency = max(0.0, latency + target_network - network)
            # Speed: the secant on log(speed) against log(wall), from two points.
            wall, network, rpcs = run(speed, latency)
            wall2, _, _ = run(speed * 1.25, latency)
            slope = (math.log(wall2) - math.log(wall)) / math.log(1.25)
            if slope >= 0:
                sys.exit("fit: the total does not fall as operators get faster; nothing to fit")
            speed = speed * math.exp((math.log(target_wall) - math.log(wall)) / slope)
            wall, network, rpcs = run(speed, latency)
            if abs(wall / target_wall - 1) < 0.005 and (target_network is None or
                                                       abs(network / target_network - 1) < 0.02):
                break
    return {"speed": speed, "scale": scale, "latency": latency, "wall": wall, "network": network, "rpcs": rpcs}
