#!/usr/bin/env bash
# exsim calibrate and exsim validate as a user meets them: a profile written
# in the spec's format with every figure within its physical bounds (or, on a
# machine too noisy, nothing written and the reason said), a small suite
# compared both ways with its JSON and Markdown, a verdict or the reason there
# is none, measurements judged again without running them, deliberate model
# errors caught, exit 2 on bad input. Nothing here depends on how fast the
# machine is: timing decides only which of the documented outcomes comes.
# Usage: validate_test.sh EXSIM SOURCE_DIR
set -u
source "$(dirname "$0")/checks.sh"
trap 'rm -rf "$work"' EXIT
json_get() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

# 1. Calibrate: a profile the scenario loader accepts, every figure within bounds.
timeout 120 "$exsim" calibrate -r 2 --scale 0.3 -o "$work/profile.json" >"$work/cal.out" 2>"$work/cal.err"
code=$?
check "calibrate exits 0, or 4 on a machine too noisy" test "$code" -eq 0 -o "$code" -eq 4
check "calibrate says which CPU it ran on" has "runs on CPU" "$work/cal.err"
if [ "$code" -eq 4 ]; then
  check "too noisy: says so" has "too busy or too noisy" "$work/cal.err"
  check "too noisy: nothing written" test ! -e "$work/profile.json"
  cp "$src/tests/data/validate/profile.json" "$work/profile.json"  # the rest needs a profile
else
  check "calibrate prints each figure's spread" has "rpc_cpu_us" "$work/cal.out"
  check "calibrate prints the machine's speed" has "machine speed" "$work/cal.out"
  for key in serialize_bytes_per_s deserialize_bytes_per_s lz4_compress_bytes_per_s lz4_decompress_bytes_per_s rpc_cpu_us; do
    check "profile $key > 0" test "$(json_get "$work/profile.json" "d['$key'] > 0")" = True
  done
  check "profile says the cores: one, the CPU it ran on" test "$(json_get "$work/profile.json" "d['cores']")" = 1
  # calibrate's own bounds (transport/calibration/calibrate.cpp), which it never writes past.
  check "RPC CPU per side between 0.1 us and 1 ms" test "$(json_get "$work/profile.json" "0.1 <= d['rpc_cpu_us'] <= 1000")" = True
  check "RPC latency under 10 ms" test "$(json_get "$work/profile.json" "0 <= d['rpc_latency_us'] < 10000")" = True
  for key in serialize_bytes_per_s deserialize_bytes_per_s lz4_compress_bytes_per_s lz4_decompress_bytes_per_s transfer_bytes_per_s; do
    check "$key between 1 MB/s and 100 GB/s" test "$(json_get "$work/profile.json" "1e6 <= d['$key'] <= 1e11")" = True
  done
  check "wire overhead tens of bytes" test "$(json_get "$work/profile.json" "40 <= d['wire_overhead_bytes'] <= 200")" = True
  check "profile keeps the spread" test "$(json_get "$work/profile.json" "d['spread']['rpc_cpu_us']['min'] <= d['spread']['rpc_cpu_us']['max']")" = True
fi
"$exsim" simulate "$src/tests/data/validate/small.json" --set "costs=\"$work/profile.json\"" >/dev/null 2>"$work/sim.err"
check "the profile loads as a scenario's costs" test $? -eq 0

# 2. Validate a small suite with that profile: both halves, errors, JSON and Markdown.
timeout 180 "$exsim" validate "$src/tests/data/validate/small.json" --profile "$work/profile.json" \
  --json "$work/val.json" --markdown "$work/val.md" >"$work/val.out" 2>"$work/val.err"
