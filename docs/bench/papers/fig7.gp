set terminal png size 800,500 noenhanced
set datafile separator ','
set output 'fig7.png'
set datafile separator ','
set style data histograms
set style fill solid 0.8 border -1
set key top right
set ylabel 'matching time per worker, s'
set title 'Fig. 7: 100000 subs, skew 0.80; events/s with the workers in parallel: off 4681685, on 8941168 (x1.91)'
plot for [k=3:4] 'fig7.csv' using k:xtic(1) title columnheader(k)
