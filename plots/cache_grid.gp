# The hash sender's routing per row on the real exchange (points, the bars the
# repetitions' range) and simulated (lines), over the batch size, a colour per
# channel count; one sender on the left, three sharing the cache on the right.
# Data: the CSV `exsim calibrate --grid OUT.json --grid-plot OUT.svg` writes
# beside it (channels,buffer_kib,senders,row_bytes,route_ns,route_min,route_max,route_pred,...).
# By hand: gnuplot -e "data='grid.csv'; out='grid.svg'" plots/cache_grid.gp
set terminal svg size 1100,440 dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set datafile separator ','
set key autotitle columnhead
set logscale x 2
set xrange [12:1400]
set xtics ('16K' 16, '32K' 32, '64K' 64, '128K' 128, '256K' 256, '512K' 512, '1M' 1024)
set xlabel 'batch buffer (flat)'
set ylabel 'routing and copying, ns a row'
set yrange [0:*]
set grid ytics
set key top left
colours = "#4472c4 #ed7d31 #70ad47 #7030a0 #c00000"
channels = "3 12 24 48 81"
# Whether the current line is of the i-th channel count, this panel's senders and rows of 40 B.
keep(i, senders) = column(1) == word(channels, i) + 0 && column(3) == senders + 0 && column(4) == 40
set multiplot layout 1,2
do for [senders in "1 3"] {
  set title sprintf('%s, rows of 40 B: measured (points) and the model (lines)', senders eq "1" ? 'one sender' : 'three senders sharing the cache')
  # A point of another panel, channel count or row width is left out, its y too (autoscale).
  plot for [i=1:5] data using (column(2)):(keep(i, senders) ? column(5) : 1/0):(keep(i, senders) ? column(6) : 1/0):(keep(i, senders) ? column(7) : 1/0) \
         with yerrorbars pt 7 ps 0.6 lc rgb word(colours, i) title sprintf('%s channels', word(channels, i)), \
       for [i=1:5] data using (column(2)):(keep(i, senders) ? column(8) : 1/0) \
         with lines lw 1.5 dt 2 lc rgb word(colours, i) notitle
}
unset multiplot
