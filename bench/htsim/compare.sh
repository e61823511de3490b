#!/bin/sh
# Issue 44: tailor's pktsim next to csg-htsim on four cases (perm/incast x DCTCP/HPCC).
# Runs tailor on the scenario + flow-file pairs in this folder and prints, per case,
# tailor's FCT mean and p99 next to htsim's (stored in htsim_results.csv; htsim is not
# needed here).  Usage: bench/htsim/compare.sh [BUILD]   (BUILD: tailor's build dir, default build)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD="$(cd "$HERE/../.." && pwd)/$BUILD" ;; esac
TAILOR="$BUILD/tailor"
[ -x "$TAILOR" ] || { echo "compare.sh: no tailor binary at $TAILOR" >&2; exit 2; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
# nearest-rank p99 (the ceil(0.99 n)-th smallest), as in htsim_results.csv
stats() { sort -g | awk '{a[NR] = $1; s += $1} END {r = int(0.99 * NR); if (r < 0.99 * NR) r++;
    printf "%d %.1f %.1f %.1f %.1f\n", NR, s / NR, a[r], a[1], a[NR]}'; }
printf "%-13s %5s %11s %11s %11s %11s %6s %6s  %s\n" case flows tailor_mean tailor_p99 htsim_mean htsim_p99 mean_r p99_r "tailor min..max (us)"
for c in perm-dctcp incast-dctcp perm-hpcc incast-hpcc; do
    w=${c%-*}
    "$TAILOR" run "$HERE/$c.json" --flows "$HERE/$w.csv" -o "$TMP/$c" --quiet > "$TMP/$c.log" 2>&1 ||
        { cat "$TMP/$c.log" >&2; exit 1; }
    set -- $(awk -F, 'NR > 1 {print $6 / 1000}' "$TMP/$c/fct.csv" | stats)
    n=$1 tm=$2 tp=$3 tmin=$4 tmax=$5
    h=$(grep "^$c," "$HERE/htsim_results.csv") || { echo "compare.sh: $c missing from htsim_results.csv" >&2; exit 1; }
    hm=$(echo "$h" | cut -d, -f3) hp=$(echo "$h" | cut -d, -f4)
    awk -v c="$c" -v n="$n" -v tm="$tm" -v tp="$tp" -v hm="$hm" -v hp="$hp" -v lo="$tmin" -v hi="$tmax" 'BEGIN {
        printf "%-13s %5d %11.1f %11.1f %11.1f %11.1f %6.3f %6.3f  %s..%s\n", c, n, tm, tp, hm, hp, tm / hm, tp / hp, lo, hi}'
done
echo "FCT in us; ratio = tailor / htsim; htsim: $(sed -n '1s/^# //p' "$HERE/htsim_results.csv" | cut -d';' -f1)"
