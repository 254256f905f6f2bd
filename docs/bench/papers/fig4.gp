set terminal png size 900,500 noenhanced
set datafile separator ','
set output 'fig4.png'
set xtics rotate by -20
set style data histograms
set style fill solid 0.8 border -1
set key top right
set title 'Fig. 4: categories an event is routed to'
set ylabel 'categories per event'
set yrange [0:*]
plot 'fig4.csv' using 2:xtic(1) title 'during training', '' using 3 title 'after training'
