#!/usr/bin/env bash
# The exsim command line as a user meets it: help, results files, exit codes
# and messages for bad input. Usage: cli_test.sh EXSIM SOURCE_DIR
set -u
source "$(dirname "$0")/checks.sh"
trap 'rm -rf "$work"' EXIT

# run EXPECTED_CODE ARGS...: runs exsim, keeps stdout/stderr in $work/out and $work/err.
run() {
  local expected=$1
  shift
  "$exsim" "$@" >"$work/out" 2>"$work/err"
  local code=$?
  if [ "$code" -ne "$expected" ]; then
    echo "exsim $*: exit $code, expected $expected"
    sed 's/^/  stderr: /' "$work/err" | head -5
    return 1
  fi
}

check "top-level help" run 0 --help
check "help lists simulate" has "simulate" "$work/out"
check "no command is a usage error" run 2
check "unknown command" run 2 frobnicate
check "unknown command named" has "unknown command 'frobnicate'" "$work/err"
check "simulate help" run 0 simulate --help
check "simulate help names --set" has "--set" "$work/out"
check "exsim help simulate" run 0 help simulate
check "exsim help simulate: the command's help" has "usage: exsim simulate SCENARIO" "$work/out"
check "exsim help sweep merge" run 0 help sweep merge
check "exsim help sweep merge: the subcommand's help" has "usage: exsim sweep merge" "$work/out"
# Every command's help shows examples and its exit status, and lays options out as "-j, --jobs N".
for command in simulate run agent calibrate validate advise sweep "sweep merge" report import-profile diff; do
  check "help of $command" run 0 $command --help
  check "help of $command: examples" grep -qi "^examples\?[:,]" "$work/out"
  check "help of $command: exit status" grep -q "^Exit status:" "$work/out"
  check "help of $command: no parser layout" bash -c '! grep -q "\[ --" "$1"' _ "$work/out"
done
check "--version" run 0 --version
check "--version: the version" has "exsim 0." "$work/out"
check "a mistyped command" run 2 simulte
check "a mistyped command: a hint" has "unknown command 'simulte' (did you mean 'simulate'?)" "$work/err"
check "a mistyped option" run 2 simulate "$src/scenarios/default.json" --polcy 16K
check "a mistyped option: a hint" has "unknown option --polcy (did you mean --policy?)" "$work/err"
check "a value of the wrong type" run 2 run "$src/scenarios/default.json" --timeout 0.05
check "a value of the wrong type: what is expected" has "--timeout 0.05: expected a whole number" "$work/err"
check "an option without its value" run 2 simulate "$src/scenarios/default.json" --json
check "an option without its value: said" has "--json: expected a value after it" "$work/err"
# "-" is standard output for any file a command writes; the command's own text goes to standard error.
check "--json -" run 0 simulate "$src/scenarios/default.json" --json -
check "--json -: standard output is the results" python3 -c 'import json, sys; assert len(json.load(open(sys.argv[1]))) == 4' "$work/out"
check "--json -: the table on standard error" has "budget-4M" "$work/err"
check "--json -: no file named -" test ! -e ./-
check "two outputs to standard output" run 2 simulate "$src/scenarios/default.json" --json - --trace -
check "two outputs to standard output: refused" has "goes to standard output already" "$work/err"
check "sweep -o -" run 0 sweep "$src/scenarios/default.json" --vary mt_dop=0,2 --policy 16K -o -
check "sweep -o -: two lines" test "$(wc -l <"$work/out")" -eq 2
# Why policies look alike: a budget clamped to its min everywhere is said to send as the flat
# min does, and two policies with the same results are named; each row shows its channel buffer.
check "a budget clamped to its min" run 0 simulate "$src/scenarios/default.json" --set 'policies.budget-4M.buffer.budget=64K' --policy 16K --policy budget-4M
check "a budget clamped to its min: said" has "note: policy budget-4M: its budget of 64K is below its min of 16K" "$work/err"
check "a budget clamped to its min: the same results, said" has "note: policies 16K and budget-4M gave the same" "$work/err"
check "the channel buffer column" grep -qE "^budget-4M .* 16K$" "$work/out"
check "unbounded producers: said" has "give neither produce_rows_per_s nor scan" "$work/err"
# Why a policy wins: a latency-bound channel is bound by round trips; 128K makes it CPU-bound
# (its serializer slow, 400 MB/s, whatever the shipped profile's rate).
check "bound by" run 0 simulate "$src/scenarios/validation/latency.json" --policy 16K --policy 128K \
  --set costs.serialize_bytes_per_s=4e8 -o "$work/bound.json"
