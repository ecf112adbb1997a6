#!/usr/bin/env bash
# exsim simulate --trace: a Chrome trace event file as Perfetto reads it (the
# format's fields, every track named), the spans the docs promise, one span per
# call, sampling under a budget, byte-identical for the same run.
# Usage: trace_test.sh EXSIM SOURCE_DIR
set -u
source "$(dirname "$0")/checks.sh"
trap 'rm -rf "$work"' EXIT

# A slow consumer (calls deferred, senders blocked) and the default scenario's four policies.
"$exsim" simulate "$src/scenarios/validation/backpressure.json" --trace "$work/bp.json" --json "$work/bp-results.json" \
  >"$work/out"
check "trace written" test -s "$work/bp.json"
check "trace reported" has "trace: " "$work/out"
check "the trace event format" python3 - "$work/bp.json" "$work/bp-results.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
results = json.load(open(sys.argv[2]))
events = doc["traceEvents"]
assert doc["displayTimeUnit"] == "ms"
spans = [e for e in events if e["ph"] == "X"]
meta = [e for e in events if e["ph"] == "M"]
assert len(spans) + len(meta) == len(events), "only complete (X) and metadata (M) events"
for e in spans:
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
    assert e["ts"] >= 0 and e["dur"] >= 0 and e["cat"] == "exchange"
    assert e["name"] in {"serialize", "compress", "send", "blocked", "rpc in flight", "deferred"}, e["name"]
processes = {e["pid"] for e in meta if e["name"] == "process_name"}
threads = {(e["pid"], e["tid"]) for e in meta if e["name"] == "thread_name"}
assert all(e["pid"] in processes and (e["pid"], e["tid"]) in threads for e in spans), "every track named"
names = {e["name"] for e in spans}
assert {"serialize", "compress", "send", "blocked", "rpc in flight", "deferred"} <= names, names
# One span per call, TransmitData and EndDataStream, when nothing is sampled away.
assert doc["otherData"]["sampling"] == "1 in 1"
calls = sum(1 for e in spans if e["name"] == "rpc in flight")
assert calls == results[0]["rpcs"] + sum(x["eos_rpcs"] for x in results[0]["exchanges"]), calls
deferred = sum(1 for e in spans if e["name"] == "deferred")
assert deferred == sum(x["deferred_rpcs"] for x in results[0]["exchanges"]), deferred
# A call is in flight at least a round trip: 0.02 ms to its own host, 0.1 ms to the other.
assert min(e["dur"] for e in spans if e["name"] == "rpc in flight") >= 20
EOF

# The real exchange: the same format and span names, one span per call and per deferral.
timeout 120 "$exsim" run "$src/scenarios/validation/backpressure.json" --trace "$work/run.json" \
  --json "$work/run-results.json" >"$work/run.out" 2>"$work/run.err"
check "run --trace exits 0" test $? -eq 0
check "run trace: the format, the spans, one per call" python3 - "$work/run.json" "$work/run-results.json" <<'EOF2'
import json, sys
doc = json.load(open(sys.argv[1]))
results = json.load(open(sys.argv[2]))
spans = [e for e in doc["traceEvents"] if e["ph"] == "X"]
meta = [e for e in doc["traceEvents"] if e["ph"] == "M"]
assert len(spans) + len(meta) == len(doc["traceEvents"])
threads = {(e["pid"], e["tid"]) for e in meta if e["name"] == "thread_name"}
assert all((e["pid"], e["tid"]) in threads and e["ts"] >= 0 and e["dur"] >= 0 for e in spans)
names = {e["name"] for e in spans}
assert {"serialize", "compress", "send", "blocked", "rpc in flight", "deferred"} <= names, names
assert doc["otherData"]["source"].startswith("measured")
r = results[0]
calls = sum(1 for e in spans if e["name"] == "rpc in flight")
assert calls == r["rpcs"] + sum(x["eos_rpcs"] for x in r["exchanges"]), calls
assert sum(1 for e in spans if e["name"] == "deferred") == sum(x["deferred_rpcs"] for x in r["exchanges"])
processes = {e["args"]["name"] for e in meta if e["name"] == "process_name"}
assert processes == {"16K: h0", "16K: h1"}, processes
EOF2

# Sampling: a budget of 1000 spans keeps an even sample, under it, and says so.
"$exsim" simulate "$src/scenarios/default.json" --trace "$work/small.json" --trace-events 1000 >/dev/null
check "sampled trace" python3 - "$work/small.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
kept = sum(1 for e in doc["traceEvents"] if e["ph"] == "X")
other = doc["otherData"]
assert 500 <= kept <= 1000 and other["spans_kept"] == kept, kept
assert other["spans_offered"] > 100 * kept
k = int(other["sampling"].split()[-1])
assert k > 1 and k & (k - 1) == 0 and other["spans_offered"] // k <= 1000 + 1
# Every policy's hosts are present: the sample spans the whole run.
assert len({e["pid"] for e in doc["traceEvents"] if e["ph"] == "X"}) == 20
EOF
"$exsim" simulate "$src/scenarios/default.json" --trace "$work/full.json" >/dev/null
check "a full trace stays under 100 MB" test "$(stat -c %s "$work/full.json")" -lt 100000000
"$exsim" simulate "$src/scenarios/default.json" --trace "$work/again.json" >/dev/null
check "the same run, the same trace" cmp -s "$work/full.json" "$work/again.json"

"$exsim" simulate "$src/scenarios/default.json" --trace "$work/no/dir/t.json" >/dev/null 2>"$work/err"
check "unwritable trace: exit 2" test $? -eq 2
"$exsim" simulate "$src/scenarios/default.json" --trace "$work/t.json" --trace-events 5 >/dev/null 2>"$work/err"
check "too small a budget: exit 2" test $? -eq 2

summary
