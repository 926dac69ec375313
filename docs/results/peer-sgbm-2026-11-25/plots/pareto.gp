set terminal pngcairo size 1000,700 noenhanced
set output 'pareto.png'
set title 'Error against time per disparity estimate (accuracy runs; lower left is better)'
set xlabel 'ns per disparity estimate (log2)'
set ylabel 'bad pixels, non-occluded (%)'
set logscale x 2
set grid
set key outside right
titles = 'middlebury-v2 middlebury-v3-quarter'
plot for [i=0:1] 'pareto.dat' index i using 1:2 with points pt 7 ps 1.5 title word(titles, i+1), \
     for [i=0:1] 'pareto.dat' index i using 1:2:3 with labels offset 1,0.6 font ',8' notitle