check "bound by: 16K waits on round trips" grep -qE "^16K .* round trips [0-9]+%" "$work/out"
check "bound by: 128K is CPU-bound" grep -qE "^128K .* sender CPU [0-9]+%" "$work/out"
check "bound by: in the results" python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert [x["bound_by"] for p in r for x in p["exchanges"]] == ["round_trips", "sender_cpu"], r' "$work/bound.json"
# The costs' range: each policy simulated at both ends of the costs' uncertainty.
check "simulate --range without a spread" run 2 simulate "$src/scenarios/default.json" --range --set 'costs={"rpc_cpu_us": 11}'
check "simulate --range without a spread: said" has "has no spread (exsim calibrate writes one); give --cost-spread PERCENT" "$work/err"
check "simulate --cost-spread" run 0 simulate "$src/scenarios/default.json" --policy 16K --policy 64K --cost-spread 20 -o "$work/range.json"
check "simulate --cost-spread: the range column" grep -qE "^64K +[0-9.]+ s +[0-9.]+-[0-9.]+ s " "$work/out"
check "simulate --cost-spread: whether the fastest holds" has "is the fastest at both ends of the costs' range (every cost 20% either way)" "$work/err"
check "simulate --cost-spread: cheap < simulated < dear" python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert all(p["wall_s_range"]["cheap"] < p["wall_s"] < p["wall_s_range"]["dear"] for p in r), r' "$work/range.json"
check "simulate --cost-spread 0" run 2 simulate "$src/scenarios/default.json" --cost-spread 0
# The model's validated error widens the range, and a lead smaller than it is said to be none.
check "a validation to take the error from" run 0 validate --measured "$src/tests/data/validate/suite-measured.json" "$src/scenarios/validation" -o "$work/validation.json"
check "simulate --validation" run 0 simulate "$src/scenarios/default.json" --validation "$work/validation.json" -o "$work/ranged.json"
check "simulate --validation: a lead under the model's error" grep -qE "[A-Za-z0-9-]+ leads the next policy by 0\.[0-9]%, less than the model's validated median error of [0-9.]+%: not told apart" "$work/err"
check "simulate --validation: the range" python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert all(p["wall_s_range"]["cheap"] < p["wall_s"] < p["wall_s_range"]["dear"] and p["wall_s_range"]["model_error"] > 0 for p in r), r' "$work/ranged.json"
check "simulate --validation of results with no verdict" run 2 simulate "$src/scenarios/default.json" --validation "$work/ranged.json"
check "simulate --validation of results with no verdict: said" has "expected the results of exsim validate with a verdict" "$work/err"
# Each cost alone over its range: the costs ranked by what they move, and whether the fastest holds.
check "simulate --sensitivity" run 0 simulate "$src/scenarios/default.json" --policy 16K --policy 64K --sensitivity -o "$work/sensitivity.json"
check "simulate --sensitivity: the table" has "what could change this answer: each cost alone at both ends of its range" "$work/out"
check "simulate --sensitivity: LZ4 moves 64K the most" grep -qE "^lz4_compress_bytes_per_s .* 64K +64K " "$work/out"
check "simulate --sensitivity: the verdict" has "64K is the fastest at both ends of each of 25 costs' ranges" "$work/out"
check "simulate --sensitivity: in the results" python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert all(len(p["sensitivity"]) == 25 and all(s["wall_cheap_s"] > 0 and s["wall_dear_s"] > 0 for s in p["sensitivity"]) for p in r), r' "$work/sensitivity.json"
# diff: what changed between two results files, per policy and per exchange.
"$exsim" simulate "$src/scenarios/default.json" --policy 16K --policy 64K -o "$work/diff-a.json" 2>/dev/null
"$exsim" simulate "$src/scenarios/default.json" --policy 16K --policy 128K --set costs.rpc_cpu_us=40 -o "$work/diff-b.json" 2>/dev/null
check "diff" run 0 diff "$work/diff-a.json" "$work/diff-b.json"
check "diff: a policy's wall-clock, slower with dearer calls" grep -qE "^16K +wall +[0-9.]+ s +[0-9.]+ s +\+[0-9.]+%" "$work/out"
check "diff: an exchange's figure" grep -qE "^16K +[a-z0-9]+ [a-z0-9-]+ +bytes on the wire|^16K +[a-z0-9]+ [a-z0-9-]+ +bound by" "$work/out"
check "diff: policies in one file only" has "policy 64K: in A only" "$work/out"
check "diff: ... and the other" has "policy 128K: in B only" "$work/out"
check "diff: the same file, nothing changed" run 0 diff "$work/diff-a.json" "$work/diff-a.json"
check "diff: the same file, said" has "no figure changed" "$work/out"
check "diff --all: every figure" run 0 diff "$work/diff-a.json" "$work/diff-a.json" --all
check "diff --all: unchanged marked =" grep -qE "^16K +wall .* =$" "$work/out"
check "diff: one file" run 2 diff "$work/diff-a.json"
check "diff: one file, said" has "expected two results files, A and B; got 1" "$work/err"
echo '{"not": "results"}' >"$work/diff-bad.json"
check "diff: not results" run 2 diff "$work/diff-a.json" "$work/diff-bad.json"
check "diff: not results, named" has "diff-bad.json: expected results as simulate and run write them" "$work/err"

