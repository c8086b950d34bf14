# skylark-sim: a sweep of 49 points
set grid
set key top left
set yrange [0:*]
set terminal pngcairo size 960,640 enhanced font ',11'
set output 'response-p50.png'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel 'job response time, median (ms)'
unset logscale x
plot 'sweep.dat' index 0 using 1:2 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:2 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:2 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:2 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:2 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:2 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:2 with linespoints title "omniscient" noenhanced
unset output
set terminal svg size 960,640 enhanced font ',11'
set output 'response-p50.svg'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel 'job response time, median (ms)'
unset logscale x
plot 'sweep.dat' index 0 using 1:2 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:2 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:2 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:2 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:2 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:2 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:2 with linespoints title "omniscient" noenhanced
unset output
set terminal pngcairo size 960,640 enhanced font ',11'
set output 'response-p95.png'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel 'job response time, 95th percentile (ms)'
unset logscale x
plot 'sweep.dat' index 0 using 1:3 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:3 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:3 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:3 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:3 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:3 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:3 with linespoints title "omniscient" noenhanced
unset output
set terminal svg size 960,640 enhanced font ',11'
set output 'response-p95.svg'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel 'job response time, 95th percentile (ms)'
unset logscale x
plot 'sweep.dat' index 0 using 1:3 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:3 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:3 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:3 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:3 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:3 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:3 with linespoints title "omniscient" noenhanced
unset output
set terminal pngcairo size 960,640 enhanced font ',11'
set output 'response-p99.png'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel 'job response time, 99th percentile (ms)'
unset logscale x
plot 'sweep.dat' index 0 using 1:4 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:4 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:4 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:4 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:4 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:4 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:4 with linespoints title "omniscient" noenhanced
unset output
set terminal svg size 960,640 enhanced font ',11'
set output 'response-p99.svg'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel 'job response time, 99th percentile (ms)'
unset logscale x
plot 'sweep.dat' index 0 using 1:4 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:4 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:4 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:4 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:4 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:4 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:4 with linespoints title "omniscient" noenhanced
unset output
set terminal pngcairo size 960,640 enhanced font ',11'
set output 'zero-wait.png'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel 'fraction of jobs that never waited'
unset logscale x
plot 'sweep.dat' index 0 using 1:6 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:6 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:6 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:6 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:6 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:6 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:6 with linespoints title "omniscient" noenhanced
unset output
set terminal svg size 960,640 enhanced font ',11'
set output 'zero-wait.svg'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel 'fraction of jobs that never waited'
unset logscale x
plot 'sweep.dat' index 0 using 1:6 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:6 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:6 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:6 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:6 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:6 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:6 with linespoints title "omniscient" noenhanced
unset output
set terminal pngcairo size 960,640 enhanced font ',11'
set output 'p50-vs-omniscient.png'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel 'median job response, relative to omniscient'
unset logscale x
plot 'sweep.dat' index 0 using 1:9 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:9 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:9 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:9 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:9 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:9 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:9 with linespoints title "omniscient" noenhanced
unset output
set terminal svg size 960,640 enhanced font ',11'
set output 'p50-vs-omniscient.svg'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel 'median job response, relative to omniscient'
unset logscale x
plot 'sweep.dat' index 0 using 1:9 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:9 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:9 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:9 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:9 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:9 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:9 with linespoints title "omniscient" noenhanced
unset output
set terminal pngcairo size 960,640 enhanced font ',11'
set output 'p95-vs-omniscient.png'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel '95th percentile, relative to omniscient'
unset logscale x
plot 'sweep.dat' index 0 using 1:10 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:10 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:10 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:10 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:10 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:10 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:10 with linespoints title "omniscient" noenhanced
unset output
set terminal svg size 960,640 enhanced font ',11'
set output 'p95-vs-omniscient.svg'
set title "Figure 5: late binding by probe ratio, 10,000 x 4 slots, 500-task jobs, exp 100 ms" noenhanced
set xlabel 'load'
set ylabel '95th percentile, relative to omniscient'
unset logscale x
plot 'sweep.dat' index 0 using 1:10 with linespoints title "late-binding d=1" noenhanced, 'sweep.dat' index 1 using 1:10 with linespoints title "late-binding d=1.1" noenhanced, 'sweep.dat' index 2 using 1:10 with linespoints title "late-binding d=1.2" noenhanced, 'sweep.dat' index 3 using 1:10 with linespoints title "late-binding d=1.5" noenhanced, 'sweep.dat' index 4 using 1:10 with linespoints title "late-binding d=2" noenhanced, 'sweep.dat' index 5 using 1:10 with linespoints title "late-binding d=3" noenhanced, 'sweep.dat' index 6 using 1:10 with linespoints title "omniscient" noenhanced
unset output
