# CPU time by stage of each result, stacked. Data: cpu_by_stage.csv from
# `exsim report --csv` (label, then one column of seconds per stage).
# By hand: gnuplot -e "data='cpu_by_stage.csv'; out='cpu.svg'" plots/cpu_by_stage.gp
set terminal svg size 820,440 dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set datafile separator ','
set title 'CPU time by stage'
set ylabel 'CPU seconds'
set yrange [0:*]
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set xtics scale 0
# Every tick_every-th result named under its bar (the report sets it so that
# the numbers do not run together); by hand, every one.
if (!exists("tick_every")) tick_every = 1
# Bars too many for their borders: the borders would blacken them.
if (tick_every > 1) set style fill solid 0.85 noborder
set xlabel 'result (# in the report table)'
set key outside right top autotitle columnhead
set grid ytics
stats data using 2 nooutput
columns = STATS_columns
plot for [c=2:columns] data using c:xtic(int($0) % tick_every == 0 ? stringcolumn(1) : '')
