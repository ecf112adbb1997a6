#!/usr/bin/env bash
# exsim sweep as a user meets it: a sweep on threads, the same sweep as 3 shards
# run by GNU parallel and merged (equal to the unsharded one), progress lines,
# Ctrl-C keeping whole lines, and bad input.
# Usage: sweep_test.sh EXSIM SOURCE_DIR
set -u
source "$(dirname "$0")/checks.sh"
trap 'rm -rf "$work"' EXIT
scenario="$src/scenarios/default.json"
vary=(--vary mt_dop=0,2 --vary 'policies.*.in_flight=1,2,3' --policy 16K --policy budget-4M)

# 1. The whole sweep on 2 threads: 2 x 3 points x 2 policies, one JSON object per line.
timeout 300 "$exsim" sweep "$scenario" "${vary[@]}" --jobs 2 -o "$work/full.jsonl" 2>"$work/full.err"
check "sweep exits 0" test $? -eq 0
check "12 result lines" test "$(wc -l <"$work/full.jsonl")" -eq 12
check "a finished sweep leaves no partial file" test ! -e "$work/full.jsonl.partial"
check "every line is a results object with its point" python3 -c "
import json, sys
lines = [json.loads(l) for l in open('$work/full.jsonl')]
assert all(l['sweep']['points'] == 6 and 0 <= l['sweep']['point'] < 6 for l in lines)
assert sorted({l['sweep']['point'] for l in lines}) == list(range(6))
assert all(l['source'] == 'simulated' and l['rpcs'] > 0 for l in lines)
# the varied values are in the results, read as --set reads them (numbers as numbers)
p = [l for l in lines if l['sweep']['set'] == {'mt_dop': 2, 'policies.*.in_flight': 3}]
assert len(p) == 2, p
"
check "progress: a plain line per point when not a terminal" test "$(grep -c '^points [0-9]/6 done' "$work/full.err")" -eq 6
check "progress names the point" has "mt_dop=2 policies.*.in_flight=3" "$work/full.err"
check "more RPCs in flight: the same RPCs, sooner" python3 -c "
import json
r = {(l['sweep']['set']['mt_dop'], l['sweep']['set']['policies.*.in_flight'], l['policy']): l
     for l in map(json.loads, open('$work/full.jsonl'))}
assert r[(0, 1, '16K')]['rpcs'] == r[(0, 3, '16K')]['rpcs']
assert r[(0, 1, '16K')]['wall_s'] > r[(0, 3, '16K')]['wall_s']
"

# On a terminal: one bar redrawn in place, with the ETA (script(1) gives the command a terminal).
if command -v script >/dev/null; then
  script -qec "'$exsim' sweep '$scenario' --vary mt_dop=0,2 --policy 16K --jobs 1 -o '$work/tty.jsonl'" \
    /dev/null >"$work/tty.out" 2>&1
  check "terminal: a bar with the ETA" grep -q "ETA" "$work/tty.out"
  check "terminal: redrawn in place" grep -q $'\r\[' "$work/tty.out"
  check "terminal: no plain lines" test "$(grep -c '^points [0-9]/2 done' "$work/tty.out")" -eq 0
fi

# 2. The same sweep as 3 shards through GNU parallel, merged: the unsharded sweep's lines.
if command -v parallel >/dev/null; then
  timeout 300 parallel --will-cite -j 3 "$exsim" sweep "$scenario" "${vary[@]}" --jobs 1 --shard {}/3 \
    -o "$work/shard{}.jsonl" ::: 1 2 3 2>"$work/parallel.err"
  check "3 shards through GNU parallel" test $? -eq 0
  check "shards split the points" test "$(cat "$work"/shard?.jsonl | wc -l)" -eq 12
  check "merge shards" "$exsim" sweep merge "$work/shard1.jsonl" "$work/shard2.jsonl" "$work/shard3.jsonl" \
    -o "$work/merged.jsonl"
  check "merge the unsharded sweep" "$exsim" sweep merge "$work/full.jsonl" -o "$work/full-merged.jsonl"
  check "merged shards equal the unsharded sweep" cmp -s "$work/merged.jsonl" "$work/full-merged.jsonl"
  "$exsim" sweep merge "$work/shard1.jsonl" "$work/shard3.jsonl" -o "$work/partial.jsonl" 2>"$work/partial.err"
  check "a missing shard: exit 2" test $? -eq 2
  check "a missing shard: the points named" has "2 of 6 points have no result" "$work/partial.err"
  check "a missing shard: nothing written" test ! -e "$work/partial.jsonl"
  "$exsim" sweep merge "$work/shard1.jsonl" "$work/shard1.jsonl" >/dev/null 2>"$work/twice.err"
  check "a shard twice: exit 2" test $? -eq 2
  check "a shard twice: named" has "appears twice" "$work/twice.err"
else
  check "GNU parallel is installed (scripts/install-deps)" false
fi

# 3. Ctrl-C: the sweep stops, exits 130, and keeps only whole lines of finished
# points, in OUT.partial: an earlier OUT is left as it was.
echo "an earlier sweep" >"$work/stopped.jsonl"
"$exsim" sweep "$scenario" --vary 'workload.queries.0.exchanges.0.rows=800000000,800000001,800000002,800000003' \
  --policy 16K --jobs 1 -o "$work/stopped.jsonl" 2>"$work/stopped.err" &
