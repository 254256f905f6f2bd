set terminal png size 900,500 noenhanced
set datafile separator ','
set output 'fig4-real.png'
set style data histograms
set style fill solid 0.8 border -1
set key top left
set title 'Fig. 4 on real places: categories an event is routed to'
set ylabel 'categories per event'
set yrange [0:*]
plot 'fig4-real.csv' every ::1 using 3:xtic(stringcolumn(1).' '.stringcolumn(2)) title 'during training', \
     '' every ::1 using 4 title 'after training'
