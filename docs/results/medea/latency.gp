# docs/results/medea/latency.gp - the flow node's loop-thread time to
# place one constrained application (15 tasks) against the cluster size
# (latency.dat, from medea-runs.sh latency), the same application
# without constraints as the anchor.
set terminal pngcairo size 800,480 font ",10"
set output "latency.png"
set title "one HBase-like application (3 zk + 12 hb), one flowd round, 8 slots a node"
set xlabel "nodes"
set ylabel "end of the round, loop thread (CPU ms, median, min-max)"
set logscale xy
set yrange [0.005:*]
set grid
set key top left opaque box
plot "latency.dat" using 1:2:3:4 with yerrorlines lw 2 title "constrained", \
     "latency.dat" using 1:5:6:7 with yerrorlines lw 2 title "anchor: no constraints"
