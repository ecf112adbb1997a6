# The round-trip times between placement groups as a heatmap, for clusters too
# large to show host by host: a block per pair of groups, coloured by the mean
# RTT of its hosts and labelled with their range in ms. Data: rtt_groups.csv
# from `exsim report --csv` (column, row, mean_ms, range_ms, column_group, row_group).
# By hand: gnuplot -e "data='rtt_groups.csv'; out='rtt.svg'" plots/rtt_groups.gp
set terminal svg size 560,480 dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set datafile separator ','
set title 'RTT between placement groups (ms): mean colour, range written'
set palette defined (0 '#f7fbff', 0.5 '#6baed6', 1 '#08306b')
set cbrange [0:*]
set size ratio -1
set yrange [] reverse
set tics scale 0
set key off
# Each block's range in white on the darker half of the scale.
stats data using 3 every ::1 nooutput
dark = STATS_max / 2
plot data using 1:2:3 with image pixels, \
     '' using 1:2:4:($3 > dark ? 0xffffff : 0x000000) with labels tc rgb variable font ',10', \
     '' using 1:(NaN):xtic(5), '' using (NaN):2:ytic(6)
