# gnuplot script of `make bench`: locality over time, one panel per
# (guest config, workload), one curve per arm.  Run from build/bench/,
# which holds locality.dat and locality-panels.gp written by report.py
# (the panel list depends on which runs exist).
set xlabel 'seconds since the write phase started (TCG guest time)'
set ylabel 'local pages %'
set yrange [0:105]
set xrange [0:*]
set key bottom right
set grid
load 'locality-panels.gp'
