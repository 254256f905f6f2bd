set datafile separator ','
set terminal pngcairo size 800,500
set output 'rein-scale.png'
set style data histograms
set datafile columnheaders
set style fill solid 0.8 border -1
set logscale y
set grid ytics
set key top right
set ylabel 'microseconds (log)'
set title 'Scale: 1000000 subs, 20 attributes, 10 constrained, width 0.3'
plot 'rein-scale.csv' using 2:xtic(1) title 'match per event (wall)', '' using 3 title 'match per event (CPU)', '' using 4 title 'insert (CPU)', '' using 5 title 'delete (CPU)'
