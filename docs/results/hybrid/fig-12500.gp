set terminal pngcairo size 1000,420 font ",10"
set output "fig-12500.png"
set multiplot layout 1,3 title "Google trace (first 100 min, 300x), 12500 machines x 16 slots"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set grid ytics
set key top left
set xtics rotate by -30
set title "short jobs: response (ms)"
plot "summary-12500.dat" using 3:xtic(2) title "p50", "" using 4 title "p90", "" using 5 title "p99"
set title "long tasks: placement latency (ms)"
plot "summary-12500.dat" using ($6 > 0 ? $6 : 1/0):xtic(2) title "p50", "" using ($7 > 0 ? $7 : 1/0) title "p99"
set title "probes behind long tasks"
unset logscale y
plot "summary-12500.dat" using 8:xtic(2) title "probes" lc rgb "#aa3333"
unset multiplot
