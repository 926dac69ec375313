set terminal pngcairo size 900,600 noenhanced
set output 'mdes_vs_levels_1280x720.png'
set title 'Throughput at 1280x720 (median, upload + algorithm + read-back)'
set xlabel 'disparity levels'
set ylabel 'Mde/s'
set logscale x 2
set logscale y 10
set key outside right
set grid
titles = 'sgbm/opencv'
plot for [i=0:0] 'mdes_vs_levels_1280x720.dat' index i using 1:2 with linespoints lw 2 title word(titles, i+1)