code=$?
check "validate exits 0 or 1 (a verdict), or 4 (none: the machine too noisy)" test "$code" -le 1 -o "$code" -eq 4
check "predicted side is simulated" test "$(json_get "$work/val.json" "d['comparisons'][0]['predicted']['source']")" = simulated
check "measured side is measured" test "$(json_get "$work/val.json" "d['comparisons'][0]['measured']['source']")" = measured
check "RPC counts agree within 5% (a few partial batches)" test "$(json_get "$work/val.json" "abs(d['comparisons'][0]['error']['rpcs']) < 0.05")" = True
check "table shows the median error" has "wall-clock, median" "$work/val.out"
check "markdown table" has "| --- |" "$work/val.md"
check "one row per policy, steady or not" test "$(json_get "$work/val.json" "len(d['comparisons'])")" = 2
if [ "$code" -eq 4 ]; then
  check "no verdict: said, with the reason" has "NO VERDICT" "$work/val.out"
  check "no verdict: passed is null" test "$(json_get "$work/val.json" "d['summary']['passed']")" = None
else
  check "a verdict: every row steady" test "$(json_get "$work/val.json" "all(c['steady'] for c in d['comparisons'])")" = True
  check "exit status follows the verdict" test "$(json_get "$work/val.json" "d['summary']['passed']")" = "$([ "$code" -eq 0 ] && echo True || echo False)"
fi

# 3. The same measurements judged again: read back as written, runs set aside
#    still never judged (exit 4); and measurements judged against thresholds
#    nobody meets: exit 1, each violation named, the stages shown; nothing runs.
all_steady=$(json_get "$work/val.json" "all(c['steady'] for c in d['comparisons'])")
"$exsim" validate --measured "$work/val.json" >"$work/again-val.out" 2>&1
code=$?
if [ "$all_steady" = True ]; then
  check "steady measurements judged again: a verdict" test "$code" -le 1
else
  check "runs set aside judged again: no verdict" test "$code" -eq 4
  check "rows without a majority of steady runs are flagged in the table" has "(unjudged)" "$work/again-val.out"
fi
check "nothing ran again" hasnt "on the real exchange (round" "$work/again-val.out"
# A row's costs moved to its machine's speed say so, read back; a factor that is not above 0 is refused by its path.
python3 - "$src/tests/data/validate/suite-measured.json" "$work/moved.json" "$work/bad-moved.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["comparisons"]:
    c.pop("machine_slowdown", None)  # one row moved, the rest as calibrated
d["comparisons"][0]["machine_slowdown"] = {"compute": 1.2, "calls": 1}
json.dump(d, open(sys.argv[2], "w"))
d["comparisons"][0]["machine_slowdown"]["compute"] = -1
json.dump(d, open(sys.argv[3], "w"))
PY
"$exsim" validate --measured "$work/moved.json" "$src/scenarios/validation" >"$work/moved.out" 2>&1
check "costs moved to a row's machine: said, with the factor read back" \
  has "the machine's speed around 1 of $(json_get "$work/moved.json" "len(d['comparisons'])") runs, against its costs' calibration: compute x1.20-1.20;" "$work/moved.out"
check "costs moved: a calls' factor of 1 is left out" hasnt "calls between processes x" "$work/moved.out"
"$exsim" validate --measured "$work/bad-moved.json" >/dev/null 2>"$work/bad-moved.err"
check "a machine_slowdown factor not above 0: exit 2" test $? -eq 2
check "a machine_slowdown factor not above 0: its file and path" \
  has "bad-moved.json:/comparisons/0/machine_slowdown/compute: expected a number > 0" "$work/bad-moved.err"