pid=$!
for _ in $(seq 1 600); do [ -s "$work/stopped.jsonl.partial" ] && break; sleep 0.05; done
kill -INT $pid
wait $pid
check "interrupted: exit 130" test $? -eq 130
check "interrupted: said so" has "interrupted:" "$work/stopped.err"
check "interrupted: where it is said" has "stopped.jsonl.partial" "$work/stopped.err"
check "interrupted: the earlier file kept" has "an earlier sweep" "$work/stopped.jsonl"
check "interrupted: whole lines only" python3 -c "
import json
lines = open('$work/stopped.jsonl.partial').read().split('\n')
assert lines[-1] == '' and 1 <= len(lines) - 1 < 4, len(lines)
[json.loads(l) for l in lines[:-1]]
"

# --policy keeps policies before the variations: a flat size reaches the flat policy only.
"$exsim" sweep "$scenario" --policy 16K --vary 'policies.*.buffer.flat=16K,64K' -o "$work/flat.jsonl" 2>/dev/null
check "policies.* with --policy: only the kept policy varies" test "$(wc -l <"$work/flat.jsonl")" -eq 2

# 3b. --resume: an earlier run's finished points kept, a torn line and a half-written point
# dropped, only the rest simulated; the result is the whole sweep's lines.
python3 - "$work/full.jsonl" "$work/resumed.jsonl.partial" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines(keepends=True)
by_point = {}
for l in lines:
    by_point.setdefault(json.loads(l)['sweep']['point'], []).append(l)
out = by_point[0] + by_point[3] + by_point[5][:1] + [by_point[1][0][:40]]  # points 0 and 3 whole; 5 half; a torn line
open(sys.argv[2], 'w').write(''.join(out))
PY
timeout 300 "$exsim" sweep "$scenario" "${vary[@]}" --jobs 2 -o "$work/resumed.jsonl" --resume 2>"$work/resume.err"
check "--resume: exits 0" test $? -eq 0
check "--resume: said what it kept" has "resuming: 2 of 6 points kept from $work/resumed.jsonl.partial (2 line(s) of points cut short dropped)" "$work/resume.err"
check "--resume: only the rest simulated" test "$(grep -c '^points [0-9]/4 done' "$work/resume.err")" -eq 4
check "--resume: the whole sweep's lines" cmp -s <(sort "$work/full.jsonl") <(sort "$work/resumed.jsonl")
check "--resume: no partial file left" test ! -e "$work/resumed.jsonl.partial"
"$exsim" sweep "$scenario" --vary mt_dop=0,4 --policy 16K -o "$work/resumed.jsonl" --resume >/dev/null 2>"$work/resume2.err"
check "--resume from another sweep: exit 2" test $? -eq 2
check "--resume from another sweep: said" grep -q "resumed.jsonl:1: a sweep of 6 points, this one has 2: not this sweep's" "$work/resume2.err"
"$exsim" sweep "$scenario" --vary mt_dop=0,4 --resume >/dev/null 2>"$work/resume3.err"
check "--resume without -o: exit 2" test $? -eq 2
check "--resume without -o: said" has "--resume goes with -o OUT" "$work/resume3.err"

# 4. Bad input: exit 2, nothing run.
"$exsim" sweep "$scenario" --vary mt_dop >/dev/null 2>"$work/e1"
check "--vary without values: exit 2" test $? -eq 2
check "--vary without values: named" has "--vary mt_dop: expected KEY=V1,V2" "$work/e1"
"$exsim" sweep "$scenario" --vary mt_dop=0,1 --shard 4/3 >/dev/null 2>"$work/e2"
check "--shard 4/3: exit 2" test $? -eq 2
"$exsim" sweep "$scenario" --vary mt_dop=0,-1 -o "$work/bad.jsonl" >/dev/null 2>"$work/e3"
check "an invalid value: exit 2" test $? -eq 2
check "an invalid value: its point named" has "sweep point 1 (mt_dop=-1)" "$work/e3"
check "an invalid value: nothing written" test ! -e "$work/bad.jsonl"
"$exsim" sweep "$scenario" >/dev/null 2>"$work/e4"
check "no --vary: exit 2" test $? -eq 2
"$exsim" sweep "$scenario" --vary mt_dop=0 --policy nope >/dev/null 2>"$work/e5"
check "an unknown --policy: exit 2" test $? -eq 2

# A long exchange is fast-forwarded unless --exact; both say which they did.
long_merge="workload.queries.0.exchanges.0.rows=2000000000"
"$exsim" sweep "$src/scenarios/merge.json" --vary "$long_merge" --policy default -o "$work/fast.jsonl" 2>/dev/null
check "a long merge fast-forwarded in a sweep" has '"shortened"' "$work/fast.jsonl"
"$exsim" sweep "$src/scenarios/merge.json" --vary "$long_merge" --policy default --exact -o "$work/exact.jsonl" 2>/dev/null
check "--exact: simulated whole" test "$(grep -c fast_forward "$work/exact.jsonl")" -eq 0
check "--exact: the same calls" python3 -c "
import json, sys
fast, exact = (json.loads(open(f).readline()) for f in ('$work/fast.jsonl', '$work/exact.jsonl'))
sys.exit(0 if fast['rpcs'] == exact['rpcs'] and abs(fast['wall_s'] / exact['wall_s'] - 1) < 0.005 else 1)"

summary
