#!/bin/sh
# Reads "class fct_us ideal_us" lines (bench/uno/sender_fct.sh) and prints,
# for classes intra, inter and all: flows, FCT mean and p99 (us), slowdown
# mean and p99; p99 by nearest rank. The slowdown is max(1, fct / ideal), as
# the artifact's plot_script_micro.py takes it.
#   bench/uno/sender_fct.sh fct.csv | bench/uno/class_stats.sh
set -eu
T=$(mktemp); trap 'rm -f "$T"' EXIT
cat > "$T"
stats() { sort -g | awk '{a[NR] = $1; s += $1} END {if (!NR) {print 0, 0, 0; exit}
    r = int(0.99 * NR); if (r < 0.99 * NR) r++; printf "%d %.4f %.4f\n", NR, s / NR, a[r]}'; }
for c in intra inter all; do
    set -- $(awk -v c=$c 'c == "all" || $1 == c {print $2}' "$T" | stats)
    n=$1 fm=$2 fp=$3
    set -- $(awk -v c=$c 'c == "all" || $1 == c {print ($2 > $3 ? $2 / $3 : 1)}' "$T" | stats)
    echo "$c $n $fm $fp $2 $3"
done
