set terminal png size 900,500 noenhanced
set datafile separator ','
set output 'fig6.png'
set xtics rotate by -20
set style data histograms
set style fill solid 0.8 border -1
set logscale y
set title 'Fig. 6: event throughput after training (one core)'
set ylabel 'events/s'
plot 'fig6.csv' using 2:xtic(1) notitle