# A worst case beyond the host's memory is said: given, or 8 GiB assumed.
check "simulate: memory_per_host" run 0 simulate "$src/scenarios/default.json" --policy 16K --set cluster.memory_per_host=1M
check "simulate: beyond memory_per_host, said" has "policy 16K: its worst-case sender memory, 1.09 MiB a host, exceeds the host's memory (1.00 MiB, cluster.memory_per_host)" "$work/err"
check "simulate: a typo of a size (64M for 64K)" run 0 simulate "$src/scenarios/default.json" --policy 64K --set policies.64K.buffer.flat=64M --set mt_dop=16
check "simulate: a typo of a size, said" grep -qE "policy 64K: its worst-case sender memory, [0-9.]+ GiB a host, exceeds the host's memory \(8.00 GiB assumed; give cluster.memory_per_host\)" "$work/err"

# An output named for another format than it holds is refused.
check "simulate -o x.html" run 2 simulate "$src/scenarios/default.json" -o "$work/results.html"
check "simulate -o x.html: said" has "--output $work/results.html: writes JSON, but the name says HTML; name it .json" "$work/err"
check "simulate -o x.html: nothing written" test ! -e "$work/results.html"

# Ctrl-C: said, status 130, nothing written. Simulated whole (--exact), so that
# it is still running when the signal comes however fast the fast path gets
# (its 16K policy alone takes several seconds of a core).
timeout --preserve-status -s INT 1 "$exsim" simulate "$src/scenarios/production-20-hosts.json" --exact -o "$work/interrupted.json" >"$work/out" 2>"$work/err"
check "simulate interrupted: status 130" test $? -eq 130
check "simulate interrupted: said" has "exsim simulate: interrupted; no output written" "$work/err"
check "simulate interrupted: nothing written" test ! -e "$work/interrupted.json"

