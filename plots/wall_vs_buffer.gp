# Wall-clock against the per-channel buffer of flat policies, one line per MT_DOP
# and RPCs-in-flight setting. Data: wall_vs_buffer.csv from `exsim report --csv`,
# one table: "buffer_bytes,<series>,<series>...", a row per buffer size, a cell
# empty where a series has no result (the line is drawn across it).
# By hand: gnuplot -e "data='wall_vs_buffer.csv'; out='wall.svg'" plots/wall_vs_buffer.gp
# height: the report's, taller with a long key.
if (!exists("height")) height = 420
set terminal svg size 820,height dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set datafile separator ','
set title 'Wall-clock against buffer size'
set xlabel 'per-channel buffer (data_stream_sender_buffer_size)'
set ylabel 'wall-clock (s)'
set logscale x 2
set format x '%.0b%BB'
set yrange [0:*]
set key outside right top autotitle columnhead font ',9' samplen 2
set grid
stats data using 1 nooutput
# Each series its own point shape and dash: series with equal values would
# otherwise hide one another on one line.
plot for [i=2:STATS_columns] data using 1:i with linespoints lw 2 pt i ps 1.2 dt i
