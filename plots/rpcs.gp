# TransmitData RPCs of each result. Data: rpcs.csv from `exsim report --csv` (label, rpcs).
# By hand: gnuplot -e "data='rpcs.csv'; out='rpcs.svg'" plots/rpcs.gp
set terminal svg size 820,400 dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set datafile separator ','
set title 'TransmitData RPCs'
set ylabel 'RPCs'
set format y '%.1s%c'
set yrange [0:*]
set style data histograms
set style fill solid 0.85 border -1
set boxwidth 0.7
set xtics scale 0
# Every tick_every-th result named under its bar (the report sets it so that
# the numbers do not run together); by hand, every one.
if (!exists("tick_every")) tick_every = 1
# Bars too many for their borders: the borders would blacken them.
if (tick_every > 1) set style fill solid 0.85 noborder
set xlabel 'result (# in the report table)'
set key off
set grid ytics
plot data using 2:xtic(int($0) % tick_every == 0 ? stringcolumn(1) : '') lc rgb '#4472c4'
