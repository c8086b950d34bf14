# docs/results/medea/violations.gp - constraint violations against the
# offered cluster load (sweep-summary.csv, from medea-runs.sh sweep), with
# MEDEA's reported numbers (EuroSys'18, as issue 23 quotes them) beside.
set terminal pngcairo size 800,560 font ",10" noenhanced
set output "violations.png"
set datafile separator ","
set title "skylark-sim, real flow node: 200 nodes x 8 slots, 20 racks, soft constraints"
set xlabel "offered cluster load (short jobs + long-running applications)"
set ylabel "(constraint, task) pairs broken (%)"
set xrange [0.45:1.0]
set yrange [0:*]
set grid
set key outside below
plot "< grep ^intra sweep-summary.csv" using 2:4:5:6 with yerrorlines lw 2 \
         title "Skylark now (cx_wait_ms 5000), intra-application (40 apps; mean, min-max of 3 seeds)", \
     "< grep ^inter sweep-summary.csv" using 2:4:5:6 with yerrorlines lw 2 \
         title "Skylark now, inter-application (10 apps)", \
     "< grep ^inter sweep-summary-nowait.csv" using 2:4:5:6 with yerrorlines \
         dt 5 lw 1 lc rgb "#666666" \
         title "Skylark without the bounded wait (cx_wait_ms 0), inter-application", \
     "< grep ^intra sweep-summary-nowait.csv" using 2:4:5:6 with yerrorlines \
         dt 5 lw 1 lc rgb "#aaaa66" \
         title "Skylark without the bounded wait, intra-application", \
     "< grep ^inter sweep-summary-before.csv" using 2:4:5:6 with yerrorlines \
         dt 4 lw 1 lc rgb "#999999" \
         title "Skylark before (sweep of 25 Nov), inter-application", \
     "-" using 1:2 with lines dt 2 lw 2 lc rgb "#3366cc" \
         title "MEDEA (paper): about 0% intra-application up to 90% load", \
     "-" using 1:2 with lines dt 3 lw 2 lc rgb "#cc3333" \
         title "MEDEA (paper): under 10% across 10 applications"
0.5,0
0.9,0
e
0.5,10
0.95,10
e
