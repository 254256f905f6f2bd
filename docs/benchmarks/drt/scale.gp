set terminal png size 800,500 noenhanced
set output 'scale.png'
set datafile separator ','
set logscale xy
set key top right
set title 'FAST-style workload: events/s against subscriptions (one core)'
set xlabel 'subscriptions'
set ylabel 'events/s'
specs = system("tail -n +2 scale.csv | cut -d, -f1 | sort -u | tr '\\n' ' '")
plot for [s in specs] sprintf("< grep '^%s,' scale.csv", s) using 2:3 with linespoints title s