# advise: the least memory within the margin of the fastest within a memory budget, in fewer
# simulations than its space.
check "advise" run 0 advise "$src/scenarios/default.json" --memory-budget 16M -o "$work/advice.json"
check "advise: the advice" grep -qE "^advice: budget-1M " "$work/out"
check "advise: what it explored, with what bounded it" grep -qE "^budget-1M .* sender CPU [0-9]+%.*<- pick" "$work/out"
check "advise: the JSON" python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["pick"] == "budget-1M" and d["simulations"] < d["space"] / 2, d' "$work/advice.json"
# The advice as soon as the search has it, then the judging over the costs' ranges, its verdict last.
"$exsim" advise "$src/scenarios/default.json" --memory-budget 16M >"$work/both" 2>&1
check "advise: the advice printed before its judging starts, the verdict after" python3 -c '
import sys
lines = open(sys.argv[1]).read().splitlines()
first = lambda prefix: next(i for i, l in enumerate(lines) if l.startswith(prefix))
assert first("advice: budget-1M ") < first("advise: judging budget-1M and the 3 fastest others") < first("over each cost") == len(lines) - 1, lines' "$work/both"
check "advise --grid: the same pick" run 0 advise "$src/scenarios/default.json" --memory-budget 16M --grid
check "advise --grid: the same pick, said" grep -qE "^advice: budget-1M " "$work/out"
check "advise --base: an unknown policy" run 2 advise "$src/scenarios/default.json" --memory-budget 16M --base 65K
check "advise --base: an unknown policy, named by its flag, with a hint" has "--base 65K: no such policy in" "$work/err"
check "advise --base: ... and a hint" has "did you mean '64K'" "$work/err"
check "advise --base 64K: compared with it" run 0 advise "$src/scenarios/default.json" --memory-budget 16M --base 64K
check "advise --base 64K: compared with it, said" grep -qE "^advice: budget-1M .* against 64K " "$work/out"
# The rule's margin: 3.0% by default (the suite's median error) takes budget-1M; at 0.5%, budget-2M.
check "advise: the margin, said" grep -qE "least memory within 2.3% of the fastest" "$work/out"
check "advise: the memory column explained" has "memory: each buffer at the room its batches grow it to" "$work/out"
check "advise: the knee, said" grep -qE "^the knee: beyond budget-1M, memory buys at most [0-9.]+%, less than the 2.3% margin: the fastest that fits, [A-Za-z0-9-]+, takes [0-9.]+ MiB \([0-9.]+x\)" "$work/out"
check "advise --margin 0.5" run 0 advise "$src/scenarios/default.json" --memory-budget 16M --margin 0.5 --no-sensitivity
check "advise --margin 0.5: a larger pick" grep -qE "^advice: budget-2M " "$work/out"
check "advise --no-sensitivity: nothing judged" sh -c '! grep -q -e "advise: judging" -e "over each cost" "$1" "$2"' - "$work/out" "$work/err"
check "advise --margin: out of range" run 2 advise "$src/scenarios/default.json" --memory-budget 16M --margin 60
check "advise --margin: out of range, said" has "--margin 60: expected a percentage from 0 to 50" "$work/err"
check "advise: nothing fits" run 1 advise "$src/scenarios/default.json" --memory-budget 1K
check "advise: nothing fits, said" has "No policy fits: the smallest needs" "$work/out"
check "advise: a bad budget" run 2 advise "$src/scenarios/default.json" --memory-budget lots
check "advise: a bad budget, said" has "--memory-budget lots: expected a size" "$work/err"
check "advise: no budget" run 2 advise "$src/scenarios/default.json"
check "advise: no budget, said" has "--memory-budget SIZE is required" "$work/err"
check "advise: a bad measure" run 2 advise "$src/scenarios/default.json" --memory-budget 1G --memory peak
check "advise: a bad measure, said" has "--memory peak: expected worst or expected" "$work/err"
# Policies in parallel give the results one at a time gives, byte for byte.
check "simulate --jobs 1" run 0 simulate "$src/scenarios/default.json" --jobs 1 --json "$work/one.json"
check "simulate --jobs 3" run 0 simulate "$src/scenarios/default.json" --jobs 3 --json "$work/three.json"
check "simulate --jobs: the same results" cmp "$work/one.json" "$work/three.json"

# The default scenario: a table with every policy, and a results file.
check "simulate default" run 0 simulate "$src/scenarios/default.json" --json "$work/a.json"
for p in 16K 64K 128K budget-4M; do check "table row $p" has "$p" "$work/out"; done
check "results file" test -s "$work/a.json"
# The table says what the results file says: each row's wall-clock, RPCs, their
# change against the first policy, and the largest host's sender peak.
table_matches_results() {
  python3 - "$work/out" "$work/a.json" <<'PY'
import json, re, sys
results = json.load(open(sys.argv[2]))
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"^(\S+)\s+([\d.]+) s\s+([+-][\d.]+)%\s+(?:[A-Za-z ]+ \d+%(?:, [A-Za-z ]+ \d+%)?)\s+(\d+)\s+([+-][\d.]+)%\s+\S+ \S+\s+\S+ \S+\s+([\d.]+) (\S+)", line)
    if m:
        rows[m.group(1)] = m.groups()[1:]
