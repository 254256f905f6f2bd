set terminal png size 800,500 noenhanced
set datafile separator ','
set output 'fig5.png'
set datafile separator ','
set key top left
set grid
set title 'Fig. 5: subscriptions moved by merging (4 workers)'
set xlabel 'events processed'
set ylabel 'subscriptions moved (cumulative)'
plot 'fig5.csv' using 1:6 with linespoints title 'InNode (merge\_th 0): all merges', '' using 1:7 with linespoints title 'InAndBetNode (merge\_th 1): all merges', '' using 1:5 with linespoints title 'InAndBetNode: between workers'
