# Per-host sender memory of each result (its largest host): observed peak,
# expected and worst case, against the memory budget (a dashed line).
# Data: sender_memory.csv from `exsim report --csv` (label, peak, expected, worst, in bytes).
# By hand: gnuplot -e "data='sender_memory.csv'; out='memory.svg'; budget=2147483648" plots/sender_memory.gp
set terminal svg size 820,440 dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set datafile separator ','
if (!exists("budget")) budget = 0
# The axis reaches the budget even when every result is far below it, in the
# binary unit of the largest figure, so that its ticks are round (0, 20, 40 MiB).
top = budget
do for [column=2:4] {
  stats data using column every ::1 nooutput
  top = STATS_max > top ? STATS_max : top
}
unit = 1; unit_name = 'B'
do for [power=1:6] {
  if (top >= 1024**power) {
    unit = 1024**power
    unit_name = word('KiB MiB GiB TiB PiB EiB', power)
  }
}
set title 'Per-host sender memory (largest host)'
set ylabel sprintf('sender memory (%s)', unit_name)
set format y '%g'
set yrange [0:(top > 0 ? 1.08 * top / unit : 1)]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set xtics scale 0
# Every tick_every-th result named under its bar (the report sets it so that
# the numbers do not run together); by hand, every one.
if (!exists("tick_every")) tick_every = 1
# Bars too many for their borders: the borders would blacken them.
if (tick_every > 1) set style fill solid 0.85 noborder
set xlabel 'result (# in the report table)'
set key outside right top autotitle columnhead
set grid ytics
if (budget > 0) {
  set arrow from graph 0, first budget / unit to graph 1, first budget / unit nohead lw 2 dt 2 lc rgb '#c00000' front
  set label 'memory budget' at graph 0.01, first budget / unit offset 0, 0.7 tc rgb '#c00000' front
}
plot data using ($2 / unit):xtic(int($0) % tick_every == 0 ? stringcolumn(1) : ''), '' using ($3 / unit), '' using ($4 / unit)
