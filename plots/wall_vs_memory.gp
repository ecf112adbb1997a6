# Wall-clock against worst-case per-host sender memory, a point per result
# (numbered as in the report's table): filled on the front (no result of its
# scenario and environment point is as fast with less memory), hollow when
# dominated; the memory budget a dashed line. The report's central plot.
# label_dominated=0 labels the front's points only (the report sets it past a
# dozen results, where every label would hide another).
# Data: wall_vs_memory.csv from `exsim report --csv` (result, sender_worst_bytes, wall_s, on_front).
# By hand: gnuplot -e "data='wall_vs_memory.csv'; out='front.svg'; budget=2147483648" plots/wall_vs_memory.gp
set terminal svg size 820,440 dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set datafile separator ','
if (!exists("budget")) budget = 0
if (!exists("label_dominated")) label_dominated = 1
set title 'Wall-clock against worst-case per-host sender memory'
set xlabel 'worst-case per-host sender memory'
set ylabel 'wall-clock (s)'
set logscale x 2
set format x '%.0b%BB'
set yrange [0:*]
set key outside right top
set grid
if (budget > 0) {
  set arrow from first budget, graph 0 to first budget, graph 1 nohead lw 2 dt 2 lc rgb '#c00000' front
  set label 'memory budget' at first budget, graph 1 offset 0.5, -1 tc rgb '#c00000' front
}
plot data using 2:($4 == 1 ? $3 : NaN) with points pt 7 ps 1.3 lc rgb '#2e7d32' title 'on the front', \
     '' using 2:($4 == 0 ? $3 : NaN) with points pt 6 ps 1.3 lc rgb '#777777' title 'dominated', \
     '' using 2:3:(($4 == 1 || label_dominated) ? stringcolumn(1) : '') with labels offset char 0, 1 font ',9' notitle
