# Wall-clock against worst-case per-host sender memory, a point per result
# (numbered as in the report's table): filled on the front (no result of its
# scenario and environment point is as fast with less memory), hollow when
# dominated; the memory budget a dashed line. The report's central plot.
# Data: wall_vs_memory.csv from `exsim report --csv` (result, sender_worst_bytes,
# wall_s, on_front, and where each label goes: label_bytes, label_wall_s, label,
# empty for a point left unlabelled). The report places the labels so that
# none covers another, in the frame it gives as lm, rm, bm, tm (margins, screen
# fractions), xmin, xmax, ymin, ymax (ranges) and width, height; by hand
# without them the frame is gnuplot's own and labels may touch.
# By hand: gnuplot -e "data='wall_vs_memory.csv'; out='front.svg'; budget=2147483648" plots/wall_vs_memory.gp
if (!exists("width")) width = 820
if (!exists("height")) height = 440
set terminal svg size width,height dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set datafile separator ','
if (!exists("budget")) budget = 0
set title 'Wall-clock against worst-case per-host sender memory'
set xlabel 'worst-case per-host sender memory'
set ylabel 'wall-clock (s)'
set logscale x 2
set format x '%.0b%BB'
set grid
if (exists("lm")) {
  set lmargin at screen lm
  set rmargin at screen rm
  set bmargin at screen bm
  set tmargin at screen tm
  set key at screen rm + 0.02, screen tm left top Left reverse samplen 2
} else {
  set key outside right top
}
if (exists("xmin")) {
  set xrange [xmin:xmax]
  set yrange [ymin:ymax]
} else {
  set yrange [0:*]
}
if (budget > 0) {
  set arrow from first budget, graph 0 to first budget, graph 1 nohead lw 2 dt 2 lc rgb '#c00000' front
}
plot data using 2:($4 == 1 ? $3 : NaN) with points pt 7 ps 1.3 lc rgb '#2e7d32' title 'on the front', \
     '' using 2:($4 == 0 ? $3 : NaN) with points pt 6 ps 1.3 lc rgb '#777777' title 'dominated', \
     NaN with lines lw 2 dt 2 lc rgb '#c00000' title (budget > 0 ? 'memory budget' : ''), \
     '' using 5:6:7 with labels center font ',9' notitle
