#!/usr/bin/env bash
# exsim report as a user sees it: a report from simulated, swept and validated
# results, rendered in headless Chromium (a screenshot, its plots in the DOM, no
# console errors, nothing fetched), its Markdown and CSV, the recommendation
# under a memory budget, the gnuplot scripts run by hand on the CSV, bad input.
# Usage: report_test.sh EXSIM SOURCE_DIR
set -u
source "$(dirname "$0")/checks.sh"
trap 'rm -rf "$work"' EXIT

"$exsim" simulate "$src/scenarios/default.json" --json "$work/sim.json" >/dev/null
"$exsim" sweep "$src/scenarios/default.json" --vary 'policies.16K.buffer.flat=16K,64K,256K' --vary mt_dop=0,4 \
  --policy 16K --jobs 2 -o "$work/sweep.jsonl" 2>/dev/null
timeout 120 "$exsim" validate "$src/tests/data/validate/small.json" --repetitions 1 --json "$work/validation.json" \
  >/dev/null 2>&1
check "inputs made" test -s "$work/sim.json" -a -s "$work/sweep.jsonl" -a -s "$work/validation.json"

# 1. The report: HTML, Markdown and CSV (its directory made by the report).
"$exsim" report "$work/sim.json" "$work/sweep.jsonl" "$work/validation.json" -o "$work/report.html" \
  --memory-budget 2M --markdown "$work/report.md" --csv "$work/csv" >"$work/out" 2>"$work/err"
check "report exits 0" test $? -eq 0
check "report written" test -s "$work/report.html"
check "recommendation printed" has "within the 2.00 MiB budget" "$work/out"
for fig in rtt_heatmap wall_vs_buffer sender_memory rpcs cpu_by_stage predicted_vs_measured; do
  check "figure $fig inline" has "id=\"figure-$fig\"" "$work/report.html"
  check "figure $fig data" test -s "$work/csv/$fig.csv"
done
check "self-contained: no external resource" python3 -c "
import re
html = open('$work/report.html').read()
assert not re.search(r'<(script|link|img|iframe)\b', html), 'an element that fetches'
assert not re.search(r'(src|href)=\"(https?:)?//', html), 'a remote reference'
"
check "markdown: the table, a sweep's MT_DOP a column" has "| # | MT\\_DOP | result | wall | vs baseline |" "$work/report.md"
check "markdown: the validation" has "| policy | predicted | measured | wall error |" "$work/report.md"
check "markdown: the recommendation" has "within the 2.00 MiB budget" "$work/report.md"
check "markdown: what bounded each result" grep -qE '^\| #1 \| [0-9]* \| [^|]*16K[^|]* \|.*\| [a-zA-Z ]+ [0-9]+%(, [a-zA-Z ]+ [0-9]+%)? \|$' "$work/report.md"
# Results of one scenario at two MT_DOPs, simulated apart (not a sweep): each its own point,
# labelled by its MT_DOP, compared with its own baseline, recommended apart; with the costs' range.
"$exsim" simulate "$src/scenarios/default.json" --set mt_dop=4 --cost-spread 20 -o "$work/mt4.json" >/dev/null 2>&1
"$exsim" report "$work/sim.json" "$work/mt4.json" --memory-budget 64M --markdown "$work/mt.md" -o "$work/mt.html" >/dev/null 2>&1
check "two MT_DOPs: labelled" has "| #5 | 4 | 16K |" "$work/mt.md"
check "two MT_DOPs: each against its own baseline" grep -qE '^\| #5 \| 4 \| 16K \| [0-9.]+ ms \([0-9. ms-]+\) \| \+0\.0% \|' "$work/mt.md"
check "two MT_DOPs: recommended apart, a line each" test "$(grep -cE '^- \*\*MT\\_DOP [04]: ' "$work/mt.md")" -eq 2

# 2. Headless Chromium: the page renders, has its plots, and logs no console error.
if command -v chromium >/dev/null; then
  chrome=(timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
          --disable-extensions --user-data-dir="$work/chrome")
  "${chrome[@]}" --window-size=1200,4000 --screenshot="$work/shot.png" "file://$work/report.html" \
    >/dev/null 2>"$work/shot.err"
  check "screenshot taken" test -s "$work/shot.png"
  check "screenshot is a PNG of the page" python3 -c "