mkdir -p "$work/strict" && cp "$src"/scenarios/validation/*.json "$work/strict/"
cp "$src/tests/data/validate/strict/suite.json" "$work/strict/"
"$exsim" validate --measured "$src/tests/data/validate/suite-measured.json" "$work/strict" >"$work/strict.out" 2>&1
check "beyond the thresholds exits 1" test $? -eq 1
check "says which threshold" has "exceeds the threshold of 0.0%" "$work/strict.out"
check "shows where they differ: CPU by stage" has "CPU by stage" "$work/strict.out"
check "shows where they differ: CPU of all stages" has "all stages" "$work/strict.out"
check "shows where they differ: network time" has "network mean" "$work/strict.out"
check "shows where they differ: receiver time" has "receiver mean" "$work/strict.out"

# 4. A recorded measurement of the whole suite on the development machine,
#    judged by this build's model: within the thresholds; and with each
#    deliberate error in the model, beyond them (the gate's teeth, without timing).
recorded=$src/tests/data/validate/suite-measured.json
"$exsim" validate --measured "$recorded" "$src/scenarios/validation" --json "$work/again.json" >"$work/again.out" 2>&1
check "the recorded suite passes with this model" test $? -eq 0
# The validated region built into exsim is the recorded suite's points.
"$exsim" validate --measured "$recorded" "$src/scenarios/validation" --region "$work/region.json" >/dev/null 2>&1
check "scenarios/validation/region.json is the recorded suite's (validate --measured ... --region)" \
  cmp -s "$work/region.json" "$src/scenarios/validation/region.json"
for error in no-latency one-in-flight lz4-half-cost lz4-double-cost nic-doubled; do
  "$exsim" validate --measured "$recorded" "$src/scenarios/validation" --model-error "$error" >"$work/err.out" 2>&1
  check "model error $error fails the recorded suite" test $? -eq 1
  check "model error $error is named in the report" has "deliberate error: $error" "$work/err.out"
done

# Rows left unjudged (a machine too noisy for their runs): up to suite.json's
# unjudged_max (2), the other rows are judged and still fail every model error;
# one more, no verdict. The recorded suite with its two rows of largest error
# marked unsteady, then three.
python3 - "$recorded" "$work/unjudged2.json" "$work/unjudged3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
order = sorted(range(len(d['comparisons'])), key=lambda i: -abs(d['comparisons'][i]['error']['wall_s']))
for out, count in ((sys.argv[2], 2), (sys.argv[3], 3)):
    for i in order[:count]:
        d['comparisons'][i]['steady'] = False
        d['comparisons'][i]['unsteady_why'] = '1 of 6 runs on a steady machine'
    json.dump(d, open(out, 'w'))
PY
"$exsim" validate --measured "$work/unjudged2.json" "$src/scenarios/validation" >"$work/unjudged2.out" 2>&1
check "2 rows unjudged: a verdict on the others" test $? -eq 0
check "2 rows unjudged: named, with why" has "1 of 6 runs on a steady machine" "$work/unjudged2.out"
check "2 rows unjudged: marked in the table" test "$(grep -c '(unjudged)' "$work/unjudged2.out")" -eq 2
for error in no-latency one-in-flight lz4-double-cost nic-doubled; do
  "$exsim" validate --measured "$work/unjudged2.json" "$src/scenarios/validation" --model-error "$error" \
    >"$work/err.out" 2>&1
  check "2 rows unjudged: model error $error still fails the others" test $? -eq 1
done
# The capped link's rows left unjudged (the recorded suite has its 64K): the others
# cannot catch NICs twice as fast, so the gate, which demands every model error fail, fails.
python3 - "$recorded" "$work/no-nic-row.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d['comparisons']:
    if c['scenario'] == 'val-bandwidth':
        c['steady'] = False
json.dump(d, open(sys.argv[2], 'w'))
PY
"$exsim" validate --measured "$work/no-nic-row.json" "$src/scenarios/validation" --model-error nic-doubled \
  >"$work/err.out" 2>&1
check "the capped link's rows unjudged: nic-doubled goes uncaught (exit 0), which fails the gate" test $? -eq 0
"$exsim" validate --measured "$work/unjudged3.json" "$src/scenarios/validation" >"$work/unjudged3.out" 2>&1
check "3 rows unjudged: no verdict (exit 4)" test $? -eq 4
check "3 rows unjudged: says how many the thresholds allow" has "3 of $(json_get "$recorded" "len(d['comparisons'])") rows unjudged, more than the 2" \
  "$work/unjudged3.out"

# A median beyond its threshold with no row beyond its own: the three rows
# furthest off are shown by stage all the same.
mkdir -p "$work/median-only" && cp "$src"/scenarios/validation/*.json "$work/median-only/"
echo '{"wall_median_error": 0.001, "wall_max_error": 0.99, "rpcs_error": 0.99, "bytes_error": 0.99,
  "sender_peak_error": 0.99}' >"$work/median-only/suite.json"
"$exsim" validate --measured "$recorded" "$work/median-only" >"$work/median.out" 2>&1
check "a median beyond its threshold fails" test $? -eq 1
check "the three rows furthest off shown by stage" test "$(grep -c 'where the model and the measurement differ' "$work/median.out")" -eq 3

# 5. Bad input: exit 2 with a clear message, nothing run.
"$exsim" validate "$work/nothing-here" >/dev/null 2>"$work/bad1"
check "missing input exits 2" test $? -eq 2
check "names the missing input" has "nothing-here" "$work/bad1"
echo '{"wall_max": 1}' >"$work/suite.json" && cp "$src/tests/data/validate/small.json" "$work/"
"$exsim" validate "$work" --profile "$work/profile.json" >/dev/null 2>"$work/bad2"
check "bad suite.json exits 2" test $? -eq 2
check "names the file and key" has "suite.json:/wall_max" "$work/bad2"
"$exsim" validate "$src/tests/data/validate/small.json" --profile "$work/missing-profile.json" >/dev/null 2>"$work/bad3"
check "missing profile exits 2" test $? -eq 2
"$exsim" validate "$src/tests/data/bad/zero-rows.json" "$src/tests/data/bad/zero-size.json" \
  --profile "$work/profile.json" >/dev/null 2>"$work/bad7"
check "two bad scenarios exit 2" test $? -eq 2
check "the first bad scenario's problem" has "zero-rows.json:/workload/queries/0/exchanges/0/rows" "$work/bad7"
check "the second bad scenario's problem" has "zero-size.json:/policies/16K/receiver_buffer" "$work/bad7"
"$exsim" calibrate --repetitions 0 >/dev/null 2>"$work/bad4"
check "bad --repetitions exits 2" test $? -eq 2
"$exsim" validate "$src/tests/data/validate/small.json" --timeout 0 >/dev/null 2>"$work/bad5"
check "bad --timeout exits 2 before any run" test $? -eq 2
check "names the flag and the range" has "--timeout 0: expected 1 to" "$work/bad5"
"$exsim" run "$src/tests/data/validate/small.json" --timeout -1 >/dev/null 2>"$work/bad6"
check "run: bad --timeout exits 2" test $? -eq 2
"$exsim" calibrate --cpus 0-x >/dev/null 2>"$work/bad8"
check "bad --cpus exits 2" test $? -eq 2
check "names what --cpus expects" has "expected CPU numbers" "$work/bad8"
"$exsim" calibrate --cpus 9999 >/dev/null 2>"$work/bad9"
check "a CPU this process may not use exits 2" test $? -eq 2
"$exsim" validate --measured "$work/val.json" --model-error lz4-free >/dev/null 2>"$work/bad10"
check "unknown --model-error exits 2" test $? -eq 2
check "lists the model errors" has "no-latency, one-in-flight, lz4-half-cost, lz4-double-cost, nic-doubled" "$work/bad10"
"$exsim" validate --measured "$work/val.json" --profile "$work/profile.json" >/dev/null 2>"$work/bad11"
check "--measured with --profile exits 2" test $? -eq 2
"$exsim" validate --measured "$work/nothing.json" >/dev/null 2>"$work/bad12"
check "a missing --measured file exits 2" test $? -eq 2
check "names it" has "nothing.json" "$work/bad12"
"$exsim" calibrate --help >"$work/help" 2>&1
check "calibrate --help" has "usage: exsim calibrate" "$work/help"
"$exsim" validate --help >"$work/help" 2>&1
check "validate --help" has "usage: exsim validate" "$work/help"
check "validate --help tells of --measured" has "--measured" "$work/help"

summary
