set terminal pngcairo size 1400,420 font ",10"
set output "fig-hawk.png"
set multiplot layout 1,4 title "Short jobs' response by percentile, trace prefix: sampling, the Hawk-like split (17% short-only), the hybrid"
set logscale y
set grid
set xlabel "percentile"
set ylabel "response (ms)"
set key top left
set xtics ("10" 1, "25" 2, "50" 3, "75" 4, "90" 5, "95" 6, "99" 7)
do for [n in "12500 10000 8000 5000"] {
  set title n." machines x 16 slots"
  plot for [m in "sampling hawk hybrid"] sprintf("< awk '$1 == \"%s\" && $2 == %s { for (i = 5; i <= 11; i++) print i - 4, $i }' hawk-detail.dat", m, n) using 1:2 with linespoints title m
}
unset multiplot
