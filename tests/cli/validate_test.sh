#!/usr/bin/env bash
# exsim calibrate and exsim validate as a user meets them: a profile written
# in the spec's format, a small suite compared both ways with its JSON and
# Markdown, exit 1 when a threshold is exceeded, exit 2 on bad input.
# Usage: validate_test.sh EXSIM SOURCE_DIR
set -u
source "$(dirname "$0")/checks.sh"
trap 'rm -rf "$work"' EXIT
json_get() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

# 1. Calibrate: a profile the scenario loader accepts, every figure positive.
timeout 120 "$exsim" calibrate -r 2 --scale 0.3 -o "$work/profile.json" >"$work/cal.out" 2>"$work/cal.err"
check "calibrate exits 0" test $? -eq 0
check "calibrate prints each figure's spread" has "rpc_cpu_us" "$work/cal.out"
for key in serialize_bytes_per_s deserialize_bytes_per_s lz4_compress_bytes_per_s lz4_decompress_bytes_per_s rpc_cpu_us; do
  check "profile $key > 0" test "$(json_get "$work/profile.json" "d['$key'] > 0")" = True
done
check "profile says the cores" test "$(json_get "$work/profile.json" "d['cores'] >= 1")" = True
# Physically plausible on any machine: a call costs microseconds, not a millisecond;
# bytes move through the stack at GB/s, not faster than memory; framing is tens of bytes.
check "RPC CPU per side between 1 us and 1 ms" test "$(json_get "$work/profile.json" "1 <= d['rpc_cpu_us'] <= 1000")" = True
check "RPC latency under 1 ms" test "$(json_get "$work/profile.json" "d['rpc_latency_us'] < 1000")" = True
check "transfer between 100 MB/s and 1 TB/s" test "$(json_get "$work/profile.json" "1e8 <= d['transfer_bytes_per_s'] <= 1e12")" = True
check "wire overhead tens of bytes" test "$(json_get "$work/profile.json" "40 <= d['wire_overhead_bytes'] <= 200")" = True
check "profile keeps the spread" test "$(json_get "$work/profile.json" "d['spread']['rpc_cpu_us']['min'] <= d['spread']['rpc_cpu_us']['max']")" = True
"$exsim" simulate "$src/tests/data/validate/small.json" --set "costs=\"$work/profile.json\"" >/dev/null 2>"$work/sim.err"
check "the profile loads as a scenario's costs" test $? -eq 0

# 2. Validate a small suite with that profile: both halves, errors, JSON and Markdown.
timeout 180 "$exsim" validate "$src/tests/data/validate/small.json" --profile "$work/profile.json" \
  --json "$work/val.json" --markdown "$work/val.md" >"$work/val.out" 2>"$work/val.err"
code=$?
check "validate exits 0 or 1 (a verdict, not a failure)" test "$code" -le 1
check "one row per policy" test "$(json_get "$work/val.json" "len(d['comparisons'])")" = 2
check "predicted side is simulated" test "$(json_get "$work/val.json" "d['comparisons'][0]['predicted']['source']")" = simulated
check "measured side is measured" test "$(json_get "$work/val.json" "d['comparisons'][0]['measured']['source']")" = measured
check "RPC counts agree within 5% (a few partial batches)" test "$(json_get "$work/val.json" "abs(d['comparisons'][0]['error']['rpcs']) < 0.05")" = True
check "exit status follows the verdict" test "$(json_get "$work/val.json" "d['summary']['passed']")" = "$([ "$code" -eq 0 ] && echo True || echo False)"
check "table shows the median error" has "wall-clock, median" "$work/val.out"
check "markdown table" has "| --- |" "$work/val.md"

# 3. Thresholds nobody meets: exit 1, each violation named, and the stages shown.
timeout 180 "$exsim" validate "$src/tests/data/validate/strict" --profile "$work/profile.json" >"$work/strict.out" 2>&1
check "beyond the thresholds exits 1" test $? -eq 1
check "says which threshold" has "exceeds the threshold of 0.0%" "$work/strict.out"
check "shows where they differ: CPU by stage" has "CPU by stage" "$work/strict.out"
check "shows where they differ: CPU of all stages" has "all stages" "$work/strict.out"
check "shows where they differ: network time" has "RPC network time" "$work/strict.out"

# 4. Bad input: exit 2 with a clear message, nothing run.
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
"$exsim" calibrate --help >"$work/help" 2>&1
check "calibrate --help" has "usage: exsim calibrate" "$work/help"
"$exsim" validate --help >"$work/help" 2>&1
check "validate --help" has "usage: exsim validate" "$work/help"

summary