unit = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
base = results[0]
bad = []
for r in results:
    wall, dwall, rpcs, drpcs, peak, peak_unit = rows.get(r["policy"], (None,) * 6)
    if wall is None:
        bad.append(f"no table row for {r['policy']}")
        continue
    peak_bytes = max(h["sender_peak_bytes"] for h in r["hosts"])
    checks = [
        (float(wall), round(r["wall_s"], 3), 0.0005),
        (int(rpcs), r["rpcs"], 0),
        (float(dwall), round((r["wall_s"] / base["wall_s"] - 1) * 100, 1), 0.051),
        (float(drpcs), round((r["rpcs"] / base["rpcs"] - 1) * 100, 1), 0.051),
        (float(peak) * unit[peak_unit], peak_bytes, 0.006 * peak_bytes),
    ]
    for shown, expected, tolerance in checks:
        if abs(shown - expected) > tolerance:
            bad.append(f"{r['policy']}: table shows {shown}, results say {expected}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}
check "table: each row's figures and deltas are the results file's" table_matches_results
check "results: 4 policies" test "$(grep -c '"policy":' "$work/a.json")" -eq 4
check "results: baseline first" test "$(grep -m1 '"policy":' "$work/a.json" | tr -d ' ,')" = '"policy":"16K"'
check "results: simulated" has '"source": "simulated"' "$work/a.json"
check "deterministic" run 0 simulate "$src/scenarios/default.json" --json "$work/b.json"
check "byte-identical results" cmp -s "$work/a.json" "$work/b.json"

# --policy and --set.
check "one policy" run 0 simulate "$src/scenarios/default.json" --policy 64K --json "$work/c.json"
check "one result" test "$(grep '"policy":' "$work/c.json" | tr -d ' ,')" = '"policy":"64K"' 
check "--set mt_dop" run 0 simulate "$src/scenarios/default.json" --policy 16K --set mt_dop=2 --set policies.16K.in_flight=2
check "--set shows in header" has "mt_dop 2" "$work/out"
check "unknown policy" run 2 simulate "$src/scenarios/default.json" --policy 46K
check "unknown policy hint" has "did you mean" "$work/err"
check "bad --set" run 2 simulate "$src/scenarios/default.json" --set mt_dop
check "bad --set message" has "expected KEY=VALUE" "$work/err"
check "--set of a bad value" run 2 simulate "$src/scenarios/default.json" --set mt_dop=-3
check "--set bad value named" has "default.json:/mt_dop" "$work/err"
check "--set bad value: the --set named" has "(set by --set mt_dop=-3)" "$work/err"
check "a policy given twice" run 2 simulate "$src/scenarios/default.json" -p 16K -p 16K
check "a policy given twice named" has "--policy 16K: given twice" "$work/err"
check "--trace-events without --trace" run 2 simulate "$src/scenarios/default.json" -p 16K --trace-events 500
check "--trace-events without --trace named" has "--trace-events applies only with --trace" "$work/err"
check "--token-file without --hosts" run 2 run "$src/scenarios/default.json" --token-file "$work/none"
check "--token-file without --hosts named" has "--token-file applies only with --hosts" "$work/err"
check "--let-cores-sleep without --hosts" run 2 run "$src/scenarios/default.json" --let-cores-sleep
check "--let-cores-sleep without --hosts named" has "--let-cores-sleep applies only with --hosts" "$work/err"
check "validate --let-cores-sleep without --hosts" run 2 validate "$src/scenarios/validation/latency.json" --let-cores-sleep
check "validate --let-cores-sleep without --hosts named" has "--let-cores-sleep goes with --hosts" "$work/err"
check "calibrate --let-cores-sleep without --hosts" run 2 calibrate --let-cores-sleep
check "calibrate --let-cores-sleep without --hosts named" has "--let-cores-sleep goes with --hosts" "$work/err"
"$exsim" agent --new-token-file "$work/token" >/dev/null
check "agent --keep-serving on any port" run 2 agent --token-file "$work/token" --keep-serving
check "agent --keep-serving on any port: said" has "--keep-serving needs a fixed port" "$work/err"
check "calibrate --cluster without --hosts" run 2 calibrate --cluster "$work/c.json"
check "calibrate --cluster without --hosts: said" has "--cluster goes with --hosts" "$work/err"
check "calibrate --hosts without a token" run 2 calibrate --hosts "$work/none" --cluster "$work/c.json"
check "calibrate --hosts without a token: said" has "--hosts needs --token-file" "$work/err"
check "validate --hosts without its cluster" run 2 validate "$src/scenarios/validation" --hosts "$work/none"
check "validate --hosts without its cluster: said" has "--hosts needs --token-file" "$work/err"
# A cluster file without the hosts' speeds is said; one whose speeds are not numbers is refused, by its path.
printf '127.0.0.1:1\n127.0.0.1:2\n' >"$work/refused-hosts"
echo '{"cluster": {"hosts": [{"name": "h0", "group": "g0"}, {"name": "h1", "group": "g0"}], "cores_per_host": 2,
  "rtt_matrix_ms": [[0, 0.1], [0.1, 0]]}}' >"$work/no-speeds.json"
