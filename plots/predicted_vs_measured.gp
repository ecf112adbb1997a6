# Predicted against measured wall-clock of each validated policy, with the
# line of perfect agreement and +-10%. Data: predicted_vs_measured.csv from
# `exsim report --csv` (label, measured_s, predicted_s).
# By hand: gnuplot -e "data='predicted_vs_measured.csv'; out='pvm.svg'" plots/predicted_vs_measured.gp
set terminal svg size 600,520 dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set datafile separator ','
set title 'Predicted against measured wall-clock'
set xlabel 'measured (s)'
set ylabel 'predicted (s)'
stats data using 2 nooutput
top = STATS_max * 1.15
stats data using 3 nooutput
top = (STATS_max * 1.15 > top) ? STATS_max * 1.15 : top
set xrange [0:top]
set yrange [0:top]
set size ratio -1
set key left top
set grid
plot x title 'predicted = measured' lc rgb '#404040', \
     1.1 * x title '+10%' dt 2 lc rgb '#a0a0a0', 0.9 * x title '-10%' dt 2 lc rgb '#a0a0a0', \
     data using 2:3 with points pt 7 ps 1.2 lc rgb '#c55a11' title 'policies'
