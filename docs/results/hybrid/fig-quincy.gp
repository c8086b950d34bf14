set terminal pngcairo size 1400,420 font ",10"
set output "fig-quincy.png"
set multiplot layout 1,4 title "Quincy's experiment: 400 nodes x 4 slots, racks of 40, 300 jobs (load 0.9 | 1.2)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key top left
set xtics rotate by -30
set title "tasks across racks (share, log; none for sampling)"
set logscale y
plot "< awk '$1 == 0.9' quincy.dat" using ($7 > 0 ? $7 : 1/0):xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using ($7 > 0 ? $7 : 1/0) title "load 1.2"
unset logscale y
set yrange [0:*]
set title "throughput (tasks/s)"
plot "< awk '$1 == 0.9' quincy.dat" using 12:xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using 12 title "load 1.2"
set title "job response p50 (s)"
plot "< awk '$1 == 0.9' quincy.dat" using 8:xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using 8 title "load 1.2"
set title "unfair share of slots (sum |running - fair| / 2 / slots)"
plot "< awk '$1 == 0.9' quincy.dat" using 13:xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using 13 title "load 1.2"
unset multiplot
