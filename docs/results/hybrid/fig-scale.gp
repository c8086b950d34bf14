set terminal pngcairo size 1500,420 font ",10"
set output "fig-scale.png"
LOADS = system("cut -d' ' -f2 scale.dat | sort -u | tr '\\n' ' '")
NL = words(LOADS)
set multiplot layout 1,NL title "Flow node round (solve wall time) against cluster size, long jobs only, 4 slots"
set logscale xy
set xrange [700:20000]
set grid
set xlabel "machines"
set ylabel "solve wall time (ms)"
set key top left
do for [l in LOADS] {
  set title "offered load ".l
  plot for [a in "relax cost-scaling race"] sprintf("< awk '$2 == \"%s\" && $3 == \"%s\"' scale.dat", l, a) using 1:4 with linespoints title a." p50", \
       for [a in "relax cost-scaling race"] sprintf("< awk '$2 == \"%s\" && $3 == \"%s\"' scale.dat", l, a) using 1:5 with linespoints dashtype 2 title a." p99"
}
unset multiplot