check "validate --hosts, a cluster without speed probes" run 3 validate "$src/scenarios/validation/latency.json" \
  --hosts "$work/refused-hosts" --token-file "$work/token" --cluster "$work/no-speeds.json" \
  --profile "$src/tests/data/validate/profile.json"
check "validate --hosts, a cluster without speed probes: said" has "holds no speed probes" "$work/err"
echo '{"cluster": {"hosts": 2}, "measured": {"speed_probe_us": [900, "fast"]}}' >"$work/bad-speeds.json"
check "validate --hosts, speed probes not numbers" run 2 validate "$src/scenarios/validation/latency.json" \
  --hosts "$work/refused-hosts" --token-file "$work/token" --cluster "$work/bad-speeds.json" \
  --profile "$src/tests/data/validate/profile.json"
check "validate --hosts, speed probes not numbers: the file and path" \
  has "bad-speeds.json: /measured/speed_probe_us: expected an array of numbers" "$work/err"
check "validate --cluster without --hosts" run 2 validate "$src/scenarios/validation" --cluster "$work/c.json"
check "validate --cluster without --hosts: said" has "--cluster goes with --hosts" "$work/err"
check "unknown flag" run 2 simulate "$src/scenarios/default.json" --frobnicate
check "unknown scheduler" run 2 simulate "$src/scenarios/default.json" --scheduler nope
check "unknown scheduler: the names" has "expected calendar, quad-heap or binary-heap" "$work/err"
check "every scheduler, the same results" run 0 simulate "$src/scenarios/default.json" --scheduler binary-heap --json "$work/heap.json"
check "every scheduler, the same results: calendar" run 0 simulate "$src/scenarios/default.json" --json "$work/calendar.json"
check "every scheduler, the same results: identical" cmp -s "$work/heap.json" "$work/calendar.json"
check "missing scenario" run 2 simulate
check "missing file" run 2 simulate "$work/none.json"
check "missing file named" has "$work/none.json" "$work/err"
echo '[1, 2]' >"$work/array.json"
check "a scenario that is an array, with --set" run 2 simulate "$work/array.json" --set mt_dop=1
check "a scenario that is an array: said so" has "array.json:/: expected an object, got an array" "$work/err"

