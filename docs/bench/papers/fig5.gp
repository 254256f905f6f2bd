set terminal png size 800,640 noenhanced
set datafile separator ','
set output 'fig5.png'
set datafile separator ','
set key below
set grid
set title 'Fig. 5: subscriptions moved by merging (4 workers)'
set xlabel 'events processed'
set ylabel 'subscriptions moved (cumulative)'
plot 'fig5.csv' using 1:10 with linespoints title 'merge_th=0: all merges', 'fig5.csv' using 1:11 with linespoints title 'merge_th=1: all merges', 'fig5.csv' using 1:12 with linespoints title 'merge_th=1:merge_each=1: all merges', 'fig5.csv' using 1:13 with linespoints title 'merge_th=1:merge_finite=1: all merges', '' using 1:5 with lines dashtype 2 title 'merge_th=1: between workers', '' using 1:7 with lines dashtype 2 title 'merge_th=1:merge_each=1: between workers', '' using 1:9 with lines dashtype 2 title 'merge_th=1:merge_finite=1: between workers'