data = open('$work/shot.png', 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n' and len(data) > 50000, len(data)
"
  "${chrome[@]}" --dump-dom --enable-logging=stderr --v=0 "file://$work/report.html" >"$work/dom.html" 2>"$work/dom.err"
  check "the rendered DOM has the six plots" test "$(grep -o '<svg' "$work/dom.html" | wc -l)" -ge 6
  check "the rendered DOM has the recommendation" has 'id="recommendation"' "$work/dom.html"
  check "no console errors" test "$(grep -ci 'CONSOLE.*\(error\|uncaught\)\|Failed to load resource' "$work/dom.err")" -eq 0
else
  check "chromium is installed (scripts/install-deps)" false
fi

# Each cost alone over its range: the tornado and whether the recommendation holds.
"$exsim" simulate "$src/scenarios/default.json" --policy 16K --policy 64K --sensitivity -o "$work/sens.json" >/dev/null 2>&1
"$exsim" report "$work/sens.json" -o "$work/sens.html" --csv "$work/sens-csv" >"$work/out-sens" 2>&1
check "sensitivity: the tornado" has 'id="figure-sensitivity"' "$work/sens.html"
check "sensitivity: its data, a row per cost" python3 -c "
import csv, sys
rows = list(csv.reader(open('$work/sens-csv/sensitivity.csv')))
assert rows[0][:3] == ['row', 'cost', '16K'] and len(rows) == 14, rows[0]
assert rows[1][1] == 'lz4_compress_bytes_per_s' and rows[-1][1] == 'every cost', rows"
check "sensitivity: the recommendation holds over each cost's range" has "Over each cost's range: 64K is the pick at both ends" "$work/out-sens"

# 3. The recommendation follows the budget.
"$exsim" report "$work/sim.json" "$work/sweep.jsonl" -o "$work/r2.html" --memory-budget 1K >"$work/out2"
check "a budget nothing fits: said so" has "No result keeps its worst-case per-host sender memory within the 1.00 KiB budget" "$work/out2"
"$exsim" report "$work/sim.json" -o "$work/r3.html" >"$work/out3"
# The rule: the least memory within the margin (the suite's median error, 2.3%) of the fastest.
check "without a budget: the least memory within the margin" has "Recommended: 64K, the least worst-case per-host sender memory within 2.3% of the fastest" "$work/out3"
check "without a budget: the fastest, said" has "The fastest, 128K, is 1.1% faster with 8.72 MiB: within the margin, not told apart." "$work/out3"
"$exsim" report "$work/sim.json" -o "$work/r4.html" --margin 0.5 >"$work/out4"
check "--margin 0.5: the fastest" has "Recommended: 128K" "$work/out4"
"$exsim" report "$work/sim.json" -o "$work/r5.html" --margin 80 >/dev/null 2>"$work/e5"
check "--margin out of range: exit 2" test $? -eq 2
check "--margin out of range: said" has "--margin 80: expected a percentage from 0 to 50" "$work/e5"

# 3b. advise -o read as results: the same pick by the same rule.
"$exsim" advise "$src/scenarios/default.json" --memory-budget 16M --no-sensitivity -o "$work/advice.json" >/dev/null 2>&1
"$exsim" report "$work/advice.json" --memory-budget 16M -o "$work/advice.html" >"$work/out-advice" 2>&1
check "advise -o: read" has "Recommended: budget-1M within the 16.0 MiB budget" "$work/out-advice"
check "advise -o: every candidate simulated, in the table" grep -q '<td class="text">flat-<wbr>128K</td>' "$work/advice.html"

# 4. The scripts in plots/ run by hand on the CSV.
for fig in rtt_heatmap wall_vs_buffer rpcs cpu_by_stage predicted_vs_measured; do
  gnuplot -e "data='$work/csv/$fig.csv'; out='$work/$fig.svg'" "$src/plots/$fig.gp" 2>"$work/gp.err"
  check "plots/$fig.gp by hand" grep -q "<svg" "$work/$fig.svg"
done
gnuplot -e "data='$work/csv/sender_memory.csv'; out='$work/mem.svg'; budget=2097152" "$src/plots/sender_memory.gp"
check "plots/sender_memory.gp by hand, with a budget" grep -q "memory budget" "$work/mem.svg"

# 4b. A parallel sweep's report is numbered by point, whatever order the points finished in.
"$exsim" report "$work/sweep.jsonl" -o "$work/sweep.html" >/dev/null 2>"$work/e-sweep"
check "a whole sweep: no warning" test ! -s "$work/e-sweep"
# A sweep cut short: said on standard error and in the report.
head -n 4 "$work/sweep.jsonl" >"$work/cut.jsonl"
"$exsim" report "$work/cut.jsonl" -o "$work/cut.html" --markdown "$work/cut.md" >/dev/null 2>"$work/e-cut"
check "points missing: said" grep -qE "warning: .*cut.jsonl: [0-9] of the sweep's 6 points; the others are missing" "$work/e-cut"
check "points missing: in the report" grep -q 'class="warning"' "$work/cut.html"
check "points missing: in the Markdown" grep -q "^Warning: .*the others are missing" "$work/cut.md"
cp "$work/sweep.jsonl" "$work/run.jsonl.partial"
"$exsim" report "$work/run.jsonl.partial" -o "$work/partial.html" >/dev/null 2>"$work/e-partial"
check "a .partial file: said" has "(a .partial file: the sweep had not finished)" "$work/e-partial"
check "sweep report: point 0 first" has '<td>#1</td><td>0</td><td class="text">16K (buffer 16K)</td>' "$work/sweep.html"
check "sweep report: point 5 last" has '<td>#6</td><td>4</td><td class="text">16K (buffer 256K)</td>' "$work/sweep.html"

# 5. Bad input: exit 2, named.
echo '{"not": "results"}' >"$work/bad.json"
"$exsim" report "$work/bad.json" -o "$work/bad.html" >/dev/null 2>"$work/e1"
check "not results: exit 2" test $? -eq 2
check "not results: file named" has "bad.json" "$work/e1"
check "not results: nothing written" test ! -e "$work/bad.html"
"$exsim" report "$work/sim.json" --memory-budget lots -o "$work/bad2.html" >/dev/null 2>"$work/e2"
check "bad budget: exit 2" test $? -eq 2
check "bad budget: named" has "--memory-budget lots" "$work/e2"
"$exsim" report "$work/sim.json" -o "$work/wrong.md" >/dev/null 2>"$work/e6"
check "HTML into a .md file: exit 2" test $? -eq 2
check "HTML into a .md file: said, with the flag for Markdown" has "--output $work/wrong.md: writes HTML, but the name says Markdown; name it .html (for Markdown, --markdown FILE)" "$work/e6"
check "HTML into a .md file: nothing written" test ! -e "$work/wrong.md"
"$exsim" report "$work/sim.json" --csv "$work/sim.json" -o "$work/bad3.html" >/dev/null 2>"$work/e3"
check "--csv on a file: exit 2" test $? -eq 2
check "--csv on a file: named" has "not a directory" "$work/e3"
check "--csv on a file: nothing written" test ! -e "$work/bad3.html"
"$exsim" report "$work/bad.json" --csv "$work/never" -o "$work/bad4.html" >/dev/null 2>&1
check "bad input: no CSV directory made" test ! -e "$work/never"

# 6. Outputs: never over an input, and all or none.
cp "$work/sim.json" "$work/keep.html"  # results, named as the report it would write
"$exsim" report "$work/keep.html" -o "$work/keep.html" >/dev/null 2>"$work/e5"
check "-o over an input: exit 2" test $? -eq 2
check "-o over an input: named" has "is a file this command reads" "$work/e5"
check "-o over an input: the results kept" cmp -s "$work/sim.json" "$work/keep.html"
"$exsim" report "$work/sim.json" -o "$work/half.html" --markdown /proc/exsim-report-test.md --csv "$work/halfcsv" \
  >/dev/null 2>"$work/e6"
check "an output that cannot be written: non-zero exit" test $? -ne 0
check "an output that cannot be written: named" has "exsim-report-test.md" "$work/e6"
check "an output that cannot be written: no HTML either" test ! -e "$work/half.html"
check "an output that cannot be written: no CSV either" test -z "$(ls -A "$work/halfcsv" 2>/dev/null)"
# A --csv directory whose files include an input: refused, the input kept.
mkdir -p "$work/csvin"
"$exsim" report "$work/sim.json" -o "$work/first.html" --csv "$work/csvin" >/dev/null 2>&1
cp "$work/sim.json" "$work/csvin/rpcs.csv"  # results, named as a CSV the report writes
cp "$work/csvin/rpcs.csv" "$work/rpcs-before.csv"
"$exsim" report "$work/csvin/rpcs.csv" -o "$work/second.html" --csv "$work/csvin" >/dev/null 2>"$work/e7"
check "--csv over an input: exit 2" test $? -eq 2
check "--csv over an input: named" has "--csv $work/csvin/rpcs.csv: is a file this command reads" "$work/e7"
check "--csv over an input: the input kept" cmp -s "$work/csvin/rpcs.csv" "$work/rpcs-before.csv"

summary
