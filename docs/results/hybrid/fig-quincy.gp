set terminal pngcairo size 1100,420 font ",10"
set output "fig-quincy.png"
set multiplot layout 1,3 title "Quincy's experiment: 400 nodes x 4 slots, racks of 40, 300 jobs (load 0.9 | 1.2)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key top left
set xtics rotate by -30
set title "tasks across racks (share)"
plot "< awk '$1 == 0.9' quincy.dat" using 7:xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using 7 title "load 1.2"
set title "throughput (tasks/s)"
plot "< awk '$1 == 0.9' quincy.dat" using 12:xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using 12 title "load 1.2"
set title "job response p50 (s)"
plot "< awk '$1 == 0.9' quincy.dat" using 8:xtic(2) title "load 0.9", "< awk '$1 == 1.2' quincy.dat" using 8 title "load 1.2"
unset multiplot