# Every malformed scenario: exit 2, and the message names the file.
for f in "$src"/tests/data/bad/*.json; do
  check "$(basename "$f")" run 2 simulate "$f"
  check "$(basename "$f") named" has "$f" "$work/err"
  while IFS= read -r fragment; do
    [ -n "$fragment" ] && check "$(basename "$f"): $fragment" has "$fragment" "$work/err"
  done <"${f%.json}.expect"
done

# A results file that cannot be written: refused before simulating, nothing left.
check "unwritable output" run 2 simulate "$src/scenarios/default.json" --policy 16K --json "$work/no/such/dir/r.json"
check "no partial file" test ! -e "$work/no/such/dir/r.json"
check "unwritable output named" has "$work/no/such/dir" "$work/err"
# A directory where a file should go: refused before the first output is written.
echo '"earlier results"' >"$work/keep.json"
mkdir -p "$work/a-dir"
check "a directory as an output" run 2 simulate "$src/scenarios/default.json" --policy 16K --json "$work/keep.json" \
  --trace "$work/a-dir"
check "a directory as an output named" has "a-dir: is a directory" "$work/err"
check "the other output left as it was" has "earlier results" "$work/keep.json"
check "a directory as the scenario" run 2 simulate "$work/a-dir"
check "a directory as the scenario named" has "a-dir: is a directory, not the scenario file" "$work/err"

# import-profile: a profile in, a scenario that simulates out; assumptions on stderr.
profiles="$src/tests/data/profiles"
check "import-profile help" run 0 import-profile --help
check "import a profile" run 0 import-profile "$profiles/three-hosts-hash.txt" -o "$work/imported.json"
check "imported scenario written" test -s "$work/imported.json"
check "assumptions listed" has "value(s) assumed" "$work/err"
check "assumed NIC speed listed" has "/cluster/nic_gbps: assumed" "$work/err"
check "imported scenario simulates" run 0 simulate "$work/imported.json"
check "import to standard output" run 0 import-profile "$profiles/impala-6041-krpc.txt" --hosts 39 --kind 7=broadcast
check "standard output is the scenario" has '"kind": "broadcast"' "$work/out"
check "malformed counter" run 2 import-profile "$profiles/malformed-counter.txt" -o "$work/bad-import.json"
check "malformed counter named" has "malformed-counter.txt:43: counter TotalBytesSent" "$work/err"
check "nothing written on error" test ! -e "$work/bad-import.json"
check "bad --kind" run 2 import-profile "$profiles/three-hosts-hash.txt" --kind 4=sideways
check "--kind for an exchange not in the profile" run 2 import-profile "$profiles/three-hosts-hash.txt" --kind 99=hash
check "--kind for an exchange not in the profile named" has "has no sender to exchange 99 (its senders' dst_ids: 4" "$work/err"
check "an empty --name" run 2 import-profile "$profiles/three-hosts-hash.txt" --name ""
# A ratio outside what LZ4 gives is moved into range, and the note says so.
sed 's/TotalBytesSent: 20.00 MB (20971520)/TotalBytesSent: 80.00 MB (83886080)/' "$profiles/three-hosts-hash.txt" \
  >"$work/bigger-sent.txt"
check "more bytes sent than serialized" run 0 import-profile "$work/bigger-sent.txt" -o "$work/bigger-sent.json"
check "the ratio moved into range" has '"lz4_ratio": 1.0' "$work/bigger-sent.json"
check "the note says so" has "= 3.03, taken as 1, the nearest ratio LZ4 gives" "$work/err"
# A sender whose title does not parse is refused, not skipped with its traffic.
sed '50s/dst_id=4/dst_id=-4/' "$profiles/three-hosts-hash.txt" >"$work/negative-dst.txt"
check "a sender title that does not parse" run 2 import-profile "$work/negative-dst.txt"
check "a sender title named" has "negative-dst.txt:50: KrpcDataStreamSender (dst_id=-4): expected" "$work/err"
sed '50s/dst_id=4/dst_id=99999999999999999999/' "$profiles/three-hosts-hash.txt" >"$work/huge-dst.txt"
check "a plan node id beyond int" run 2 import-profile "$work/huge-dst.txt"
check "a plan node id named" has "huge-dst.txt:50: dst_id=99999999999999999999: expected a plan node id" "$work/err"
check "missing profile" run 2 import-profile "$work/no-such-profile.txt"
check "a bad --name" run 2 import-profile "$profiles/three-hosts-hash.txt" --name "Bad Name"
check "a bad --name named" has "--name 'Bad Name': expected a scenario name" "$work/err"
check "--hosts beyond a scenario's 1024" run 2 import-profile "$profiles/three-hosts-hash.txt" --hosts 5000
check "--hosts against the profile's own hosts" run 2 import-profile "$profiles/three-hosts-hash.txt" --hosts 7
check "--hosts against the profile's own hosts: named" has "--hosts 7: the profile names its 3 hosts" "$work/err"
# Impala's own profiles: costs from the counters, a log of several profiles, the model replayed.
impala="$profiles/impala"
check "costs from a profile" run 0 import-profile "$impala/compute_stats_aggregated_q2.trimmed.txt" \
  -o "$work/cs.json" --costs "$work/cs-costs.json"
check "the scenario uses them" has '"costs": "cs-costs.json"' "$work/cs.json"
check "a derived figure's source" has '"lz4_compress_bytes_per_s": "derived from the profile: SerializeBatchTime' "$work/cs-costs.json"
check "a DEBUG build said" has "warning: the profile comes from a DEBUG build" "$work/err"
check "the imported scenario simulates at those costs" run 0 simulate "$work/cs.json"
check "--base-costs without --costs" run 2 import-profile "$impala/compute_stats_aggregated_q2.trimmed.txt" --base-costs "$src/profiles/reference.json"
check "one profile of a log" run 0 import-profile "$impala/compute_stats_aggregated_extended.trimmed.txt" --query 3
check "one profile of a log: its query" has '"name": "impala-614172e3da200bab-f550d5fc00000000"' "$work/out"
check "--query beyond the log" run 2 import-profile "$impala/compute_stats_aggregated_extended.trimmed.txt" --query 9
check "--query beyond the log: named" has "--query 9: " "$work/err"
check "replay a profile" run 0 validate --impala-profile "$impala/tpcds_72_local_run_profile.trimmed.json" -o "$work/replay.json" --markdown "$work/replay.md"
check "replay: rows in JSON" has '"figure": "bytes before LZ4"' "$work/replay.json"
check "replay: a Markdown table" has "| exchange | figure |" "$work/replay.md"
check "replay with a suite" run 2 validate scenarios/validation --impala-profile "$impala/tpcds_72_local_run_profile.trimmed.json"
check "--query without --impala-profile" run 2 validate scenarios/validation --query 2

# Outputs: checked before any work, never over an input, written all together or not at all.
cp "$src/scenarios/default.json" "$work/own.json"
check "-o over the scenario" run 2 simulate "$work/own.json" -p 16K -o "$work/own.json"
check "-o over the scenario: named" has "is a file this command reads" "$work/err"
check "-o over the scenario: the scenario kept" cmp -s "$work/own.json" "$src/scenarios/default.json"
check "-o and --trace on one file" run 2 simulate "$work/own.json" -p 16K -o "$work/same" --trace "$work/same"
check "-o and --trace on one file: named" has "is also the file of --output" "$work/err"
check "--json, -o's earlier name, still works" run 0 simulate "$src/scenarios/default.json" -p 16K --json "$work/by-json.json"
check "-o and --json together" run 2 simulate "$src/scenarios/default.json" -p 16K -o "$work/x.json" --json "$work/y.json"
check "-o and --json together: refused" has "--output and --json name the same file" "$work/err"
echo keep >"$work/keep.json"
check "a trace that cannot be written: before the work" run 2 simulate "$work/own.json" -p 16K -o "$work/keep.json" \
  --trace /proc/no-such-dir/t.json
check "a trace that cannot be written: the results file kept" test "$(cat "$work/keep.json")" = keep
check "an empty -o" run 2 simulate "$work/own.json" -p 16K -o ""
# Through a link, the file it names is written and the link kept; a file of
# the user's named like a temporary one is left alone.
echo mine >"$work/target.json.tmp"
ln -s "$work/target.json" "$work/link.json"
check "-o through a link" run 0 simulate "$work/own.json" -p 16K -o "$work/link.json"
check "-o through a link: still a link" test -L "$work/link.json"
check "-o through a link: its file written" has '"policy": "16K"' "$work/target.json"
check "a user's .tmp file left alone" test "$(cat "$work/target.json.tmp")" = mine
check "sweep -o over the scenario" run 2 sweep "$work/own.json" -v mt_dop=0,1 -o "$work/own.json"
check "sweep: a --set also varied" run 2 sweep "$work/own.json" -v mt_dop=0,1 -s mt_dop=4
check "sweep: a --set also varied: named" has "--set mt_dop=4: mt_dop is also varied" "$work/err"
check "sweep: a value twice" run 2 sweep "$work/own.json" -v mt_dop=1,1
check "sweep: a policy twice" run 2 sweep "$work/own.json" -v mt_dop=0 -p 16K -p 16K
check "sweep: an unknown policy, with a hint" run 2 sweep "$work/own.json" -v mt_dop=0 -p 16k
check "sweep: an unknown policy, with a hint: named" has "did you mean '16K'" "$work/err"
check "sweep: a bad --set is the scenario's, not a point's" run 2 sweep "$work/own.json" -v mt_dop=0,1 -s seed=-1
check "sweep: a bad --set: no point named" hasnt "sweep point" "$work/err"
check "validate --repetitions with --profile" run 2 validate "$src/scenarios/validation/latency.json" \
  --profile "$src/profiles/reference.json" --repetitions 9

summary
