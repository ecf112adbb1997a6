# The round-trip times between hosts as a heatmap. Data: rtt_ms.csv from
# `exsim report --csv`: a matrix with host names as the first row and column.
# By hand: gnuplot -e "data='rtt_ms.csv'; out='rtt.svg'" plots/rtt_heatmap.gp
set terminal svg size 560,480 dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set datafile separator ','
set title 'RTT between hosts (ms)'
set palette defined (0 '#f7fbff', 0.5 '#6baed6', 1 '#08306b')
set cbrange [0:*]
set size ratio -1
set xtics rotate by -30
set yrange [] reverse
set tics scale 0
plot data matrix rowheaders columnheaders using 1:2:3 with image pixels notitle, \
     data matrix rowheaders columnheaders using 1:2:(sprintf('%.2f', $3)) with labels font ',9' notitle
