# docs/scale-out.png from bench_scaleout's makespans (bench/scaleout.sh), the
# 6,144-host fabric with every link simulated, one thread per rank: speed-up
# over one rank of the link-simulation phase (left) and of the whole run
# with its serial phases (right), per scheduler.
# gnuplot -e "nc='MAKESPANS.csv'; png='OUT.png'" scaleout.gp
set datafile separator ","
set terminal pngcairo size 1100,420 font ",10"
set output png
set multiplot layout 1,2
set logscale xy 2
set xlabel "ranks (1 thread each)"
set ylabel "speed-up over 1 rank"
set key top left
set grid
do for [k = 1:2] {
    o = k == 1 ? 6 : 2 # first column of the panel's four schedulers, less one
    set title k == 1 ? "link simulations (6,144 hosts, 14,420 links)" : "whole run (serial phases on every rank)"
    base = system(sprintf("awk -F, 'NR == 2 { print $%d }' %s", o + 2, nc)) + 0
    plot nc every ::1 using ($2 == 1 ? $1 : 1/0):(base / column(o + 1)) with linespoints title "bound", \
         '' every ::1 using ($2 == 1 ? $1 : 1/0):(base / column(o + 2)) with linespoints title "dynamic (tailor)", \
         '' every ::1 using ($2 == 1 ? $1 : 1/0):(base / column(o + 3)) with linespoints title "static round-robin", \
         '' every ::1 using ($2 == 1 ? $1 : 1/0):(base / column(o + 4)) with linespoints title "Parsimon's split"
}
unset multiplot
