# Each cost alone at both ends of its range (exsim simulate --sensitivity): a
# row per cost, the largest swing at the top; in each row a bar per policy from
# its wall-clock at the cost's cheap end to its dear end, a tick at the
# simulated wall-clock. Data: sensitivity.csv from `exsim report --csv`
# (row,cost, then per policy: its name (the cheap end),dear,simulated).
# By hand: gnuplot -e "data='sensitivity.csv'; out='sensitivity.svg'" plots/sensitivity.gp
set datafile separator ','
# The first line is the header, never data (a policy named 16K reads as the number 16).
set key autotitle columnhead
stats data using 1 name 'R' nooutput
rows = R_max + 1
stats data skip 1 nooutput
policies = int((STATS_columns - 2) / 3)
set terminal svg size 1000,(140 + 22 * rows * (policies > 3 ? 2 : 1)) dynamic noenhanced font 'sans,11' background '#ffffff'
set output out
set title 'Wall-clock with each cost at the cheap and at the dear end of its range (ticks: as simulated)'
set xlabel 'wall-clock (s)'
set yrange [-0.6:rows - 0.4]
set ytics scale 0
set grid xtics
set key outside right top vertical
set style fill solid 0.6 border -1
colours = "#4472c4 #ed7d31 #70ad47 #7030a0 #c00000 #7f7f7f"
height = 0.8 / policies
offset(p) = 0.4 - height * (p + 0.5)
cheap(p) = column(3 + 3 * p)
dear(p) = column(4 + 3 * p)
# The costs' names on the axis once, at each row's middle (an invisible point).
plot data using (column(5)):1:ytic(2) with points pt 0 ps 0 notitle, \
     for [p=0:policies - 1] data using (0.5 * (cheap(p) + dear(p))):(column(1) + offset(p)):(0.5 * abs(dear(p) - cheap(p))):(0.45 * height) \
       with boxxyerror lc rgb word(colours, p + 1) title columnhead(3 + 3 * p), \
     for [p=0:policies - 1] data using (column(5 + 3 * p)):(column(1) + offset(p)) with points pt 2 ps 0.6 lc rgb '#000000' notitle
