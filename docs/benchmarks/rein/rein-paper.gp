set datafile separator ','
set terminal pngcairo size 800,500
set logscale xy
set key top left
set grid
set xlabel 'subscriptions'
set ylabel 'microseconds'
set output 'rein-paper-match.png'
set title 'MP-REIN paper setup (m=10, c=15, k=10, width 0.3): matching time per event (wall)'
plot 'rein-paper.csv' using 1:2 with linespoints title 'rein', 'rein-paper.csv' using 1:3 with linespoints title 'mprein', 'rein-paper.csv' using 1:4 with linespoints title 'mprein-serial', 'rein-paper.csv' using 1:5 with linespoints title 'ivx'
set output 'rein-paper-match_cpu.png'
set title 'MP-REIN paper setup (m=10, c=15, k=10, width 0.3): matching CPU time per event'
plot 'rein-paper.csv' using 1:6 with linespoints title 'rein', 'rein-paper.csv' using 1:7 with linespoints title 'mprein', 'rein-paper.csv' using 1:8 with linespoints title 'mprein-serial', 'rein-paper.csv' using 1:9 with linespoints title 'ivx'
set output 'rein-paper-insert_cpu.png'
set title 'MP-REIN paper setup (m=10, c=15, k=10, width 0.3): insert CPU time'
plot 'rein-paper.csv' using 1:10 with linespoints title 'rein', 'rein-paper.csv' using 1:11 with linespoints title 'mprein', 'rein-paper.csv' using 1:12 with linespoints title 'mprein-serial', 'rein-paper.csv' using 1:13 with linespoints title 'ivx'
set output 'rein-paper-delete_cpu.png'
set title 'MP-REIN paper setup (m=10, c=15, k=10, width 0.3): delete CPU time'
plot 'rein-paper.csv' using 1:14 with linespoints title 'rein', 'rein-paper.csv' using 1:15 with linespoints title 'mprein', 'rein-paper.csv' using 1:16 with linespoints title 'mprein-serial', 'rein-paper.csv' using 1:17 with linespoints title 'ivx'
